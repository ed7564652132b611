"""Mutable array references: their abstract value (``AbstractRef``), their eager value
(``Ref``) and the effect of the primitives that use them."""
from __future__ import annotations

from xjax._src.core.avals import ShapedArray, tangent_aval
from xjax._src.core.effects import Effect, control_flow_allowed_effects
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval, pytype_aval_mappings
from xjax._src.primitives.state.indexing import parse, read_aval


class RefEffect(Effect):
  """Creating, reading or writing a mutable ref: never dropped as dead code."""
  __slots__ = ()


ref_effect = RefEffect("Ref")
control_flow_allowed_effects.add_type(RefEffect)


class AbstractRef:
  """The type of a mutable reference to an array of type ``inner_aval`` (printed
  ``Ref{f32[3]}``).  Indexing a ref or a tracer of this type reads and writes it."""
  __slots__ = ("inner_aval", "memory_space", "kind", "_hash")

  def __init__(self, inner_aval: ShapedArray, memory_space=None, kind=None) -> None:
    self.inner_aval = inner_aval
    self.memory_space = memory_space
    self.kind = kind
    self._hash = hash((AbstractRef, inner_aval, memory_space, kind))

  shape = property(lambda self: self.inner_aval.shape)
  dtype = property(lambda self: self.inner_aval.dtype)
  weak_type = property(lambda self: self.inner_aval.weak_type)
  _sharding = property(lambda self: self.inner_aval._sharding)  # (its values' type sharding)
  ndim = property(lambda self: self.inner_aval.ndim)
  size = property(lambda self: self.inner_aval.size)
  sharding = property(lambda self: self.inner_aval.sharding)

  def update(self, inner_aval=None, memory_space=None, kind=None, **inner) -> "AbstractRef":
    """A ref type with the given parts replaced; ``shape``/``dtype``/``weak_type`` update
    the inner type (batching drops a dimension so)."""
    inner_aval = self.inner_aval if inner_aval is None else inner_aval
    return AbstractRef(inner_aval.update(**inner) if inner else inner_aval,
                       self.memory_space if memory_space is None else memory_space,
                       self.kind if kind is None else kind)

  def to_tangent_aval(self) -> "AbstractRef":
    return AbstractRef(tangent_aval(self.inner_aval), self.memory_space, self.kind)

  def __eq__(self, other) -> bool:
    return (type(other) is AbstractRef and self.inner_aval == other.inner_aval
            and self.memory_space == other.memory_space and self.kind == other.kind)

  def __hash__(self) -> int:
    return self._hash

  def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
    return f"Ref{{{self.inner_aval.str_short(short_dtypes)}}}"

  def __repr__(self) -> str:
    return self.str_short(short_dtypes=False)

  __str__ = __repr__

  # Indexing a traced ref (``Tracer.__getitem__``/``__setitem__`` ask the aval); installed
  # by primitives.py with the primitives they bind.
  _getitem = _setitem = _addupdate = None

  def _at(self, ref) -> "RefAt":
    return RefAt(ref)

  def _len(self, ref) -> int:
    if not self.shape:
      raise TypeError("len() of unsized object")
    return self.shape[0]


class _RefMeta(type):
  def __instancecheck__(cls, instance) -> bool:
    return type.__instancecheck__(cls, instance) or (
        isinstance(instance, Tracer) and type(instance.aval) is AbstractRef)


class Ref(metaclass=_RefMeta):
  """A mutable array reference (``jax.Ref``), made by ``new_ref``.  ``ref[idx]`` reads it,
  ``ref[idx] = x`` writes it; ``isinstance(x, Ref)`` holds for traced refs too."""
  __slots__ = ("_aval", "_buf", "__weakref__")

  def __init__(self, aval: AbstractRef, buf) -> None:
    self._aval = aval
    self._buf = buf   # the current value: an Array, replaced by every write

  aval = property(lambda self: self._aval)
  shape = property(lambda self: self._aval.shape)
  dtype = property(lambda self: self._aval.dtype)
  ndim = property(lambda self: self._aval.ndim)
  size = property(lambda self: self._aval.size)
  sharding = property(lambda self: self._buf.sharding)
  format = property(lambda self: self._buf.format, doc="Its value's layout and sharding.")
  committed = property(lambda self: True)

  def __len__(self) -> int:
    return self._aval._len(self)

  def __repr__(self) -> str:
    return "Ref" + repr(self._buf)[len("Array"):]

  def __getitem__(self, idx):
    return self._aval._getitem(self, idx)

  def __setitem__(self, idx, value) -> None:
    self._aval._setitem(self, idx, value)

  def addupdate(self, x, idx=()) -> None:
    """Adds ``x`` to ``self[idx]`` in place."""
    self._aval._addupdate(self, idx, x)

  def unsafe_buffer_pointer(self) -> int:
    """The address of the buffer holding the ref's current value."""
    return self._buf.unsafe_buffer_pointer()

  @property
  def at(self):
    raise NotImplementedError("Ref.at is not implemented (as in JAX); index the ref "
                              "directly: ref[idx] = value, or ref.addupdate(x, idx).")


pytype_aval_mappings[Ref] = lambda r: r._aval


class RefAt:
  """``ref.at`` of a traced ref: ``ref.at[idx]`` is a ``RefView``."""
  __slots__ = ("ref",)

  def __init__(self, ref) -> None:
    self.ref = ref

  def __getitem__(self, idx) -> "RefView":
    return RefView(self.ref, idx)


class RefView:
  """A traced ref seen through an index (``ref.at[idx]``, JAX's TransformedRef):
  ``view[...]`` reads and ``view[...] = x`` writes the ref at ``idx``; Pallas's ``load``
  and ``store`` take one.  Indexing a view by more than ``...`` is not supported."""
  __slots__ = ("ref", "idx")

  def __init__(self, ref, idx) -> None:
    self.ref, self.idx = ref, idx

  def _whole(self, idx):
    if idx is Ellipsis or (isinstance(idx, tuple) and not idx):
      return self.idx
    raise NotImplementedError("indexing a ref view (ref.at[...]) further is not supported; "
                              "index the ref once with the whole index.")

  def __getitem__(self, idx):
    return self.ref[self._whole(idx)]

  def __setitem__(self, idx, value) -> None:
    self.ref[self._whole(idx)] = value

  @property
  def aval(self) -> ShapedArray:
    indexer, dyn = parse(self.idx, self.ref.aval.shape)
    return read_aval(self.ref.aval.inner_aval, indexer,
                     tuple(get_aval(d) for d in dyn))

  shape = property(lambda self: self.aval.shape)
  dtype = property(lambda self: self.aval.dtype)
  ndim = property(lambda self: self.aval.ndim)


def is_ref_aval(aval) -> bool:
  return type(aval) is AbstractRef
