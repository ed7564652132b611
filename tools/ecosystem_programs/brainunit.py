"""brainunit: physical quantities over JAX arrays: arithmetic with unit checks, its
unit-aware math functions, jit and grad through Quantity values."""
import jax
import jax.numpy as jnp
import brainunit as u


def run():
  v = jnp.array([1.0, 2.0, 3.0]) * u.mV
  i = jnp.array([0.5, 0.25, 2.0]) * u.nA
  r = v / i
  power = (v * i).in_unit(u.pwatt)
  e = u.math.sum(power * (2.0 * u.ms))
  x = u.math.linspace(0.0 * u.second, 1.0 * u.second, 5)

  @jax.jit
  def energy(q):
    return u.math.sum(q ** 2) / u.mV ** 2

  g = jax.grad(lambda q: u.get_magnitude(u.math.sum((q * 2.0) ** 2)))(v)
  try:
    v + i
    mismatch = "no error"
  except Exception as err:
    mismatch = type(err).__name__
  return {"r_ohm": r.to_decimal(u.Mohm), "power": power.mantissa, "energy_fJ": e.to_decimal(u.fjoule),
          "linspace": x.to_decimal(u.ms), "jit": energy(v), "grad": g.mantissa,
          "grad_unit": str(g.unit), "mismatch": mismatch, "repr": repr(r)}
