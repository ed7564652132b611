"""Indexing arrays with ``jax.ds`` slices (a traced start, a static size), as JAX does:
unit-stride slices take a window whose start is clamped into bounds (one
``dynamic_slice``); strided ones take each element, clamped; in the ``fill``/``drop``
modes of ``.at[]`` an out-of-bounds window (unit stride) or element (strided) is filled
or dropped.  Each such dimension is taken first; the rest of the index then applies to
the result with a full slice in its place."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax import gather_scatter as gs
from xjax._src.primitives.lax.elementwise import add, bitwise_and, clamp, ge, le, lt, mul, select_n
from xjax._src.primitives.lax.shapes import broadcast, dynamic_slice, full, iota
from xjax._src.primitives.state.dslice import Slice, is_static_int


def has_dslice(idx) -> bool:
  return type(idx) is Slice or (type(idx) is tuple and any(type(i) is Slice for i in idx))


def _consumed(i) -> int:
  """How many dimensions of the indexed array the index entry ``i`` selects along."""
  if i is None or i is Ellipsis or isinstance(i, (bool, np.bool_)):
    return 0
  if isinstance(i, (Slice, slice, int, np.integer)):
    return 1
  aval = get_aval(np.asarray(i) if isinstance(i, (list, tuple)) else i)
  return aval.ndim if aval.dtype == np.bool_ else 1


def _start(s):
  """The start index as an integer scalar (``lax.dynamic_slice`` wraps negative ones)."""
  if is_static_int(s):
    return int(s)
  aval = get_aval(s)
  if not dtypes.is_integer(aval.dtype):
    raise TypeError(f"index arguments to dynamic_slice must be integers of the same type, "
                    f"got: {aval.dtype.name}")
  return s


def _positions(s, size: int, stride: int, n: int, fill: bool):
  """The indices ``s + stride * arange(size)``: clamped into ``[0, n)``, or, when
  ``fill``, ``n`` (out of bounds) where outside it -- all of them, for a unit stride,
  unless the whole window lies inside."""
  whole = fill and stride == 1
  if is_static_int(s):
    pos = s + stride * np.arange(size, dtype=np.int64)
    if whole and not (0 <= s and s + size <= n):
      pos = np.full(size, n)
    pos = np.where(pos < 0, n, pos) if fill else np.clip(pos, 0, max(n - 1, 0))
    return pos.astype(np.int32 if n < 2**31 else np.int64)
  dt = get_aval(s).dtype
  scalar = lambda v: np.asarray(v, dt)[()]
  pos = add(broadcast(s, (size,)), mul(iota(dt, size),
                                                   full((size,), stride, dt)))
  if whole:
    inside = bitwise_and(ge(s, scalar(0)), le(s, scalar(n - size)))
    return select_n(broadcast(inside, (size,)), full((size,), n, dt), pos)
  if fill:
    return select_n(lt(pos, full((size,), 0, dt)), pos, full((size,), n, dt))
  return clamp(scalar(0), pos, scalar(max(n - 1, 0)))


def take(x, idx, mode, fill_value, take_rest):
  """``(x, idx)`` with every ``Slice`` of ``idx`` taken from ``x`` and replaced by ``:``;
  ``idx`` is None when nothing is left to index.  ``take_rest(x, idx, mode, fill_value)``
  indexes with what remains (the caller's indexing)."""
  items = list(idx) if type(idx) is tuple else [idx]
  aval = get_aval(x)
  n_real = sum(_consumed(i) for i in items if i is not Ellipsis)
  mode = None if mode is None else gs.GatherScatterMode.from_any(mode)
  fill = mode is gs.GatherScatterMode.FILL_OR_DROP
  window_starts, window_sizes = [0] * aval.ndim, list(aval.shape)
  gathers, dim = [], 0
  for k, i in enumerate(items):
    if i is Ellipsis:
      dim += aval.ndim - n_real
      continue
    if type(i) is Slice:
      if i.is_dynamic_size:
        raise TypeError(f"jax.ds needs a static size, got {i.size!r} (pass the size as a "
                        "Python int, e.g. through static_argnums).")
      if dim >= aval.ndim:
        break  # too many indices: the caller's indexing says so
      size, n = int(i.size), aval.shape[dim]
      if i.stride == 1 and not fill:
        if size > n:
          raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, "
                          f"got slice_sizes ({size},) for operand shape ({n},).")
        window_starts[dim], window_sizes[dim] = _start(i.start), size
      else:
        gathers.append((dim, _positions(_start(i.start), size, i.stride, n, fill)))
      items[k] = slice(None)
    dim += _consumed(i)
  if window_sizes != list(aval.shape):
    x = dynamic_slice(x, window_starts, window_sizes)
  for d, pos in gathers:
    x = take_rest(x, (slice(None),) * d + (pos,), "clip" if mode is None else mode,
                  fill_value)
  if all(i is Ellipsis or (type(i) is slice and i == slice(None)) for i in items):
    return x, None
  return x, tuple(items)
