"""``fft``: fast Fourier transforms over the trailing dimensions, lowered to ``stablehlo.fft``.

The four transform types are linear; their transposes are transforms again (the real
ones with a mask for the Hermitian-redundant half spectrum, following JAX's convention for
complex cotangents).
"""
from __future__ import annotations

import enum
import math
from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.core.dim_expr import is_symbolic_dim
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.primitive_builders import standard_primitive


class FftType(enum.IntEnum):
  """Which transform ``fft`` performs."""
  FFT = 0
  IFFT = 1
  RFFT = 2
  IRFFT = 3


_BY_NAME = {"fft": FftType.FFT, "ifft": FftType.IFFT, "rfft": FftType.RFFT,
            "irfft": FftType.IRFFT}


def _fft_type(fft_type) -> FftType:
  if isinstance(fft_type, FftType):
    return fft_type
  if isinstance(fft_type, str):
    try:
      return _BY_NAME[fft_type.lower()]
    except KeyError:
      raise ValueError(f"Unknown FFT type '{fft_type}'") from None
  raise TypeError(f"Unknown FFT type value '{fft_type}'")


def _complex_dtype(dtype):
  return np.dtype(np.complex128 if np.dtype(dtype) in (np.float64, np.complex128)
                  else np.complex64)


def _real_dtype(dtype):
  return dtypes.finfo(dtype).dtype


def _abstract_eval(x, *, fft_type, fft_lengths):
  k = len(fft_lengths)
  if k > x.ndim:
    raise ValueError(f"FFT input shape {x.shape} must have at least as many input "
                     f"dimensions as fft_lengths {fft_lengths}.")
  minor = x.shape[x.ndim - k:]
  if fft_type == FftType.RFFT:
    if x.dtype not in (np.float32, np.float64):
      raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
    if minor != fft_lengths:
      raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to "
                       f"fft_lengths {fft_lengths}")
    return ShapedArray(x.shape[:x.ndim - k] + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,),
                       _complex_dtype(x.dtype))
  if not dtypes.is_complex(x.dtype):
    raise ValueError(f"{fft_type.name} input must be complex64 or complex128, got {x.dtype}")
  if fft_type == FftType.IRFFT:
    if minor[:-1] != fft_lengths[:-1]:
      raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal to all "
                       f"except the last fft_length, got fft_lengths={fft_lengths}")
    return ShapedArray(x.shape[:x.ndim - k] + fft_lengths, _real_dtype(x.dtype))
  if minor != fft_lengths:
    raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                     f"fft_lengths {fft_lengths}")
  return ShapedArray(x.shape, x.dtype)


def _lowering(ctx, x, *, fft_type, fft_lengths):
  lengths = ", ".join(str(int(n)) for n in fft_lengths)
  return ctx.op("stablehlo.fft", [x], ctx.avals_out[0],
                {"fft_type": f"#stablehlo<fft_type {fft_type.name}>",
                 "fft_length": f"array<i64: {lengths}>"})


fft_p = standard_primitive("fft", _abstract_eval, _lowering)
fft_p.sharding_rule = lambda x, *, fft_type, fft_lengths: x._sharding  # (as JAX's)


def _half_spectrum_mask(m: int, n: int, dtype):
  """Weights of the stored half spectrum: 1 for DC (and Nyquist when n is even), else 2."""
  w = np.full((m,), 2.0)
  w[0] = 1.0
  if n % 2 == 0:
    w[-1] = 1.0
  return w.astype(dtype)


def _transpose(ct, x, *, fft_type, fft_lengths):
  if type(ct) is Zero:
    return [Zero(x.aval)]
  size = math.prod(fft_lengths)
  if fft_type in (FftType.FFT, FftType.IFFT):  # the DFT matrices are symmetric
    return [fft_p.bind(ct, fft_type=fft_type, fft_lengths=fft_lengths)]
  cta = get_aval(ct)
  if fft_type == FftType.RFFT:
    mask = _half_spectrum_mask(cta.shape[-1], fft_lengths[-1], _real_dtype(cta.dtype))
    scaled = ew.div(ew.conj(ct), shapes.full(cta.shape, 1, cta.dtype) * mask)
    out = fft_p.bind(scaled, fft_type=FftType.IRFFT, fft_lengths=fft_lengths)
    return [ew.mul(out, shapes.full(get_aval(out).shape, size, get_aval(out).dtype))]
  spec = fft_p.bind(ct, fft_type=FftType.RFFT, fft_lengths=fft_lengths)
  sa = get_aval(spec)
  mask = _half_spectrum_mask(sa.shape[-1], fft_lengths[-1], _real_dtype(sa.dtype)) / size
  weights = ew.convert_element_type(shapes.full(sa.shape, 1, _real_dtype(sa.dtype)) * mask,
                                    sa.dtype)
  return [ew.conj(ew.mul(spec, weights))]


def _batch(axis, args, dims, *, fft_type, fft_lengths):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)  # the transformed dimensions are the trailing ones
  return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths), 0


ad.deflinear(fft_p, _transpose)
fft_p.batch = _batch


def fft(x, fft_type: FftType | str, fft_lengths: Sequence[int]):
  """The ``fft_type`` transform of ``x`` over its trailing ``len(fft_lengths)`` dimensions."""
  typ = _fft_type(fft_type)
  dt = get_aval(x).dtype
  if typ == FftType.RFFT:
    if dtypes.is_complex(dt):
      raise ValueError("only real valued inputs supported for rfft")
    x = ew.convert_element_type(x, dtypes.to_inexact_dtype(dt))
  else:
    x = ew.convert_element_type(x, dtypes.to_complex_dtype(dt))
  fft_lengths = tuple(n if is_symbolic_dim(n) else int(n) for n in fft_lengths)
  if not fft_lengths:
    return x
  return fft_p.bind(x, fft_type=typ, fft_lengths=fft_lengths)
