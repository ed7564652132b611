"""Shape manipulation: reshape, ravel, transpose, broadcasting, stacking."""
from __future__ import annotations

import math

import numpy as np

from xjax._src.core.concrete import canonicalize_shape
from xjax._src.core.dim_expr import is_symbolic_dim
from xjax._src.foundations import errors
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.interpreters.staging import staged_constant
from xjax._src.foundations.sharding import ShardingTypeError, typed_sharding
from xjax._src.core.avals import spec_of
from xjax._src.execution import host_eval
from xjax._src.execution.array import Array
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax import lax
from xjax._src.primitives.lax.elementwise import broadcasting_sharding_rule
from xjax._src.primitives.lax.shapes import user_broadcast_shapes
from xjax._src.libraries.numpy.arguments import (arraylike, canonical_axis, check_arraylike,
                                                  index_tuple, refuse_iterator)
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.promotion import promote_dtypes


def _as_array(a):
  """``a`` as JAX's ``ensure_arraylike`` gives it: an array or tracer as it is (so under
  eager ``jvp`` its tangent keeps its own weak type), anything else through ``asarray``."""
  return a if isinstance(a, (Array, Tracer)) else asarray(a)


def reshape(a, shape, order="C", *, copy=None, out_sharding=None):
  a = _as_array(a)
  aval = get_aval(a)
  shape = list(canonicalize_shape(shape))
  if shape.count(-1) > 1:
    raise TypeError("can only specify one unknown axis size with a `-1` value, got "
                    f"{tuple(shape)}")
  if -1 in shape:
    known = math.prod([d for d in shape if d != -1])
    if known and is_symbolic_dim(aval.size % known):   # (JAX's class and words)
      raise errors.InconclusiveDimensionOperation(
          f"Cannot divide evenly the sizes of shapes {aval.shape} and {tuple(shape)}. The "
          f"remainder {aval.size % known} should be 0.")
    if known == 0 or aval.size % known:
      raise TypeError(f"cannot reshape array of shape {aval.shape} (size {aval.size}) into "
                      f"shape {tuple(shape)}")
    shape[shape.index(-1)] = aval.size // known
  if math.prod(shape) != aval.size:
    raise TypeError(f"cannot reshape array of shape {aval.shape} (size {aval.size}) into "
                    f"shape {tuple(shape)} (size {math.prod(shape)})")
  if order == "F":
    from xjax._src.primitives.lax.sharding_constraint import place_out_sharding
    rev = tuple(reversed(range(aval.ndim)))
    out = lax.reshape(lax.transpose(a, rev), tuple(reversed(shape)))
    return place_out_sharding(lax.transpose(out, tuple(reversed(range(len(shape))))),
                              out_sharding)
  if order == "A":
    raise NotImplementedError("np.reshape order=A is not implemented.")
  if order != "C":
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")
  return lax.reshape(a, tuple(shape), out_sharding=out_sharding)


def user_reshape(a, shape, order="C", *, copy=None, out_sharding=None):
  """``jnp.reshape`` as users call it. As JAX's, a value with a ``reshape`` method of its own
  (a NumPy array or scalar) is reshaped by that method when no ``out_sharding`` is given, so
  NumPy input gives NumPy output, its dtype kept; lists are refused."""
  if type(a) is np.ndarray and out_sharding is None:   # (the common case, first)
    return a.reshape(shape, order=order)
  check_arraylike("reshape", a)
  if out_sharding is None and not isinstance(a, (Array, Tracer)):
    try:
      return a.reshape(shape, order=order)
    except AttributeError:  # (a Python scalar)
      pass
  return reshape(a, shape, order, copy=copy, out_sharding=out_sharding)


user_reshape.__name__ = user_reshape.__qualname__ = "reshape"   # (jnp.reshape's own)


@compiled_when_eager(static_argnames=("order", "out_sharding"))
def ravel(a, order="C", *, out_sharding=None):
  """``a`` flattened, laid out as ``out_sharding`` says (see ``place_out_sharding``)."""
  check_arraylike("ravel", a)
  from xjax._src.primitives.lax.sharding_constraint import place_out_sharding
  if order == "K":
    raise NotImplementedError("Ravel not implemented for order='K'.")
  return place_out_sharding(reshape(a, (-1,), order=order), out_sharding)


def transpose(a, axes=None):
  check_arraylike("transpose", a)
  a = _as_array(a)
  nd = get_aval(a).ndim
  if axes is None:
    axes = tuple(reversed(range(nd)))
  axes = tuple(canonical_axis(ax, nd) for ax in axes)
  if sorted(axes) != list(range(nd)):
    raise TypeError(f"axes {axes} don't match array of dimension {nd}")
  return lax.transpose(a, axes)


def broadcast_shapes(*shapes) -> tuple:
  """The NumPy broadcast of ``shapes`` (a scalar stands for a 1-D shape), checked as
  ``lax.broadcast_shapes`` checks them."""
  if not shapes:
    return ()
  return user_broadcast_shapes(*[(s,) if np.ndim(s) == 0 else tuple(s) for s in shapes])


def broadcast_to(array, shape, *, out_sharding=None):
  a = _as_array(array)
  aval = get_aval(a)
  shape = canonicalize_shape(shape)
  if aval.shape == shape and (out_sharding is None or aval._sharding == out_sharding):
    return a  # (else an unsplit operand takes the split asked for, as in JAX)
  nd = len(shape)
  if aval.ndim > nd:
    raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape="
                     f"{aval.shape} shape={shape}")
  lead = nd - aval.ndim
  for i, d in enumerate(aval.shape):
    if d != 1 and d != shape[lead + i]:
      raise ValueError(f"Incompatible types for broadcasting: input type={aval} and "
                       f"requested type={aval.update(shape=shape, weak_type=False)}")
  # one broadcast_in_dim, which also stretches the size-1 dimensions (as JAX)
  return lax.broadcast_in_dim(a, shape, tuple(range(lead, nd)), out_sharding=out_sharding)


_lax_broadcast_sharding = broadcasting_sharding_rule("broadcast_arrays")


def _broadcast_sharding(avals, ndim: int):
  """The split of NumPy-broadcast operands of rank ``ndim`` (ranks promoted by leading size-1
  dimensions, which no split names), as lax's rule gives it."""
  return _lax_broadcast_sharding(*[a if a.ndim == ndim else a.update(
      shape=(1,) * (ndim - a.ndim) + a.shape, sharding=None if a._sharding is None else
      typed_sharding(a._sharding.mesh, (None,) * (ndim - a.ndim) + spec_of(a)))
      for a in avals])


def broadcast_arrays(*args):
  avals = [get_aval(a) for a in args]
  shapes = [a.shape for a in avals]
  try:
    shape = broadcast_shapes(*shapes)
  except ValueError:
    raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}") from None
  sharding = None
  if any(a._sharding is not None for a in avals) and any(a.shape != shape for a in avals):
    try:  # over Explicit mesh axes, the broadcast ones are split as the others
      sharding = _broadcast_sharding(avals, len(shape))
    except ShardingTypeError:
      pass  # (the operation that combines them says how they disagree)
  # (jitted in JAX: inside jit its results are tracers, inputs passed through included)
  return [staged_constant(broadcast_to(a, shape, out_sharding=sharding), made=False) for a in args]


def expand_dims(a, axis):
  a = _as_array(a)
  return lax.expand_dims(a, index_tuple(axis))


def squeeze(a, axis=None):
  check_arraylike("squeeze", a)
  a = _as_array(a)
  aval = get_aval(a)
  if axis is None:
    axes = tuple(i for i, d in enumerate(aval.shape) if d == 1)
  else:
    axes = index_tuple(axis)
  return staged_constant(lax.squeeze(a, axes), made=False)  # (jitted in JAX: a tracer inside jit)


def _concatenate_array(arr, axis, dtype):
  """``concatenate`` of the rows of one array: a reshape (as JAX takes it)."""
  arr = _as_array(arr) if dtype is None else lax.convert_element_type(_as_array(arr), dtype)
  shape = get_aval(arr).shape
  if len(shape) == 0 or shape[0] == 0:
    raise ValueError("Need at least one array to concatenate.")
  if axis is None:
    return lax.reshape(arr, (get_aval(arr).size,))
  if len(shape) == 1:
    raise ValueError("Zero-dimensional arrays cannot be concatenated.")
  axis = canonical_axis(axis, len(shape) - 1)
  new_shape = shape[1:axis + 1] + (shape[0] * shape[axis + 1],) + shape[axis + 2:]
  return lax.reshape(arr, new_shape, (*range(1, axis + 1), 0, *range(axis + 1, len(shape))))


def _sequence_of_arrays(name, arrays):
  """``arrays`` as stack and concatenate take them: one array (a NumPy or xjax array, or a
  tracer), returned as it is, or else a sequence of arrays, as a list or tuple (any other
  sequence is read into a tuple, as JAX does)."""
  if isinstance(arrays, (np.ndarray, Array, Tracer, list, tuple)):
    return arrays
  refuse_iterator(name, arrays)
  return tuple(arrays)


def concatenate(arrays, axis=0, dtype=None):
  arrays = _sequence_of_arrays("concatenate", arrays)
  if not isinstance(arrays, (list, tuple)):
    arrays, = arraylike("concatenate", arrays)
    return _concatenate_array(arrays, axis, dtype)
  if not arrays:
    raise ValueError("Need at least one array to concatenate.")
  if dtype is None and host_eval.shortcuts_apply():
    out = host_eval.join(arrays, axis, stack=False)
    if out is not None:
      return out
  arrays = arraylike("concatenate", *arrays)
  arrays = [_as_array(a) for a in arrays]
  if axis is None:
    arrays = [ravel(a) for a in arrays]
    axis = 0
  if get_aval(arrays[0]).ndim == 0:  # (others of the wrong rank: lax's TypeError, as JAX)
    raise ValueError("Zero-dimensional arrays cannot be concatenated.")
  if dtype is not None:  # (each array through asarray, as JAX's: the user's dtype checked)
    arrays = [asarray(a, dtype=dtype) for a in arrays]
  else:
    arrays = promote_dtypes(*arrays)
  ax = canonical_axis(axis, get_aval(arrays[0]).ndim)
  return lax.concatenate(arrays, ax)


def stack(arrays, axis=0, out=None, dtype=None):
  """Joins equal-shaped arrays along a new ``axis`` (the ``stack`` primitive; the rows of
  one array are stacked by a reshape)."""
  if not len(arrays):  # (before reading it: a generator has no len, as in JAX)
    raise ValueError("Need at least one array to stack.")
  arrays = _sequence_of_arrays("stack", arrays)
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
  if not isinstance(arrays, (list, tuple)):
    arrays, = arraylike("stack", arrays)
    ndim = get_aval(arrays).ndim
    axis = canonical_axis(axis, ndim)
    return concatenate(lax.expand_dims(_as_array(arrays), (axis + 1,)), axis, dtype=dtype)
  if dtype is None and host_eval.shortcuts_apply():
    out = host_eval.join(arrays, axis, stack=True)
    if out is not None:
      return out
  arrays = arraylike("stack", *arrays)
  if dtype is not None:
    arrays = [asarray(a, dtype=dtype) for a in arrays]
  else:
    arrays = promote_dtypes(*[_as_array(a) for a in arrays])
  return lax.stack(arrays, axis)


def moveaxis(a, source, destination):
  """Moves axes ``source`` to positions ``destination`` (others keep their order)."""
  a = _as_array(a)
  nd = get_aval(a).ndim
  src = source if isinstance(source, (tuple, list)) else (source,)
  dst = destination if isinstance(destination, (tuple, list)) else (destination,)
  if len(src) != len(dst):
    raise ValueError("Inconsistent number of elements: "
                     f"{len(src)} vs {len(dst)}")
  src = [canonical_axis(s, nd, scalar_axis=False) for s in src]
  dst = [canonical_axis(d, nd, scalar_axis=False) for d in dst]
  perm = [i for i in range(nd) if i not in src]
  for d, s in sorted(zip(dst, src)):
    perm.insert(d, s)
  # (jitted in JAX: inside jit a tracer, even of the input passed through)
  return staged_constant(a, made=False) if perm == list(range(nd)) else lax.transpose(a, tuple(perm))


@compiled_when_eager(static_argnames=("axis1", "axis2"))
def swapaxes(a, axis1, axis2):
  a = _as_array(a)
  nd = get_aval(a).ndim
  perm = list(range(nd))
  i, j = (canonical_axis(ax, nd, error=IndexError) for ax in (axis1, axis2))
  perm[i], perm[j] = perm[j], perm[i]
  return lax.transpose(a, perm)
