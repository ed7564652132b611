"""quadax: adaptive Gauss-Kronrod (infinite interval), Clenshaw-Curtis, Romberg and tanh-sinh
quadrature, a derivative through quadgk, and cumulative Simpson (its README's functions)."""
import jax
import jax.numpy as jnp
import quadax


def run():
  f = lambda t, c: jnp.exp(-c * t ** 2)  # noqa: E731
  gk, info = quadax.quadgk(f, [0, jnp.inf], args=(1.5,))
  cc, _ = quadax.quadcc(lambda t: jnp.sin(t) ** 2, [0.0, 3.0])
  rb, _ = quadax.romberg(lambda t: t ** 3, [0.0, 2.0])
  ts, _ = quadax.rombergts(lambda t: 1 / (1 + t ** 2), [-jnp.inf, jnp.inf])
  grad = jax.grad(lambda c: quadax.quadgk(f, [0.0, 2.0], args=(c,))[0])(1.5)
  xs = jnp.linspace(0, 1, 9)
  return {"quadgk": gk, "status": info.status, "quadcc": cc, "romberg": rb, "tanh_sinh": ts,
          "grad": grad, "cumulative_simpson": quadax.cumulative_simpson(xs ** 2, x=xs)}
