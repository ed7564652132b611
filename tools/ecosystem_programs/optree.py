"""optree: flatten, map and unflatten pytrees that hold jax arrays, and jax.jit over them."""
import jax
import jax.numpy as jnp
import optree


def run():
  tree = {"b": (jnp.arange(3.0), None), "a": [jnp.ones(2), {"c": jnp.array(2.0)}]}
  leaves, spec = optree.tree_flatten(tree)
  doubled = optree.tree_map(lambda x: x * 2, tree)
  rebuilt = optree.tree_unflatten(spec, [jnp.sin(x) for x in leaves])
  total = jax.jit(lambda t: sum(jnp.sum(x) for x in optree.tree_leaves(t)))(tree)
  paths = optree.tree_paths(tree)
  return {"n_leaves": len(leaves), "spec": str(spec), "doubled": doubled["b"][0], "rebuilt": rebuilt["a"][0],
          "total": total, "paths": str(paths)}
