"""jaxoplanet: a limb-darkened transit light curve of a planet on a transit orbit (its
README's example, in 64-bit as it recommends) and its derivative in the radius ratio."""
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)
from jaxoplanet.light_curves import limb_dark_light_curve  # noqa: E402
from jaxoplanet.orbits import TransitOrbit  # noqa: E402


def _curve(radius_ratio, t):
  orbit = TransitOrbit(period=3.456, duration=0.12, time_transit=0.0, impact_param=0.1,
                       radius_ratio=radius_ratio)
  return limb_dark_light_curve(orbit, [0.1, 0.06])(t)


def run():
  t = jnp.linspace(-0.2, 0.2, 9)
  return {"light_curve": _curve(0.1, t),
          "grad_radius": jax.grad(lambda r: _curve(r, t).sum())(0.1)}
