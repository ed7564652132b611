"""``jnp.fft``: NumPy's discrete Fourier transforms over ``lax.fft``.

Each transform moves the requested axes to the end, crops or zero-pads them to ``s``,
applies one ``lax.fft`` (at most three dimensions per XLA transform) and scales by ``norm``.
Real inputs promote as JAX: float32 -> complex64, integers -> the default float.
"""
from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.shapes import pad, slice as lax_slice
from xjax._src.primitives.lax.fft import FftType, fft as lax_fft
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.numpy.composed_math import conj
from xjax._src.libraries.numpy.creation import arange, asarray
from xjax._src.libraries.numpy.rearrange import roll
from xjax._src.libraries.numpy.reductions import prod
from xjax._src.libraries.numpy.shaping import moveaxis
from xjax._src.libraries.numpy.ufuncs import sqrt

_NORMS = ("backward", "ortho", "forward")

# lax.fft as JAX runs it: a jitted call (a nested ``jit[name=fft]`` in jaxprs)
_lax_fft = compiled_when_eager(lax_fft, staged="fft", static_argnames=("fft_type", "fft_lengths"))


def _scale(out, sizes, name: str, norm):
  """Multiplies by JAX's ``norm`` factor, computed as JAX does in the result's dtype (complex
  for complex results): 1 ("backward"), or ``prod(sizes)`` ("forward") or its square root
  ("ortho"), inverted for the forward transforms (XLA's inverse ones divide by the size)."""
  if norm is None:
    return out
  if norm == "backward":
    return out * asarray(1)
  if norm not in _NORMS:
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')
  factor = prod(asarray(sizes, dtype=get_aval(out).dtype))
  if norm == "ortho":
    factor = sqrt(factor)
  return out * (factor if name.startswith("i") else 1 / factor)


def _fftn(name: str, typ: FftType, a, s, axes, norm):
  full = f"jax.numpy.fft.{name}"
  a, = arraylike(full, a)
  arr = asarray(a)
  ndim = get_aval(arr).ndim
  if s is not None:
    s = tuple(operator.index(x) for x in s)
    if any(x <= 0 for x in s):
      raise ValueError("Shape should be positive.")
  if s is not None and axes is not None and len(s) != len(axes):
    raise ValueError("Shape and axes have different lengths.")
  given_axes = axes
  if axes is None:
    axes = tuple(range(ndim)) if s is None else tuple(range(ndim - len(s), ndim))
  axes = tuple(operator.index(ax) for ax in axes)
  if len(set(axes)) != len(axes):
    raise ValueError(f"{full} does not support repeated axes. Got axes {axes}.")
  if s is not None and len(s) > ndim:
    raise ValueError(f"FFT input shape {get_aval(arr).shape} must have at least as many "
                     f"input dimensions as fft_lengths {s}.")
  canon = tuple(canonical_axis(ax, ndim) for ax in axes)
  k = len(axes)
  last = tuple(range(ndim - k, ndim))
  if given_axes is not None:
    arr = moveaxis(arr, canon, last)
  shape = get_aval(arr).shape
  if s is None:
    s = tuple(shape[ax] for ax in last)
    if typ == FftType.IRFFT and k:
      s = s[:-1] + (max(0, 2 * (s[-1] - 1)),)
  else:
    target = list(shape[:ndim - k]) + list(s)
    if typ == FftType.IRFFT:
      target[-1] = s[-1] // 2 + 1
    arr = _fit(arr, target)
  out = _transform(arr, typ, s)
  out = _scale(out, s, name, norm)
  if given_axes is not None:
    out = moveaxis(out, last, canon)
  return out


def _fit(arr, target):
  """Crops or zero-pads ``arr`` at the high end of each dimension to ``target``."""
  shape = get_aval(arr).shape
  if tuple(target) == shape:
    return arr
  arr = lax_slice(arr, (0,) * len(shape), tuple(min(a, b) for a, b in zip(shape, target)))
  cur = get_aval(arr).shape
  zero = np.zeros((), get_aval(arr).dtype)[()]
  return pad(arr, zero, [(0, t - c, 0) for t, c in zip(target, cur)])


def _transform(arr, typ: FftType, s: Sequence[int]):
  """``lax.fft`` over the trailing ``len(s)`` axes (XLA transforms at most three at once)."""
  if len(s) <= 3:
    return _lax_fft(arr, typ, tuple(s))
  n = len(s) - 3
  nd = get_aval(arr).ndim
  outer = tuple(range(nd - len(s), nd - 3))
  moved = tuple(range(nd - n, nd))
  complex_typ = FftType.IFFT if typ in (FftType.IFFT, FftType.IRFFT) else FftType.FFT
  if typ in (FftType.FFT, FftType.RFFT):
    arr = _lax_fft(arr, typ, tuple(s[-3:]))
    arr = moveaxis(_transform(moveaxis(arr, outer, moved), complex_typ, s[:n]),
                       moved, outer)
    return arr
  arr = moveaxis(_transform(moveaxis(arr, outer, moved), complex_typ, s[:n]),
                     moved, outer)
  return _lax_fft(arr, typ, tuple(s[-3:]))


def _one_axis(name: str, axis):
  if isinstance(axis, (list, tuple)):
    full = f"jax.numpy.fft.{name}"
    raise ValueError(f"{full} does not support multiple axes. Please use {full}n. "
                     f"Got axis = {axis!r}.")
  return None if axis is None else [axis]


def _fft1(name, typ, a, n, axis, norm):
  axes = _one_axis(name, axis)
  return _fftn(name, typ, a, None if n is None else [n], axes, norm)


def _two_axes(name: str, axes):
  if len(axes) != 2:
    raise ValueError(f"jax.numpy.fft.{name} only supports 2 axes. Got axes = {axes!r}.")
  return axes


def fft(a, n=None, axis=-1, norm=None):
  """One-dimensional discrete Fourier transform."""
  return _fft1("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
  """One-dimensional inverse discrete Fourier transform."""
  return _fft1("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
  """One-dimensional transform of a real input (the non-negative frequencies)."""
  return _fft1("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
  """Inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``)."""
  return _fft1("irfft", FftType.IRFFT, a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
  """Transform of a Hermitian-symmetric signal given by its first half: a real spectrum,
  ``irfft(conj(a)) * n`` as JAX computes it."""
  a, = arraylike("conjugate", a)
  conj_a = conj(a)
  _one_axis("hfft", axis)
  nn = (get_aval(conj_a).shape[axis] - 1) * 2 if n is None else n
  return _fft1("hfft", FftType.IRFFT, conj_a, n, axis, norm) * nn


def ihfft(a, n=None, axis=-1, norm=None):
  """Inverse of ``hfft``: ``conj(rfft(a)) * (1 / n)`` as JAX computes it."""
  _one_axis("ihfft", axis)
  arr = asarray(a)
  nn = get_aval(arr).shape[axis] if n is None else n
  return conj(_fft1("ihfft", FftType.RFFT, arr, n, axis, norm)) * (1 / nn)


def fftn(a, s=None, axes=None, norm=None):
  """N-dimensional discrete Fourier transform."""
  return _fftn("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
  """N-dimensional inverse discrete Fourier transform."""
  return _fftn("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
  """N-dimensional transform of a real input (last axis halved)."""
  return _fftn("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
  """Inverse of ``rfftn``."""
  return _fftn("irfftn", FftType.IRFFT, a, s, axes, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
  """Two-dimensional discrete Fourier transform."""
  return _fftn("fft2", FftType.FFT, a, s, _two_axes("fft2", axes), norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
  """Two-dimensional inverse discrete Fourier transform."""
  return _fftn("ifft2", FftType.IFFT, a, s, _two_axes("ifft2", axes), norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
  """Two-dimensional transform of a real input."""
  return _fftn("rfft2", FftType.RFFT, a, s, _two_axes("rfft2", axes), norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
  """Inverse of ``rfft2``."""
  return _fftn("irfft2", FftType.IRFFT, a, s, _two_axes("irfft2", axes), norm)


def _check_freq_args(name: str, n, d):
  if isinstance(n, (list, tuple)):
    raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. "
                     f"Got n = {list(n)}.")
  if isinstance(d, (list, tuple)):
    raise ValueError(f"The d argument of jax.numpy.fft.{name} only takes a single value. "
                     f"Got d = {list(d)}.")


def fftfreq(n, d=1.0, *, dtype=None, device=None):
  """Sample frequencies of an ``n``-point transform with sample spacing ``d``."""
  _check_freq_args("fftfreq", n, d)
  dtype = dtypes.default_float_dtype() if dtype is None else dtype
  work = dtypes.to_floating_dtype(dtypes.canonicalize_dtype(dtype))
  i = arange(n, dtype=work, device=device)
  k = (i + n // 2) % n - n // 2
  return (k / asarray(d * n, dtype=work)).astype(dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
  """Non-negative sample frequencies of an ``n``-point real transform."""
  _check_freq_args("rfftfreq", n, d)
  dtype = dtypes.default_float_dtype() if dtype is None else dtype
  # (n's parity asked first, as JAX: a traced n is its TracerBoolConversionError)
  last = n // 2 if n % 2 == 0 else (n - 1) // 2
  k = arange(0, last + 1, dtype=dtype, device=device)
  return k / asarray(d * n, dtype=dtype)


def _shift(name: str, x, axes, sign: int):
  x, = arraylike(name, x)
  x = asarray(x)
  shape = get_aval(x).shape
  if axes is None:
    axes = tuple(range(len(shape)))
  if isinstance(axes, int):
    return roll(x, sign * (shape[axes] // 2), axes)
  return roll(x, [sign * (shape[ax] // 2) for ax in axes], tuple(axes))


def fftshift(x, axes=None):
  """Moves the zero-frequency term to the centre."""
  return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None):
  """Inverse of ``fftshift``."""
  return _shift("ifftshift", x, axes, -1)
