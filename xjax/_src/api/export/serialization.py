"""Bytes for an ``Exported`` and back. xjax's own format (not JAX's flatbuffers): a magic
string, the length of a JSON header (names, pytree structures, avals, platforms, the
exported VJPs as nested serializations), the header, then the program as a StableHLO
portable artifact. Pytree node types other than tuple, list, dict, OrderedDict and None
need a registration to be serialized, as in JAX."""
from __future__ import annotations

import base64
import collections
import json
import struct
from typing import Any, Callable

import ml_dtypes
import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.core.avals import ShapedArray
from xjax._src.api.export.exported import DisabledSafetyCheck, Exported

_MAGIC = b"XJAX_EXPORTED\x01"

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
  """Lets pytrees holding ``nodetype`` (a namedtuple class) be serialized."""
  if not (isinstance(nodetype, type) and issubclass(nodetype, tuple)
          and hasattr(nodetype, "_fields")):
    raise ValueError(f"Cannot register a non-namedtuple type {nodetype} with "
                     "register_namedtuple_serialization.")
  _register(nodetype, serialized_name, (None, None, lambda _, children: nodetype(*children)))
  return nodetype


def register_pytree_node_serialization(nodetype, *, serialized_name: str,
                                       serialize_auxdata: Callable[[Any], bytes],
                                       deserialize_auxdata: Callable[[bytes], Any],
                                       from_children: Callable | None = None):
  """Lets pytrees holding ``nodetype`` (a registered pytree node) be serialized: its aux
  data as the bytes ``serialize_auxdata`` gives; rebuilt with ``from_children(aux,
  children)`` (default: the node's registered unflatten)."""
  if not tree_util.is_tree_node(nodetype):
    raise ValueError(f"Cannot register serialization for {nodetype}: it is not a registered "
                     "pytree node type.")
  build = from_children or (lambda aux, children: tree_util._node_of(nodetype).unflatten(
      aux, list(children)))
  _register(nodetype, serialized_name, (serialize_auxdata, deserialize_auxdata, build))
  return nodetype


# ---------------------------------------------------------------------------------------
# Pytree structures

def _key(k):
  if isinstance(k, str):
    return ["s", k]
  if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
    return ["i", int(k)]
  raise ValueError(f"Cannot serialize a dict key {k!r}: only str and int keys are supported.")


def _tree_to_json(treedef):
  data = treedef.node_data()
  if data is None:
    return None
  typ, aux = data
  kids = [_tree_to_json(c) for c in treedef.children()]
  if typ in (tuple, list):
    return {"node": typ.__name__, "children": kids}
  if typ is type(None):
    return {"node": "None"}
  if typ in (dict, collections.OrderedDict):
    return {"node": typ.__name__, "keys": [_key(k) for k in aux], "children": kids}
  name = _by_type.get(typ)
  if name is None:
    raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type `{typ}`. "
                     "Use `export.register_pytree_node_serialization` or "
                     "`export.register_namedtuple_serialization`.")
  serialize_aux = _by_name[name][1]
  out = {"node": "registered", "name": name, "children": kids}
  if serialize_aux is not None:
    out["aux"] = base64.b64encode(serialize_aux(aux)).decode()
  return out


def _tree_value(spec):
  """A pytree of the serialized structure, with 0 for each leaf."""
  if spec is None:
    return 0
  kids = [_tree_value(c) for c in spec.get("children", ())]
  node = spec["node"]
  if node == "tuple":
    return tuple(kids)
  if node == "list":
    return kids
  if node == "None":
    return None
  if node in ("dict", "OrderedDict"):
    keys = [k if tag == "s" else int(k) for tag, k in spec["keys"]]
    return (dict if node == "dict" else collections.OrderedDict)(zip(keys, kids))
  entry = _by_name.get(spec["name"])
  if entry is None:
    raise ValueError(f"Cannot deserialize a PyTreeDef with the unregistered node "
                     f"serialized_name `{spec['name']}`: register its type first.")
  _, _, deserialize_aux, build = entry
  aux = deserialize_aux(base64.b64decode(spec["aux"])) if "aux" in spec else None
  return build(aux, kids)


# ---------------------------------------------------------------------------------------
# Avals

def _aval_to_json(a: ShapedArray):
  if dtypes.is_extended(a.dtype):
    raise ValueError(f"Cannot serialize an Exported with an argument or result of dtype "
                     f"{a.dtype}: xjax serializes numeric dtypes only.")
  return [list(a.shape), np.dtype(a.dtype).name, bool(a.weak_type)]


def _dtype(name: str) -> np.dtype:
  return np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)


def _aval(spec) -> ShapedArray:
  shape, name, weak = spec
  return ShapedArray(tuple(shape), _dtype(name), weak)


# ---------------------------------------------------------------------------------------
# Exported

def serialize(exp: Exported, vjp_order: int = 0) -> bytearray:
  header = {
      "fun_name": exp.fun_name,
      "in_tree": _tree_to_json(exp.in_tree), "out_tree": _tree_to_json(exp.out_tree),
      "in_avals": [_aval_to_json(a) for a in exp.in_avals],
      "out_avals": [_aval_to_json(a) for a in exp.out_avals],
      "nr_devices": exp.nr_devices, "platforms": list(exp.platforms),
      "disabled_checks": [str(c) for c in exp.disabled_safety_checks],
      "calling_convention_version": exp.calling_convention_version,
      "module_kept_var_idx": list(exp.module_kept_var_idx),
      "uses_global_constants": exp.uses_global_constants,
  }
  if vjp_order > 0:
    if not exp.has_vjp():
      raise ValueError("serialize: this Exported has no VJP to serialize (vjp_order > 0).")
    header["vjp"] = base64.b64encode(bytes(serialize(exp.vjp(), vjp_order - 1))).decode()
  head = json.dumps(header).encode()
  return bytearray(_MAGIC + struct.pack("<Q", len(head)) + head
                   + bytes(exp.mlir_module_serialized))


def deserialize(blob: bytes | bytearray) -> Exported:
  """The ``Exported`` that ``Exported.serialize`` (of xjax) wrote."""
  blob = bytes(blob)
  if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + 8:
    raise ValueError("deserialize: the bytes are not a serialized xjax Exported (they must "
                     "come from Exported.serialize() of xjax; JAX's serialization format is "
                     "not read).")
  (n,) = struct.unpack_from("<Q", blob, len(_MAGIC))
  start = len(_MAGIC) + 8
  header = json.loads(blob[start:start + n].decode())
  version = header["calling_convention_version"]
  from xjax._src.api.export import exported as ex
  if not (ex.minimum_supported_calling_convention_version <= version
          <= ex.maximum_supported_calling_convention_version):
    raise ValueError(f"deserialize: calling convention version {version} is not supported "
                     f"(supported: {ex.minimum_supported_calling_convention_version} to "
                     f"{ex.maximum_supported_calling_convention_version}).")
  vjp = header.get("vjp")
  vjp_exp = deserialize(base64.b64decode(vjp)) if vjp is not None else None
  in_avals = tuple(_aval(a) for a in header["in_avals"])
  out_avals = tuple(_aval(a) for a in header["out_avals"])
  return Exported(
      fun_name=header["fun_name"],
      in_tree=tree_util.tree_structure(_tree_value(header["in_tree"])), in_avals=in_avals,
      out_tree=tree_util.tree_structure(_tree_value(header["out_tree"])),
      out_avals=out_avals, in_shardings_hlo=(None,) * len(in_avals),
      out_shardings_hlo=(None,) * len(out_avals), nr_devices=header["nr_devices"],
      platforms=tuple(header["platforms"]), ordered_effects=(), unordered_effects=(),
      disabled_safety_checks=tuple(DisabledSafetyCheck(c) for c in header["disabled_checks"]),
      mlir_module_serialized=blob[start + n:], calling_convention_version=version,
      module_kept_var_idx=tuple(header["module_kept_var_idx"]),
      uses_global_constants=header["uses_global_constants"],
      _get_vjp=None if vjp_exp is None else (lambda _: vjp_exp))
