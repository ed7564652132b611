"""``pad`` with NumPy's modes, built from lax.pad, slices, reversal and reductions."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations.tree_util import tree_map
from xjax._src.core.concrete import concrete_or_error
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import add, convert_element_type, sub
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, concatenate, full,
                                             pad as lax_pad, rev, slice_in_dim,
                                             squeeze as lax_squeeze)
from xjax._src.libraries.numpy import reductions as red
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.functional import apply_along_axis
from xjax._src.libraries.numpy.numerical_ranges import linspace
from xjax._src.libraries.numpy.shaping import broadcast_to
from xjax._src.libraries.numpy.statistics import median

_MODE_KWARGS = {"constant": ("constant_values",), "empty": (), "edge": (), "wrap": (),
                "reflect": ("reflect_type",), "symmetric": ("reflect_type",),
                "linear_ramp": ("end_values",), "maximum": ("stat_length",),
                "minimum": ("stat_length",), "mean": ("stat_length",),
                "median": ("stat_length",)}


def _widths(pad_width, nd):
  w = np.asarray(tree_map(lambda v: concrete_or_error(v, "jnp.pad pad_width"), pad_width))
  if w.dtype.kind not in "iu" and w.size:
    raise TypeError(f"`pad_width` must be of integral type, got {pad_width}")
  if w.shape not in ((nd, 2), (1, 2), (2,), (1,), ()):
    raise ValueError(f"jnp.pad: pad_width with nd={nd} has unsupported shape {w.shape}. Valid "
                     f"shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")
  w = np.broadcast_to(w.astype(np.int64), (nd, 2))
  if (w < 0).any():
    raise ValueError("index can't contain negative values")
  return [(int(a), int(b)) for a, b in w]


def _per_axis(value, nd):
  v = np.broadcast_to(np.asarray(value, dtype=object), (nd, 2))
  return [(v[i, 0], v[i, 1]) for i in range(nd)]


def _sl(x, ax, s, e):
  return slice_in_dim(x, s, e, axis=ax)


def _index_pad(x, ax, lo, hi, mode):
  """Pads by copying runs of x's own entries, as given by np.pad of an index vector."""
  size = get_aval(x).shape[ax]
  idx = np.pad(np.arange(size), (lo, hi), mode=mode)
  parts, start = [], 0
  while start < len(idx):
    step = 1 if start + 1 < len(idx) and idx[start + 1] == idx[start] + 1 else -1
    end = start + 1
    while end < len(idx) and idx[end] == idx[end - 1] + step:
      end += 1
    if end - start == 1:
      step = 1
    lo_i, hi_i = sorted((int(idx[start]), int(idx[end - 1])))
    piece = _sl(x, ax, lo_i, hi_i + 1)
    parts.append(rev(piece, (ax,)) if step == -1 else piece)
    start = end
  return concatenate(parts, ax)


def pad(array, pad_width, mode="constant", **kwargs):
  """Pads ``array`` by ``pad_width`` per axis in the given NumPy ``mode``."""
  if callable(mode):
    return _func_pad(asarray(array), pad_width, mode, kwargs)
  if mode not in _MODE_KWARGS:
    raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
  unsupported = set(kwargs) - set(_MODE_KWARGS[mode])
  if unsupported:
    raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
  reflect_type = kwargs.get("reflect_type", "even")
  if reflect_type not in ("even", "odd"):
    raise ValueError(f"reflect_type must be 'even' or 'odd', got {reflect_type!r}")
  x = asarray(array)
  widths = tuple(_widths(pad_width, get_aval(x).ndim))
  if mode in ("constant", "empty"):
    return _padded_constant(x, kwargs.get("constant_values", 0), widths=widths)
  return _padded(x, widths=widths, mode=mode, stat_length=kwargs.get("stat_length"),
                 end_values=kwargs.get("end_values", 0), reflect_type=reflect_type)


@compiled_when_eager(staged="_pad", static_argnames=("widths",))
def _padded_constant(x, values, *, widths):
  """``x`` padded by ``widths`` with ``values`` (a scalar or per-axis (before, after) pairs,
  possibly traced, as JAX)."""
  aval = get_aval(x)
  values = convert_element_type(asarray(values), aval.dtype, aval.weak_type)
  if get_aval(values).ndim == 0:  # (JAX's widths are NumPy ints, as its jaxprs print)
    return lax_pad(x, values, [(np.int64(lo), np.int64(hi), 0) for lo, hi in widths])
  values = broadcast_to(values, (aval.ndim, 2))
  for ax, (lo, hi) in enumerate(widths):
    x = _concat_const(x, ax, lo, hi, values[ax, 0], values[ax, 1])
  return x


@compiled_when_eager(static_argnames=("widths", "mode", "stat_length", "end_values",
                                     "reflect_type"), hashable_statics=True)
def _padded(x, *, widths, mode, stat_length, end_values, reflect_type):
  """``x`` padded by ``widths`` in ``mode`` with that mode's options (static, hashed as
  JAX's jit hashes them); one compiled program per signature when eager, as JAX's ``pad``."""
  nd = get_aval(x).ndim
  for ax, (lo, hi) in enumerate(widths):
    if not lo and not hi:
      continue
    size = get_aval(x).shape[ax]
    if size == 0:
      raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant' "
                       "or 'empty'")
    if mode in ("maximum", "minimum", "mean", "median"):
      x = _stat_pad(x, ax, lo, hi, mode, stat_length)
    elif mode == "linear_ramp":
      x = _ramp_pad(x, ax, lo, hi, _per_axis(end_values, nd)[ax])
    elif reflect_type == "odd":
      x = _odd_reflect_pad(x, ax, lo, hi, mode)
    else:
      x = _index_pad(x, ax, lo, hi, mode)
  return x


def _func_pad(x, pad_width, func, kwargs):
  """Zero-pads, then lets ``func(vector, (lo, hi), axis, kwargs)`` refill each 1-D line."""
  widths = _widths(pad_width, get_aval(x).ndim)
  x = lax_pad(x, np.zeros((), get_aval(x).dtype)[()], [(lo, hi, 0) for lo, hi in widths])
  for ax, w in enumerate(widths):
    x = apply_along_axis(func, ax, x, w, ax, kwargs)
  return x


def _odd_reflect_pad(x, ax, lo, hi, mode):
  """Reflection about the edge value (2 * edge - mirror image), chained past one period."""
  size = get_aval(x).shape[ax]
  offset = 1 if mode == "reflect" and size > 1 else 0
  for before, n in ((True, lo), (False, hi)):
    while n > 0:
      cur = get_aval(x).shape[ax]
      k = min(n, size - offset)
      n -= k
      if before:
        edge, piece = _sl(x, ax, 0, 1), _sl(x, ax, offset, offset + k)
      else:
        edge, piece = _sl(x, ax, cur - 1, cur), _sl(x, ax, cur - k - offset, cur - offset)
      piece = rev(piece, (ax,))
      shape = get_aval(piece).shape
      edge = broadcast_in_dim(edge, shape, tuple(range(len(shape))))
      piece = sub(add(edge, edge), piece)
      x = concatenate([piece, x] if before else [x, piece], ax)
  return x


def _const_block(x, ax, n, value):
  shape = list(get_aval(x).shape)
  shape[ax] = n
  return full(tuple(shape), value, get_aval(x).dtype)


def _concat_const(x, ax, lo, hi, vlo, vhi):
  return concatenate([_const_block(x, ax, lo, vlo), x, _const_block(x, ax, hi, vhi)], ax)


def _stat_pad(x, ax, lo, hi, mode, stat_length):
  size = get_aval(x).shape[ax]
  lengths = _per_axis(size if stat_length is None else stat_length, get_aval(x).ndim)[ax]
  fn = {"maximum": red.max, "minimum": red.min, "mean": red.mean, "median": median}[mode]
  parts = []
  for side, n in ((0, lo), (1, hi)):
    k = min(operator.index(lengths[side]), size)
    src = _sl(x, ax, 0, k) if side == 0 else _sl(x, ax, size - k, size)
    stat = fn(src, axis=ax, keepdims=True)
    if mode in ("mean", "median") and get_aval(stat).dtype != get_aval(x).dtype:
      from xjax._src.primitives.lax.rounding import round_half_even
      stat = convert_element_type(round_half_even(stat), get_aval(x).dtype)
    shape = list(get_aval(x).shape)
    shape[ax] = n
    parts.append(broadcast_in_dim(stat, tuple(shape), tuple(range(len(shape)))))
  return concatenate([parts[0], x, parts[1]], ax)


def _ramp_pad(x, ax, lo, hi, ends):
  """Ramps from each end value towards (not reaching) the edge, as JAX builds them: a
  ``linspace`` without its endpoint in ``x``'s dtype (reversed after the edge)."""
  aval = get_aval(x)
  size = aval.shape[ax]
  ramps = []
  for n, end, edge in ((lo, ends[0], _sl(x, ax, 0, 1)), (hi, ends[1], _sl(x, ax, size - 1, size))):
    ramp = linspace(end, lax_squeeze(edge, (ax,)), n, endpoint=False, dtype=aval.dtype, axis=ax)
    ramps.append(convert_element_type(ramp, aval.dtype, aval.weak_type))
  return concatenate([ramps[0], x, rev(ramps[1], (ax,))], ax)
