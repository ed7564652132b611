"""`jax._src.interpreters.pxla`: ``global_result_handlers``, which an extended dtype's rules
call to build the arrays of their physical data (flax's fp8 meta dtype imports it, with
`jax._src.earray`, to tell whether JAX can return arrays of the dtype from `jit`)."""
from xjax._src.core.avals import ShapedArray
from xjax._src.libraries.global_arrays import make_array_from_single_device_arrays
from xjax._src.compat.jax_private_compat import missing


def _array_handler(aval, sharding, committed):
  """The function making an Array of ``aval`` laid out as ``sharding`` from its
  single-device arrays (one per addressable device)."""
  del committed
  return lambda bufs: make_array_from_single_device_arrays(aval.shape, sharding, list(bufs))


global_result_handlers = {ShapedArray: _array_handler}


def __getattr__(name: str):
  raise missing("jax._src.interpreters.pxla", name)
