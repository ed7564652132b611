"""opt_einsum: `contract` on jax arrays (the backend picked from the arrays' type), eagerly,
jitted and differentiated, and a reusable contraction expression."""
import jax
import jax.numpy as jnp
import opt_einsum as oe


def run():
  a = jnp.arange(6.).reshape(2, 3)
  b = jnp.arange(12.).reshape(3, 4) / 10
  c = jnp.arange(4.)
  eager = oe.contract("ij,jk,k->i", a, b, c)
  jitted = jax.jit(lambda a, b: oe.contract("ij,jk->ik", a, b))(a, b)
  grad = jax.grad(lambda b: oe.contract("ij,jk,k->", a, b, c))(b)
  expr = oe.contract_expression("ij,jk->ik", (2, 3), (3, 4))
  return {"eager": eager, "eager_is_jax": type(eager).__module__.split(".")[0] in ("jax", "jaxlib"),
          "jitted": jitted, "grad": grad, "expression": expr(a, b)}
