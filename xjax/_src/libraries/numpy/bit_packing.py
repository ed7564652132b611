"""Packing booleans into the bits of uint8 arrays and back: packbits, unpackbits."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.numpy.creation import asarray, zeros
from xjax._src.libraries.numpy.reductions import sum as _sum
from xjax._src.libraries.numpy.shaping import concatenate, moveaxis, ravel
from xjax._src.libraries.numpy.ufuncs import left_shift, right_shift


def _bit_weights(bitorder):
  if bitorder not in ("big", "little"):
    raise ValueError("'order' must be either 'little' or 'big'")
  shifts = np.arange(8, dtype=np.uint8)
  return shifts[::-1].copy() if bitorder == "big" else shifts


@compiled_when_eager(staged="packbits", static_argnames=("axis", "bitorder"))
def packbits(a, axis=None, bitorder="big"):
  """Groups of 8 truth values along ``axis`` packed into uint8 (zero-padded at the end)."""
  a, = arraylike("packbits", a)
  a = asarray(a)
  if not (dtypes.is_integer(a.dtype) or a.dtype == np.bool_):
    raise TypeError("Expected an input array of integer or boolean data type")
  if axis is None:
    a, axis = ravel(a), 0
  axis = canonical_axis(axis, a.ndim)
  bits = moveaxis((a != 0).astype(np.uint8), axis, -1)
  n = bits.shape[-1]
  pad = (-n) % 8
  if pad:
    bits = concatenate([bits, zeros(bits.shape[:-1] + (pad,), np.uint8)], axis=-1)
  bits = bits.reshape(bits.shape[:-1] + ((n + pad) // 8, 8))
  packed = _sum(left_shift(bits, _bit_weights(bitorder)), axis=-1, dtype=np.uint8)
  return moveaxis(packed, -1, axis)


@compiled_when_eager(static_argnames=("axis", "count", "bitorder"), staged="unpackbits")
def unpackbits(a, axis=None, count=None, bitorder="big"):
  """Each uint8 along ``axis`` unpacked into 8 bits; ``count`` keeps that many (negative:
  drops that many from the end; more than available: zero-padded)."""
  a, = arraylike("unpackbits", a)
  a = asarray(a)
  if a.dtype != np.uint8:
    raise TypeError("Expected an input array of unsigned byte data type")
  if axis is None:
    a, axis = ravel(a), 0
  axis = canonical_axis(axis, a.ndim)
  x = moveaxis(a, axis, -1)
  bits = right_shift(x[..., None], _bit_weights(bitorder)) & np.uint8(1)
  bits = bits.reshape(x.shape[:-1] + (x.shape[-1] * 8,))
  if count is not None:
    total = bits.shape[-1]
    keep = count if count >= 0 else max(total + count, 0)
    if keep <= total:
      bits = bits[..., :keep]
    else:
      bits = concatenate([bits, zeros(bits.shape[:-1] + (keep - total,), np.uint8)],
                             axis=-1)
  return moveaxis(bits, -1, axis)
