"""Discrete cosine transforms (``jax.scipy.fft``): type-2 DCT and its inverse, 1-d and n-d.

A type-2 DCT of length N is one complex FFT of the even/odd-interleaved input
``v = [x0, x2, x4, ..., x5, x3, x1]`` rotated by a quarter-sample twiddle
``exp(-i pi k / 2N)``; the inverse undoes the twiddle on ``X_k - i X_{N-k}`` and
de-interleaves an inverse FFT. Complex inputs transform their real and imaginary parts.
"""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.lax.elementwise import complex as lax_complex
from xjax._src.primitives.lax.shapes import concatenate, pad, rev, slice_in_dim
from xjax._src.libraries.numpy import fft as jnp_fft
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import canonical_axis, check_arraylike
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact


def _checked(name: str, x, type, norm):
  check_arraylike(name, x)
  if type != 2:
    raise NotImplementedError("Only DCT type 2 is implemented.")
  if norm is not None and norm not in ("backward", "ortho"):
    raise ValueError(f"jax.scipy.fft.{name}: {norm=!r} is not implemented")
  (x,) = promote_dtypes_inexact(jnp.asarray(x))
  return jnp.asarray(x)


def _resize(x, n, axis):
  """``x`` cropped or zero-padded at the end of ``axis`` to length ``n``."""
  if n is None or n == x.shape[axis]:
    return x
  n = operator.index(n)
  if n < x.shape[axis]:
    return slice_in_dim(x, 0, n, axis=axis)
  pads = [(0, n - x.shape[axis] if a == axis else 0, 0) for a in range(x.ndim)]
  return pad(x, np.zeros((), x.dtype)[()], pads)


def _along(x, axis):
  """Shape (1, .., N, .., 1) broadcasting a length-N vector along ``axis``."""
  return tuple(x.shape[axis] if a == axis else 1 for a in range(x.ndim))


def _ortho_scale(x, axis):
  """Per-coefficient factors of the orthonormal DCT-II: sqrt(1/4N) for k=0, sqrt(1/2N) else."""
  n = x.shape[axis]
  f = np.full(n, np.sqrt(1 / (2 * n)))
  f[0] = np.sqrt(1 / (4 * n))
  return jnp.reshape(jnp.asarray(f.astype(x.dtype)), _along(x, axis))


def _twiddle(x, axis, sign):
  n = x.shape[axis]
  w = np.exp(sign * 0.5j * np.pi * np.arange(n) / n)
  return jnp.reshape(jnp.asarray(w.astype(dtypes.to_complex_dtype(x.dtype))), _along(x, axis))


def _dct_real(x, axis, norm):
  evens = slice_in_dim(x, 0, None, 2, axis)
  odds = rev(slice_in_dim(x, 1, None, 2, axis), (axis,))
  spectrum = jnp_fft.fft(concatenate([evens, odds], axis), axis=axis)
  out = 2 * jnp.real(spectrum * _twiddle(x, axis, -1))
  return out * _ortho_scale(x, axis) if norm == "ortho" else out


def _idct_real(x, axis, norm):
  n = x.shape[axis]
  if norm == "ortho":
    x = x / _ortho_scale(x, axis)
  # X_{N-k} for k >= 1 (and 0 at k = 0), the imaginary partner of each coefficient
  tail = rev(slice_in_dim(x, 1, None, 1, axis), (axis,))
  partner = concatenate([jnp.zeros_like(slice_in_dim(x, 0, 1, 1, axis)), tail], axis)
  v = jnp.real(jnp_fft.ifft((x - 1j * partner) * _twiddle(x, axis, 1), axis=axis)) / 2
  # de-interleave: x[2m] = v[m], x[2m + 1] = v[n - 1 - m]
  order = np.empty(n, int)
  order[0::2] = np.arange((n + 1) // 2)
  order[1::2] = n - 1 - np.arange(n // 2)
  return jnp.take(v, jnp.asarray(order), axis=axis)


def _apply(fn, x, axis, norm):
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    return lax_complex(fn(jnp.real(x), axis, norm), fn(jnp.imag(x), axis, norm))
  return fn(x, axis, norm)


def dct(x, type=2, n=None, axis=-1, norm=None):
  """Type-2 discrete cosine transform along ``axis`` (``norm`` None/"backward"/"ortho")."""
  x = _checked("dct", x, type, norm)
  axis = canonical_axis(axis, x.ndim)
  return _apply(_dct_real, _resize(x, n, axis), axis, norm)


def idct(x, type=2, n=None, axis=-1, norm=None):
  """Inverse of the type-2 DCT along ``axis``."""
  x = _checked("idct", x, type, norm)
  axis = canonical_axis(axis, x.ndim)
  return _apply(_idct_real, _resize(x, n, axis), axis, norm)


def _nd(fn, name, x, type, s, axes, norm):
  x = _checked(name, x, type, norm)
  if axes is None:
    axes = range(x.ndim) if s is None else range(x.ndim - len(s), x.ndim)
  axes = [canonical_axis(a, x.ndim) for a in axes]
  if s is not None:
    for size, axis in zip(s, axes):
      x = _resize(x, size, axis)
  for axis in axes:
    x = _apply(fn, x, axis, norm)
  return x


def dctn(x, type=2, s=None, axes=None, norm=None):
  """Type-2 DCT over ``axes`` (default all), each cropped/padded to ``s``."""
  return _nd(_dct_real, "dctn", x, type, s, axes, norm)


def idctn(x, type=2, s=None, axes=None, norm=None):
  """Inverse type-2 DCT over ``axes`` (default all), each cropped/padded to ``s``."""
  return _nd(_idct_real, "idctn", x, type, s, axes, norm)
