"""Host values that carry their abstract value, as JAX 0.10 returns them: ``TypedNdArray``
for float0 results (the tangents of integer and boolean values) and canonicalized NumPy
values, ``TypedInt``/``TypedFloat``/``TypedComplex`` for canonicalized Python scalars (weakly
typed), where a transformation hands back a value it did not compute (``typed_value``)."""
from __future__ import annotations

import numpy as np

from xjax._src.core.avals import ShapedArray
from xjax._src.foundations import dtypes


class TypedNdArray(np.ndarray):
  """A NumPy array with a JAX type (``aval``, possibly weak). NumPy operations on it give
  plain NumPy results; slicing and reshaping keep the class, with the view's own type."""
  __slots__ = ("_aval", "_weak_type")

  def __new__(cls, value, weak_type: bool = False):
    out = np.asarray(value).view(cls)
    out._weak_type = bool(weak_type)
    return out

  def __array_finalize__(self, parent) -> None:
    self._aval = None
    self._weak_type = parent.weak_type if isinstance(parent, TypedNdArray) else False

  @property
  def aval(self) -> ShapedArray:
    if self._aval is None:
      self._aval = ShapedArray(self.shape, self.dtype, weak_type=self._weak_type)
    return self._aval

  @property
  def weak_type(self) -> bool:
    return self._weak_type

  @property
  def val(self) -> np.ndarray:
    return np.asarray(self)

  def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    plain = lambda xs: tuple(np.asarray(x) if isinstance(x, TypedNdArray) else x for x in xs)
    if "out" in kwargs:
      kwargs["out"] = plain(kwargs["out"])
    return getattr(ufunc, method)(*plain(inputs), **kwargs)

  def __repr__(self) -> str:
    head = "TypedNdArray("
    tail = f"dtype={self.dtype.name}" + (", weak_type=True)" if self._weak_type else ")")
    width = np.get_printoptions()["linewidth"]
    body = (f"[], shape={self.shape}" if self.size == 0 else
            np.array2string(np.asarray(self), prefix=head, suffix=",", separator=", ",
                            max_line_width=width))
    last = len(body) - body.rfind("\n") + 1
    sep = " " * len(head) if last + len(tail) + 1 > width else " "
    return f"{head}{body},{sep}{tail}"

  def __reduce__(self):
    return (TypedNdArray, (np.asarray(self), self._weak_type))


class _TypedScalar:
  """A Python number with a weakly typed ``dtype``/``aval``; arithmetic gives plain numbers."""
  __slots__ = ()
  _plain: type

  def __new__(cls, value, dtype):
    out = cls._plain.__new__(cls, value)
    out.dtype = np.dtype(dtype)
    return out

  @property
  def aval(self) -> ShapedArray:
    return ShapedArray((), self.dtype, weak_type=True)

  def __repr__(self) -> str:
    return f"{type(self).__name__}({self._plain(self)!r}, dtype={self.dtype.name})"

  def __str__(self) -> str:
    return str(self._plain(self))

  def __reduce__(self):
    return (type(self), (self._plain(self), self.dtype))


class TypedInt(_TypedScalar, int):   # (int subclasses cannot have slots)
  _plain = int


class TypedFloat(_TypedScalar, float):
  __slots__ = ("dtype",)
  _plain = float


class TypedComplex(_TypedScalar, complex):
  __slots__ = ("dtype",)
  _plain = complex


_TYPED = {int: TypedInt, float: TypedFloat, complex: TypedComplex}
TYPED_SCALARS = frozenset(_TYPED.values())


def typed_value(x, aval: ShapedArray):
  """``x`` (an input of abstract value ``aval``) canonicalized as JAX 0.10 hands inputs
  back: a Python int, float or complex as a typed scalar, a NumPy value as a TypedNdArray
  of the canonical dtype; anything else (a bool, an Array) as it is."""
  typed = _TYPED.get(type(x))
  if typed is not None:
    return typed(x, aval.dtype)
  if isinstance(x, (np.ndarray, np.generic)) and not isinstance(x, TypedNdArray):
    return TypedNdArray(np.asarray(x, aval.dtype), aval.weak_type)
  return x


def float0_zeros(shape) -> TypedNdArray:
  """The value of a float0 result of ``shape`` (float0 holds no data)."""
  return TypedNdArray(np.zeros(shape, dtypes.float0))
