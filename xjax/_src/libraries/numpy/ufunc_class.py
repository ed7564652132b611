"""``jnp.ufunc`` / ``jnp.frompyfunc``: a scalar Python function lifted to a broadcasting
function with ``outer``, ``reduce``, ``accumulate``, ``reduceat`` and ``at`` methods.

As in JAX, a call and each method is one compiled program when eager (a nested ``jit`` of
JAX's name when traced); a ufunc without an efficient method implementation folds with a
loop: ``reduce`` and ``reduceat`` a ``fori_loop`` (starting from the identity where there is
one), ``accumulate`` and ``at`` a ``scan``. The scalar function is vectorized with vmap.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.api.eval_shape import eval_shape
from xjax._src.api.transformations import vmap
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.control_flow.loops import fori_loop, scan
from xjax._src.primitives.lax.shapes import expand_dims as lax_expand_dims, full, reshape
from xjax._src.primitives.lax.shapes import full_like
from xjax._src.primitives.lax.shapes import slice_in_dim
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike, check_arraylike
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.functional import vectorize
from xjax._src.libraries.numpy.indexing import take
from xjax._src.libraries.numpy.shaping import broadcast_shapes, broadcast_to, concatenate, moveaxis
from xjax._src.libraries.numpy.where import where as _where


class ufunc:
  """A universal function built from ``func`` taking ``nin`` scalars to ``nout`` results;
  ``call``, ``reduce``, ``accumulate``, ``at`` and ``reduceat`` are efficient
  implementations of those methods (``jnp.add.reduce`` is ``jnp.sum``)."""

  def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None,
               call=None, reduce=None, accumulate=None, at=None, reduceat=None):
    self.__doc__ = func.__doc__
    self.__name__ = name or func.__name__
    self._func = func
    self._nin, self._nout = operator.index(nin), operator.index(nout)
    self._nargs = operator.index(nargs or nin)
    self._identity = identity
    self._call, self._reduce, self._accumulate = call, reduce, accumulate
    self._at, self._reduceat = at, reduceat

  nin = property(lambda self: self._nin)
  nout = property(lambda self: self._nout)
  nargs = property(lambda self: self._nargs)
  identity = property(lambda self: self._identity)

  def _key(self):
    return (self._func, self.__name__, self._identity, self._nin, self._nout, self._nargs)

  def __hash__(self) -> int:  # (a static argument of the compiled methods)
    return hash(self._key())

  def __eq__(self, other) -> bool:
    return isinstance(other, ufunc) and self._key() == other._key()

  def __repr__(self):
    return f"<jnp.ufunc '{self.__name__}'>"

  def __call__(self, *args, out=None, where=None):
    # (checked, not converted: an object giving an array by ``__jax_array__`` reaches the
    # compiled function as it is, which takes it if it is a pytree, as JAX's jit does)
    try:
      arraylike(self.__name__, *args)
    except TypeError:
      if not any(type(a) is str for a in args):
        raise
      # JAX's check takes a string for a NumPy scalar (its jitted function then refuses it)
      arraylike(self.__name__, *(0 if type(a) is str else a for a in args))
    if out is not None:
      raise NotImplementedError(f"out argument of {self}")
    if where is not None:
      raise NotImplementedError(f"where argument of {self}")
    return (self._call or _call_vectorized)(*(() if self._call else (self,)), *args)

  def _binary(self, method):
    if self.nin != 2:
      raise ValueError(f"{method} only supported for binary ufuncs")
    if self.nout != 1:
      raise ValueError(f"{method} only supported for functions returning a single value")

  def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
             where=None):
    """Left fold of ``self`` along ``axis`` (all axes, flattened, when None)."""
    return _reduce(self, a, axis, dtype, out, keepdims, initial, where)

  def accumulate(self, a, axis=0, dtype=None, out=None):
    """Running left fold of ``self`` along ``axis``."""
    return _accumulate(self, a, axis, dtype, out)

  def at(self, a, indices, b=None, /, *, inplace=True):
    """``a`` with ``self`` applied at ``indices`` one index at a time (repeats
    accumulate); needs ``inplace=False``."""
    if inplace:
      raise NotImplementedError("jax.numpy.ufunc.at cannot modify arrays in-place, because "
                                "JAX arrays are immutable. Pass inplace=False.")
    return _at(self, a, indices) if b is None else _at(self, a, indices, b)

  def reduceat(self, a, indices, axis=0, dtype=None, out=None):
    """Left folds of ``self`` over the segments of ``a`` along ``axis`` that start at each
    of ``indices`` and end at the next one (at the end for the last); a segment whose next
    index is not larger is just its first element, as in NumPy."""
    return _reduceat(self, a, indices, axis, dtype, out)

  def outer(self, A, B, /):
    """``self(a, b)`` for every pair of elements of ``A`` and ``B``."""
    return _outer(self, A, B)


@compiled_when_eager(staged="_call_vectorized", static_argnames=("self",))
def _call_vectorized(self, *args):
  return vectorize(self._func)(*args)


def _result_dtype(u, *args):
  """The dtype ``u``'s scalar function gives for one element of each argument (weak types
  kept: a Python scalar operand defers to the array's dtype, as in JAX)."""
  ones = [full_like(a, 1, shape=()) for a in args]
  return eval_shape(u._func, *ones).dtype


@compiled_when_eager(staged="reduce", static_argnames=("self", "axis", "dtype", "out",
                                                       "keepdims"))
def _reduce(self, a, axis, dtype, out, keepdims, initial, where):
  a, = arraylike(f"{self.__name__}.reduce", a)
  self._binary("reduce")
  if out is not None:
    raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
  if initial is not None:
    initial, = arraylike(f"{self.__name__}.reduce", initial)
  if where is not None:
    where, = arraylike(f"{self.__name__}.reduce", where)
    if self.identity is None and initial is None:
      raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, "
                       "so to use a where mask one has to specify 'initial'.")
    if get_aval(asarray(where)).dtype != bool:
      raise ValueError(f"where argument must have dtype=bool; got "
                       f"dtype={get_aval(asarray(where)).dtype}")
  reduce = self._reduce or _reduce_via_loop
  return reduce(*(() if self._reduce else (self,)), a, axis=axis, dtype=dtype,
                keepdims=keepdims, initial=initial, where=where)


def _reduce_via_loop(u, arr, axis=0, dtype=None, keepdims=False, initial=None, where=None):
  arr = asarray(arr)
  initial = u.identity if initial is None else initial
  dtype = dtype or _result_dtype(u, arr, arr)
  shape = get_aval(arr).shape
  if where is not None:
    where = broadcast_to(where, shape)
  if isinstance(axis, tuple):
    raise NotImplementedError("tuple of axes")
  if axis is None:
    final_shape = (1,) * len(shape) if keepdims else ()
    arr = reshape(arr, (get_aval(arr).size,))
    where = None if where is None else reshape(where, (get_aval(where).size,))
    axis = 0
  else:
    axis = canonical_axis(axis, len(shape), scalar_axis=False)  # (a 0-d array has none)
    final_shape = shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1:]
  if axis != 0:
    arr = moveaxis(arr, axis, 0)
    where = None if where is None else moveaxis(where, axis, 0)
  n = get_aval(arr).shape[0]
  if n == 0:
    if initial is None:
      raise ValueError(f"zero-size array to reduction operation {u.__name__} which has no "
                       "identity")
    return full(final_shape, initial, dtype)

  def body(i, acc):
    step = u(acc, arr[i].astype(dtype))
    return step if where is None else _where(where[i], step, acc)
  start, first = (0, initial) if initial is not None else (1, arr[0])
  first = broadcast_to(asarray(first).astype(dtype), get_aval(arr).shape[1:])
  result = fori_loop(start, n, body, first)
  return reshape(result, final_shape) if keepdims else result


@compiled_when_eager(staged="accumulate", static_argnames=("self", "axis", "dtype"))
def _accumulate(self, a, axis, dtype, out):
  self._binary("accumulate")
  if out is not None:
    raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
  if self._accumulate is not None:
    return self._accumulate(a, axis=axis, dtype=dtype)
  a, = arraylike(f"{self.__name__}.accumulate", a)
  arr = asarray(a)
  dtype = dtype or _result_dtype(self, arr, arr)
  if axis is None or isinstance(axis, tuple):
    raise ValueError("accumulate does not allow multiple axes")
  axis = canonical_axis(axis, get_aval(arr).ndim, scalar_axis=False)
  if get_aval(arr).size == 0:
    return full(get_aval(arr).shape, 0, dtype)
  arr = moveaxis(arr, axis, 0)

  def step(carry, _):
    i, acc = carry
    y = _where(i == 0, arr[0].astype(dtype), self(acc.astype(dtype), arr[i].astype(dtype)))
    return (i + 1, y), y
  _, result = scan(step, (0, arr[0].astype(dtype)), None, length=get_aval(arr).shape[0])
  return moveaxis(result, 0, axis)


@compiled_when_eager(staged="at", static_argnames=("self",))
def _at(self, a, indices, *b):
  if self._at is not None:
    return self._at(a, indices, *b)
  check_arraylike(f"{self.__name__}.at", a, *b)
  dtype = _result_dtype(self, a, *b)
  a = asarray(a).astype(dtype)
  args = tuple(asarray(v).astype(dtype) for v in b)
  indices = indices if isinstance(indices, tuple) else (indices,)
  if not indices:
    return a
  shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
  shape = broadcast_shapes(*shapes) if shapes else ()
  if not shape:
    return a.at[indices].set(self(a.at[indices].get(), *args))
  if args:
    rest = get_aval(args[0]).shape[len(shape):]
    args = (reshape(broadcast_to(args[0], (*shape, *rest)), (math.prod(shape), *rest)),)
  indices = [i if isinstance(i, slice) else broadcast_to(i, shape).ravel() for i in indices]

  def step(carry, _):
    i, acc = carry
    idx = tuple(ind if isinstance(ind, slice) else ind[i] for ind in indices)
    acc = acc.at[idx].set(self(acc.at[idx].get(), *(arg[i] for arg in args)))
    return (i + 1, acc), None
  (_, out), _ = scan(step, (0, a), None, len(indices[0]))
  return out


@compiled_when_eager(staged="reduceat", static_argnames=("self", "axis", "dtype"))
def _reduceat(self, a, indices, axis, dtype, out):
  self._binary("reduceat")
  if out is not None:
    raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
  if self._reduceat is not None:
    return self._reduceat(a, indices, axis=axis, dtype=dtype)
  a, indices = arraylike(f"{self.__name__}.reduceat", a, indices)
  a, indices = asarray(a), asarray(indices)
  if get_aval(a).ndim == 0:
    raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={a.shape}")
  if get_aval(indices).ndim != 1:
    raise ValueError(f"reduceat: indices must be one-dimensional, got "
                     f"indices.shape={indices.shape}")
  if axis is None or isinstance(axis, (tuple, list)):
    raise ValueError("reduceat requires a single integer axis.")
  axis = canonical_axis(axis, get_aval(a).ndim)
  result = take(a, indices, axis=axis)
  ends = asarray([get_aval(a).shape[axis]], get_aval(indices).dtype)
  ind = lax_expand_dims(concatenate([indices, ends]),
                        [d for d in range(get_aval(result).ndim) if d != axis])
  start = slice_in_dim(ind, 0, get_aval(ind).shape[axis] - 1, axis=axis)
  end = slice_in_dim(ind, 1, get_aval(ind).shape[axis], axis=axis)

  def body(i, acc):  # element i joins the segments it lies in after their first
    return _where((i > start) & (i < end),
                  self(acc, take(a, lax_expand_dims(i, (0,)), axis=axis)), acc)
  return fori_loop(0, get_aval(a).shape[axis], body, result)


@compiled_when_eager(staged="outer", static_argnames=("self",))
def _outer(self, A, B):
  self._binary("outer")
  A, B = arraylike(f"{self.__name__}.outer", A, B)
  flat = lambda v: reshape(asarray(v), (np.size(v),))
  result = vmap(vmap(self, (None, 0)), (0, None))(flat(A), flat(B))
  return reshape(result, (*np.shape(A), *np.shape(B)))


def frompyfunc(func, /, nin, nout, *, identity=None):
  """``func`` as a :class:`ufunc`."""
  return ufunc(func, nin, nout, identity=identity)
