"""Rearranging arrays: atleast_nd, *stack, split, tile, repeat, flip, rot90, roll, pad."""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.core.concrete import canonicalize_shape, concrete_or_error
from xjax._src.core.trace import Tracer
from xjax._src.core.avals import spec_of
from xjax._src.core.dim_expr import is_symbolic_dim
from xjax._src.core.values import get_aval
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.api.explicit_sharding import auto_axes
from xjax._src.execution.array import Array
from xjax._src.foundations.sharding import get_abstract_mesh
from xjax._src.primitives.lax.elementwise import convert_element_type, sub
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcasted_iota,
                                             concatenate as lax_concatenate, dynamic_slice_in_dim,
                                             expand_dims, full, index_in_dim,
                                             reshape as lax_reshape, rev, slice as lax_slice,
                                             slice_in_dim, transpose)
from xjax._src.primitives.lax.shapes import split as lax_split
from xjax._src.primitives.lax.stacking import tile as lax_tile
from xjax._src.libraries.numpy.arguments import (arraylike, canonical_axis, check_arraylike,
                                                  index_tuple, refuse_iterator)
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.cumulative import cumsum
from xjax._src.libraries.numpy.indexing import take
from xjax._src.libraries.numpy.shaping import (broadcast_to, concatenate, moveaxis, ravel, reshape,
                                               stack)
from xjax._src.libraries.numpy.ufuncs import remainder
from xjax._src.libraries.numpy.where import where


def _atleast(nd, arys, shape_fn):
  arys = arraylike(f"atleast_{nd}d", *arys)
  out = []
  for a in arys:
    a = asarray(a)
    s = get_aval(a).shape
    out.append(a if len(s) >= nd else lax_reshape(a, shape_fn(s)))
  return out[0] if len(out) == 1 else out


@compiled_when_eager(staged="atleast_1d")
def atleast_1d(*arys):
  return _atleast(1, arys, lambda s: (1,))


@compiled_when_eager(staged="atleast_2d")
def atleast_2d(*arys):
  return _atleast(2, arys, lambda s: (1,) * (2 - len(s)) + s)


@compiled_when_eager(staged="atleast_3d")
def atleast_3d(*arys):
  return _atleast(3, arys, lambda s: (1, 1, 1) if not s else (1,) + s + (1,) if len(s) == 1
                  else s + (1,))


def _seq(tup, name):
  """The arrays of ``tup``: the items of a sequence of arrays (not of lists: JAX's
  TypeError), or an array's slices along its leading axis (a 0-d one has none: JAX's
  ValueError, from mapping over that axis)."""
  if not isinstance(tup, (np.ndarray, Array, Tracer)):
    refuse_iterator(name, tup, IndexError if name == "hstack" else ValueError)
    tup = [*tup]
    tup = arraylike(name, *tup)
    return tup
  if not get_aval(tup).ndim:
    raise ValueError(f"{name} maps over the leading axis of an array argument, which must "
                     "have rank at least 1, but is only 0")
  return [tup[i] for i in range(get_aval(tup).shape[0])]


def vstack(tup, dtype=None):
  return concatenate([atleast_2d(a) for a in _seq(tup, "vstack")], axis=0, dtype=dtype)


def hstack(tup, dtype=None):
  arrs = [atleast_1d(a) for a in _seq(tup, "hstack")]
  if not arrs:
    raise ValueError("Need at least one array to concatenate.")
  return concatenate(arrs, axis=0 if get_aval(arrs[0]).ndim == 1 else 1, dtype=dtype)


def dstack(tup, dtype=None):
  return concatenate([atleast_3d(a) for a in _seq(tup, "dstack")], axis=2, dtype=dtype)


def column_stack(tup):
  arrs = []
  for a in _seq(tup, "column_stack"):
    a = asarray(a)
    arrs.append(lax_reshape(a, (get_aval(a).size, 1)) if get_aval(a).ndim < 2 else a)
  return concatenate(arrs, axis=1)


def _split(name, ary, indices_or_sections, axis, exact):
  ary = asarray(ary)
  aval = get_aval(ary)
  axis = canonical_axis(axis, aval.ndim, error=IndexError)
  size = aval.shape[axis]
  if isinstance(indices_or_sections, (tuple, list)) or np.ndim(indices_or_sections) == 1:
    bounds = [int(concrete_or_error(i, f"{name} indices"))
              for i in indices_or_sections]
    bounds = [0] + bounds + [size]
    sizes = [e - s for s, e in zip(bounds[:-1], bounds[1:])]
    if any(d < 0 for d in sizes):  # as JAX: indices are neither wrapped nor clipped
      raise ValueError(f"Sizes passed to {name} must be nonnegative, got {sizes}")
  else:
    n = operator.index(concrete_or_error(indices_or_sections, f"{name} sections"))
    if n == 0:  # the class JAX raises
      raise ZeroDivisionError(f"jnp.{name}: the number of sections must be positive, got 0.")
    if n < 0:
      raise ValueError(f"jnp.{name}: the number of sections must be positive, got {n}.")
    q, r = divmod(size, n)
    if exact and r:
      raise ValueError(f"array split does not result in an equal division: rest is {r}")
    sizes = [q + 1] * r + [q] * (n - r)
  return list(lax_split(ary, [np.int64(d) for d in sizes], axis))  # NumPy ints, as JAX's


def split(ary, indices_or_sections, axis=0):
  """Splits into equal sections or at the given indices."""
  check_arraylike("split", ary)
  return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary, indices_or_sections, axis=0):
  """Like split, but sections may differ in size by one."""
  check_arraylike("array_split", ary)
  return _split("array_split", ary, indices_or_sections, axis, False)


def vsplit(ary, indices_or_sections):
  check_arraylike("vsplit", ary)
  return split(ary, indices_or_sections, axis=0)


def hsplit(ary, indices_or_sections):
  check_arraylike("hsplit", ary)
  ary = asarray(ary)
  return split(ary, indices_or_sections, axis=0 if get_aval(ary).ndim == 1 else 1)


def dsplit(ary, indices_or_sections):
  return split(ary, indices_or_sections, axis=2)


def tile(A, reps):
  """Repeats the whole array ``reps`` times along each axis (the ``tile`` primitive)."""
  A = asarray(A)
  reps = canonicalize_shape(reps)
  if any(r < 0 for r in reps):
    raise ValueError(f"jnp.tile: reps must be non-negative integers, got {reps}")
  ndim = get_aval(A).ndim
  reps = (1,) * (ndim - len(reps)) + reps
  if len(reps) > ndim:
    A = expand_dims(A, tuple(range(len(reps) - ndim)))
  return lax_tile(A, reps)


def repeat(a, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
  """Repeats each element; ``repeats`` must be concrete unless total_repeat_length is set.
  Over a dimension split over Explicit mesh axes the result's split must be given
  (``out_sharding``), as JAX requires."""
  a = asarray(a)
  if axis is None:
    a, axis = ravel(a), 0
  aval = get_aval(a)
  axis = canonical_axis(axis, aval.ndim)
  if out_sharding is None and spec_of(aval)[axis] is not None:
    raise ValueError("Please pass sharding to `jnp.repeat` via `out_sharding` parameter.")
  if out_sharding is not None:
    mesh = getattr(out_sharding, "mesh", get_abstract_mesh())
    return auto_axes(_repeat, axes=mesh.explicit_axes, out_sharding=out_sharding)(
        a, repeats, axis, total_repeat_length)
  return _repeat(a, repeats, axis, total_repeat_length)


def _repeat(a, repeats, axis: int, total_repeat_length):
  aval = get_aval(a)
  n = aval.shape[axis]
  if np.ndim(repeats) == 0 and not hasattr(repeats, "aval"):
    r = operator.index(concrete_or_error(repeats, "repeats"))
    if total_repeat_length is None or total_repeat_length == n * r:
      x = moveaxis(a, axis, -1)
      s = get_aval(x).shape
      x = broadcast_in_dim(x, s + (r,), tuple(range(len(s))))
      return moveaxis(lax_reshape(x, s[:-1] + (n * r,)), -1, axis)
  if total_repeat_length is None:
    counts = np.broadcast_to(  # (repeats raveled first, as JAX's)
        np.ravel(concrete_or_error(repeats, "repeats (or pass total_repeat_length=)")), (n,))
    source = convert_element_type(
        asarray(np.repeat(np.arange(n, dtype=np.int32), counts)), np.int32)
  else:
    counts = broadcast_to(convert_element_type(ravel(asarray(repeats)), np.int32), (n,))
    ends = slice_in_dim(cumsum(counts), 0, max(n - 1, 0))
    # Source index of output slot p = number of segment ends <= p (a scatter-add + cumsum).
    marks = full((total_repeat_length,), 0, np.int32).at[ends].add(1, mode="drop")
    source = cumsum(marks) if total_repeat_length else marks
  return _take_along(a, source, axis)


def _take_along(a, idx, axis):
  """``a`` gathered along ``axis`` at the int vector ``idx`` (clamped into range)."""
  shape = get_aval(a).shape
  if shape[axis] == 0:
    out_shape = shape[:axis] + get_aval(idx).shape + shape[axis + 1:]
    return full(out_shape, 0, get_aval(a).dtype)
  return take(a, idx, axis=axis, mode="clip")


@compiled_when_eager(static_argnames=("axis",))
def flip(m, axis=None):
  """Reverses the order of elements along the given axes (all by default)."""
  check_arraylike("flip", m)
  return _flip(asarray(m), None if axis is None else index_tuple(axis))


@compiled_when_eager(staged="_flip", static_argnames=("axis",))
def _flip(m, axis=None):
  nd = get_aval(m).ndim
  return rev(m, tuple(range(nd)) if axis is None else
                 tuple(canonical_axis(a, nd, scalar_axis=False) for a in axis))


def fliplr(m):
  check_arraylike("fliplr", m)
  return flip(m, 1)


def flipud(m):
  check_arraylike("flipud", m)
  return flip(m, 0)


@compiled_when_eager(staged="rot90", static_argnames=("k", "axes"))
def rot90(m, k=1, axes=(0, 1)):
  """Rotates by 90 degrees k times in the plane of ``axes``."""
  check_arraylike("rot90", m)
  m = asarray(m)
  nd = get_aval(m).ndim
  if nd < 2:
    raise ValueError("rot90 requires its first argument to have ndim at least two, but got "
                     f"first argument of shape {get_aval(m).shape}, which has ndim {nd}")
  a0, a1 = (canonical_axis(a, nd) for a in axes)
  if a0 == a1:
    raise ValueError("Axes must be different")
  k = operator.index(k) % 4
  if k == 0:
    return m
  if k == 2:
    return flip(flip(m, a0), a1)
  perm = list(range(nd))
  perm[a0], perm[a1] = perm[a1], perm[a0]
  if k == 1:
    return transpose(flip(m, a1), perm)
  return flip(transpose(m, perm), a1)


@compiled_when_eager(static_argnames=("shift", "axis"))
def roll(a, shift, axis=None):
  """Cyclically shifts elements by ``shift`` (static, or traced: then by dynamic slices of
  ``a`` repeated twice, as JAX)."""
  check_arraylike("roll", a)
  a = asarray(a)
  if axis is None:
    return reshape(roll(ravel(a), shift, 0), get_aval(a).shape)
  if np.ndim(shift) > 1 or np.ndim(axis) > 1:
    raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
  nd = get_aval(a).ndim
  axes = tuple(canonical_axis(int(ax), nd) for ax in index_tuple(axis))
  shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
  if any(isinstance(s, Tracer) for s in shifts):
    return _roll_dynamic(a, asarray(shift), list(axes))
  return _roll_static(a, tuple(s if is_symbolic_dim(s) else int(concrete_or_error(s, "roll shift"))
                              for s in shifts), axes)


@compiled_when_eager(staged="_roll_static", static_argnames=("shift", "axis"))
def _roll_static(a, shift, axis):
  for s, ax in zip(*np.broadcast_arrays(np.asarray(shift), np.asarray(axis))):
    n = get_aval(a).shape[ax]
    if n == 0:
      continue
    shape = get_aval(a).shape
    i = -s % n if is_symbolic_dim(s) or is_symbolic_dim(n) else int(-s) % n
    ones = (1,) * len(shape)  # strides given, as JAX's slice_in_dim
    lo = [i if d == ax else 0 for d in range(len(shape))]
    hi = [i if d == ax else k for d, k in enumerate(shape)]
    a = lax_concatenate([lax_slice(a, lo, shape, ones), lax_slice(a, [0] * len(shape), hi, ones)],
                        int(ax))
  return a


def _roll_dynamic(a, shift, axes: list):
  shape = np.broadcast_shapes(get_aval(shift).shape, np.shape(axes))
  if len(shape) != 1:
    raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
  shifts = broadcast_to(shift, shape)
  for k, ax in enumerate(np.broadcast_to(axes, shape)):
    n = get_aval(a).shape[ax]
    s = convert_element_type(index_in_dim(shifts, k, keepdims=False), np.int32)
    s = remainder(s, np.int32(max(n, 1)))
    a = dynamic_slice_in_dim(lax_concatenate([a, a], int(ax)), sub(np.int32(n), s),
                                 n, int(ax))
  return a


@compiled_when_eager(staged="append", static_argnames=("axis",))
def append(arr, values, axis=None):
  """``arr`` with ``values`` concatenated at the end (flattened when axis is None)."""
  check_arraylike("append", arr, values)
  if axis is None:
    return concatenate([ravel(asarray(arr)), ravel(asarray(values))], 0)
  return concatenate([arr, values], axis=axis)


def select(condlist, choicelist, default=0):
  """Per element, the choice for the first true condition (else ``default``)."""
  if len(condlist) != len(choicelist):
    raise ValueError("condlist must have length equal to choicelist "
                     f"({len(condlist)} vs {len(choicelist)})")
  if len(condlist) == 0:  # (an array of conditions is a sequence of its rows, as in JAX)
    raise ValueError("condlist must be non-empty")
  out = default
  for cond, choice in reversed(list(zip(condlist, choicelist))):
    out = where(cond, choice, out)
  return out


def _host_indices(fn, *args):
  from xjax._src.foundations import dtypes
  return tuple(asarray(i.astype(dtypes.default_int_dtype())) for i in fn(*args))


def _static_ints(name, **args):
  """``args`` as Python ints, ConcretizationTypeError naming the argument if one is traced."""
  return [None if v is None else
          operator.index(concrete_or_error(v, f"jnp.{name} {k}"))
          for k, v in args.items()]


def tril_indices(n, k=0, m=None):
  return _host_indices(np.tril_indices, *_static_ints("tril_indices", n=n, k=k, m=m))


def triu_indices(n, k=0, m=None):
  return _host_indices(np.triu_indices, *_static_ints("triu_indices", n=n, k=k, m=m))


def diag_indices(n, ndim=2):
  return _host_indices(np.diag_indices, *_static_ints("diag_indices", n=n, ndim=ndim))


def indices(dimensions, dtype=None, sparse=False):
  """Grid of index arrays for ``dimensions`` (stacked unless ``sparse``)."""
  from xjax._src.foundations import dtypes
  dt = dtypes.check_user_dtype_supported(dtype or dtypes.default_int_dtype(), "indices")
  dims = tuple(operator.index(concrete_or_error(d, "jnp.indices dimensions"))
               for d in dimensions)
  outs = []
  for i, d in enumerate(dims):
    if sparse:
      shape = tuple(d if j == i else 1 for j in range(len(dims)))
      outs.append(broadcasted_iota(dt, shape, i))
    else:
      outs.append(broadcasted_iota(dt, dims, i))
  if sparse:
    return tuple(outs)
  return stack(outs) if outs else full((0,), 0, dt)
