"""`jax._src.nn.functions`: the functions of `jax.nn` (activations, softmax, one_hot,
dot_product_attention, ...), which user code imports from here (`from jax._src.nn.functions
import relu, gelu`) and which JAX's own functions name as their module (fiddle's serialized
configurations refer to them by it)."""
from xjax import nn as _nn
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  value = getattr(_nn, name, None)
  if callable(value) and not name.startswith("_") and not isinstance(value, type):
    return value
  raise missing("jax._src.nn.functions", name)
