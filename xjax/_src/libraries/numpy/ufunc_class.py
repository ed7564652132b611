"""``jnp.ufunc`` / ``jnp.frompyfunc``: a scalar Python function lifted to a broadcasting
function with ``outer``, ``reduce``, ``accumulate``, ``reduceat`` and ``at`` methods.

The methods fold with a Python loop over the (static) reduced axis, so they suit short
axes; the scalar function itself is vectorized with vmap.
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.lax.control_flow.loops import fori_loop
from xjax._src.libraries.numpy.arguments import canonical_axis, check_arraylike
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.functional import vectorize
from xjax._src.libraries.numpy.indexing import take
from xjax._src.libraries.numpy.shaping import (broadcast_to, concatenate, expand_dims, moveaxis,
                                               stack)
from xjax._src.libraries.numpy.where import where as _where


class ufunc:
  """A universal function built from ``func`` taking ``nin`` scalars to ``nout`` results."""

  def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None,
               call=None, reduce=None, accumulate=None, at=None):
    self._func = func
    self._nin, self._nout = int(nin), int(nout)
    self._nargs = self._nin if nargs is None else nargs
    self._identity = identity
    self.__name__ = name or getattr(func, "__name__", "ufunc")
    self.__doc__ = getattr(func, "__doc__", None)
    # ``call`` is an already-broadcasting implementation (jnp.add's own function); the
    # other overrides are efficient implementations of the methods (sum for add.reduce).
    self._vectorized = call if call is not None else vectorize(func)
    self._reduce, self._accumulate, self._at = reduce, accumulate, at

  @property
  def nin(self) -> int:
    return self._nin

  @property
  def nout(self) -> int:
    return self._nout

  @property
  def nargs(self) -> int:
    return self._nargs

  @property
  def identity(self):
    return self._identity

  def __repr__(self):
    return f"<jnp.ufunc '{self.__name__}'>"

  def __call__(self, *args, **kwargs):
    if kwargs:
      return self._vectorized(*args, **kwargs)
    if len(args) != self.nin:
      raise TypeError(f"{self.__name__}() takes {self.nin} positional argument(s) but "
                      f"{len(args)} were given")
    return self._vectorized(*args)

  def _binary(self, method):
    if self.nin != 2 or self.nout != 1:
      raise ValueError(f"{method} only supported for binary ufuncs with a single output; "
                       f"{self.__name__} has nin={self.nin}, nout={self.nout}")

  def outer(self, A, B, /):
    """``self(a, b)`` for every pair of elements of ``A`` and ``B``."""
    self._binary("outer")
    check_arraylike(f"{self.__name__}.outer", A, B)
    A, B = asarray(A), asarray(B)
    return self(A.reshape(A.shape + (1,) * B.ndim), B)

  def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
             where=None):
    """Left fold of ``self`` along ``axis`` (all axes, flattened, when None)."""
    self._binary("reduce")
    if out is not None:
      raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
    check_arraylike(f"{self.__name__}.reduce", a)
    if self._reduce is not None and where is None:
      return self._reduce(a, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial)
    a = asarray(a, dtype=dtype)
    if where is not None:
      where = asarray(where)
      if self.identity is None and initial is None:
        raise ValueError(f"reduction operation {self.__name__!r} does not have an identity, "
                         "so to use a where mask one has to specify 'initial'.")
      if where.dtype != bool:
        raise ValueError(f"where argument must have dtype=bool; got dtype={where.dtype}")
      where = broadcast_to(where, a.shape)
    if axis is None:
      res = self.reduce(a.ravel(), 0, initial=initial,
                        where=None if where is None else where.ravel())
      return res.reshape((1,) * a.ndim) if keepdims else res
    axis = canonical_axis(axis, a.ndim)
    x = moveaxis(a, axis, 0)
    mask = None if where is None else moveaxis(where, axis, 0)
    n = x.shape[0]
    start = initial if initial is not None or (n and mask is None) else self.identity
    if start is None and n == 0:
      raise ValueError(f"zero-size array to reduction operation {self.__name__} which has "
                       "no identity")
    if start is None:
      acc, first = x[0], 1
    else:
      acc, first = broadcast_to(asarray(start, x.dtype), x.shape[1:]), 0
    for i in range(first, n):
      step = self(acc, x[i])
      acc = step if mask is None else _where(mask[i], step, acc)
    return expand_dims(acc, axis) if keepdims else acc

  def accumulate(self, a, axis=0, dtype=None, out=None):
    """Running left fold of ``self`` along ``axis``."""
    self._binary("accumulate")
    if out is not None:
      raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
    if self._accumulate is not None:
      return self._accumulate(a, axis=axis, dtype=dtype)
    check_arraylike(f"{self.__name__}.accumulate", a)
    a = asarray(a, dtype=dtype)
    axis = canonical_axis(axis, a.ndim, scalar_axis=False)
    x = moveaxis(a, axis, 0)
    if x.shape[0] == 0:
      return a
    outs = [x[0]]
    for i in range(1, x.shape[0]):
      outs.append(self(outs[-1], x[i]).astype(x.dtype))
    return moveaxis(stack(outs), 0, axis)

  def reduceat(self, a, indices, axis=0, dtype=None, out=None):
    """Left folds of ``self`` over the segments of ``a`` along ``axis`` that start at each
    of ``indices`` and end at the next one (at the end for the last); a segment whose next
    index is not larger is just its first element, as in NumPy."""
    if self.nin != 2:
      raise ValueError("reduceat only supported for binary ufuncs")
    if self.nout != 1:
      raise ValueError("reduceat only supported for functions returning a single value")
    if out is not None:
      raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
    check_arraylike(f"{self.__name__}.reduceat", a, indices)
    a, indices = asarray(a, dtype=dtype), asarray(indices)
    if a.ndim == 0:
      raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={a.shape}")
    if indices.ndim != 1:
      raise ValueError(f"reduceat: indices must be one-dimensional, got "
                       f"indices.shape={indices.shape}")
    if not dtypes.issubdtype(indices.dtype, np.integer):
      raise ValueError("indices must have an integer type")
    if axis is None or isinstance(axis, (tuple, list)):
      raise ValueError("reduceat requires a single integer axis.")
    x = moveaxis(a, canonical_axis(axis, a.ndim), 0)
    n = x.shape[0]
    starts = indices.reshape(indices.shape + (1,) * (x.ndim - 1))
    ends = concatenate([indices, asarray([n], indices.dtype)])[1:].reshape(starts.shape)

    def fold(j, acc):  # element j joins the segments it lies in after their first
      return _where((starts < j) & (j < ends), self(acc, x[j]), acc).astype(acc.dtype)
    first = take(x, indices, axis=0)  # (out-of-range starts: take's fill values, as JAX)
    return moveaxis(fori_loop(0, n, fold, first), 0, canonical_axis(axis, a.ndim))

  def at(self, a, indices, b=None, /, *, inplace=True):
    """``a`` with ``self`` applied at ``indices`` one index at a time (repeats
    accumulate); needs ``inplace=False``."""
    if inplace:
      raise NotImplementedError("jax.numpy.ufunc.at cannot modify arrays in-place, because "
                                "JAX arrays are immutable. Pass inplace=False.")
    if self._at is not None:
      return self._at(asarray(a), indices, b)
    a = asarray(a)
    idx = asarray(indices).ravel()
    n = idx.shape[0]
    if b is not None:
      b = broadcast_to(asarray(b), (n,) + a.shape[1:])
    for k in range(n):
      cur = a[idx[k]]
      new = self(cur) if b is None else self(cur, b[k])
      a = a.at[idx[k]].set(asarray(new).astype(a.dtype))
    return a


def frompyfunc(func, /, nin, nout, *, identity=None):
  """``func`` as a :class:`ufunc`."""
  return ufunc(func, nin, nout, identity=identity)

