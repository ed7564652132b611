"""Custom-call targets: jaxlib's LAPACK kernels for the CPU, and user FFI handlers and types
(``jax.ffi``)."""
from __future__ import annotations

import os

from xjax._src.backend.jaxlib_api import jaxlib, jaxlib_ext as _jax, jaxlib_module, xc as _xc
from xjax._src.backend.clients import lock


# LAPACK kernels (XLA FFI custom-call targets for the CPU, shipped with jaxlib)
_lapack_targets: list = []


def lapack_targets() -> frozenset:
  """The names of jaxlib's LAPACK kernels (``lapack_spotrf_ffi``, ...), registered with
  XLA on first use; empty when this jaxlib has none."""
  if not _lapack_targets:
    with lock:
      if not _lapack_targets:
        _lapack_targets.append(_register_lapack())
  return _lapack_targets[0]


def _register_lapack() -> frozenset:
  try:
    _lapack = jaxlib_module("cpu._lapack")
  except ImportError:
    return frozenset()
  _lapack.initialize()  # binds the kernels to SciPy's LAPACK
  kernels = _lapack.registrations()
  for name, capsule in kernels.items():
    _xc.register_custom_call_target(name, capsule, "cpu", api_version=1)
  return frozenset(kernels)


# ---------------------------------------------------------------------------------------
# User FFI handlers (``jax.ffi``).  jaxlib queues a registration until a client of its
# platform installs the registering function; for the CPU that function is installed here
# first, so a registration takes effect (and fails) at once, without making a client.


def _register_cpu_handlers(platform: str) -> None:
  if platform == "cpu":
    _xc.register_custom_call_handler("cpu", _jax.register_custom_call_target)
    _xc.register_custom_type_handler("cpu", _jax.register_custom_type)


def register_ffi_target(name: str, fn, platform: str, api_version: int, **kwargs) -> None:
  """Registers the XLA FFI handler (a PyCapsule, or a dict of them by stage) or, with
  ``api_version=0``, the legacy custom-call function ``fn`` as the custom-call target
  ``name`` on ``platform``."""
  _register_cpu_handlers(platform)
  _xc.register_custom_call_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type(name: str, type_registration, platform: str) -> None:
  """Registers an FFI user type (``{"type_id": capsule, "type_info": capsule}``)."""
  _register_cpu_handlers(platform)
  _xc.register_custom_type(name, type_registration, platform=platform)


def register_ffi_batch_partitionable(name: str) -> None:
  _xc.register_custom_call_as_batch_partitionable(name)


def ffi_include_dir() -> str:
  """The directory of the XLA FFI C++ headers that jaxlib ships (``xla/ffi/api/ffi.h``)."""
  root = jaxlib.__file__ and os.path.dirname(os.path.abspath(jaxlib.__file__))
  return os.path.join(root or list(jaxlib.__path__)[0], "include")
