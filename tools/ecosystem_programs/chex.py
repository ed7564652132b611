"""chex: a chex.dataclass pytree, shape assertions, and tree comparisons under jit."""
import chex
import jax
import jax.numpy as jnp


@chex.dataclass
class Params:
  w: chex.Array
  b: chex.Array


def run():
  params = Params(w=jnp.ones((3, 2)), b=jnp.zeros(2))

  @jax.jit
  def forward(params, x):
    chex.assert_shape(x, (None, 3))
    chex.assert_rank(params.w, 2)
    return x @ params.w + params.b

  out = forward(params, jnp.arange(6.0).reshape(2, 3))
  chex.assert_trees_all_close(jax.tree.map(lambda a: a * 2, params), params.replace(w=params.w * 2, b=params.b),
                              atol=1e-6)
  try:
    chex.assert_shape(out, (3, 3))
    message = "no error"
  except AssertionError as error:
    message = type(error).__name__ + " " + str(error).splitlines()[0][:60]
  leaves = jax.tree.leaves(params)
  return {"out": out, "n_leaves": len(leaves), "assert": message,
          "mapped": jax.tree.map(jnp.sum, params).w}
