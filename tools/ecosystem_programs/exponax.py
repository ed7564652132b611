"""exponax: the quickstart's Kuramoto-Sivashinsky rollout (ETDRK Fourier-spectral stepper from
a random truncated Fourier series) and the stepper's jacfwd Jacobian, a 2-D advection-diffusion
stepper under vmap, and the gradient of a rollout loss in the initial state."""
import jax
import jax.numpy as jnp
import exponax as ex


def run():
  ks_stepper = ex.stepper.KuramotoSivashinskyConservative(
      num_spatial_dims=1, domain_extent=100.0, num_points=64, dt=0.1)
  u_0 = ex.ic.RandomTruncatedFourierSeries(num_spatial_dims=1, cutoff=5)(
      num_points=64, key=jax.random.PRNGKey(0))
  trajectory = ex.rollout(ks_stepper, 50, include_init=True)(u_0)
  jacobian = jax.jacfwd(ks_stepper)(u_0)

  diffusion = ex.stepper.AdvectionDiffusion(2, 1.0, 16, 0.01, velocity=jnp.array([1.0, -0.5]),
                                           diffusivity=0.05)
  grid = ex.make_grid(2, 1.0, 16)
  states = jnp.stack([jnp.sin(2 * jnp.pi * k * grid[0:1]) * jnp.cos(2 * jnp.pi * grid[1:2])
                      for k in (1, 2, 3)])
  advected = jax.vmap(ex.repeat(diffusion, 10))(states)

  def loss(u):
    return jnp.mean(ex.rollout(ks_stepper, 10)(u)[-1] ** 2)

  norms = jnp.linalg.norm(trajectory[:, 0], axis=-1)
  return {"u_0": u_0[0, ::8], "final": trajectory[-1, 0, ::8], "norms": norms[::10],
          "jacobian_diag": jnp.diagonal(jacobian[0, :, 0])[::8],
          "advected": advected[:, 0, ::5, ::5], "loss": loss(u_0),
          "grad": jax.grad(loss)(u_0)[0, ::8]}
