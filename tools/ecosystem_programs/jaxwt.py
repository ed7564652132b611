"""jaxwt: 1-d and 2-d fast wavelet transforms and their inverses, a stationary transform,
a wavelet packet and a gradient through wavedec (its README's examples)."""
import jax
import jax.numpy as jnp
import jaxwt as jwt
import pywt


def run():
  data = jnp.array([0., 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0])
  coeffs = jwt.wavedec(data, "haar", mode="zero", level=2)
  rec = jwt.waverec(coeffs, "haar")
  db = jwt.wavedec(jnp.sin(jnp.linspace(0, 6, 32)), pywt.Wavelet("db2"), mode="reflect", level=2)
  image = jnp.arange(2 * 16 * 16, dtype=jnp.float32).reshape(2, 16, 16) / 100.0
  c2 = jwt.wavedec2(image, "haar", level=2, mode="reflect")
  rec2 = jwt.waverec2(c2, "haar")
  sw = jwt.swt(data, "db1", level=2)
  grad = jax.grad(lambda d: jnp.sum(jwt.wavedec(d, "db2", mode="zero", level=2)[0] ** 2))(data)
  return {"coeffs": jnp.concatenate(coeffs, -1), "rec": rec,
          "db2": jnp.concatenate(db, -1), "c2_approx": c2[0], "c2_detail": c2[1][0],
          "rec2_error": jnp.max(jnp.abs(image - rec2)), "swt": jnp.concatenate(sw, -1),
          "grad": grad}
