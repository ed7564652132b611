"""Operators and methods shared by ``xjax.Array`` and tracers (they delegate to jnp)."""
from __future__ import annotations

import numpy as np

from xjax._src.execution import basearray, host_eval
from xjax._src.execution.array import Array
from xjax._src.core.trace import Tracer
from xjax._src.primitives.lax import lax
from xjax._src.primitives.lax.shapes import dynamic_slice_in_dim
from xjax._src.primitives.lax.stacking import unstack
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.indexing import _IndexUpdateHelper, getitem
from xjax._src.libraries.numpy.shaping import reshape, transpose


_REJECTED = (list, tuple, set, dict)  # (their exact types: a NamedTuple may define operators)
_HOST_OPERANDS = (Array, float, int, bool)  # (the operands an operator may compute on the host)


def _defer(binary, opchar, swap=False):
  """An operator: ``binary`` of an array operand, JAX's TypeError for a list, tuple, set or
  dict (so ``x == [1, 2]`` is not a silent False), else NotImplemented."""
  # a jnp.ufunc's own function (operands are checked here), and a host Array's shortcut:
  # the jitted function's host result, if it has one at hand
  binary = getattr(binary, "_call", None) or binary
  on_host = getattr(binary, "on_host", None)

  def op(self, other):
    if (on_host is not None and type(self) is Array and self._host is not None
        and type(other) in _HOST_OPERANDS):
      out = on_host(other, self) if swap else on_host(self, other)
      if out is not None:
        return out
    elif not _is_operand(other):
      if getattr(other, "__jax_array__", None) is not None:
        other = other.__jax_array__()   # (JAX's operators convert such an operand first)
      elif type(other) in _REJECTED:
        a, b = (other, self) if swap else (self, other)
        raise TypeError(f"unsupported operand type(s) for {opchar}: "
                        f"{type(a).__name__!r} and {type(b).__name__!r}")
      else:
        return NotImplemented
    return binary(other, self) if swap else binary(self, other)
  return op


def _round(round_fn):
  def round_(self, ndigits=None):
    """Python's ``round``: an integer array without ``ndigits``, as JAX's."""
    out = round_fn(self, ndigits or 0)
    return out.astype(int) if ndigits is None else out
  return round_


def _is_operand(x) -> bool:
  return type(x) in _HOST_OPERANDS or isinstance(x, (Array, Tracer, int, float, complex, bool,
                                                      np.ndarray, np.generic))


_ROWS_PER_CHUNK = 100


def _iter_rows(self):
  """An Array's rows as JAX gives them: ``unstack`` (one program for all rows) of each
  chunk of 100 rows (cut by ``dynamic_slice``), the whole array if it has fewer."""
  if not self.aval.shape:
    raise TypeError("iteration over a 0-d array")
  return (row for chunk in _chunks(self) for row in unstack(chunk, 0))


def _chunks(x):
  n = x.aval.shape[0]
  if n < _ROWS_PER_CHUNK:
    yield x
    return
  count, tail = divmod(n, _ROWS_PER_CHUNK)
  for i in range(count):
    yield dynamic_slice_in_dim(x, i * _ROWS_PER_CHUNK, _ROWS_PER_CHUNK)
  if tail:
    yield dynamic_slice_in_dim(x, count * _ROWS_PER_CHUNK, tail)


def _tracer_iter(self):
  """A traced array's rows as JAX gives them: ``index_in_dim`` (a slice and a squeeze)
  each; a traced mutable ref's by its own indexing."""
  if not self.aval.shape:
    raise TypeError("iteration over a 0-d array")
  rows = range(self.aval.shape[0])
  if getattr(self.aval, "_getitem", None) is not None:
    return (self[i] for i in rows)
  return (lax.index_in_dim(self, i, keepdims=False) for i in rows)


def _clip_method(clip):
  """``x.clip``: ``clip`` with the bounds passed by name (so its jitted call takes them sorted
  by name, as JAX's method's does)."""
  def method(self, min=None, max=None):
    return clip(self, min=min, max=max)
  method.__name__, method.__doc__ = "clip", clip.__doc__
  return method


def _astype_method(astype):
  """``x.astype``: its ``dtype``, ``copy`` and ``device`` taken by position or name, as
  JAX's method takes them (``jnp.astype``'s are positional-only and keyword-only)."""
  def method(self, dtype, copy=False, device=None):
    return astype(self, dtype, copy=copy, device=device)
  method.__name__, method.__doc__ = "astype", astype.__doc__
  return method


def _getitem(self, idx):
  if type(self) is Array and host_eval.shortcuts_apply():
    if self._host is None and type(idx) in _STATIC_INDEX_TYPES:
      host_eval.fetch_small(self)  # a small computed result: sliced on the host
    if self._host is not None:
      out = host_eval.basic_index(self, idx)
      if out is not None:
        return out
  return getitem(self, idx)


_STATIC_INDEX_TYPES = (int, slice)


def _tracer_getitem(self, idx):
  getitem = getattr(self.aval, "_getitem", None)   # a traced mutable ref's type has one
  return _getitem(self, idx) if getitem is None else getitem(self, idx)


def _contains(jnp):
  """``query in arr`` as JAX's: a 0-d query against a 1-D array, ``any(arr == query)``."""
  def contains(self, query):
    if query is None or isinstance(query, str):
      raise TypeError(f"Array.__contains__: unsupported operand type {type(query)}.")
    query, = arraylike("Array.__contains__", query)
    if self.ndim != 1:
      raise ValueError("Array.__contains__: search array must be one-dimensional, got "
                       f"arr.shape={self.shape}.")
    query = jnp.asarray(query)
    if query.ndim != 0:
      raise ValueError(f"Array.__contains__: query value must be a scalar, got "
                       f"query.shape={query.shape}")
    return jnp.any(self == query)
  return contains


def _flat(self):
  raise NotImplementedError("JAX Arrays do not implement the arr.flat property: consider "
                            "arr.flatten() instead.")


def _view(self, dtype=None, type=None):
  """The same bits as ``dtype`` (the last axis rescales when the item size changes), as
  JAX views them: bool through uint8, complex as interleaved real and imaginary parts."""
  from xjax._src.foundations import dtypes
  if type is not None:
    raise NotImplementedError("`type` argument of array.view() is not supported.")
  if dtype is None:
    return self
  dtype = dtypes.check_user_dtype_supported(dtype, "view")
  bits_in, bits_out = self.dtype.itemsize * 8, dtype.itemsize * 8
  if self.ndim == 0:
    if bits_in != bits_out:
      raise ValueError("view() of a 0d array is only supported if the itemsize is unchanged.")
    return _view(lax.expand_dims(self, (0,)), dtype).squeeze()
  if (self.shape[-1] * bits_in) % bits_out:
    raise ValueError("When changing to a larger dtype, its size must be a divisor of the "
                     "total size in bytes of the last axis of the array.")
  if self.dtype == dtype:
    return self
  if self.dtype == np.bool_:
    return _view(self.astype(np.uint8), dtype)
  if dtypes.is_complex(self.dtype):
    part = np.finfo(self.dtype).dtype
    parts = lax.full((*self.shape[:-1], self.shape[-1] * 2), 0, part)
    return _view(parts.at[..., 0::2].set(self.real).at[..., 1::2].set(self.imag), dtype)
  if dtype == np.bool_:
    return _view(self, np.uint8).astype(np.bool_)
  if dtypes.is_complex(dtype):
    out = _view(self, np.finfo(dtype).dtype).astype(dtype)
    return out[..., 0::2] + 1j * out[..., 1::2]
  if bits_in < bits_out:
    factor = bits_out // bits_in
    grouped = lax.reshape(self, (*self.shape[:-1], self.shape[-1] // factor, factor))
    return lax.bitcast_convert_type(grouped, dtype)
  out = lax.bitcast_convert_type(self, dtype)  # (a trailing axis when narrower)
  if bits_in > bits_out:
    return lax.reshape(out, (*out.shape[:-2], out.shape[-2] * out.shape[-1]))
  return out


def _byteswap(self):
  """The array with each element's bytes reversed (same dtype)."""
  from xjax._src.foundations import dtypes
  if dtypes.issubdtype(self.dtype, np.complexfloating):
    return lax.complex(_byteswap(lax.real(self)), _byteswap(lax.imag(self)))
  if self.dtype.itemsize == 1:
    return _copy(self)
  as_bytes = lax.bitcast_convert_type(self, np.dtype(np.uint8))
  return lax.bitcast_convert_type(lax.rev(as_bytes, (self.ndim,)), self.dtype)


def _tobytes(self, order="C"):
  return np.asarray(self).tobytes(order=order)


def _copy(self):
  from xjax._src.primitives.lax.elementwise import copy_p
  return copy_p.bind(self)


def _reshape(self, *shape, order="C", out_sharding=None):
  return reshape(self, shape[0] if len(shape) == 1 else shape, order=order,
                 out_sharding=out_sharding)


def _transpose(self, *axes):
  if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
    axes = axes[0]
  return transpose(self, axes or None)


def install(jnp) -> None:
  """Sets Array's and Tracer's operators and methods to the functions of the namespace ``jnp``
  (``_src/wiring.py`` passes ``numpy/namespace.py``)."""
  ops = {
      "__add__": _defer(jnp.add, "+"), "__radd__": _defer(jnp.add, "+", True),
      "__sub__": _defer(jnp.subtract, "-"), "__rsub__": _defer(jnp.subtract, "-", True),
      "__mul__": _defer(jnp.multiply, "*"), "__rmul__": _defer(jnp.multiply, "*", True),
      "__truediv__": _defer(jnp.true_divide, "/"), "__rtruediv__": _defer(jnp.true_divide, "/", True),
      "__floordiv__": _defer(jnp.floor_divide, "//"),
      "__rfloordiv__": _defer(jnp.floor_divide, "//", True),
      "__mod__": _defer(jnp.remainder, "%"), "__rmod__": _defer(jnp.remainder, "%", True),
      "__pow__": _defer(jnp.power, "**"), "__rpow__": _defer(jnp.power, "**", True),
      "__matmul__": _defer(jnp.matmul, "@"), "__rmatmul__": _defer(jnp.matmul, "@", True),
      "__and__": _defer(jnp.bitwise_and, "&"), "__rand__": _defer(jnp.bitwise_and, "&", True),
      "__or__": _defer(jnp.bitwise_or, "|"), "__ror__": _defer(jnp.bitwise_or, "|", True),
      "__xor__": _defer(jnp.bitwise_xor, "^"), "__rxor__": _defer(jnp.bitwise_xor, "^", True),
      "__lshift__": _defer(jnp.left_shift, "<<"), "__rlshift__": _defer(jnp.left_shift, "<<", True),
      "__rshift__": _defer(jnp.right_shift, ">>"), "__rrshift__": _defer(jnp.right_shift, ">>", True),
      "__eq__": _defer(jnp.equal, "=="), "__ne__": _defer(jnp.not_equal, "!="),
      "__lt__": _defer(jnp.less, "<"), "__le__": _defer(jnp.less_equal, "<="),
      "__gt__": _defer(jnp.greater, ">"), "__ge__": _defer(jnp.greater_equal, ">="),
      "__neg__": lambda self: jnp.negative(self), "__pos__": lambda self: jnp.positive(self),
      "__abs__": lambda self: jnp.absolute(self), "__invert__": lambda self: jnp.invert(self),
      "__divmod__": _defer(jnp.divmod, "divmod()"),
      "__rdivmod__": _defer(jnp.divmod, "divmod()", True),
      "__getitem__": _getitem,
      "__round__": _round(jnp.round),
      "astype": _astype_method(jnp.astype), "clip": _clip_method(jnp.clip), "copy": _copy, "view": _view, "tobytes": _tobytes,
      "byteswap": _byteswap,
      "itemsize": property(lambda self: self.dtype.itemsize),
      "nbytes": property(lambda self: self.size * self.dtype.itemsize), "reshape": _reshape, "transpose": _transpose,
      "T": property(lambda self: jnp.transpose(self)),
      "mT": property(lambda self: jnp.matrix_transpose(self)),
      "real": property(lambda self: jnp.real(self)),
      "imag": property(lambda self: jnp.imag(self)),
      "flat": property(_flat),
      "__contains__": _contains(jnp),
      "at": property(lambda self: _at(self)),
  }
  methods = ["sum", "prod", "max", "min", "mean", "var", "std", "all", "any", "argmax",
             "argmin", "ravel", "flatten", "squeeze", "swapaxes", "cumsum", "cumprod",
             "conj", "conjugate", "dot", "round", "sort", "argsort", "nonzero",
             "repeat", "take", "trace", "diagonal", "ptp", "searchsorted", "choose",
             "item", "argpartition"]
  for name in methods:
    fn = getattr(jnp, name if name != "flatten" else "ravel", None)
    if fn is not None and name != "item":
      ops[name] = _method(fn)
  ops["compress"] = lambda self, condition, axis=None, *, out=None, size=None, fill_value=0: \
      jnp.compress(condition, self, axis=axis, out=out, size=size, fill_value=fill_value)
  for cls in (Array, Tracer):
    for name, value in ops.items():
      if cls is Tracer and name == "tobytes":   # (a tracer's raises, in core/trace.py)
        continue
      setattr(cls, name, value if cls is Tracer or name not in _NUMERIC_ONLY
              else _numeric_only(name, value))
  Tracer.__getitem__ = _tracer_getitem
  Array.__iter__ = _iter_rows
  Tracer.__iter__ = _tracer_iter
  for name in basearray.PUBLIC_ATTRIBUTES:   # readable from the public type too
    if hasattr(Array, name):
      setattr(basearray.Array, name, getattr(Array, name))


# What a PRNG key array lacks (as JAX's, where they are abstract methods): the numeric
# methods and properties (the operators, shape methods, copy and sizes remain)
_NUMERIC_ONLY = {"astype", "view", "tobytes", "byteswap", "mT", "real", "imag", "flat", "sum", "prod",
                 "max", "min", "mean", "var", "std", "all", "any", "argmax", "argmin", "cumsum",
                 "cumprod", "clip", "conj", "conjugate", "dot", "round", "sort", "argsort",
                 "nonzero", "repeat", "trace", "diagonal", "ptp", "searchsorted", "choose",
                 "compress", "argpartition"}


def _numeric_only(name, value):
  """``value`` (a method or property of Array), raising NotImplementedError on key arrays."""
  from xjax._src.foundations import dtypes

  def check(self):
    if isinstance(self.dtype, dtypes.ExtendedDType):
      raise NotImplementedError(f"Cannot call abstract method {name}: PRNG key arrays are "
                                "not numbers; use jax.random.key_data(keys) for their data.")
  if isinstance(value, property):
    def get(self):
      check(self)
      return value.fget(self)
    return property(get)

  def method(self, *args, **kwargs):
    check(self)
    return value(self, *args, **kwargs)
  method.__name__, method.__doc__ = name, value.__doc__
  return method


def _method(fn):
  def method(self, *args, **kwargs):
    return fn(self, *args, **kwargs)
  method.__name__ = fn.__name__
  method.__doc__ = fn.__doc__
  return method


def _at(self):
  ref_at = getattr(self.aval, "_at", None)   # a traced mutable ref's type has one
  if ref_at is not None:
    return ref_at(self)
  return _IndexUpdateHelper(self)
