"""Shardings: how an array is laid out over devices (single-device placement for now), and
the meshes and partition specs that describe layouts over several."""
from __future__ import annotations

import collections
import dataclasses
import enum
import functools
import itertools
import math
import threading
import warnings
import weakref

import numpy as np

from xjax._src.foundations.config import config


class Sharding:
  """Base class of array layouts over devices (``jax.sharding.Sharding``)."""

  @property
  def device_set(self) -> set:
    raise NotImplementedError

  @property
  def is_fully_replicated(self) -> bool:
    return True

  @property
  def is_fully_addressable(self) -> bool:
    """Whether this process holds every device (false in a multi-process run's global
    layouts)."""
    return all(d.process_index == d.client.process_index() for d in self.device_set)

  @property
  def memory_kind(self):
    return None

  @property
  def addressable_devices(self) -> set:
    return self.device_set

  @property
  def num_devices(self) -> int:
    return len(self.device_set)

  @property
  def _device_assignment(self) -> tuple:
    """The devices in a fixed order (by id; a mesh's own order for a NamedSharding)."""
    return tuple(sorted(self.device_set, key=lambda d: d.id))

  @property
  def _addressable_device_assignment(self) -> tuple:
    """`_device_assignment`'s devices that this process holds (orbax reads it)."""
    return tuple(d for d in self._device_assignment
                 if d.process_index == d.client.process_index())

  @property
  def has_addressable_devices(self) -> bool:
    return len(self.addressable_devices) > 0

  def shard_shape(self, global_shape) -> tuple:
    return tuple(global_shape)

  def with_memory_kind(self, kind: str) -> "Sharding":
    """This sharding, placing arrays in memory of ``kind``."""
    raise NotImplementedError("Subclasses should implement this method.")

  def check_compatible_aval(self, aval_shape) -> None:
    """ValueError unless this sharding can lay out a value of shape ``aval_shape``."""

  def devices_indices_map(self, global_shape) -> dict:
    """Each device's index (a tuple of slices) into an array of ``global_shape``."""
    raise NotImplementedError("Subclasses should implement this method.")

  def addressable_devices_indices_map(self, global_shape) -> dict:
    """``devices_indices_map`` restricted to the devices this process holds."""
    local = self.addressable_devices
    return {d: index for d, index in self.devices_indices_map(global_shape).items()
            if d in local}

  def is_equivalent_to(self, other: Sharding, ndim: int) -> bool:
    """Whether this sharding and ``other`` lay out an array of rank ``ndim`` identically:
    the same tiles on the same devices, in the same memory."""
    return (_tiling_of(self, ndim) == _tiling_of(other, ndim)
            and self._device_assignment == other._device_assignment
            and (self.memory_kind or "device") == (other.memory_kind or "device"))


class TilingSharding(Sharding):
  """A layout that a ``Tiling`` describes (``tiling(ndim)``): where each device's shard
  sits follows from it."""

  def tiling(self, ndim: int) -> "Tiling":
    raise NotImplementedError

  def devices_indices_map(self, global_shape) -> dict:
    return self.tiling(len(global_shape)).indices(global_shape)

  def shard_shape(self, global_shape) -> tuple:
    dims = self.tiling(len(global_shape)).dims
    return tuple(n // f for n, f in zip(global_shape, dims))


def checked_memory_kind(kind, device):
  """``kind`` (a memory kind, or None for the default), checked against the memories
  ``device`` can address (None: an abstract device, any kind). xjax places arrays in device
  memory only, so another memory that exists is a NotImplementedError."""
  if kind is None or kind == "device":
    return kind
  if device is not None:
    kinds = [m.kind for m in device.addressable_memories()]
    if kind not in kinds:
      raise ValueError(f"Could not find memory addressable by device {device.device_kind}. "
                       f"Device {device.device_kind} can address the following memory "
                       f"kinds: {', '.join(kinds)}. Got memory kind: {kind}")
  raise NotImplementedError(f"memory_kind={kind!r}: xjax places arrays in device memory only "
                            "(no host memory spaces); use memory_kind='device' or None.")


class SingleDeviceSharding(Sharding):
  """The whole array on one device."""

  def __init__(self, device, *, memory_kind=None) -> None:
    checked_memory_kind(memory_kind, device)
    self._device = device

  def with_memory_kind(self, kind: str) -> "SingleDeviceSharding":
    return SingleDeviceSharding(self._device, memory_kind=kind)

  @property
  def device_set(self) -> set:
    return {self._device}

  @property
  def memory_kind(self) -> str:
    return "device"  # (the only memory xjax places arrays in)

  def devices_indices_map(self, global_shape) -> dict:
    return {self._device: tuple(slice(None) for _ in global_shape)}

  def __eq__(self, other) -> bool:
    return isinstance(other, SingleDeviceSharding) and other._device == self._device

  def __hash__(self) -> int:
    return hash(("SingleDeviceSharding", self._device))

  def __repr__(self) -> str:
    return f"SingleDeviceSharding(device={self._device!r}, memory_kind=device)"


def _tiling_of(sharding: Sharding, ndim: int) -> "Tiling":
  """How ``sharding`` tiles an array of rank ``ndim``; a replicated layout's devices are
  left out (their order is the device assignment's)."""
  if isinstance(sharding, TilingSharding):
    tiling = sharding.tiling(ndim)
    return Tiling(tiling.dims, (), 1) if tiling.is_replicated else tiling
  if isinstance(sharding, SingleDeviceSharding):
    return Tiling((1,) * ndim, (), 1)
  raise AttributeError(f"{type(sharding).__name__!r} object has no tiling to compare")


def make_single_device_sharding(device, *, memory_kind=None) -> "SingleDeviceSharding":
  """The sharding that places a whole array on ``device``."""
  return SingleDeviceSharding(device, memory_kind=memory_kind)


# ---------------------------------------------------------------------------------------
# Meshes and named shardings: the descriptions JAX code builds and inspects.  Computation
# with an array split over several devices is not supported yet (placement refuses such a
# sharding); on one device, or with every dimension replicated, they describe what xjax does.

class AxisType(enum.Enum):
  """How a mesh axis is partitioned: by the compiler, explicitly in types, or by hand."""
  Auto = enum.auto()
  Explicit = enum.auto()
  Manual = enum.auto()

  def __repr__(self) -> str:
    return self.name


class _Sentinel:
  """A value of which there is one object per subclass, kept by pickling and copying; it
  prints as the subclass's ``_text``."""
  __slots__ = ()
  _text = ""

  def __new__(cls):
    instance = cls.__dict__.get("_instance")
    if instance is None:
      instance = object.__new__(cls)
      type.__setattr__(cls, "_instance", instance)
    return instance

  def __repr__(self) -> str:
    return self._text

  def __reduce__(self):
    return type(self), ()


class _Unconstrained(_Sentinel):
  """``P.UNCONSTRAINED``: a dimension whose layout the compiler chooses (in
  ``with_sharding_constraint``)."""
  __slots__ = ()
  _text = "UNCONSTRAINED"


UNCONSTRAINED = _Unconstrained()


class UnspecifiedValue(_Sentinel):
  """JAX's ``UNSPECIFIED``: a jit's ``in_shardings``/``out_shardings`` left unspecified (as
  None is)."""
  __slots__ = ()
  _text = "UnspecifiedValue"


UNSPECIFIED = UnspecifiedValue()


class PartitionSpec:
  """For each array dimension, the mesh axis (or tuple of axes) it is split over, or None
  (or ``UNCONSTRAINED``: the compiler's choice)."""
  __slots__ = ("_parts",)
  UNCONSTRAINED = UNCONSTRAINED

  @property
  def partitions(self) -> tuple:
    return self._parts

  unreduced = reduced = frozenset()   # (xjax's specs have no unreduced or reduced axes)

  def count(self, value) -> int:
    return self._parts.count(value)

  def index(self, value) -> int:
    return self._parts.index(value)

  def to_tangent_spec(self) -> "PartitionSpec":
    """The spec of a tangent or cotangent: this one (JAX's swap unreduced and reduced
    axes, which xjax's specs do not have)."""
    return self

  to_ct_spec = to_tangent_spec

  def to_lo(self) -> list:
    return [self]

  def __init__(self, *parts, unreduced=frozenset(), reduced=frozenset()) -> None:
    if unreduced or reduced:
      _no_unreduced(unreduced, reduced)
    self._parts = tuple(parts)

  def __getitem__(self, i):
    return self._parts[i]

  def __len__(self) -> int:
    return len(self._parts)

  def __iter__(self):
    return iter(self._parts)

  def __eq__(self, other) -> bool:
    return isinstance(other, PartitionSpec) and other._parts == self._parts

  def __hash__(self) -> int:
    return hash(("PartitionSpec", self._parts))

  def update(self, partitions=None, unreduced=None, reduced=None) -> PartitionSpec:
    """This spec with its ``partitions`` (a sequence of entries) replaced."""
    if unreduced or reduced:
      _no_unreduced(unreduced or frozenset(), reduced or frozenset())
    return PartitionSpec(*(self._parts if partitions is None else partitions))

  def __repr__(self) -> str:
    inner = ", ".join(map(repr, self._parts))
    return f"P({inner}{',' if len(self._parts) == 1 else ''})"


def _no_unreduced(unreduced, reduced) -> None:
  """JAX's type check of a spec's ``unreduced``/``reduced`` axes, then xjax's refusal of
  them (its types have no unreduced or reduced axes)."""
  for name, axes in (("unreduced", unreduced), ("reduced", reduced)):
    if not isinstance(axes, (set, frozenset)):
      raise TypeError(f"{name} argument of PartitionSpec should of type `frozenset` or "
                      f"`set`. Got type {axes}")
  raise NotImplementedError(
      f"PartitionSpec(unreduced={set(unreduced) or '{}'}, reduced={set(reduced) or '{}'}): "
      "xjax's sharding types have no unreduced or reduced mesh axes. Leave them out: "
      "values are then always reduced (inside shard_map, reduce with lax.psum). See "
      "docs/differences.md.")


def _axis_types(axis_types, axis_names: tuple) -> tuple:
  n = len(axis_names)
  if axis_types is None:
    return (AxisType.Auto,) * n
  types = tuple(axis_types) if isinstance(axis_types, (tuple, list)) else (axis_types,) * n
  if len(types) != n:
    raise ValueError("Number of axis names should match the number of axis_types. Got "
                     f"axis_names={axis_names} and axis_types={types}")
  return types


class _MeshShape:
  """What concrete and abstract meshes share: named axes with sizes and types."""
  axis_names: tuple
  axis_sizes: tuple
  axis_types: tuple

  @property
  def shape(self) -> dict:
    return collections.OrderedDict(zip(self.axis_names, self.axis_sizes))

  @property
  def size(self) -> int:
    return int(math.prod(self.axis_sizes))

  @property
  def empty(self) -> bool:
    return not self.axis_names

  @property
  def shape_tuple(self) -> tuple:
    return tuple(zip(self.axis_names, self.axis_sizes))

  def _axes_of_type(self, kind: AxisType) -> tuple:
    return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t is kind)

  @property
  def auto_axes(self) -> tuple:
    return self._axes_of_type(AxisType.Auto)

  @property
  def explicit_axes(self) -> tuple:
    return self._axes_of_type(AxisType.Explicit)

  @property
  def manual_axes(self) -> tuple:
    return self._axes_of_type(AxisType.Manual)

  @property
  def _any_axis_explicit(self) -> bool:
    """Whether some axis is Explicit (libraries copying `lax.map`'s batching read it)."""
    return bool(self.explicit_axes)

  def _all_axes(self, kind: AxisType) -> bool:
    return bool(self.axis_types) and all(t is kind for t in self.axis_types)

  @property
  def are_all_axes_auto(self) -> bool:
    return self._all_axes(AxisType.Auto)

  @property
  def are_all_axes_explicit(self) -> bool:
    return self._all_axes(AxisType.Explicit)

  @property
  def are_all_axes_manual(self) -> bool:
    return self._all_axes(AxisType.Manual)

  def _short(self) -> str:
    axes = ", ".join(f"{n!r}: {s}" for n, s in zip(self.axis_names, self.axis_sizes))
    return f"{axes or '()'}, axis_types={self.axis_types!r}"


def _abstract_mesh_lacks(name: str) -> property:
  """A concrete mesh's property ``name`` that an abstract mesh, having no devices, answers
  with a ValueError."""
  def raises(self):
    raise ValueError(f"AbstractMesh does not implement {name}")
  raises.__name__ = name
  return property(raises)


class AbstractMesh(_MeshShape):
  """A mesh's axis names, sizes and types, without devices (``abstract_device``: what they
  are, an ``AbstractDevice``, for a concrete mesh's abstract mesh)."""

  def __init__(self, axis_sizes, axis_names, axis_types=None, *, abstract_device=None) -> None:
    self.axis_sizes, self.axis_names = tuple(axis_sizes), tuple(axis_names)
    if len(self.axis_sizes) != len(self.axis_names):
      raise ValueError("AbstractMesh needs one size per axis name.")
    self.axis_types = _axis_types(axis_types, self.axis_names)
    self.abstract_device = abstract_device

  @property
  def abstract_mesh(self) -> "AbstractMesh":
    return self

  def update(self, axis_sizes=None, axis_names=None, axis_types=None, **kwargs) -> "AbstractMesh":
    """This mesh with ``axis_sizes``, ``axis_names``, ``axis_types`` or ``abstract_device``
    replaced."""
    kwargs.setdefault("abstract_device", self.abstract_device)
    return AbstractMesh(self.axis_sizes if axis_sizes is None else axis_sizes,
                        self.axis_names if axis_names is None else axis_names,
                        self.axis_types if axis_types is None else axis_types, **kwargs)

  def update_axis_types(self, name_to_type: dict) -> "AbstractMesh":
    """This mesh with the types of the axes ``name_to_type`` names replaced."""
    return self.update(axis_types=tuple(name_to_type.get(n, t) for n, t in
                                        zip(self.axis_names, self.axis_types)))

  devices = _abstract_mesh_lacks("devices")
  device_ids = _abstract_mesh_lacks("device_ids")
  is_multi_process = _abstract_mesh_lacks("is_multi_process")
  local_devices = _abstract_mesh_lacks("local_devices")
  local_mesh = _abstract_mesh_lacks("local_mesh")

  def __eq__(self, other) -> bool:
    return (isinstance(other, AbstractMesh) and other.axis_sizes == self.axis_sizes
            and other.axis_names == self.axis_names and other.axis_types == self.axis_types)

  def __hash__(self) -> int:  # computed once: types hash their meshes at every operation
    h = self.__dict__.get("_hash")
    if h is None:
      h = self._hash = hash((self.axis_sizes, self.axis_names, self.axis_types))
    return h

  def __repr__(self) -> str:
    d = self.abstract_device
    device = "" if d is None else (f", device_kind={d.device_kind}, num_cores={d.num_cores}, "
                                   f"platform={d.platform}")
    return f"AbstractMesh({self._short()}{device})"


class Mesh(_MeshShape):
  """An array of devices whose dimensions are named mesh axes."""

  def __init__(self, devices, axis_names, axis_types=None) -> None:
    self.devices = np.asarray(devices, dtype=object)
    self.axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    if self.devices.ndim != len(self.axis_names):
      raise ValueError(f"Mesh requires the ndim of its first argument (`devices`) to equal "
                       f"the length of its second argument (`axis_names`), but got "
                       f"devices.ndim == {self.devices.ndim} and len(axis_names) == "
                       f"{len(self.axis_names)}.")
    self.axis_types = _axis_types(axis_types, self.axis_names)

  @property
  def axis_sizes(self) -> tuple:
    return self.devices.shape

  @property
  def is_scalar(self) -> bool:
    """Whether the mesh is one device with no axes."""
    return self.size == 1 and not self.axis_names

  def update(self, devices=None, axis_names=None, axis_types=None) -> "Mesh":
    """This mesh with ``devices``, ``axis_names`` or ``axis_types`` replaced."""
    return Mesh(self.devices if devices is None else devices,
                self.axis_names if axis_names is None else axis_names,
                self.axis_types if axis_types is None else axis_types)

  @functools.cached_property
  def abstract_mesh(self) -> AbstractMesh:
    first = self.devices.flat[0] if self.devices.size else None
    device = None if first is None else AbstractDevice(
        first.device_kind, getattr(first, "num_cores", None), first.platform)
    return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types,
                        abstract_device=device)

  @property
  def device_ids(self) -> np.ndarray:
    return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

  @property
  def local_devices(self) -> list:
    """The mesh's devices that this process holds."""
    return [d for d in self.devices.flat if d.process_index == d.client.process_index()]

  @property
  def is_multi_process(self) -> bool:
    return self.devices.size != len(self.local_devices)

  @property
  def local_mesh(self) -> "Mesh":
    """The sub-mesh of this process's devices (the mesh itself in a one-process run): the
    smallest box of the device array holding them, which must hold no other device."""
    if not self.is_multi_process:
      return self
    local = set(self.local_devices)
    where = np.vectorize(lambda d: d in local, otypes=[bool])(self.devices)
    box = tuple(slice(int(i.min()), int(i.max()) + 1) for i in np.nonzero(where))
    if not where[box].all():
      raise ValueError(f"the devices of process {next(iter(local)).client.process_index()} "
                       f"do not form a sub-box of the mesh {self}")
    return Mesh(self.devices[box], self.axis_names, self.axis_types)

  def __eq__(self, other) -> bool:
    return (isinstance(other, Mesh) and other.axis_names == self.axis_names
            and other.axis_types == self.axis_types and other.devices.shape == self.devices.shape
            and all(a == b for a, b in zip(other.devices.flat, self.devices.flat)))

  def __hash__(self) -> int:
    return hash((self.axis_names, self.axis_types, tuple(self.devices.flat)))

  def __enter__(self) -> "Mesh":
    if config._read("jax_disallow_mesh_context_manager"):
      raise RuntimeError("Mesh context manager is disabled.")
    warnings.warn("`with mesh:` context manager has been deprecated. Please use `with "
                  "jax.set_mesh(mesh):` instead.", DeprecationWarning, stacklevel=2)
    _mesh_stack().append(self)
    mesh_stack_changed()
    return self

  def __exit__(self, *exc) -> None:
    _mesh_stack().pop()
    mesh_stack_changed()

  def __repr__(self) -> str:
    return (f"Mesh(axis_sizes={self.axis_sizes!r}, axis_names={self.axis_names!r}, "
            f"axis_types={self.axis_types!r})")

  def __str__(self) -> str:  # as JAX prints a mesh in a jaxpr's parameters
    return f"Mesh({self._short()})"


_MESHES = threading.local()
_NO_MESH = AbstractMesh((), ())


def _mesh_stack() -> list:
  """This thread's ``with mesh:`` blocks, innermost last."""
  if not hasattr(_MESHES, "stack"):
    _MESHES.stack = []
  return _MESHES.stack


def _placing() -> list:
  """The positions in this thread's mesh stack that ``set_mesh`` pushed (a ``with mesh:``
  block names a mesh for PartitionSpecs but places nothing)."""
  if not hasattr(_MESHES, "placing"):
    _MESHES.placing = []
  return _MESHES.placing


def placement_mesh() -> "Mesh | None":
  """The mesh of the innermost ``set_mesh`` while it is the innermost mesh: JAX runs
  computations of uncommitted values over its devices, their results replicated there."""
  stack = _mesh_stack()
  if not stack or len(stack) - 1 not in _placing():
    return None
  mesh = stack[-1]
  return mesh if isinstance(mesh, Mesh) and not mesh.empty else None


# Whether a ``set_mesh`` mesh places computations now (read on hot paths: the host kernels
# and jit's fast path stand aside meanwhile), and who follows it.
PLACING = [False]
placing_listeners: list = []


def mesh_stack_changed() -> None:
  """Called after every change of the mesh stack."""
  now = placement_mesh() is not None
  if now != PLACING[0]:
    PLACING[0] = now
    for listener in placing_listeners:
      listener()


def replicated_over(mesh, ndim: int) -> "NamedSharding":
  """A result replicated over ``mesh`` as JAX reports it: ``P(None, ...)`` (read from an
  unsharded type) over a mesh whose axes are all Explicit, else ``P()``."""
  if mesh.are_all_axes_explicit:
    return NamedSharding(mesh, PartitionSpec(*[None] * ndim))
  return NamedSharding(mesh, PartitionSpec())


def get_abstract_mesh() -> AbstractMesh:
  """The abstract mesh of the innermost ``with mesh:`` block (an empty one outside)."""
  stack = _mesh_stack()
  return stack[-1].abstract_mesh if stack else _NO_MESH


def context_mesh() -> "Mesh | None":
  """The concrete mesh of the innermost ``with mesh:`` block, if any."""
  return next((m for m in reversed(_mesh_stack()) if isinstance(m, Mesh)), None)


def jit_context_mesh() -> "Mesh | AbstractMesh | None":
  """The mesh a ``jit`` call records as its ``ctx_mesh`` (JAX's): the innermost one
  ``set_mesh`` set (a ``with mesh:`` block sets none), else an abstract mesh with Explicit
  axes; None where neither is."""
  stack, placing = _mesh_stack(), _placing()
  mesh = stack[placing[-1]] if placing else None
  if isinstance(mesh, Mesh) and not mesh.empty:
    return mesh
  abstract = get_abstract_mesh()
  return abstract if abstract.explicit_axes else None


def typed_context_mesh() -> "Mesh | None":
  """The context mesh with the axis types the abstract mesh gives it: inside
  ``explicit_axes``/``auto_axes`` values are laid out over the concrete mesh but typed over
  the abstract one, whose axes may be Explicit where the concrete mesh's are Auto (and
  back).  Inside a ``shard_map`` body the context mesh as it is."""
  mesh, abstract = context_mesh(), get_abstract_mesh()
  if mesh is None or abstract.manual_axes or abstract.size != mesh.size:
    return mesh
  return over_devices_of(mesh, abstract)


def over_devices_of(mesh: "Mesh", abstract: AbstractMesh) -> "Mesh":
  """The concrete mesh of ``abstract`` (of ``mesh``'s size) over ``mesh``'s devices:
  ``mesh`` itself or retyped for a mesh of its shape; else (``use_abstract_mesh`` of
  another shape) its devices in their order, reshaped."""
  if abstract.shape_tuple == mesh.shape_tuple:
    return retyped(mesh, abstract.axis_types)
  return _reshaped(mesh, abstract)


@functools.lru_cache(maxsize=64)
def _reshaped(mesh: "Mesh", abstract: AbstractMesh) -> "Mesh":
  return Mesh(mesh.devices.reshape(abstract.axis_sizes), abstract.axis_names,
              abstract.axis_types)


@functools.lru_cache(maxsize=64)
def retyped(mesh: "Mesh", axis_types: tuple) -> "Mesh":
  """``mesh`` with ``axis_types`` (one Mesh object per pair, so jit caches keyed on meshes
  hit)."""
  return mesh if mesh.axis_types == axis_types else mesh.update(axis_types=axis_types)


class use_abstract_mesh:
  """``with use_abstract_mesh(abstract_mesh):`` makes it the mesh ``get_abstract_mesh``
  reports (it may not change the size of an enclosing mesh); ``prev`` is the abstract mesh
  it replaced (set on entering; an empty one where none was set)."""
  __slots__ = ("mesh", "prev")

  def __init__(self, mesh: AbstractMesh) -> None:
    if not isinstance(mesh, AbstractMesh):
      raise ValueError("Expected mesh of type `jax.sharding.AbstractMesh`. Got type: "
                       f"{type(mesh)}")
    self.mesh = mesh

  def __enter__(self) -> None:
    prev = get_abstract_mesh()
    if not prev.empty and not self.mesh.empty and prev.size != self.mesh.size:
      raise ValueError(f"use_abstract_mesh cannot change the size of the mesh. Got new mesh: "
                       f"{self.mesh} with size={self.mesh.size} and prev mesh: {prev} with "
                       f"size={prev.size}")
    self.prev = prev
    _mesh_stack().append(self.mesh)
    mesh_stack_changed()

  def __exit__(self, *exc) -> None:
    _mesh_stack().pop()
    mesh_stack_changed()


@dataclasses.dataclass(frozen=True, slots=True)
class AbstractDevice:
  """What a mesh's devices are, without the devices: kind, cores, platform."""
  device_kind: str
  num_cores: int | None
  platform: str

  def __repr__(self) -> str:
    return (f"AbstractDevice(device_kind={self.device_kind}, num_cores={self.num_cores}, "
            f"platform={self.platform})")


class ManualAxisType:
  """How a value varies over the manual (``shard_map``) axes of a mesh: the axes it
  ``varying`` over, and those it is ``unreduced``/``reduced`` over.  Equal values are one
  object."""
  __slots__ = ("varying", "unreduced", "reduced", "__weakref__")
  _interned: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()

  def __new__(cls, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
    for name, other in (("unreduced", unreduced), ("reduced", reduced)):
      if set(varying) & set(other):
        raise ValueError(f"varying and {name} cannot have common mesh axes. Got "
                         f"varying={varying} and {name}={other}")
    key = (frozenset(varying), frozenset(unreduced), frozenset(reduced))
    obj = cls._interned.get(key)
    if obj is None:
      obj = object.__new__(cls)
      for attr, value in zip(cls.__slots__, key):
        object.__setattr__(obj, attr, value)
      cls._interned[key] = obj
    return obj

  def __setattr__(self, name, value) -> None:
    raise AttributeError("ManualAxisType is immutable")

  def update(self, **kwargs) -> "ManualAxisType":
    """This type with the given fields replaced."""
    fields = {a: getattr(self, a) for a in ("varying", "unreduced", "reduced")}
    return ManualAxisType(**{**fields, **kwargs})

  def to_ct_mat(self) -> "ManualAxisType":
    """The type of a cotangent: unreduced and reduced swap."""
    return self.update(unreduced=self.reduced, reduced=self.unreduced)

  @property
  def empty(self) -> bool:
    return not self.vur

  @property
  def vur(self) -> frozenset:
    """The axes the value is varying, unreduced or reduced over."""
    return self.varying | self.unreduced | self.reduced

  def invarying(self, mesh) -> frozenset:
    """The manual axes of ``mesh`` the value does not vary over."""
    return frozenset(mesh.manual_axes) - self.vur

  def __repr__(self) -> str:
    return (f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, "
            f"reduced={self.reduced})")

  def __getnewargs_ex__(self):  # pickling makes the interned object again
    return (), {"varying": self.varying, "unreduced": self.unreduced,
                "reduced": self.reduced}

  def __getstate__(self):
    return None


def spec_axes(part) -> tuple:
  """The mesh axes one entry of a PartitionSpec names (None, UNCONSTRAINED: none)."""
  if part is None or part is UNCONSTRAINED:
    return ()
  return tuple(part) if isinstance(part, (tuple, list)) else (part,)


def spec_part(axes) -> "str | tuple | None":
  """The PartitionSpec entry naming ``axes`` (a sequence of mesh axes): None for none, the
  name for one, else their tuple (``spec_axes``' inverse)."""
  return None if not axes else axes[0] if len(axes) == 1 else tuple(axes)


class DuplicateSpecError(Exception):
  """A spec names one mesh axis for two dimensions (JAX's class: not a ValueError)."""

  def __init__(self, message: str, mesh, pspec) -> None:
    super().__init__(message)
    self.message, self.mesh, self.pspec = message, mesh, pspec


def check_spec_axes(mesh, spec: PartitionSpec) -> None:
  """JAX's errors for a spec naming an axis ``mesh`` lacks (ValueError), or one axis twice
  (DuplicateSpecError)."""
  seen: set = set()
  for part in spec:
    for name in spec_axes(part):
      if name not in mesh.axis_names:
        raise ValueError(f"Resource axis: {name} of {spec!r} is not found in mesh: "
                         f"{mesh.axis_names}.")
      if name in seen:
        raise DuplicateSpecError(
            f"A single NamedSharding spec specification can map every mesh axis to at most "
            f"one positional dimension, but {spec!r} has duplicate entries for `{name}`",
            mesh, spec)
      seen.add(name)


class IndivisibleError(ValueError):
  """A sharded dimension is not a multiple of the number of its shards."""


class NamedSharding(TilingSharding):
  """An array laid out over a mesh: ``spec`` names the mesh axes each dimension is split on."""

  def __init__(self, mesh, spec, *, memory_kind=None) -> None:
    if not isinstance(spec, PartitionSpec):
      raise TypeError(f"NamedSharding's spec must be a PartitionSpec, got {spec!r}")
    self._mesh, self._spec = mesh, spec
    if isinstance(mesh, AbstractMesh):
      self._memory_kind = checked_memory_kind(memory_kind, None)
    else:
      device = mesh.devices.flat[0] if mesh.devices.size else None
      self._memory_kind = checked_memory_kind(memory_kind, device) or (
          None if device is None else device.default_memory().kind)
    check_spec_axes(mesh, spec)
    if UNCONSTRAINED in tuple(spec) and AxisType.Auto not in tuple(mesh.axis_types):
      raise ValueError(f"{spec!r} cannot contain `P.UNCONSTRAINED` when no mesh axis_types "
                       f"are `Auto`. Got mesh axis_types: {tuple(mesh.axis_types)!r}")

  @property
  def mesh(self):
    return self._mesh

  @property
  def spec(self) -> PartitionSpec:
    return self._spec

  @property
  def replicated_axes(self) -> frozenset:
    """The mesh axes the spec splits no dimension over."""
    return frozenset(self.mesh.axis_names) - {a for part in self.spec for a in spec_axes(part)}

  def with_memory_kind(self, kind: str) -> "NamedSharding":
    return self.update(memory_kind=kind)

  def check_compatible_aval(self, aval_shape) -> None:
    if len(aval_shape) < len(self.spec):
      scalars = " For scalars the PartitionSpec should be P()" if not aval_shape else ""
      raise ValueError(f"Sharding {self!r} is only valid for values of rank at least "
                       f"{len(self.spec)}, but was applied to a value of rank "
                       f"{len(aval_shape)}.{scalars}")

  def update(self, **kwargs) -> "NamedSharding":
    """This sharding with ``mesh``, ``spec`` (a PartitionSpec or a sequence of its entries)
    or ``memory_kind`` replaced."""
    spec = kwargs.pop("spec", self.spec)
    mesh = kwargs.pop("mesh", self.mesh)
    memory_kind = kwargs.pop("memory_kind", self._memory_kind)
    if kwargs:
      raise TypeError(f"NamedSharding.update() got unexpected keyword arguments {sorted(kwargs)}")
    spec = spec if isinstance(spec, PartitionSpec) else PartitionSpec(*spec)
    return NamedSharding(mesh, spec, memory_kind=memory_kind)

  def check_shape(self, shape, what: str = "value") -> None:
    """ValueError unless this sharding can lay out an array of ``shape``."""
    if len(self.spec) > len(shape):
      raise ValueError(f"Sharding {self!r} is only valid for values of rank at least "
                       f"{len(self.spec)}, but was applied to a {what} of rank {len(shape)}.")
    sizes = self.mesh.shape  # (an abstract mesh's too: no devices needed)
    factors = [math.prod(sizes[a] for a in spec_axes(p)) for p in self.spec]
    factors += [1] * (len(shape) - len(factors))
    for d, (n, f) in enumerate(zip(shape, factors)):
      if n % f and self.mesh.abstract_mesh.explicit_axes:  # (a type's check, as JAX's)
        raise ValueError(
            f"Sharding spec {tuple(spec_axes(self.spec[d]))} implies that array axis {d} is "
            f"partitioned {f} times, but does not evenly divide the dimension size {n}. Got "
            f"shape: {tuple(shape)} and sharding {type_sharding(self, len(shape))}")
      if n % f:
        raise IndivisibleError(
            f"Sharding {self!r} implies that array axis {d} is partitioned {f} times, but "
            f"the dimension size is {n} (full shape: {tuple(shape)}, per-dimension tiling "
            f"factors: {list(factors)} should evenly divide the shape)")

  def tiling(self, ndim: int) -> "Tiling":
    """How the mesh's devices tile an array of rank ``ndim``."""
    sizes = dict(zip(self.mesh.axis_names, self.mesh.axis_sizes))
    dim_axes = [spec_axes(p) for p in self.spec] + [()] * (ndim - len(self.spec))
    used = [a for axes in dim_axes for a in axes]
    rest = [a for a in self.mesh.axis_names if a not in used]
    order = [self.mesh.axis_names.index(a) for a in used + rest]
    devices = np.transpose(self.mesh.devices, order).reshape(-1)
    dims = tuple(int(math.prod(sizes[a] for a in axes)) for axes in dim_axes)
    return Tiling(dims, tuple(devices), int(math.prod(sizes[a] for a in rest)))

  @property
  def num_devices(self) -> int:
    return self.mesh.size

  @property
  def device_set(self) -> set:
    if isinstance(self.mesh, AbstractMesh):
      raise ValueError("a NamedSharding over an AbstractMesh has no devices")
    return set(self.mesh.devices.flat)

  @property
  def _device_assignment(self) -> tuple:
    self.device_set     # (the ValueError of an AbstractMesh)
    return tuple(self.mesh.devices.flat)

  @property
  def is_fully_replicated(self) -> bool:
    sizes = dict(zip(self.mesh.axis_names, self.mesh.axis_sizes))
    names = [n for p in self.spec if p is not None
             for n in (p if isinstance(p, tuple) else (p,))]
    return all(sizes.get(n, 1) == 1 for n in names)

  @property
  def memory_kind(self):
    return self._memory_kind

  def __eq__(self, other) -> bool:
    return (isinstance(other, NamedSharding) and other.mesh == self.mesh
            and other.spec == self.spec and other._memory_kind == self._memory_kind)

  def __hash__(self) -> int:  # computed once: types hash their shardings
    h = self.__dict__.get("_hash")
    if h is None:
      h = self._hash = hash((self.mesh, self.spec, self._memory_kind))
    return h

  def __repr__(self) -> str:
    kind = "" if self._memory_kind is None else f", memory_kind={self._memory_kind}"
    if isinstance(self.mesh, AbstractMesh):
      return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r}{kind})"
    return f"NamedSharding(mesh=Mesh({self.mesh._short()}), spec={self.spec!r}{kind})"


class ShardingTypeError(Exception):
  """An operation whose result's sharding (in its type, over Explicit mesh axes) would be
  ambiguous or needs an ``out_sharding`` (JAX's ``core.ShardingTypeError``)."""


def type_sharding(sharding, ndim: int) -> "NamedSharding | None":
  """The sharding an array laid out as ``sharding`` carries in its type (JAX's sharding in
  types): a NamedSharding over the abstract mesh whose spec keeps, for each of the ``ndim``
  dimensions, the Explicit mesh axes it is split over; None when it names none (the type is
  then unsharded, as every type is outside an Explicit mesh)."""
  if getattr(sharding, "_type_of_ndim", None) == ndim:  # already a type's (made here)
    return sharding
  if type(sharding) is PartitionSpec:  # over the context mesh (JAX's out_sharding=P(...))
    sharding = _over_context_mesh(sharding)
  if type(sharding) is not NamedSharding:
    return None
  mesh = sharding.mesh.abstract_mesh
  explicit = mesh.explicit_axes
  if not explicit:
    return None
  parts = []
  for part in list(sharding.spec)[:ndim] + [None] * (ndim - len(sharding.spec)):
    kept = tuple(a for a in spec_axes(part) if a in explicit)
    parts.append(None if not kept else kept[0] if len(kept) == 1 and not isinstance(
        part, (tuple, list)) else kept)
  if all(p is None for p in parts):
    return None
  return typed_sharding(mesh, parts)


def _over_context_mesh(spec: PartitionSpec) -> NamedSharding:
  mesh = get_abstract_mesh()
  if mesh.empty:
    raise ValueError("Using PartitionSpec when you are not under a mesh context is not "
                     "allowed. Please pass a NamedSharding instance or enter into a mesh "
                     f"context via `jax.set_mesh`. Got {spec}")
  return NamedSharding(mesh, spec)


def check_typed_shape(sharding: NamedSharding, shape) -> None:
  """JAX's ValueError unless each dimension of ``shape`` divides among the devices the type
  sharding ``sharding`` splits it over."""
  sizes = sharding.mesh.shape
  for d, (n, part) in enumerate(zip(shape, sharding.spec)):
    f = math.prod(sizes[a] for a in spec_axes(part))
    if n % f:
      raise ValueError(f"Sharding spec {spec_axes(part)} implies that array axis {d} is "
                       f"partitioned {f} times, but does not evenly divide the dimension size "
                       f"{n}. Got shape: {tuple(shape)} and sharding {sharding!r}")


def typed_sharding(mesh: AbstractMesh, parts) -> NamedSharding:
  """The type sharding splitting each dimension over the Explicit axes ``parts`` names
  (checked already: distinct axes of ``mesh``), marked as a type's for its rank."""
  sharding = object.__new__(NamedSharding)
  sharding._mesh, sharding._spec, sharding._memory_kind = mesh, PartitionSpec(*parts), None
  sharding._type_of_ndim = len(parts)
  return sharding


def out_sharding_param(sharding) -> "NamedSharding | None":
  """An ``out_sharding=`` argument as the parameter of the operation that takes it (JAX's
  canonical form, printed in jaxprs): a NamedSharding over the abstract mesh with the spec
  as given (a bare PartitionSpec names the context mesh's axes). None for None and over a
  mesh with no Explicit axes, whose layout a sharding constraint sets instead; an unsplit
  spec is kept, saying that the result is unsharded. The result's type sharding is
  ``type_sharding(param, ndim)``."""
  if sharding is None:
    return None
  if type(sharding) is PartitionSpec:
    sharding = _over_context_mesh(sharding)
  if type(sharding) is not NamedSharding or not sharding.mesh.abstract_mesh.explicit_axes:
    return None
  return NamedSharding(sharding.mesh.abstract_mesh, sharding.spec)


def cotangent_sharding(aval) -> "NamedSharding | None":
  """The ``out_sharding`` a transpose gives the operation computing the cotangent of a
  primal of type ``aval``, as JAX does: the primal's type sharding, or, for an unsharded
  primal, an unsplit one over the context mesh (None outside one)."""
  if aval._sharding is not None:
    return aval._sharding
  mesh = get_abstract_mesh()
  if mesh.empty:
    return None
  return NamedSharding(mesh, PartitionSpec(*[None] * aval.ndim))


def replicated_type_sharding(ndim: int) -> NamedSharding:
  """The sharding in the type of an array that is not split (``jax.typeof(x).sharding``)."""
  return NamedSharding(_NO_MESH, PartitionSpec(*([None] * ndim)))


class Tiling:
  """An array's layout as XLA's HLO sharding describes it: ``dims[d]`` tiles along
  dimension d, each tile held by ``replicas`` devices; ``devices`` lists them tile by tile
  (row-major), the replicas of a tile together."""
  __slots__ = ("dims", "devices", "replicas")

  def __init__(self, dims, devices, replicas: int = 1) -> None:
    self.dims, self.devices, self.replicas = tuple(dims), tuple(devices), replicas

  def __eq__(self, other) -> bool:
    return (isinstance(other, Tiling) and (self.dims, self.replicas) == (other.dims,
                                                                         other.replicas)
            and all(a == b for a, b in zip(self.devices, other.devices)))

  @property
  def is_replicated(self) -> bool:
    return all(d == 1 for d in self.dims)

  def indices(self, shape) -> dict:
    """Each device's index (a tuple of slices) into an array of ``shape``."""
    grid = np.empty(len(self.devices), dtype=object)
    grid[:] = self.devices
    grid = grid.reshape(self.dims + (self.replicas,))
    out = {}
    for pos in np.ndindex(grid.shape):
      index = tuple(slice(None) if f == 1 else slice(i * (n // f), (i + 1) * (n // f))
                    for i, n, f in zip(pos, shape, self.dims))
      out[grid[pos]] = index
    return out

  def hlo_text(self, logical: dict) -> str:
    """XLA's HLO sharding text, devices named by their place ``logical[d]`` in the
    program's device assignment."""
    if self.is_replicated:
      return "{replicated}"
    ids = ",".join(str(logical[d]) for d in self.devices)
    if self.replicas > 1:
      dims = ",".join(map(str, self.dims + (self.replicas,)))
      return f"{{devices=[{dims}]{ids} last_tile_dim_replicate}}"
    return f"{{devices=[{','.join(map(str, self.dims))}]{ids}}}"


def partial_manual_hlo_text(mesh, manual_axes, parts, logical: dict) -> str:
  """XLA's HLO sharding text of a value inside a region of ``mesh`` manual over
  ``manual_axes`` only (GSPMD's partial-manual subgroups): ``parts[d]`` the other axes
  splitting dimension d, then one manual tile per device group of the manual axes, the
  devices of the remaining axes replicating each tile."""
  used = [a for p in parts for a in spec_axes(p)]
  rest = [a for a in mesh.axis_names if a not in used and a not in manual_axes]
  sizes = mesh.shape
  order = [mesh.axis_names.index(a) for a in (*used, *manual_axes, *rest)]
  ids = ",".join(str(logical[d]) for d in np.transpose(mesh.devices, order).reshape(-1))
  dims = [math.prod(sizes[a] for a in spec_axes(p)) for p in parts]
  dims.append(math.prod(sizes[a] for a in manual_axes))
  replicas = math.prod(sizes[a] for a in rest)
  kinds = "manual"
  if replicas > 1:
    dims.append(replicas)
    kinds = "manual, replicated"
  return f"{{devices=[{','.join(map(str, dims))}]{ids} last_tile_dims={{{kinds}}}}}"


class TiledSharding(TilingSharding):
  """A layout over several devices that no mesh spec describes (from XLA's propagation)."""

  def __init__(self, tiling: Tiling) -> None:
    self._tiling = tiling

  @property
  def device_set(self) -> set:
    return set(self._tiling.devices)

  @property
  def is_fully_replicated(self) -> bool:
    return self._tiling.is_replicated

  def tiling(self, ndim: int) -> Tiling:
    return self._tiling

  def with_memory_kind(self, kind: str) -> "TiledSharding":
    checked_memory_kind(kind, self._tiling.devices[0])
    return self

  def __eq__(self, other) -> bool:
    return isinstance(other, TiledSharding) and other._tiling == self._tiling

  def __hash__(self) -> int:
    return hash((self._tiling.dims, self._tiling.replicas))

  def __repr__(self) -> str:
    return (f"TiledSharding(tiles={list(self._tiling.dims)}, replicas="
            f"{self._tiling.replicas}, devices={[d.id for d in self._tiling.devices]})")


def sharding_from_tiling(tiling: Tiling, mesh, ndim: int) -> Sharding:
  """The NamedSharding over ``mesh`` with this tiling (trailing Nones dropped from the
  spec), else a TiledSharding."""
  axes = [a for a, n in zip(mesh.axis_names, mesh.axis_sizes) if n > 1]
  for choice in itertools.product(range(ndim + 1), repeat=len(axes)):
    parts = [tuple(a for a, c in zip(axes, choice) if c == d) for d in range(ndim)]
    while parts and not parts[-1]:
      parts.pop()
    spec = PartitionSpec(*(None if not p else p[0] if len(p) == 1 else p for p in parts))
    candidate = NamedSharding(mesh, spec)
    if tiling.is_replicated and candidate.is_fully_replicated or (
        candidate.tiling(ndim) == tiling):
      return candidate
  return TiledSharding(tiling)
