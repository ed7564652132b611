"""mpax: a small LP and QP solved with r2HPDHG and raPDHG (dense and sparse constraint
matrices), and a batch of LPs under vmap, as its README's quickstart."""
import jax
import jax.numpy as jnp
from mpax import create_lp, create_qp, r2HPDHG, raPDHG


def run():
  c = jnp.array([-1.0, -2.0, 0.5])
  A = jnp.array([[1.0, 1.0, 1.0]])
  b = jnp.array([4.0])
  G = jnp.array([[1.0, -1.0, 0.0], [0.0, 1.0, -2.0]])
  h = jnp.array([-2.0, -6.0])
  l, u = jnp.zeros(3), jnp.full(3, 3.0)
  lp = create_lp(c, A, b, G, h, l, u, use_sparse_matrix=False)
  lp_result = r2HPDHG(eps_abs=1e-4, eps_rel=1e-4).optimize(lp)
  lp_sparse = raPDHG(eps_abs=1e-4, eps_rel=1e-4).optimize(create_lp(c, A, b, G, h, l, u))
  Q = jnp.diag(jnp.array([1.0, 2.0, 0.5]))
  qp = create_qp(Q, c, A, b, G, h, l, u, use_sparse_matrix=False)
  qp_result = raPDHG(eps_abs=1e-4, eps_rel=1e-4).optimize(qp)

  def single(c_vector):
    res = r2HPDHG(eps_abs=1e-4, eps_rel=1e-4).optimize(
        create_lp(c_vector, A, b, G, h, l, u, use_sparse_matrix=False))
    return res.primal_solution, jnp.dot(c_vector, res.primal_solution)

  batch_c = jnp.stack([c, c * 2.0])
  xs, objs = jax.vmap(single)(batch_c)
  return {"lp_x": lp_result.primal_solution, "lp_sparse_x": lp_sparse.primal_solution,
          "qp_x": qp_result.primal_solution, "batch_x": xs, "batch_obj": objs}
