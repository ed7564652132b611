"""Calling XLA FFI handlers written in C++ (``jax.ffi``)."""
from xjax._src.extend.ffi import (build_ffi_lowering_function, ffi_call,  # noqa: F401
                                  ffi_lowering, include_dir, pycapsule, register_ffi_target,
                                  register_ffi_target_as_batch_partitionable, register_ffi_type,
                                  register_ffi_type_id)
