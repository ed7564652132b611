"""jax_dataclasses: pytree dataclasses with static fields through jit, and copy_and_mutate."""
import jax
import jax.numpy as jnp
import jax_dataclasses as jdc


@jdc.pytree_dataclass
class Params:
  w: jax.Array
  b: jax.Array
  activation: jdc.Static[str] = "tanh"


def run():
  params = Params(w=jnp.arange(6.0).reshape(2, 3), b=jnp.ones(3))

  @jax.jit
  def forward(params, x):
    out = x @ params.w + params.b
    return jnp.tanh(out) if params.activation == "tanh" else out

  with jdc.copy_and_mutate(params) as updated:
    updated.b = jnp.zeros(3)
  grads = jax.grad(lambda p: forward(p, jnp.ones(2)).sum())(params)
  return {"out": forward(params, jnp.array([0.1, 0.2])), "mutated": forward(updated, jnp.array([0.1, 0.2])),
          "grad_w": grads.w, "n_leaves": len(jax.tree.leaves(params))}
