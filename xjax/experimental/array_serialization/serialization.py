"""Checkpointing arrays asynchronously to TensorStore
(``jax.experimental.array_serialization.serialization``)."""
from xjax._src.libraries import tensorstore_arrays as _impl
from xjax._src.libraries.async_checkpoints import (  # noqa: F401
    AsyncManager, BarrierTimeoutError, GlobalAsyncCheckpointManager,
    GlobalAsyncCheckpointManagerBase, get_tensorstore_spec, is_remote_storage)
from xjax._src.libraries.tensorstore_arrays import (  # noqa: F401
    DEFAULT_BASE_DRIVER as _DEFAULT_DRIVER, LimitInFlightBytes as _LimitInFlightBytes,
    async_deserialize, async_serialize, run_deserialization, run_serialization)
from xjax.experimental.array_serialization import tensorstore_impl as ts_impl  # noqa: F401


def __getattr__(name):
  if name == "TS_CONTEXT":     # made by the optional `tensorstore` package on first use
    return _impl.default_context()
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
