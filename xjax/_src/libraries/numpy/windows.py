"""Window functions: bartlett, blackman, hamming, hanning, kaiser (default float dtype)."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes

from xjax._src.core.concrete import concrete_or_error
from xjax._src.libraries.numpy import lax_numpy as jnp


def _window(name, M, body):
  M = operator.index(concrete_or_error(M, f"M argument of jnp.{name}"))
  dt = dtypes.default_float_dtype()
  if M <= 1:
    return jnp.ones((max(M, 0),), dt)
  n = jnp.arange(1 - M, M, 2, dtype=dt)  # symmetric sample positions
  return body(n, M - 1).astype(dt)


def bartlett(M):
  """Triangular window."""
  return _window("bartlett", M, lambda n, d: 1 - jnp.abs(n) / d)


def hamming(M):
  return _window("hamming", M, lambda n, d: 0.54 + 0.46 * jnp.cos(np.pi * n / d))


def hanning(M):
  return _window("hanning", M, lambda n, d: 0.5 + 0.5 * jnp.cos(np.pi * n / d))


def blackman(M):
  return _window("blackman", M, lambda n, d: 0.42 + 0.5 * jnp.cos(np.pi * n / d)
                 + 0.08 * jnp.cos(2 * np.pi * n / d))


def kaiser(M, beta):
  """Kaiser window with shape parameter ``beta``."""
  def body(n, d):
    b = jnp.asarray(beta, n.dtype)
    return jnp.i0(b * jnp.sqrt(1 - (n / d) ** 2)) / jnp.i0(b)
  return _window("kaiser", M, body)
