"""Window functions: bartlett, blackman, hamming, hanning, kaiser (default float dtype)."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.concrete import concrete_or_error
from xjax._src.libraries.numpy.composed_math import i0
from xjax._src.libraries.numpy.creation import arange, asarray, ones
from xjax._src.libraries.numpy.ufuncs import abs as _abs, cos, sqrt


def _window(name, M, body):
  M = operator.index(concrete_or_error(M, f"M argument of jnp.{name}"))
  dt = dtypes.default_float_dtype()
  if M <= 1:
    return ones((max(M, 0),), dt)
  n = arange(1 - M, M, 2, dtype=dt)  # symmetric sample positions
  return body(n, M - 1).astype(dt)


def bartlett(M):
  """Triangular window."""
  return _window("bartlett", M, lambda n, d: 1 - _abs(n) / d)


def hamming(M):
  return _window("hamming", M, lambda n, d: 0.54 + 0.46 * cos(np.pi * n / d))


def hanning(M):
  return _window("hanning", M, lambda n, d: 0.5 + 0.5 * cos(np.pi * n / d))


def blackman(M):
  return _window("blackman", M, lambda n, d: 0.42 + 0.5 * cos(np.pi * n / d)
                 + 0.08 * cos(2 * np.pi * n / d))


def kaiser(M, beta):
  """Kaiser window with shape parameter ``beta``."""
  def body(n, d):
    b = asarray(beta, n.dtype)
    return i0(b * sqrt(1 - (n / d) ** 2)) / i0(b)
  return _window("kaiser", M, body)
