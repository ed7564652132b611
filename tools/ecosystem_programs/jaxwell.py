"""jaxwell: the README's FDFD solve `x, err = jaxwell.solve(params, z, b)` in 64-bit mode: the
field of a point dipole in vacuum with a dielectric block and stretched-coordinate PMLs (an
iterative COCG solve), and jax.grad of the field's energy at a probe through the solver's
custom_vjp (an adjoint solve) in the permittivity and the source."""
import jax
import jax.numpy as jnp
import numpy as np
import jaxwell

jax.config.update("jax_enable_x64", True)


def problem(n=16):
  omega = 0.5
  eps = np.ones((n, n, n))
  eps[9:13, 4:12, 4:12] = 4.0
  z = tuple(jnp.asarray(omega ** 2 * eps, jnp.complex128) for _ in range(3))
  source = np.zeros((n, n, n), np.complex128)
  source[5, 8, 8] = 1.0
  b = (jnp.zeros_like(source), jnp.zeros_like(source), jnp.asarray(source))
  params = jaxwell.Params(pml_ths=((4, 4),) * 3, pml_omega=omega, eps=1e-6, max_iters=400)
  return params, z, b


def run():
  params, z, b = problem()
  x, err = jaxwell.solve(params, z, b)
  ez = x[2]

  def probe_energy(z, b):
    field, _ = jaxwell.solve(params, z, b)
    return jnp.sum(jnp.abs(field[2][11, 6:10, 8]) ** 2)

  grad_z, grad_b = jax.grad(probe_energy, argnums=(0, 1))(z, b)
  return {"err": err, "ez_abs": jnp.abs(ez[::3, 8, 8]), "ez_re": jnp.real(ez[8, ::3, 8]),
          "ex_norm": jnp.linalg.norm(x[0]), "energy": probe_energy(z, b),
          "grad_z": jnp.real(grad_z[2][10:13, 8, 8]), "grad_z_sum": sum(g.sum() for g in grad_z),
          "grad_b": jnp.abs(grad_b[2][5, 7:10, 8])}
