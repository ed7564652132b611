"""Convolution in ``jax.scipy.signal``: N-d convolution and correlation as XLA
convolutions or through FFTs, their 2-D forms, and detrending."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.lax.dot import Precision
from xjax._src.primitives.lax.shapes import slice as lax_slice
from xjax._src.primitives.lax.windowed import conv_general_dilated
from xjax._src.libraries.numpy import fft as jnp_fft
from xjax._src.libraries.numpy import linalg as jnp_linalg
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact

_MODES = ("full", "same", "valid")


def _convolve_nd(in1, in2, mode, *, precision):
  if mode not in _MODES:
    raise ValueError("mode must be one of ['full', 'same', 'valid']")
  if in1.ndim != in2.ndim:
    raise ValueError("in1 and in2 must have the same number of dimensions")
  if in1.size == 0 or in2.size == 0:
    raise ValueError(f"zero-size arrays not supported in convolutions, got shapes "
                     f"{in1.shape} and {in2.shape}.")
  in1, in2 = promote_dtypes_inexact(in1, in2)  # (integers convolve as floats, as JAX)
  no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
  swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
  if not (no_swap or swap):
    raise ValueError("One input must be smaller than the other in every dimension.")
  shape_out = in2.shape
  if swap:
    in1, in2 = in2, in1
  shape = in2.shape
  kernel = jnp.flip(in2)
  if mode == "valid":
    padding = [(0, 0)] * len(shape)
  elif mode == "same":
    padding = [(k - 1 - (o - 1) // 2, k - o + (o - 1) // 2) for k, o in zip(shape, shape_out)]
  else:
    padding = [(k - 1, k - 1) for k in shape]
  return conv_general_dilated(in1[None, None], kernel[None, None], (1,) * len(shape),
                              padding, precision=precision)[0, 0]


def convolve(in1, in2, mode="full", method="auto", precision=None):
  """N-d convolution of ``in1`` with ``in2`` (``method`` "auto"/"direct" as an XLA
  convolution, "fft" through :func:`fftconvolve`)."""
  in1, in2 = arraylike("convolve", in1, in2)
  if method not in ("auto", "direct", "fft"):
    raise ValueError(f"Got {method=}; expected 'auto', 'fft', or 'direct'.")
  if method == "fft":
    return fftconvolve(in1, in2, mode)
  return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision=precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
  """N-d cross-correlation: convolve(in1, flipped conj(in2))."""
  in1, in2 = arraylike("correlate", in1, in2)
  return convolve(in1, jnp.flip(jnp.conj(jnp.asarray(in2))), mode, method, precision)


def _check_2d(name, in1, in2, boundary, fillvalue):
  if boundary != "fill" or fillvalue != 0:
    raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
  if jnp.ndim(in1) != 2 or jnp.ndim(in2) != 2:
    raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
  """2-D convolution (zero-filled boundary)."""
  in1, in2 = arraylike("convolve2d", in1, in2)
  _check_2d("convolve2d", in1, in2, boundary, fillvalue)
  return _convolve_nd(jnp.asarray(in1), jnp.asarray(in2), mode, precision=precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
  """2-D cross-correlation (zero-filled boundary)."""
  in1, in2 = arraylike("correlate2d", in1, in2)
  _check_2d("correlate2d", in1, in2, boundary, fillvalue)
  in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
  # JAX's arrangement (which input is flipped decides the convolution's summation order):
  # the flipped first input convolved with the conjugated second, the result flipped back;
  # a smaller first input swaps them (conjugating the result in 'full' mode).
  swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
  same_shape = in1.shape == in2.shape
  if swap and (mode == "full" or mode == "valid" and not same_shape):
    out = _convolve_nd(jnp.flip(in2), in1.conj(), mode, precision=precision)
    return out.conj() if mode == "full" else out
  return jnp.flip(_convolve_nd(jnp.flip(in1), in2.conj(), mode, precision=precision))


def detrend(data, axis=-1, type="linear", bp=0, overwrite_data=None):
  """Removes the mean ("constant") or, between the breakpoints ``bp``, the least-squares
  line ("linear", fitted with ``lstsq`` on [1, t / N] as JAX) along ``axis``."""
  if overwrite_data is not None:
    raise NotImplementedError("overwrite_data argument not implemented.")
  if type not in ("constant", "linear"):
    raise ValueError("Trend type must be 'linear' or 'constant'.")
  (data,) = promote_dtypes_inexact(jnp.asarray(data))
  if type == "constant":
    return data - data.mean(axis, keepdims=True)
  n = data.shape[axis]
  edges = np.sort(np.unique(np.r_[0, bp, n]))
  if edges[0] < 0 or edges[-1] > n:
    raise ValueError("Breakpoints must be non-negative and less than length of data along "
                     "given axis.")
  data = jnp.moveaxis(data, axis, 0)
  shape = data.shape
  data = data.reshape(n, -1)
  for lo, hi in zip(edges[:-1], edges[1:]):
    npts = hi - lo
    fit = jnp.vstack([jnp.ones(npts, dtype=data.dtype),
                      jnp.arange(1, npts + 1, dtype=data.dtype) / npts.astype(data.dtype)]).T
    coef = jnp_linalg.lstsq(fit, data[lo:hi])[0]
    data = data.at[lo:hi].add(-jnp.matmul(fit, coef, precision=Precision.HIGHEST))
  return jnp.moveaxis(data.reshape(shape), 0, axis)


def _fft_convolve_axes(in1, in2, mode, axes):
  """FFT convolution over ``axes``; the other axes (equal in both) are batch axes."""
  s1 = [in1.shape[a] for a in axes]
  s2 = [in2.shape[a] for a in axes]
  if mode == "valid":
    if not (all(a >= b for a, b in zip(s1, s2)) or all(a <= b for a, b in zip(s1, s2))):
      raise ValueError("For 'valid' mode, One input must be at least as "
                       "large as the other in every dimension.")
    if all(a <= b for a, b in zip(s1, s2)):
      in1, in2, s1, s2 = in2, in1, s2, s1
  full = [a + b - 1 for a, b in zip(s1, s2)]
  if all(a == 1 or b == 1 for a, b in zip(s1, s2)):
    conv = in1 * in2
  elif dtypes.issubdtype(in1.dtype, np.complexfloating):
    conv = jnp_fft.ifftn(jnp_fft.fftn(in1, full, axes) * jnp_fft.fftn(in2, full, axes), full, axes)
  else:
    conv = jnp_fft.irfftn(jnp_fft.rfftn(in1, full, axes) * jnp_fft.rfftn(in2, full, axes),
                          full, axes)
  out = {"full": full, "same": s1, "valid": [a - b + 1 for a, b in zip(s1, s2)]}[mode]
  starts = [0] * conv.ndim
  sizes = list(conv.shape)
  for ax, f, o in zip(axes, full, out):
    starts[ax], sizes[ax] = (f - o) // 2, o
  return lax_slice(conv, starts, [b + n for b, n in zip(starts, sizes)])


def fftconvolve(in1, in2, mode="full", axes=None):
  """N-d convolution through FFTs over ``axes`` (default all; other axes must match)."""
  in1, in2 = arraylike("fftconvolve", in1, in2)
  in1, in2 = (jnp.asarray(v) for v in promote_dtypes_inexact(in1, in2))
  if in1.ndim != in2.ndim:
    raise ValueError("in1 and in2 should have the same dimensionality")
  if mode not in _MODES:
    raise ValueError("mode must be one of ['same', 'full', 'valid']")
  if axes is None:
    axes = tuple(range(in1.ndim))
  else:
    axes = tuple(canonical_axis(a, in1.ndim) for a in np.atleast_1d(axes).tolist())
    mapped = sorted(set(range(in1.ndim)) - set(axes))
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
      raise ValueError(f"mapped axes must have same shape; got {in1.shape=} {in2.shape=} "
                       f"{axes=}")
  return _fft_convolve_axes(in1, in2, mode, axes)
