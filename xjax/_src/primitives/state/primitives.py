"""The state primitives, each with its rules: making a mutable ref (``new_ref``,
``empty_ref``), reading it (``get``), writing it (``swap``, ``addupdate``) and ending it
(``freeze``, ``free_ref``).

Eagerly they act on a ``Ref``'s buffer.  Staged (jit, make_jaxpr) they are equations on
ref-typed variables, which ``discharge.py`` turns into ordinary array operations before the
program is compiled (their lowering rule only reports a ref that was not discharged).  Under
differentiation the tangent of a ref is a ``TangentRef``: a cell holding the tangent's value,
updated by ordinary (linear) operations, so reverse mode transposes no state.  Under vmap
the rules read and write whole refs and index the batched values.
"""
from __future__ import annotations

from xjax._src.foundations import dtypes
from xjax._src.execution.array import Array as ArrayImpl, make_array
from xjax._src.core.avals import ShapedArray, tangent_aval
from xjax._src.core.trace import Primitive, Tracer
from xjax._src.core.values import get_aval
from xjax._src.interpreters import array_builders as build, batching
from xjax._src.interpreters.ad import Zero, instantiate, zeros_of
from xjax._src.primitives.state.indexing import WHOLE, Indexer, parse, read, read_aval, updated
from xjax._src.primitives.state.types import AbstractRef, Ref, ref_effect


class TangentRef:
  """The tangent of a ref under differentiation: its current tangent value (an Array or a
  tracer, never a host value, so it can be indexed and updated)."""
  __slots__ = ("_value",)

  def __init__(self, value) -> None:
    self.value = value

  @property
  def value(self):
    return self._value

  @value.setter
  def value(self, x) -> None:
    self._value = x if isinstance(x, (ArrayImpl, Tracer)) else make_array(x)


def _tangent_ref(t, ref) -> TangentRef | None:
  """The ref's TangentRef, or None when it has none (a ref from outside the differentiated
  function); a ValueError when the ref itself is being differentiated."""
  if type(t) is TangentRef:
    return t
  if type(t) is Zero:
    return None
  raise ValueError(
      f"Differentiating with respect to a mutable array reference of type {get_aval(ref)} is "
      "not supported (JAX 0.10 fails on it too): differentiate with respect to its value "
      "(ref[...]) instead, or create the ref inside the differentiated function.")


def _ref_type(aval, where: str) -> AbstractRef:
  """``aval`` when it is a ref's type; else a TypeError naming ``where``."""
  if type(aval) is not AbstractRef:
    raise TypeError(f"{where} expects a mutable array reference (made by jax.new_ref), got a "
                    f"value of type {aval}.")
  return aval


def _ref_aval(x, where: str) -> AbstractRef:
  return _ref_type(get_aval(x), where)


def _stored(x, aval: ShapedArray):
  """``x`` as an Array of ``aval``'s dtype and weak type (a ref's buffer)."""
  if isinstance(x, ArrayImpl):
    return x if x.aval == aval else build.convert_element_type(x, aval.dtype, aval.weak_type)
  return make_array(x, dtype=aval.dtype, weak_type=aval.weak_type)


def undischarged_error() -> NotImplementedError:
  return NotImplementedError(
      "A mutable array reference (jax.Ref) from outside reached a computation xjax cannot "
      "turn into array operations: refs may be given to jit-compiled functions and used by "
      "control-flow, checkpoint and custom_jvp/custom_vjp bodies (their values are "
      "carried), but not passed into other higher-order primitives (shard_map, "
      "custom_vmap, linear_call, ...). Read the ref outside (ref[...]) and pass the value "
      "in instead.")


def _not_discharged(ctx, *args, **params):
  raise undischarged_error()


def _state_primitive(name: str, multiple_results: bool = False) -> Primitive:
  prim = Primitive(name, multiple_results)
  prim.effects = lambda **_: (ref_effect,)
  prim.lowering = _not_discharged
  return prim


def _binder(v, names) -> str:
  return f"{names(v)}:{v.aval.str_short(short_dtypes=True)}"


def _place(eqn, names, n_before: int) -> str:
  """``a[1,:]``: the ref operand indexed as the equation's indexer says."""
  ref, dyn = eqn.invars[0], eqn.invars[n_before:]
  where = eqn.params["indexer"].pretty(ref.aval.shape, [names(d) for d in dyn])
  return f"{names(ref)}[{where}]"


# ---------------------------------------------------------------------------------------
# new_ref: a ref holding a value

def new_ref(init_val, *, memory_space=None, kind=None):
  """A mutable array reference (``jax.Ref``) holding ``init_val``."""
  return new_ref_p.bind(init_val, memory_space=memory_space, kind=kind)


def _new_ref_jvp(primals, tangents, *, memory_space, kind):
  (x,), (t,) = primals, tangents
  ref = new_ref_p.bind(x, memory_space=memory_space, kind=kind)
  if type(t) is Zero and t.aval.dtype == dtypes.float0:
    return ref, t
  return ref, TangentRef(instantiate(t))


new_ref_p = _state_primitive("new_ref")
new_ref_p.ref_allocating = True
new_ref_p.abstract_eval = lambda x, *, memory_space, kind: AbstractRef(x, memory_space, kind)
new_ref_p.impl = lambda x, *, memory_space, kind: Ref(
    AbstractRef(get_aval(x), memory_space, kind), _stored(x, get_aval(x)))
new_ref_p.jvp = _new_ref_jvp


def _new_ref_batch(axis, args, dims, **params):
  # A ref made in a vmapped function is batched even from an unbatched value, as in JAX,
  # so batched values can be written to it.
  x = args[0] if dims[0] is not None else batching.matchaxis(args[0], None, 0, axis.size)
  return new_ref_p.bind(x, **params), (0 if dims[0] is None else dims[0])


new_ref_p.batch = _new_ref_batch
new_ref_p.discharge = lambda x, **_: x


# ---------------------------------------------------------------------------------------
# empty_ref: a ref of a type, with no meaningful value yet

def empty_ref(ty, memory_space=None):
  """A mutable array reference of type ``ty`` (a ShapeDtypeStruct or an array's type)
  whose contents are to be written before they are read."""
  weak = getattr(ty, "weak_type", False)
  aval = ShapedArray(tuple(ty.shape), dtypes.canonicalize_dtype(ty.dtype), weak)
  return empty_ref_p.bind(ty=aval, memory_space=memory_space)


def _empty_ref_jvp(primals, tangents, *, ty, memory_space):
  ref = empty_ref_p.bind(ty=ty, memory_space=memory_space)
  return ref, TangentRef(zeros_of(tangent_aval(ty)))


empty_ref_p = _state_primitive("empty_ref")
empty_ref_p.ref_allocating = True
empty_ref_p.abstract_eval = lambda *, ty, memory_space: AbstractRef(ty, memory_space)
empty_ref_p.impl = lambda *, ty, memory_space: Ref(AbstractRef(ty, memory_space), zeros_of(ty))
empty_ref_p.jvp = _empty_ref_jvp
empty_ref_p.batch = lambda axis, args, dims, *, ty, memory_space: (empty_ref_p.bind(
    ty=ty.update(shape=(axis.size, *ty.shape)), memory_space=memory_space), 0)
empty_ref_p.discharge = lambda *, ty, memory_space: zeros_of(ty)


# ---------------------------------------------------------------------------------------
# get: ref[idx]

def ref_get(ref, idx=()):
  """``ref[idx]``: the value at ``idx`` (the whole ref for ``()`` or ``...``)."""
  indexer, dyn = parse(idx, _ref_aval(ref, "ref_get").shape)
  return get_p.bind(ref, *dyn, indexer=indexer)


def _get_abstract_eval(ref, *dyn, indexer: Indexer):
  return read_aval(_ref_type(ref, "get").inner_aval, indexer, dyn)


def _get_impl(ref, *dyn, indexer):
  _get_abstract_eval(_ref_aval(ref, "get"), *map(get_aval, dyn), indexer=indexer)
  return read(ref._buf, indexer, dyn)


def _get_jvp(primals, tangents, *, indexer):
  ref, *dyn = primals
  out = get_p.bind(ref, *dyn, indexer=indexer)
  t = _tangent_ref(tangents[0], ref)
  if t is None:
    return out, Zero(tangent_aval(get_aval(out)))
  return out, read(t.value, indexer, dyn)


def _get_batch(axis, args, dims, *, indexer):
  ref, *dyn = args
  whole = get_p.bind(ref, indexer=WHOLE)
  outs, out_dims = batching.batch_flat(lambda x, *d: [read(x, indexer, d)],
                                       [whole, *dyn], dims, axis)
  return outs[0], out_dims[0]


get_p = _state_primitive("get")
get_p.abstract_eval = _get_abstract_eval
get_p.impl = _get_impl
get_p.jvp = _get_jvp
get_p.batch = _get_batch
get_p.discharge = lambda value, *dyn, indexer: (value, read(value, indexer, dyn))
get_p.pp_eqn = lambda eqn, names: (
    f"{_binder(eqn.outvars[0], names)} <- {_place(eqn, names, 1)}")


# ---------------------------------------------------------------------------------------
# swap: ref[idx] = x, returning the value it replaces

def ref_swap(ref, idx, value):
  """Stores ``value`` at ``ref[idx]``; returns the value that was there."""
  indexer, dyn = parse(idx, _ref_aval(ref, "ref_swap").shape)
  return swap_p.bind(ref, value, *dyn, indexer=indexer)


def ref_set(ref, idx, value) -> None:
  """``ref[idx] = value``."""
  ref_swap(ref, idx, value)


def _check_value(name: str, ref, value, dyn, indexer: Indexer) -> ShapedArray:
  """The type of ``ref[index]``, which ``value`` (written there) must have."""
  expected = read_aval(_ref_type(ref, name).inner_aval, indexer, dyn)
  if value.shape != expected.shape:
    raise ValueError(f"Invalid shape for `{name}`. Ref shape: {ref.shape}. Expected shape: "
                     f"{expected.shape}. Value shape: {value.shape}. Index: "
                     f"[{indexer.pretty(ref.shape, ['_'] * len(dyn))}]. ")
  if value.dtype != expected.dtype:
    raise ValueError(f"Invalid dtype for `{name}`. Ref dtype: {ref.dtype}. Value dtype: "
                     f"{value.dtype}. ")
  return expected


def _swap_impl(ref, value, *dyn, indexer):
  _check_value("swap", _ref_aval(ref, "swap"), get_aval(value), tuple(map(get_aval, dyn)),
               indexer)
  old = read(ref._buf, indexer, dyn)
  ref._buf = _stored(updated(ref._buf, indexer, dyn, value, False), ref._aval.inner_aval)
  return old


def _untracked_write(ref_aval):
  return ValueError(
      "Exception performing a set/swap operation with a differentiated value on a "
      f"non-differentiated array reference of type {ref_aval}. Move the array reference to "
      "be an argument of the differentiated function?")


def _swap_jvp(primals, tangents, *, indexer):
  ref, value, *dyn = primals
  ref_t, value_t = _tangent_ref(tangents[0], ref), tangents[1]
  old = swap_p.bind(ref, value, *dyn, indexer=indexer)
  if ref_t is not None:
    old_t = read(ref_t.value, indexer, dyn)
    ref_t.value = updated(ref_t.value, indexer, dyn, instantiate(value_t), False)
    return old, old_t
  if type(value_t) is not Zero:
    raise _untracked_write(get_aval(ref))
  return old, Zero(tangent_aval(get_aval(old)))


def _unbatched_write(ref):
  return ValueError(
      "Exception performing a set/swap operation with vmapped value on an unbatched array "
      f"reference of type {get_aval(ref)}. Move the array reference to be an argument to "
      "the vmapped function?")


def _write_batched(axis, args, dims, indexer, accumulate: bool):
  """Writes (or adds) a batched value into a ref through its whole value; returns the
  batched old value at the index and its batch dimension."""
  ref, value, *dyn = args
  ref_dim = dims[0]
  if ref_dim is None:
    raise _unbatched_write(ref)
  whole = get_p.bind(ref, indexer=WHOLE)
  (new, old), (new_dim, old_dim) = batching.batch_flat(
      lambda x, v, *d: [updated(x, indexer, d, v, accumulate), read(x, indexer, d)],
      [whole, value, *dyn], dims, axis)
  swap_p.bind(ref, batching.matchaxis(new, new_dim, ref_dim, axis.size), indexer=WHOLE)
  return old, old_dim


swap_p = _state_primitive("swap")
swap_p.abstract_eval = lambda ref, value, *dyn, indexer: _check_value(
    "swap", ref, value, dyn, indexer)
swap_p.impl = _swap_impl
swap_p.jvp = _swap_jvp
swap_p.batch = lambda axis, args, dims, *, indexer: _write_batched(
    axis, args, dims, indexer, False)
swap_p.discharge = lambda value, x, *dyn, indexer: (
    updated(value, indexer, dyn, x, False), read(value, indexer, dyn))


def _pp_swap(eqn, names) -> str:
  place, value = _place(eqn, names, 2), names(eqn.invars[1])
  out = eqn.outvars[0]
  if names(out) == "_":   # a result nothing reads: a store
    return f"{place} <- {value}"
  return f"{_binder(out, names)}, {place} <- {place}, {value}"


swap_p.pp_eqn = _pp_swap


# ---------------------------------------------------------------------------------------
# addupdate: ref[idx] += x

def ref_addupdate(ref, idx, x) -> None:
  """Adds ``x`` to ``ref[idx]`` in place."""
  indexer, dyn = parse(idx, _ref_aval(ref, "ref_addupdate").shape)
  addupdate_p.bind(ref, x, *dyn, indexer=indexer)


def _addupdate_impl(ref, x, *dyn, indexer):
  _check_value("addupdate", _ref_aval(ref, "addupdate"), get_aval(x),
               tuple(map(get_aval, dyn)), indexer)
  ref._buf = _stored(updated(ref._buf, indexer, dyn, x, True), ref._aval.inner_aval)
  return []


def _addupdate_jvp(primals, tangents, *, indexer):
  ref, x, *dyn = primals
  ref_t, x_t = _tangent_ref(tangents[0], ref), tangents[1]
  addupdate_p.bind(ref, x, *dyn, indexer=indexer)
  if ref_t is not None:
    if type(x_t) is not Zero:
      ref_t.value = updated(ref_t.value, indexer, dyn, x_t, True)
  elif type(x_t) is not Zero:
    raise _untracked_write(get_aval(ref))
  return [], []


def _addupdate_batch(axis, args, dims, *, indexer):
  _write_batched(axis, args, dims, indexer, True)
  return [], []


addupdate_p = _state_primitive("addupdate", multiple_results=True)


def _addupdate_abstract_eval(ref, x, *dyn, indexer):
  _check_value("addupdate", ref, x, dyn, indexer)
  return []


addupdate_p.abstract_eval = _addupdate_abstract_eval
addupdate_p.impl = _addupdate_impl
addupdate_p.jvp = _addupdate_jvp
addupdate_p.batch = _addupdate_batch
addupdate_p.discharge = lambda value, x, *dyn, indexer: (
    updated(value, indexer, dyn, x, True), [])
addupdate_p.pp_eqn = lambda eqn, names: (
    f"{_place(eqn, names, 2)} += {names(eqn.invars[1])}")


# ---------------------------------------------------------------------------------------
# freeze: the final value of a ref; free_ref: the end of a ref

def freeze(ref):
  """The value of ``ref``, which is not used afterwards (``jax.freeze``)."""
  return freeze_p.bind(ref)


def _freeze_jvp(primals, tangents):
  out = freeze_p.bind(primals[0])
  t = _tangent_ref(tangents[0], primals[0])
  return out, (Zero(tangent_aval(get_aval(out))) if t is None else t.value)


def _freeze_impl(ref):
  _ref_aval(ref, "freeze")
  return ref._buf


freeze_p = _state_primitive("freeze")
freeze_p.abstract_eval = lambda ref: _ref_type(ref, "freeze").inner_aval
freeze_p.impl = _freeze_impl
freeze_p.jvp = _freeze_jvp
freeze_p.batch = lambda axis, args, dims: (freeze_p.bind(*args), dims[0])
freeze_p.discharge = lambda value: (value, value)


def free_ref(ref) -> tuple:
  """Ends ``ref``'s use (``jax.free_ref``)."""
  free_ref_p.bind(ref)
  return ()


free_ref_p = _state_primitive("free_ref", multiple_results=True)


def _free_ref_abstract_eval(ref):
  _ref_type(ref, "free_ref")
  return []


free_ref_p.abstract_eval = _free_ref_abstract_eval
free_ref_p.impl = lambda ref: _free_ref_abstract_eval(_ref_aval(ref, "free_ref"))
free_ref_p.jvp = lambda primals, tangents: (free_ref_p.bind(primals[0]), [])
free_ref_p.batch = lambda axis, args, dims: (free_ref_p.bind(*args), [])
free_ref_p.discharge = lambda value: (value, [])


# ---------------------------------------------------------------------------------------
# Indexing a ref (eager ``Ref`` objects, and tracers whose type is ``AbstractRef``)

def ref_getitem(aval, ref, idx):
  """``ref[idx]`` of a traced ref (``AbstractRef._getitem``, installed by ``_src/wiring.py``)."""
  return ref_get(ref, idx)


def ref_setitem(aval, ref, idx, value) -> None:
  """``ref[idx] = value`` of a traced ref (``AbstractRef._setitem``)."""
  ref_set(ref, idx, value)


def ref_addupdate_item(aval, ref, idx, x) -> None:
  """``ref.at[idx].add(x)``'s update of a traced ref (``AbstractRef._addupdate``)."""
  ref_addupdate(ref, idx, x)
