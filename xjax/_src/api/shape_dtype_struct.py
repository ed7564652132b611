"""``ShapeDtypeStruct``: a shape and dtype standing in for an array."""
from __future__ import annotations

from xjax._src.core.avals import ShapedArray, typed_as_laid_out
from xjax._src.core.values import get_aval, pytype_aval_mappings
from xjax._src.execution.array import Array
from xjax._src.foundations import dtypes
from xjax._src.foundations.layout import Format
from xjax._src.foundations.sharding import (ManualAxisType, NamedSharding, PartitionSpec,
                                            Sharding, get_abstract_mesh)
from xjax._src.primitives.state.types import AbstractRef, is_ref_aval


class ShapeDtypeStruct:
  """A shape and dtype standing in for an array (eval_shape, AOT lowering), with its
  sharding and memory layout (``format``), weak type, and whether it stands for a ``Ref``."""
  __slots__ = ("shape", "dtype", "weak_type", "sharding", "_layout", "manual_axis_type",
               "is_ref")

  def __init__(self, shape, dtype, *, sharding=None, weak_type: bool = False,
               manual_axis_type=None, is_ref: bool = False) -> None:
    if sharding is not None and not isinstance(sharding, (Sharding, Format, PartitionSpec)):
      raise ValueError("sharding should be an instance of `jax.sharding.Sharding`, "
                       "`jax.sharding.PartitionSpec` or `jax.experimental.layout.Format`. Got "
                       f"{sharding} of type {type(sharding)}.")
    if manual_axis_type is not None and not isinstance(manual_axis_type, ManualAxisType):
      raise TypeError("`manual_axis_type` argument passed to ShapeDtypeStruct should be of "
                      f"type `jax.sharding.ManualAxisType`. Got type {type(manual_axis_type)}")
    self.shape = tuple(shape)
    self.dtype = dtypes.dtype(dtype)  # as given: 64-bit types canonicalize in the aval
    self.weak_type = weak_type
    self._layout = sharding.layout if isinstance(sharding, Format) else None
    self.sharding = sharding.sharding if isinstance(sharding, Format) else sharding
    self.manual_axis_type = manual_axis_type
    self.is_ref = is_ref

  @classmethod
  def like(cls, x) -> "ShapeDtypeStruct":
    """The shape, dtype and weak type of ``x`` (an array, scalar or ShapeDtypeStruct),
    with its format (an array's layout and sharding) when it is committed to one."""
    aval = get_aval(x)
    if is_ref_aval(aval):
      raise NotImplementedError("ShapeDtypeStruct.like of a Ref is not implemented (as in "
                                "JAX); use ShapeDtypeStruct(shape, dtype, is_ref=True).")
    sharding = None
    if getattr(x, "_committed", True):
      sharding = x.format if isinstance(x, Array) else getattr(x, "sharding", None)
    return cls(aval.shape, aval.dtype, weak_type=aval.weak_type, sharding=sharding)

  @classmethod
  def of_type(cls, aval) -> "ShapeDtypeStruct":
    """The struct of a traced result's type: its shape, dtype, weak type and the split over
    Explicit mesh axes it carries (as ``eval_shape`` gives, as JAX)."""
    sharding = getattr(aval, "_sharding", None)
    mesh = get_abstract_mesh()
    if sharding is None and not mesh.empty and mesh._any_axis_explicit:
      sharding = NamedSharding(mesh, PartitionSpec())  # (unsplit, over an Explicit mesh)
    return cls(aval.shape, aval.dtype, weak_type=aval.weak_type, sharding=sharding)

  @property
  def format(self) -> Format:
    """Its memory layout (None: unspecified) and sharding."""
    return Format(self._layout, self.sharding)

  def update(self, **kwargs) -> "ShapeDtypeStruct":
    """This struct with ``shape``, ``dtype``, ``sharding``, ``weak_type``,
    ``manual_axis_type`` or ``is_ref`` replaced (other names are ignored, as in JAX)."""
    if "sharding" in kwargs:
      sharding = kwargs["sharding"]
      if self._layout is not None and isinstance(sharding, Sharding):
        raise ValueError(f"ShapeDtypeStruct.update(sharding={sharding}) would drop the "
                         f"concrete layout of {self.format}; make a new ShapeDtypeStruct "
                         "with the constructor to change both.")
    else:
      sharding = self.format if self._layout is not None else self.sharding
    return ShapeDtypeStruct(kwargs.get("shape", self.shape), kwargs.get("dtype", self.dtype),
                            sharding=sharding,
                            weak_type=kwargs.get("weak_type", self.weak_type),
                            manual_axis_type=kwargs.get("manual_axis_type",
                                                        self.manual_axis_type),
                            is_ref=kwargs.get("is_ref", self.is_ref))

  @property
  def ndim(self) -> int:
    return len(self.shape)

  @property
  def size(self) -> int:
    import math
    return math.prod(self.shape)

  def __len__(self) -> int:
    if not self.shape:
      raise TypeError("len() of unsized object")  # (NumPy's text)
    return self.shape[0]

  def __repr__(self) -> str:
    sharding = "" if self.sharding is None else f", sharding={self.sharding}"
    layout = "" if self._layout is None else f", format={self._layout}"
    weak = ", weak_type=True" if self.weak_type else ""
    mat = f", manual_axis_type={self.manual_axis_type}" if self.manual_axis_type else ""
    ref = ", is_ref=True" if self.is_ref else ""
    return (f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{layout}"
            f"{weak}{mat}{ref})")

  def _key(self) -> tuple:
    return (self.shape, self.dtype, self.sharding, self._layout, self.weak_type,
            self.manual_axis_type, self.is_ref)

  def __eq__(self, other) -> bool:
    return isinstance(other, ShapeDtypeStruct) and self._key() == other._key()

  def __hash__(self) -> int:
    return hash(self._key())


def _shape_dtype_struct_aval(s: ShapeDtypeStruct):
  """Its abstract value; a sharding over Explicit mesh axes is part of the type, as JAX
  reads it (``eval_shape``, ``jit(...).trace`` of such structs see split types)."""
  aval = ShapedArray(s.shape, dtypes.canonicalize_dtype(s.dtype, allow_extended_dtype=True),
                     s.weak_type, manual_axis_type=s.manual_axis_type)
  if s.sharding is not None:
    aval = typed_as_laid_out(aval, s.sharding)
  return AbstractRef(aval) if s.is_ref else aval


pytype_aval_mappings[ShapeDtypeStruct] = _shape_dtype_struct_aval
