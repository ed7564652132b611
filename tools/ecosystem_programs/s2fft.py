"""s2fft: a band-limited signal on the sphere, synthesised and analysed again with the JAX
transforms (its README's round trip, at L=16 in double precision)."""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
import s2fft  # noqa: E402  (after x64 is set, as its README does)


def run():
  L = 16
  flm = s2fft.utils.signal_generator.generate_flm(np.random.default_rng(0), L)
  f = s2fft.inverse(flm, L, method="jax")
  flm_again = s2fft.forward(f, L, method="jax")
  grad = jax.grad(lambda x: jnp.abs(s2fft.forward(x, L, method="jax")).sum())(jnp.real(f))
  return {"signal_rows": f[:2], "signal_abs_sum": jnp.abs(f).sum(),
          "round_trip_error": jnp.abs(flm - flm_again).max() < 1e-10,
          "grad_rows": grad[:2], "grad_abs_sum": jnp.abs(grad).sum()}
