"""``jax.extend.sharding``: layouts given as XLA's HLO shardings, and their protos."""
from xjax._src.backend import jaxlib_api as _jaxlib_api, hlo_sharding as _hlo_sharding
from xjax._src.execution.gspmd_sharding import GSPMDSharding  # noqa: F401


def get_op_sharding_from_serialized_proto(sharding: bytes):
  """The OpSharding proto object of serialized bytes."""
  return _hlo_sharding.op_sharding(sharding)


def get_hlo_sharding_from_serialized_proto(sharding: bytes):
  """The HloSharding of a serialized OpSharding proto."""
  return _hlo_sharding.hlo_sharding(sharding)


def get_serialized_proto_from_hlo_sharding(sharding) -> bytes:
  """An HloSharding's OpSharding proto, serialized."""
  return sharding.to_proto().SerializeToString()


def __getattr__(name):
  if name == "xla_client":   # jaxlib's module, loaded when asked for
    return _jaxlib_api.jaxlib_module("xla_client")
  raise AttributeError(f"module 'xjax.extend.sharding' has no attribute '{name}'")


def __dir__():
  return sorted([*globals(), "xla_client"])
