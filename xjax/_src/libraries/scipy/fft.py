"""Discrete cosine transforms (``jax.scipy.fft``): type-2 DCT and its inverse, 1-d and n-d.

Makhoul's algorithm, computed as JAX computes it: the type-2 DCT of length N is one complex
FFT of the even/odd-interleaved input ``v = [x0, x2, x4, ..., x5, x3, x1]`` times the twiddle
``W4(N, k) = exp(-i pi k / 2N)`` (evaluated in complex on the device), and two transformed
axes use the fused 2-D form over one ``fftn``. The inverse scales, divides by the twiddle,
inverse-FFTs and de-interleaves. Complex inputs transform their real and imaginary parts.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.elementwise import complex as lax_complex, sqrt as lax_sqrt
from xjax._src.primitives.lax.elementwise import convert_element_type
from xjax._src.primitives.lax.shapes import (concatenate, expand_dims, full, pad, rev,
                                              slice_in_dim)
from xjax._src.libraries.numpy import fft as jnp_fft
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact


def _check(name: str, x, type, norm):
  x, = arraylike(name, x)
  if type != 2:
    raise NotImplementedError("Only DCT type 2 is implemented.")
  if norm is not None and norm not in ("backward", "ortho"):
    raise ValueError(f"jax.scipy.fft.{name}: {norm=!r} is not implemented")
  return jnp.asarray(x)


def _is_complex(x) -> bool:
  return dtypes.issubdtype(get_aval(x).dtype, np.complexfloating)


def _other_axes(x, axis):
  return [a for a in range(x.ndim) if a != axis]


def _resize(x, sizes: dict):
  """``x`` cropped or zero-padded at the end of each axis in ``sizes`` to its length."""
  if all(x.shape[a] == n for a, n in sizes.items()):
    return x
  pads = [(0, sizes[a] - x.shape[a] if a in sizes else 0, 0) for a in range(x.ndim)]
  return pad(x, np.zeros((), x.dtype)[()], pads)


def _w4(n: int, k):
  """``exp(-i pi k / 2n)`` in the complex dtype of ``k`` (``n`` promoted with it)."""
  cdt = dtypes.to_complex_dtype(dtypes.result_type(n, k))
  k = convert_element_type(k, cdt, False)
  n_arr = jnp.asarray(n, cdt)
  return jnp.exp(-.5j * np.pi * k / n_arr)


def _interleave(x, axis):
  evens = slice_in_dim(x, None, None, 2, axis)
  odds = rev(slice_in_dim(x, 1, None, 2, axis), (axis,))
  return concatenate([evens, odds], axis)


def _deinterleave(x, axis):
  """Inverse of ``_interleave``: the first half to the even positions, the reversed second
  half to the odd ones."""
  def along(index):
    return tuple(index if a == axis else slice(None) for a in range(x.ndim))
  half = -(-x.shape[axis] // 2)
  first, second = x[along(slice(None, half, 1))], rev(x[along(slice(half, None, 1))], (axis,))
  out = jnp.zeros(x.shape, dtype=x.dtype).at[along(slice(None, None, 2))].set(first)
  return out.at[along(slice(1, None, 2))].set(second)


def _ortho_norm(out, axis):
  """``out / sqrt(f * N)`` with f = 4 for the first coefficient along ``axis``, 2 else."""
  n = out.shape[axis]
  factor = concatenate([full((1,), 4, out.dtype), full((n - 1,), 2, out.dtype)], 0)
  factor = expand_dims(factor, _other_axes(out, axis))
  return out / lax_sqrt(factor * n)


def _dct1(x, n, axis, norm):
  axis = canonical_axis(axis, x.ndim)
  if n is not None:
    x = _resize(x, {axis: operator.index(n)})
  spectrum = jnp_fft.fft(_interleave(x, axis), axis=axis)
  k = expand_dims(jnp.arange(x.shape[axis], dtype=jnp.real(spectrum).dtype),
                  _other_axes(x, axis))
  out = 2 * jnp.real(spectrum * _w4(x.shape[axis], k))
  return _ortho_norm(out, axis) if norm == "ortho" else out


def _dct2(x, axes, norm):
  """The fused two-axis DCT: one 2-d FFT of the doubly interleaved input."""
  a1, a2 = axes
  n1, n2 = x.shape[a1], x.shape[a2]
  spectrum = jnp_fft.fftn(_interleave(_interleave(x, a1), a2), axes=axes)
  k1 = expand_dims(jnp.arange(n1, dtype=spectrum.dtype), _other_axes(x, a1))
  k2 = expand_dims(jnp.arange(n2, dtype=spectrum.dtype), _other_axes(x, a2))
  out = _w4(n1, k1) * (_w4(n2, k2) * spectrum
                       + _w4(n2, -k2) * jnp.roll(jnp.flip(spectrum, axis=a2), shift=1, axis=a2))
  out = 2 * jnp.real(out)
  if norm == "ortho":
    return _ortho_norm(_ortho_norm(out, a1), a2)
  return out


def _idct1(x, n, axis, norm):
  axis = canonical_axis(axis, x.ndim)
  if n is not None:
    x = _resize(x, {axis: operator.index(n)})
  size = x.shape[axis]
  (x,) = promote_dtypes_inexact(x)
  if norm is None or norm == "backward":
    x = _ortho_norm(x, axis)
  x = _ortho_norm(x, axis)
  k = expand_dims(jnp.arange(size, dtype=x.dtype), _other_axes(x, axis))
  w4 = _w4(size, k)
  x = x.astype(w4.dtype) / w4 * 2 * size
  return _deinterleave(jnp.real(jnp_fft.ifft(x, axis=axis)), axis)


def _by_parts(fn, x, *args):
  """``fn`` on a real ``x``, or on the real and imaginary parts of a complex one."""
  if _is_complex(x):
    return lax_complex(fn(jnp.real(x), *args), fn(jnp.imag(x), *args))
  return fn(x, *args)


def dct(x, type=2, n=None, axis=-1, norm=None):
  """Type-2 discrete cosine transform along ``axis`` (``norm`` None/"backward"/"ortho")."""
  return _by_parts(_dct1, _check("dct", x, type, norm), n, axis, norm)


def idct(x, type=2, n=None, axis=-1, norm=None):
  """Inverse of the type-2 DCT along ``axis``."""
  return _by_parts(_idct1, _check("idct", x, type, norm), n, axis, norm)


def _nd_axes(x, s, axes):
  """JAX's (s, axes) for the n-d transforms: ``s`` a list or None, ``axes`` canonical."""
  if s is not None:
    try:
      s = list(s)
    except TypeError:
      s = [operator.index(s)]
    if len(s) > x.ndim:
      raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
  if axes is None:
    start = 0 if s is None else x.ndim - len(s)
    return s, tuple(range(start, x.ndim))
  if not isinstance(axes, Sequence):
    axes = (axes,)
  axes = tuple(canonical_axis(a, x.ndim) for a in axes)
  if len(set(axes)) != len(axes):
    raise ValueError(f"repeated axis: {axes}")
  return s, axes


def _resized(x, s, axes):
  """(x cropped/padded to ``s`` over its axes, the axes, the 1-d size where there is one
  axis: that transform crops/pads itself)."""
  s, axes = _nd_axes(x, s, axes)
  if len(axes) == 1:
    return x, axes, None if s is None else s[0]
  return (x if s is None else _resize(x, dict(zip(axes, s)))), axes, None


def _dctn(x, s, axes, norm):
  x, axes, n = _resized(x, s, axes)
  if len(axes) == 1:
    return _dct1(x, n, axes[0], norm)
  if len(axes) == 2:
    return _dct2(x, axes, norm)
  for i in range(0, len(axes), 2):  # fused pairs, then a 1-d transform for an odd count
    x = _dctn(x, None, axes[i:i + 2], norm)
  return x


def _idctn(x, s, axes, norm):
  x, axes, n = _resized(x, s, axes)
  if len(axes) == 1:
    return _idct1(x, n, axes[0], norm)
  for axis in axes:
    x = _idct1(x, None, axis, norm)
  return x


def dctn(x, type=2, s=None, axes=None, norm=None):
  """Type-2 DCT over ``axes`` (default all, or the last ``len(s)``), cropped/padded to ``s``."""
  return _by_parts(_dctn, _check("dctn", x, type, norm), s, axes, norm)


def idctn(x, type=2, s=None, axes=None, norm=None):
  """Inverse type-2 DCT over ``axes`` (default all, or the last ``len(s)``)."""
  return _by_parts(_idctn, _check("idctn", x, type, norm), s, axes, norm)
