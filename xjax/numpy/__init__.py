"""NumPy's API on xjax arrays (``import xjax.numpy as jnp``)."""
from xjax._src.libraries.numpy.namespace import *  # noqa: F401,F403
from xjax._src.libraries.numpy.namespace import round, ndarray, dtype  # noqa: F401
from xjax._src.libraries.numpy.scalar_types import bool_ as bool  # noqa: F401
from xjax.numpy import fft  # noqa: F401
from xjax.numpy import linalg  # noqa: F401

from xjax._src.compat.removed_names import missing_name as _missing_name


def __getattr__(name):
  raise _missing_name(__name__, name)
