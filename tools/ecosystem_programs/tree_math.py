"""tree-math: pytrees as vectors (arithmetic, dot products, a wrapped function), under jit and
grad, as its README shows."""
import jax
import jax.numpy as jnp
import tree_math as tm


@tm.wrap
def shifted(x):
  return x * 0.5 - 1.0


def run():
  v = tm.Vector({"a": jnp.arange(3.0), "b": (jnp.ones(2), jnp.float32(2.0))})
  w = v * 2 + 1
  norm = lambda t: tm.Vector(t) @ tm.Vector(t)  # noqa: E731
  return {"dot": v @ w, "w_a": w.tree["a"], "w_b0": w.tree["b"][0],
          "shifted": shifted({"a": jnp.arange(3.0)})["a"],
          "jit_norm": jax.jit(norm)({"a": jnp.arange(3.0)}),
          "grad_norm": jax.grad(norm)({"a": jnp.arange(3.0)})["a"]}
