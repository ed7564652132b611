"""``ShapeDtypeStruct``: a shape and dtype standing in for an array."""
from __future__ import annotations

from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval, pytype_aval_mappings
from xjax._src.foundations import dtypes


class ShapeDtypeStruct:
  """A shape and dtype standing in for an array (eval_shape, AOT lowering)."""
  __slots__ = ("shape", "dtype", "weak_type", "sharding")

  def __init__(self, shape, dtype, *, weak_type: bool = False, sharding=None) -> None:
    self.shape = tuple(shape)
    self.dtype = dtypes.dtype(dtype)  # as given: 64-bit types canonicalize in the aval
    self.weak_type = weak_type
    self.sharding = sharding

  @classmethod
  def like(cls, x) -> "ShapeDtypeStruct":
    """The shape, dtype and weak type of ``x`` (an array, scalar or ShapeDtypeStruct),
    with its sharding when it is committed to one."""
    aval = get_aval(x)
    sharding = getattr(x, "sharding", None) if getattr(x, "_committed", True) else None
    return cls(aval.shape, aval.dtype, weak_type=aval.weak_type, sharding=sharding)

  @property
  def ndim(self) -> int:
    return len(self.shape)

  @property
  def size(self) -> int:
    import math
    return math.prod(self.shape)

  def __repr__(self) -> str:
    sharding = "" if self.sharding is None else f", sharding={self.sharding}"
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})"

  def _key(self) -> tuple:
    return self.shape, self.dtype, self.sharding, self.weak_type

  def __eq__(self, other) -> bool:
    return isinstance(other, ShapeDtypeStruct) and self._key() == other._key()

  def __hash__(self) -> int:
    return hash(self._key())


def _shape_dtype_struct_aval(s: ShapeDtypeStruct) -> ShapedArray:
  return ShapedArray(s.shape, dtypes.canonicalize_dtype(s.dtype, allow_extended_dtype=True),
                     s.weak_type)


pytype_aval_mappings[ShapeDtypeStruct] = _shape_dtype_struct_aval
