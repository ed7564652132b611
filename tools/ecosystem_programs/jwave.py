"""jwave: a 2-D acoustic simulation of an initial pressure point in a homogeneous medium
(its README's example, on a small grid), jitted."""
import jax
import jax.numpy as jnp
from jwave import FourierSeries
from jwave.acoustics import simulate_wave_propagation
from jwave.geometry import Domain, Medium, TimeAxis


def run():
  domain = Domain((32, 32), (0.1e-3, 0.1e-3))
  medium = Medium(domain=domain, sound_speed=1500.0)
  time_axis = TimeAxis.from_medium(medium, cfl=0.3, t_end=1e-6)
  p0 = FourierSeries(jnp.zeros((32, 32)).at[16, 16].set(1.0)[..., None], domain)
  pressure = jax.jit(lambda p: simulate_wave_propagation(medium, time_axis, p0=p))(p0)
  return {"abs_sum": jnp.abs(pressure.params).sum(), "last_max": pressure.params[-1].max(),
          "steps": pressure.params.shape[0]}
