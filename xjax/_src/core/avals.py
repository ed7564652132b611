"""Abstract values: what tracing knows about an array (shape, dtype, weak type)."""
from __future__ import annotations

import enum
import math

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import (ManualAxisType, ShardingTypeError,
                                            replicated_type_sharding, type_sharding,
                                            typed_sharding)


class MemorySpace(enum.Enum):
  """Where an array lives (``jax.memory.Space``); xjax arrays are all in device memory."""
  Device = enum.auto()
  Host = enum.auto()
  Any = enum.auto()

  def __repr__(self) -> str:
    return f"MemorySpace.{self.name}"

  __str__ = __repr__


def _varying_of(manual_axis_type) -> frozenset:
  """The axes a ``ManualAxisType`` varies over; xjax's types have no unreduced or reduced
  axes, so a type naming any is refused."""
  if manual_axis_type is None:
    return _INVARIANT
  if getattr(manual_axis_type, "unreduced", None) or getattr(manual_axis_type, "reduced", None):
    raise NotImplementedError("ShapedArray(manual_axis_type=...) with unreduced or reduced "
                              "axes: xjax's types record only the axes a value varies over "
                              "(see docs/differences.md, Sharding).")
  return manual_axis_type.varying


def _check_memory_space(memory_space) -> None:
  """JAX's ``memory_space`` keyword: xjax's arrays live in device memory only."""
  if memory_space is not MemorySpace.Device:
    raise NotImplementedError(f"ShapedArray(memory_space={memory_space!r}): xjax's arrays live "
                              "in device memory (see docs/differences.md).")


# Whether any type has carried a sharding in this process: until one has, evaluating a
# primitive's types skips its sharding rule (see core.trace.eval_types).
sharded_types = [False]
# Whether any type has varied over manual mesh axes in this process (see core/varying.py).
varying_types = [False]

_INVARIANT = frozenset()

# Mesh axis names in the order the mesh of the latest shard_map body lists them: a type
# prints the axes it varies over in this order, as JAX prints them in its mesh's order
# (``f32[2]{V:(i,j)}``). ``shard_map`` records its mesh's names here.
axis_order: dict = {}


def record_axis_order(names) -> None:
  if tuple(axis_order) != tuple(names):
    axis_order.clear()
    axis_order.update((name, k) for k, name in enumerate(names))


def vma_of(aval) -> frozenset:
  """The manual axes values of type ``aval`` vary over (none for types other than arrays':
  refs, tokens)."""
  return getattr(aval, "_vma", _INVARIANT)


def mismatch(a, b) -> str:
  """What differs between two types, as JAX's errors say it (", so the dtypes ...")."""
  parts = (["the dtypes do not match"] if a.dtype != b.dtype else []) + (
      ["the shapes do not match"] if a.shape != b.shape else []) + (
      ["the manual axis types do not match"] if vma_of(a) != vma_of(b) else [])
  if not parts:
    return ""
  return ", so " + (parts[0] if len(parts) == 1 else
                    ", ".join(parts[:-1]) + ", and " + parts[-1])


def ordered_axes(axes) -> tuple:
  """``axes`` (a set of mesh axis names) in mesh order."""
  return tuple(sorted(axes, key=lambda a: (axis_order.get(a, len(axis_order)), str(a))))


def typed_as_laid_out(aval, sharding):
  """``aval`` with the type sharding of a value laid out as ``sharding`` (its Explicit
  axes), as JAX reads an array's type from its sharding; ``aval`` where it names none."""
  typed = type_sharding(sharding, aval.ndim)
  return aval if typed is None else aval.update(sharding=typed)


def spec_of(aval) -> tuple:
  """The type sharding's spec of ``aval``, one entry (None or axes) per dimension."""
  sharding = getattr(aval, "_sharding", None)
  return (None,) * len(aval.shape) if sharding is None else tuple(sharding.spec)


def mesh_of(avals):
  """The abstract mesh of the first of ``avals`` whose type is sharded (None if none is)."""
  for a in avals:
    sharding = getattr(a, "_sharding", None)
    if sharding is not None:
      return sharding.mesh
  return None


def result_sharding(name: str, avals, shape, dtype, parts):
  """The type sharding of a ``name`` result of ``shape`` whose dimensions are split as
  ``parts`` (None where none is), over the mesh of the sharded ``avals``; a mesh axis named
  for two dimensions is JAX's ShardingTypeError."""
  named = [a for p in parts if p is not None for a in ((p,) if isinstance(p, str) else p)]
  if not named:
    return None
  if len(named) != len(set(named)):
    shown = ",".join(str(n) if p is None else f"{n}@{p}" if isinstance(p, str)
                     else f"{n}@({','.join(p)})" for n, p in zip(shape, parts))
    raise ShardingTypeError(f"{name} operation with inputs: "
                            f"{', '.join(a.str_short(short_dtypes=True) for a in avals)} produces an illegally "
                            f"sharded result: {dtypes.short_name(dtype)}[{shown}]")
  return typed_sharding(mesh_of(avals), parts)


class ShapedArray:
  """The abstract value of an array: a static shape, a dtype, a weak-type flag and, over a
  mesh with Explicit axes, the sharding in its type.

  Weak types mark values that came from Python scalars; they give way to the other
  operand's dtype in promotion (``x_f16 + 1.0`` stays float16). ``_sharding`` is None for an
  unsharded type, else the NamedSharding over the abstract mesh that ``type_sharding``
  gives: which Explicit axes split each dimension (printed ``f32[8@X,4]``).

  Inside a ``shard_map`` that checks how values vary (``check_vma=True``), ``_vma`` is the
  set of manual mesh axes along which the value may differ from device to device (JAX's
  ``manual_axis_type.varying``, printed ``f32[2]{V:i}``); empty elsewhere.
  """
  __slots__ = ("shape", "dtype", "weak_type", "_sharding", "_vma", "_hash")

  def __init__(self, shape, dtype, weak_type: bool = False, *, sharding=None,
               manual_axis_type=None, memory_space=MemorySpace.Device,
               vma: frozenset = _INVARIANT) -> None:
    self.shape = tuple(shape)
    self.dtype = dtype if isinstance(dtype, (np.dtype, dtypes.ExtendedDType)) else np.dtype(dtype)
    self.weak_type = bool(weak_type)
    if sharding is not None:
      sharding = type_sharding(sharding, len(self.shape))  # (None when it splits nothing)
    self._sharding = sharding
    if manual_axis_type is not None:
      vma = _varying_of(manual_axis_type)
    self._vma = vma
    if vma:
      varying_types[0] = True
    if sharding is None and not vma:
      self._hash = hash((self.shape, self.dtype, self.weak_type))
    else:
      sharded_types[0] = sharded_types[0] or sharding is not None
      self._hash = hash((self.shape, self.dtype, self.weak_type, sharding, vma))
    if memory_space is not MemorySpace.Device:
      _check_memory_space(memory_space)

  @property
  def ndim(self) -> int:
    return len(self.shape)

  @property
  def size(self) -> int:
    return math.prod(self.shape)  # (Python ints: NumPy's prod of a tuple costs microseconds)

  memory_space = MemorySpace.Device

  @property
  def sharding(self):
    """The sharding in the array's type (replicated over no mesh when unsharded)."""
    return self._sharding or replicated_type_sharding(len(self.shape))

  def update(self, shape=None, dtype=None, weak_type=None, **extras) -> "ShapedArray":
    """This type with the given parts replaced; its sharding is kept while the rank is,
    the axes it varies over always."""
    if "sharding" not in extras and self._sharding is not None and (
        shape is None or len(shape) == len(self.shape)):
      extras["sharding"] = self._sharding
    if self._vma and "vma" not in extras and "manual_axis_type" not in extras:
      extras["vma"] = self._vma
    return ShapedArray(self.shape if shape is None else shape,
                       self.dtype if dtype is None else dtype,
                       self.weak_type if weak_type is None else weak_type, **extras)

  def to_tangent_aval(self) -> "ShapedArray":
    return tangent_aval(self)

  at_least_vspace = to_tangent_aval   # JAX's older name, still called by custom JVP rules

  # -- JAX's aval protocol, as libraries defining custom rules call it ---------------------
  array_abstraction_level = 2
  is_high = False    # (not a jax.experimental.hijax type)
  has_qdd = False

  def to_ct_aval(self) -> "ShapedArray":
    """The type of a cotangent: the tangent type, weak type kept."""
    ct = tangent_aval(self)
    return ct if ct.weak_type == self.weak_type else ct.update(weak_type=self.weak_type)

  def update_weak_type(self, weak_type) -> "ShapedArray":
    return self if weak_type == self.weak_type else self.update(weak_type=weak_type)

  def normalize(self) -> "ShapedArray":
    return self.strip_weak_type()

  @property
  def manual_axis_type(self):
    """How the value varies over manual mesh axes (``varying``: the axes ``_vma`` holds)."""
    return ManualAxisType(varying=self._vma)

  mat = manual_axis_type

  def update_manual_axis_type(self, mat) -> "ShapedArray":
    vma = _varying_of(mat)
    return self if vma == self._vma else self.update(vma=vma)

  def strip_weak_type(self) -> "ShapedArray":
    return self if not self.weak_type else ShapedArray(self.shape, self.dtype, False,
                                                       sharding=self._sharding, vma=self._vma)

  def __eq__(self, other) -> bool:
    return (type(other) is ShapedArray and self.shape == other.shape
            and self.dtype == other.dtype and self.weak_type == other.weak_type
            and self._sharding == other._sharding and self._vma == other._vma)

  def __hash__(self) -> int:
    return self._hash

  def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
    """``float32[3,4]``, or ``f32[3,4]`` (jaxpr binders) with ``short_dtypes``."""
    name = (dtypes.short_name(self.dtype) if short_dtypes or self.dtype is dtypes.float0
            else self.dtype.name)  # (float0's NumPy name is "void")
    varying = ""
    if self._vma:  # (JAX's form: one axis bare, several in parentheses)
      axes = ",".join(map(str, ordered_axes(self._vma)))
      varying = "{V:" + (axes if len(self._vma) == 1 else f"({axes})") + "}"
    if self._sharding is None:
      return f"{name}[{','.join(map(str, self.shape))}]{varying}"
    dims = [str(n) if p is None else f"{n}@{p}" if isinstance(p, str)
            else f"{n}@({','.join(p)})" for n, p in zip(self.shape, self._sharding.spec)]
    return f"{name}[{','.join(dims)}]{varying}"

  def __repr__(self) -> str:
    weak = ", weak_type=True" if self.weak_type else ""
    return f"ShapedArray({self.str_short(short_dtypes=False)}{weak})"

  def __str__(self) -> str:
    """``float32[3,4]``, with a leading ``~`` for a weak type (as JAX prints avals)."""
    return ("~" if self.weak_type else "") + self.str_short(short_dtypes=False)


def physical_aval(aval: ShapedArray) -> ShapedArray:
  """How an array is stored: extended dtypes (PRNG keys) as arrays of their physical dtype
  with trailing dimensions; other avals as they are."""
  dt = aval.dtype
  if not isinstance(dt, dtypes.ExtendedDType):
    return aval
  return ShapedArray(aval.shape + dt.physical_shape, dt.physical_dtype, vma=aval._vma)


_canonical: dict = {}  # ShapedArray -> the one equal to it that canonical() gives


def canonical(aval: ShapedArray) -> ShapedArray:
  """The one object among those equal to ``aval`` that results of eager operations carry:
  cache keys holding it then match by identity, without ``__eq__`` (forgotten past 4,096
  types, when any equal object serves again)."""
  hit = _canonical.get(aval)
  if hit is None:
    if len(_canonical) >= 4096:
      _canonical.clear()
    hit = _canonical[aval] = aval
  return hit


def tangent_aval(aval: ShapedArray) -> ShapedArray:
  """The aval of a tangent or cotangent: float0 for integer and boolean primals (as JAX)."""
  if dtypes.is_inexact(aval.dtype):
    return aval
  tangent = getattr(aval.dtype, "tangent_dtype", None)  # (an extended dtype may name one)
  return ShapedArray(aval.shape, dtypes.float0 if tangent is None else tangent, False,
                     vma=aval._vma)
