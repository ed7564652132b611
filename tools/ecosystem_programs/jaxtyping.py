"""jaxtyping: shape-checked functions with @jaxtyped(typechecker=beartype), as its README shows."""
from beartype import beartype as typechecker
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int, jaxtyped


@jaxtyped(typechecker=typechecker)
def matmul(x: Float[Array, "b n"], w: Float[Array, "n m"]) -> Float[Array, "b m"]:
  return x @ w


@jaxtyped(typechecker=typechecker)
def count(x: Int[Array, " n"]) -> Int[Array, ""]:
  return jnp.sum(x)


def run():
  x, w = jnp.ones((2, 3)), jnp.arange(12.0).reshape(3, 4)
  good = jax.jit(matmul)(x, w)
  try:
    matmul(x, jnp.ones((4, 4)))
    bad = "no error"
  except Exception as error:
    bad = type(error).__name__
  try:
    count(jnp.ones(3))
    bad_dtype = "no error"
  except Exception as error:
    bad_dtype = type(error).__name__
  return {"good": good, "bad_shape": bad, "bad_dtype": bad_dtype, "count": count(jnp.arange(4))}
