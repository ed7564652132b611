"""orbax-checkpoint: save and restore a pytree of arrays with StandardCheckpointer."""
import tempfile

import jax
import jax.numpy as jnp
import orbax.checkpoint as ocp


def run():
  state = {"w": jnp.arange(6.0).reshape(2, 3), "step": jnp.array(3), "b": jnp.ones(3, jnp.bfloat16)}
  with tempfile.TemporaryDirectory() as root:
    checkpointer = ocp.StandardCheckpointer()
    checkpointer.save(f"{root}/ckpt", state)
    checkpointer.wait_until_finished()
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, state)
    restored = checkpointer.restore(f"{root}/ckpt", abstract)
  return {"w": restored["w"], "step": restored["step"], "b_dtype": str(restored["b"].dtype),
          "b": restored["b"].astype(jnp.float32)}
