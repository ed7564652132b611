"""Bytes for an ``Exported`` and back, in JAX's own format: the FlatBuffers schema of JAX
0.10.2's ``jax.export`` (serialization versions up to 11), so each reads the other's
bytes. The program is stored as a StableHLO portable artifact; pytrees as nested nodes
(tuple, list, dict with string keys, None, and registered custom nodes by their
``serialized_name`` with auxiliary data as bytes); avals as dtype codes and dimension
strings (symbolic ones as JAX prints them); a VJP as a nested ``Exported``."""
from __future__ import annotations

import collections
import json
import struct
from typing import Any, Callable

import ml_dtypes
import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.core.avals import MemorySpace, ShapedArray
from xjax._src.api.export.exported import DisabledSafetyCheck, Exported
from xjax._src.api.export.flatbuffer import Table, Writer
from xjax._src.api.export.shape_poly import SymbolicScope, parse_dim

# The version this writes: JAX 0.10.2 writes 3 (older readers accept only 2 and 3); the
# schema is the one of version 11, which reads every version from 1.
_WRITTEN_VERSION = 3
_SUPPORTED_VERSIONS = range(1, 12)

# Field slots of the schema's tables, in its order.
_TREE_KIND, _TREE_CHILDREN, _TREE_NAMES, _TREE_CUSTOM_NAME, _TREE_AUX = range(5)
_LEAF, _NONE, _TUPLE, _LIST, _DICT, _CUSTOM = range(6)
_AVAL_KIND, _AVAL_SHAPE, _AVAL_DTYPE, _AVAL_MEMORY = range(4)
_SHARDING_KIND, _SHARDING_HLO, _SHARDING_NAMED = range(3)
_CHECK_KIND, _CHECK_TARGET = range(2)
_PLATFORM_CHECK, _CUSTOM_CALL_CHECK, _SHAPE_ASSERTIONS_CHECK = range(3)
(_VERSION, _NAME, _IN_TREE, _IN_AVALS, _OUT_TREE, _OUT_AVALS, _NR_DEVICES_SHORT,
 _IN_SHARDINGS, _OUT_SHARDINGS, _PLATFORMS, _ORDERED_EFFECTS, _UNORDERED_EFFECTS,
 _DISABLED_CHECKS, _MODULE, _CALLING_CONVENTION, _KEPT_VAR_IDX, _GLOBAL_CONSTANTS, _VJP,
 _NR_DEVICES, _UNIQUE_AVALS, _UNIQUE_MESHES, _UNIQUE_SHARDINGS, _IN_AVAL_IDXS,
 _OUT_AVAL_IDXS, _IN_SHARDING_IDXS, _OUT_SHARDING_IDXS) = range(26)
_EXPORTED_SLOTS = 26

# DType codes of the schema, in order (None: the PRNG key types, which xjax does not read).
_DTYPE_CODES = [np.dtype(t) for t in (
    bool, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, ml_dtypes.bfloat16,
    ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.float8_e4m3b11fnuz, ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz,
    dtypes.float0, ml_dtypes.float8_e4m3, ml_dtypes.float8_e3m4, ml_dtypes.float8_e8m0fnu,
    ml_dtypes.float4_e2m1fn)]
_CODE_OF_DTYPE = {d: i for i, d in enumerate(_DTYPE_CODES)}
_MEMORY_SPACES = {0: MemorySpace.Device, 1: MemorySpace.Device, 2: MemorySpace.Host,
                  3: MemorySpace.Any}
_CODE_OF_MEMORY = {MemorySpace.Device: 1, MemorySpace.Host: 2, MemorySpace.Any: 3}

# serialized_name -> (type, serialize_auxdata, deserialize_auxdata, from_children)
_by_name: dict[str, tuple] = {}
_by_type: dict[type, str] = {}


def _register(nodetype, name: str, entry: tuple) -> None:
  if nodetype in _by_type:
    raise ValueError(f"Duplicate serialization registration for type `{nodetype}`. Previous "
                     f"registration was with serialized_name `{_by_type[nodetype]}`.")
  if name in _by_name:
    raise ValueError(f"Duplicate serialization registration for serialized_name `{name}`. "
                     f"Previous registration was for type `{_by_name[name][0]}`.")
  _by_type[nodetype] = name
  _by_name[name] = (nodetype,) + entry


def register_namedtuple_serialization(nodetype, *, serialized_name: str):
  """Lets pytrees holding ``nodetype`` (a namedtuple class) be serialized: its field names
  as JSON, the node rebuilt by field name (as JAX stores them)."""
  if not (isinstance(nodetype, type) and issubclass(nodetype, tuple)
          and hasattr(nodetype, "_fields")):
    raise ValueError("Use `jax.export.register_pytree_node_serialization` for types other "
                     "than `collections.namedtuple`.")
  return register_pytree_node_serialization(
      nodetype, serialized_name=serialized_name,
      serialize_auxdata=lambda _: json.dumps(nodetype._fields).encode("utf-8"),
      deserialize_auxdata=lambda b: json.loads(b.decode("utf-8")),
      from_children=lambda fields, children: nodetype(**dict(zip(fields, children))))


def register_pytree_node_serialization(nodetype, *, serialized_name: str,
                                       serialize_auxdata: Callable[[Any], bytes],
                                       deserialize_auxdata: Callable[[bytes], Any],
                                       from_children: Callable | None = None):
  """Lets pytrees holding ``nodetype`` be serialized: its aux data as the bytes
  ``serialize_auxdata`` gives; rebuilt with ``from_children(aux, children)`` (default: the
  node's registered unflatten)."""
  if from_children is None:
    if not tree_util.is_tree_node(nodetype):
      raise ValueError("If `from_children` is not present, you must call first"
                       f"`jax.tree_util.register_pytree_node` for `{nodetype}`")
    from_children = lambda aux, children: tree_util._node_of(nodetype).unflatten(
        aux, list(children))
  _register(nodetype, serialized_name, (serialize_auxdata, deserialize_auxdata,
                                        from_children))
  return nodetype


def _ordered_dict_keys(keys) -> bytes:
  if all(isinstance(k, str) for k in keys):
    return json.dumps(list(keys)).encode("utf-8")
  raise NotImplementedError("Serialization of collections.OrderedDict is supported only when "
                            f"the keys are strings. Found keys: {keys}.")


register_pytree_node_serialization(  # as JAX registers it
    collections.OrderedDict, serialized_name="collections.OrderedDict",
    serialize_auxdata=_ordered_dict_keys,
    deserialize_auxdata=lambda b: json.loads(b.decode("utf-8")),
    from_children=lambda keys, children: collections.OrderedDict(zip(keys, children)))


_UNREGISTERED = ("Use `export.register_pytree_node_serialization` or "
                 "`export.register_namedtuple_serialization`.")


# ---------------------------------------------------------------------------------------
# Writing

def _write_tree(w: Writer, treedef) -> int:
  data = treedef.node_data()
  kids = treedef.children()
  refs = {_TREE_CHILDREN: w.each(lambda c: _write_tree(w, c), kids) if kids else None}
  typ = data and data[0]
  if data is None:
    kind = _LEAF
  elif typ is type(None):
    kind = _NONE
  elif typ in (tuple, list):
    kind = _TUPLE if typ is tuple else _LIST
  elif typ is dict:
    kind = _DICT
    for k in data[1]:
      if not isinstance(k, str):
        raise TypeError("Serialization is supported only for dictionaries with string keys."
                        f" Found key {k} of type {type(k)}.")
    refs[_TREE_NAMES] = w.each(w.string, data[1])
  elif typ in _by_type:
    kind = _CUSTOM
    name = _by_type[typ]
    aux = _by_name[name][1](data[1])
    if not isinstance(aux, (bytes, bytearray)):
      raise ValueError("The custom serialization function for `node_type` must return a "
                       f"`bytes` object. It returned a {type(aux)}.")
    refs[_TREE_CUSTOM_NAME] = w.string(name)
    refs[_TREE_AUX] = w.byte_vector(aux)
  else:
    raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type `{typ}`. "
                     + _UNREGISTERED)
  return w.table(5, {_TREE_KIND: ("b", kind)}, refs)


def _write_aval(w: Writer, a: ShapedArray) -> int:
  code = _CODE_OF_DTYPE.get(a.dtype) if not dtypes.is_extended(a.dtype) else None
  if code is None:
    raise ValueError(f"Cannot serialize an Exported with an argument or result of dtype "
                     f"{a.dtype}: xjax serializes numeric dtypes only.")
  shape = w.each(w.string, [str(d) for d in a.shape])
  return w.table(4, {_AVAL_KIND: ("b", 0), _AVAL_DTYPE: ("b", code),
                     _AVAL_MEMORY: ("b", _CODE_OF_MEMORY[a.memory_space])},
                 {_AVAL_SHAPE: shape})


def _write_check(w: Writer, check: DisabledSafetyCheck) -> int:
  target = check.is_custom_call()
  if target is not None:
    return w.table(2, {_CHECK_KIND: ("b", _CUSTOM_CALL_CHECK)},
                   {_CHECK_TARGET: w.string(target)})
  return w.table(2, {_CHECK_KIND: ("b", _PLATFORM_CHECK)})


def _write_exported(w: Writer, exp: Exported, vjp_order: int) -> int:
  if any(s is not None for s in exp.in_shardings_hlo + exp.out_shardings_hlo):
    raise NotImplementedError("xjax serializes Exported functions without shardings only.")
  if exp.ordered_effects or exp.unordered_effects:
    raise NotImplementedError("xjax serializes Exported functions without effects only.")
  avals = list(dict.fromkeys(exp.in_avals + exp.out_avals))  # unique, in order
  refs = {
      _NAME: w.string(exp.fun_name),
      _IN_TREE: _write_tree(w, exp.in_tree),
      _IN_AVALS: w.each(lambda a: _write_aval(w, a), exp.in_avals),
      _OUT_TREE: _write_tree(w, exp.out_tree),
      _OUT_AVALS: w.each(lambda a: _write_aval(w, a), exp.out_avals),
      _IN_SHARDINGS: w.each(lambda _: w.table(3), exp.in_avals),  # unspecified shardings
      _OUT_SHARDINGS: w.each(lambda _: w.table(3), exp.out_avals),
      _PLATFORMS: w.each(w.string, exp.platforms),
      _ORDERED_EFFECTS: w.offsets([]), _UNORDERED_EFFECTS: w.offsets([]),
      _DISABLED_CHECKS: w.each(lambda c: _write_check(w, c), exp.disabled_safety_checks),
      _MODULE: w.byte_vector(exp.mlir_module_serialized),
      _KEPT_VAR_IDX: w.numbers(exp.module_kept_var_idx, np.uint16),
  }
  if vjp_order > 0:
    if not exp.has_vjp():
      raise ValueError("serialization of an Exported that does not have vjps of "
                       "high-enough order")
    refs[_VJP] = _write_exported(w, exp.vjp(), vjp_order - 1)
  refs[_UNIQUE_AVALS] = w.each(lambda a: _write_aval(w, a), avals)
  refs[_UNIQUE_MESHES] = refs[_UNIQUE_SHARDINGS] = w.offsets([])
  refs[_IN_AVAL_IDXS] = w.numbers([avals.index(a) for a in exp.in_avals], np.uint32)
  refs[_OUT_AVAL_IDXS] = w.numbers([avals.index(a) for a in exp.out_avals], np.uint32)
  refs[_IN_SHARDING_IDXS] = w.numbers([0] * len(exp.in_avals), np.uint32)
  refs[_OUT_SHARDING_IDXS] = w.numbers([0] * len(exp.out_avals), np.uint32)
  return w.table(_EXPORTED_SLOTS, {
      _VERSION: ("H", _WRITTEN_VERSION), _NR_DEVICES: ("I", exp.nr_devices),
      _CALLING_CONVENTION: ("H", exp.calling_convention_version),
      _GLOBAL_CONSTANTS: ("?", exp.uses_global_constants)}, refs)


def serialize(exp: Exported, vjp_order: int = 0) -> bytearray:
  w = Writer()
  return w.finish(_write_exported(w, exp, vjp_order))


# ---------------------------------------------------------------------------------------
# Reading

def _read_tree(t: Table, leaves) -> Any:
  kids = [_read_tree(c, leaves) for c in t.tables(_TREE_CHILDREN)]
  kind = t.scalar(_TREE_KIND, "b")
  if kind == _LEAF:
    return next(leaves)
  if kind in (_NONE, _TUPLE, _LIST):
    return None if kind == _NONE else tuple(kids) if kind == _TUPLE else kids
  if kind == _DICT:
    return dict(zip(t.strings(_TREE_NAMES), kids))
  if kind != _CUSTOM:
    raise ValueError(f"Cannot deserialize PyTreeDef with unknown kind: {kind}")
  name = t.string(_TREE_CUSTOM_NAME)
  if name not in _by_name:
    raise ValueError(f"Cannot deserialize a PyTreeDef containing an unregistered type "
                     f"`{name}`. " + _UNREGISTERED)
  _, _, deserialize_aux, build = _by_name[name]
  return build(deserialize_aux(t.numbers(_TREE_AUX, np.uint8).tobytes()), kids)


def _tree(t: Table, avals) -> tree_util.PyTreeDef:
  """The structure, built from a pytree with ``avals`` as its leaves (as JAX does)."""
  return tree_util.tree_structure(_read_tree(t, iter(avals)))


def _read_aval(t: Table, scope: SymbolicScope) -> ShapedArray:
  if t.scalar(_AVAL_KIND, "b") != 0:
    raise NotImplementedError("deserializing an abstract token value is not supported by xjax")
  code = t.scalar(_AVAL_DTYPE, "b")
  if not 0 <= code < len(_DTYPE_CODES):
    raise NotImplementedError(f"deserializing an aval of dtype code {code} (a PRNG key type "
                              "or one unknown to JAX 0.10.2) is not supported by xjax")
  return ShapedArray(tuple(parse_dim(d, scope) for d in t.strings(_AVAL_SHAPE)), _DTYPE_CODES[code],
                     memory_space=_MEMORY_SPACES[t.scalar(_AVAL_MEMORY, "b")])


def _check_unsharded(t: Table) -> None:
  for s in t.tables(_IN_SHARDINGS) + t.tables(_OUT_SHARDINGS):
    if s.table(_SHARDING_NAMED) is not None or s.numbers(_SHARDING_HLO, np.uint8).size:
      break
  else:
    if not (t.numbers(_IN_SHARDING_IDXS, np.uint32).any()
            or t.numbers(_OUT_SHARDING_IDXS, np.uint32).any()):
      return
  raise NotImplementedError("deserializing an Exported with shardings is not supported by "
                            "xjax (it calls exported functions on one device).")


def _read_effects(t: Table, slot: int) -> tuple:
  names = [e.string(0) for e in t.tables(slot)]
  if names:
    raise NotImplementedError(f"cannot deserialize effect type {names[0]}")
  return ()


def _read_check(t: Table) -> DisabledSafetyCheck:
  kind = t.scalar(_CHECK_KIND, "b")
  if kind == _CUSTOM_CALL_CHECK:
    return DisabledSafetyCheck.custom_call(t.string(_CHECK_TARGET))
  if kind == _PLATFORM_CHECK:
    return DisabledSafetyCheck.platform()
  raise ValueError(f"Cannot deserialize DisabledSafetyCheck with unknown kind: {kind}")


def _read_exported(t: Table) -> Exported:
  version = t.scalar(_VERSION, "H")
  if version not in _SUPPORTED_VERSIONS:
    raise NotImplementedError(f"deserialize unsupported version {version}")
  nr_devices = t.scalar(_NR_DEVICES, "I") or t.scalar(_NR_DEVICES_SHORT, "h")
  if nr_devices != 1:  # over one device, every sharding is that device (JAX's hlo is None)
    _check_unsharded(t)
  scope = SymbolicScope()   # (JAX serializes no constraints: one scope for the export)
  read_aval = lambda a: _read_aval(a, scope)
  unique = [read_aval(a) for a in t.tables(_UNIQUE_AVALS)]
  in_idxs, out_idxs = t.numbers(_IN_AVAL_IDXS, np.uint32), t.numbers(_OUT_AVAL_IDXS, np.uint32)
  in_avals = (tuple(unique[i] for i in in_idxs) if in_idxs.size
              else tuple(map(read_aval, t.tables(_IN_AVALS))))
  out_avals = (tuple(unique[i] for i in out_idxs) if out_idxs.size
               else tuple(map(read_aval, t.tables(_OUT_AVALS))))
  vjp = t.table(_VJP)
  return Exported(
      fun_name=t.string(_NAME) or "", in_tree=_tree(t.table(_IN_TREE), in_avals),
      in_avals=in_avals, out_tree=_tree(t.table(_OUT_TREE), out_avals), out_avals=out_avals,
      in_shardings_hlo=(None,) * len(in_avals), out_shardings_hlo=(None,) * len(out_avals),
      nr_devices=nr_devices, platforms=tuple(t.strings(_PLATFORMS)),
      ordered_effects=_read_effects(t, _ORDERED_EFFECTS),
      unordered_effects=_read_effects(t, _UNORDERED_EFFECTS),
      disabled_safety_checks=tuple(map(_read_check, t.tables(_DISABLED_CHECKS))),
      mlir_module_serialized=t.numbers(_MODULE, np.uint8).tobytes(),
      calling_convention_version=t.scalar(_CALLING_CONVENTION, "H"),
      module_kept_var_idx=tuple(int(i) for i in t.numbers(_KEPT_VAR_IDX, np.uint16)),
      uses_global_constants=t.scalar(_GLOBAL_CONSTANTS, "?", False),
      _get_vjp=None if vjp is None else (lambda _: _read_exported(vjp)))


def deserialize(blob: bytes | bytearray) -> Exported:
  """The ``Exported`` that ``Exported.serialize`` (of xjax or JAX) wrote."""
  blob = bytes(blob)
  try:
    root = Table.root(blob)
    name, in_tree = root.string(_NAME), root.table(_IN_TREE)
  except (struct.error, UnicodeDecodeError):
    name = in_tree = None
  if name is None or in_tree is None:
    raise ValueError("deserialize: the bytes are not a serialized Exported (they must come "
                     "from Exported.serialize()).")
  return _read_exported(root)
