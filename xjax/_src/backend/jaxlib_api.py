"""jaxlib, checked: the one module that imports jaxlib. xjax's backend takes jaxlib's core API
from here (the XLA client and extension modules, their device and buffer types, checked at
import against what every program needs) and its other modules through ``jaxlib_module``, so
the check runs first; only modules of ``backend/`` use them (``tests/test_layers.py``)."""
from __future__ import annotations

import importlib
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import jaxlib  # noqa: E402
from jaxlib import _jax as jaxlib_ext, xla_client as xc  # noqa: E402  (_jax: the extension)


# What xjax's every program needs of jaxlib's Python API, which is not public and changes
# between releases: checked at import, so that a jaxlib outside the supported range fails
# here, naming what it lacks, rather than later with an AttributeError. Parts used by one
# feature only (plugins, distributed, DLPack, FFI) are looked up where that feature is used.
_REQUIRED_API = (
    (xc, "xla_client", ("make_cpu_client", "DeviceList", "ArrayImpl", "batched_device_put",
                        "CompileOptions", "HloSharding", "OpSharding", "SingleDeviceSharding",
                        "XlaRuntimeError", "array_result_handler", "_version")),
    (xc.Client, "Client", ("compile_and_load", "devices", "serialize_executable",
                           "deserialize_executable")),
    (jaxlib_ext.LoadedExecutable, "LoadedExecutable", ("execute_sharded",)),
    (jaxlib_ext.ExecuteResults, "ExecuteResults", ("consume_with_handlers",)),
)


def _missing_api() -> list[str]:
  return [f"{where}.{name}" for obj, where, names in _REQUIRED_API for name in names
          if not hasattr(obj, name)]


if _missing_api():
  raise ImportError(
      f"xjax cannot run on jaxlib {jaxlib.__version__}: it lacks {', '.join(_missing_api())}. "
      "xjax supports jaxlib 0.10.2 up to (not including) 0.13; install one of those, e.g. "
      "`pip install 'jaxlib>=0.10.2,<0.13'`.")

# jaxlib records a Python traceback with every execution; xjax reports errors through its
# own frames, and with them each eager call kept ~72 bytes that were never returned.
getattr(jaxlib_ext, "set_tracebacks_enabled", lambda enabled: None)(False)

Device = xc.Device
DeviceList = xc.DeviceList
DeviceBuffer = xc.ArrayImpl
JAXLIB_VERSION = jaxlib.__version__  # the jaxlib that runs xjax
JAXLIB_CACHE_VERSION = f"{jaxlib.__version__}/{xc._version}"  # (in compilation cache keys)
XlaRuntimeError = xc.XlaRuntimeError
# jaxlib's class is public as xjax.errors.JaxRuntimeError: name it so in tracebacks (as JAX
# names it jax.errors.JaxRuntimeError).
XlaRuntimeError.__module__ = "xjax.errors"


def jaxlib_module(name: str):
  """A module of jaxlib exposed by JAX's extension API (``xla_client``, ``_ifrt_proxy``,
  ``_jax.ifrt_programs``)."""
  return importlib.import_module(f"jaxlib.{name}")
