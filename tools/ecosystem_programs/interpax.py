"""interpax: 1-D and 2-D cubic interpolation, jitted, with a gradient through the query."""
import jax
import jax.numpy as jnp
import interpax


def run():
  x = jnp.linspace(0.0, 2.0 * jnp.pi, 12)
  f = jnp.sin(x)
  xq = jnp.array([0.3, 1.7, 4.2, 5.9])
  cubic = jax.jit(lambda q: interpax.interp1d(q, x, f, method="cubic"))
  slope = jax.grad(lambda q: interpax.interp1d(q, x, f, method="cubic2"))(1.0)
  spline = interpax.CubicSpline(x, f)
  y = jnp.linspace(0.0, 1.0, 5)
  g = jnp.sin(x)[:, None] * jnp.cos(y)[None, :]
  planar = interpax.interp2d(xq, jnp.array([0.1, 0.4, 0.6, 0.9]), x, y, g, method="cubic")
  return {"cubic": cubic(xq), "slope": slope, "spline": spline(xq),
          "spline_derivative": spline.derivative()(xq), "planar": planar}
