"""pytreeclass: a TreeClass model edited with .at[], masked, summarized and trained with
grad (its README's quick example and its training recipe)."""
import jax
import jax.numpy as jnp
import pytreeclass as tc


@tc.autoinit
class Tree(tc.TreeClass):
  a: float = 1.0
  b: tuple = (2.0, 3.0)
  c: jax.Array = jnp.array([4.0, 5.0, 6.0])

  def __call__(self, x):
    return self.a + self.b[0] + self.c + x


class Linear(tc.TreeClass):
  def __init__(self, key, n_in, n_out):
    self.weight = jax.random.normal(key, (n_in, n_out)) / n_in ** 0.5
    self.bias = jnp.zeros((n_out,))

  def __call__(self, x):
    return x @ self.weight + self.bias


def run():
  tree = Tree()
  mask = jax.tree_util.tree_map(lambda x: x > 5, tree)
  tree = tree.at["a"].set(100.0).at["b"][0].set(10.0).at[mask].set(100.0)
  layer = Linear(jax.random.key(0), 3, 2)
  x = jnp.linspace(-1, 1, 12).reshape(4, 3)
  y = jnp.sin(x[:, :2])

  @jax.jit
  def step(layer, x, y):
    loss, g = jax.value_and_grad(lambda l: jnp.mean((l(x) - y) ** 2))(layer)
    return jax.tree_util.tree_map(lambda p, d: p - 0.1 * d, layer, g), loss

  losses = []
  for _ in range(20):
    layer, loss = step(layer, x, y)
    losses.append(loss)
  frozen = tc.freeze(layer)
  return {"a": tree.a, "b0": tree.b[0], "c": tree.c, "call": tree(1.0),
          "summary": tc.tree_summary(tree), "diagram": tc.tree_diagram(tree),
          "losses": jnp.stack(losses), "weight": layer.weight,
          "frozen_leaves": len(jax.tree_util.tree_leaves(frozen)),
          "repr": repr(layer).replace("\n", " ")[:400]}
