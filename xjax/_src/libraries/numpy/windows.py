"""Window functions: bartlett, blackman, hamming, hanning, kaiser (default float dtype).

Each is evaluated at the sample positions ``n = 0, 1, ..., M-1`` with JAX's formulas, in
JAX's order of operations, so the values agree bit for bit."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.concrete import concrete_or_error
from xjax._src.primitives.lax.shapes import full, iota
from xjax._src.libraries.numpy.composed_math import i0
from xjax._src.libraries.numpy.ufuncs import abs as _abs, cos, sqrt


def _window(name, M, body):
  """``body(n, M)``; ``M`` is read with ``int`` (so a float is truncated), and ``M <= 1``
  gives ones (a negative length is lax.full's TypeError)."""
  M = int(concrete_or_error(M, f"M argument of jnp.{name}"))
  dt = dtypes.default_float_dtype()
  if M <= 1:
    return full((M,), 1, dt)
  return body(iota(dt, M), M)


def bartlett(M):
  """Triangular window."""
  return _window("bartlett", M, lambda n, M: 1 - _abs(2 * n + 1 - M) / (M - 1))


def hamming(M):
  return _window("hamming", M, lambda n, M: 0.54 - 0.46 * cos(2 * np.pi * n / (M - 1)))


def hanning(M):
  return _window("hanning", M, lambda n, M: 0.5 * (1 - cos(2 * np.pi * n / (M - 1))))


def blackman(M):
  return _window("blackman", M, lambda n, M: 0.42 - 0.5 * cos(2 * np.pi * n / (M - 1))
                 + 0.08 * cos(4 * np.pi * n / (M - 1)))


def kaiser(M, beta):
  """Kaiser window with shape parameter ``beta``."""
  def body(n, M):
    half = 0.5 * (M - 1)
    return i0(beta * sqrt(1 - ((n - half) / half) ** 2)) / i0(beta)
  return _window("kaiser", M, body)
