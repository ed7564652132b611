"""Reading and writing arrays with TensorStore
(``jax.experimental.array_serialization.tensorstore_impl``)."""
from xjax._src.libraries import tensorstore_arrays as _impl
from xjax._src.libraries.tensorstore_arrays import (  # noqa: F401
    ARRAY_DRIVER as _TS_ARRAY_DRIVER, DEFAULT_BASE_DRIVER as _DEFAULT_BASE_DRIVER,
    FILE_SIZE_TARGET as _FILE_SIZE_TARGET, PROCESS_DIR_FORMAT as _PROCESS_DIR_FORMAT,
    LimitInFlightBytes as _LimitInFlightBytes, _compute_chunk_shape,
    async_deserialize, async_serialize, combine_kvstores, estimate_read_memory_footprint,
    get_tensorstore_metadata as _get_tensorstore_metadata, get_tensorstore_spec,
    is_tensorstore_spec_leaf, merge_nested_ts_specs,
    run_deserialization as _run_deserialization, run_serialization as _run_serialization,
    spec_has_metadata as _spec_has_metadata, verify_tensorstore_spec)

# Names made from the `tensorstore` package, resolved on first use (it is optional).
_FROM_TENSORSTORE = {"_TS_CONTEXT": _impl.default_context,
                     "_TS_CHUNK_LAYOUT": _impl.default_chunk_layout,
                     "Future": lambda: _impl.tensorstore().Future,
                     "Transaction": lambda: _impl.tensorstore().Transaction}


def __getattr__(name):
  if name in _FROM_TENSORSTORE:
    return _FROM_TENSORSTORE[name]()
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
