"""SciPy's API on xjax arrays (``jax.scipy``).

Submodules load on first attribute access, so ``import xjax.scipy as jsp; jsp.linalg``
works without paying for every submodule at import time.
"""
import importlib as _importlib

_SUBMODULES = ("cluster", "fft", "integrate", "interpolate", "linalg", "ndimage",
               "optimize", "signal", "sparse", "spatial", "special", "stats")


def __getattr__(name: str):
  if name in _SUBMODULES:
    try:
      return _importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:   # listed by JAX, not written yet: dir() must still work
      if e.name != f"{__name__}.{name}":
        raise
      raise AttributeError(f"module {__name__!r} has no attribute {name!r} "
                           f"(not implemented yet; see docs/differences.md)") from None
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
  return sorted(_SUBMODULES)
