"""NumPy's API on xjax arrays (``import xjax.numpy as jnp``)."""
from xjax._src.libraries.numpy.namespace import *  # noqa: F401,F403
from xjax._src.libraries.numpy.namespace import round, ndarray, dtype  # noqa: F401
from xjax._src.libraries.numpy.scalar_types import bool_ as bool  # noqa: F401
from xjax.numpy import fft  # noqa: F401
from xjax.numpy import linalg  # noqa: F401

_REMOVED = {"fix": "jax.numpy.fix was deprecated in JAX v0.9.0, and removed in JAX v0.10.0; "
                   "use jax.numpy.trunc instead."}


def __getattr__(name):
  if name in _REMOVED:
    raise AttributeError(_REMOVED[name])
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
