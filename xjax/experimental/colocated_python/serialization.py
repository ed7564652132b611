"""``jax.experimental.colocated_python.serialization``: how colocated callables and specs are
pickled (cloudpickle) to travel to another host.  In one process xjax's colocated Python
calls functions directly and never needs it; libraries name the module and its DeviceList."""
import pickle

from xjax._src.backend.jaxlib_api import DeviceList  # noqa: F401

try:
  import cloudpickle
except ImportError:
  cloudpickle = None


def _serialize(obj) -> bytes:
  """`obj` (a callable or specs) as bytes; needs cloudpickle, as JAX."""
  if cloudpickle is None:
    raise ModuleNotFoundError('No module named "cloudpickle"')
  return cloudpickle.dumps(obj)


def _deserialize(serialized: bytes):
  """What `_serialize` wrote."""
  if cloudpickle is None:
    raise ModuleNotFoundError('No module named "cloudpickle"')
  return pickle.loads(serialized)
