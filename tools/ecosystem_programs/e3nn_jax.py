"""e3nn-jax: spherical harmonics, a tensor product and a Linear layer on IrrepsArrays."""
import e3nn_jax as e3nn
import jax
import jax.numpy as jnp


def run():
  vectors = e3nn.IrrepsArray("1o", jnp.array([[1.0, 0.0, 0.0], [0.3, 0.4, 0.5]]))
  sh = e3nn.spherical_harmonics("0e + 1o + 2e", vectors, normalize=True)
  tp = e3nn.tensor_product(vectors, vectors)
  linear = e3nn.flax.Linear("2x0e + 1o")
  params = linear.init(jax.random.PRNGKey(0), sh)
  out = linear.apply(params, sh)
  return {"sh": sh.array[1], "irreps": str(tp.irreps), "tp": tp.array[1], "linear": out.array[1],
          "norm": e3nn.norm(sh).array[1]}
