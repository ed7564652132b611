"""``stablehlo.custom_call`` as MLIR text: Python values as attributes, encoded as JAX's
``mlir.ir_attribute`` encodes them (the typed attributes an XLA FFI handler decodes), and
the operation's attribute dictionary.

Python ``bool``/``int``/``float`` become ``i1``/``i64``/``f64`` scalars, NumPy scalars keep
their type, NumPy arrays become ``dense<...>`` tensors, ``str``/``bytes`` strings,
``np.dtype`` a type, dicts dictionaries and tuples/lists arrays.  An attribute built with
jaxlib's MLIR bindings is written as it prints.
"""
from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend.lowering import dense_attr, element_type
from xjax._src.core.avals import ShapedArray


def _bool(value) -> str:
  return "true" if value else "false"


def _float(value, dtype: np.dtype) -> str:
  """Finite values in decimal (exactly the value's double); others as their bits."""
  v = float(value)
  if math.isfinite(v):
    text = repr(v)
    if "." not in text:  # MLIR float literals need a point: 1e-05 -> 1.0e-05
      mantissa, _, exponent = text.partition("e")
      text = f"{mantissa}.0" + (f"e{exponent}" if exponent else "")
    return f"{text} : {element_type(dtype)}"
  bits = int(np.asarray(value, dtype).view(f"u{dtype.itemsize}"))
  return f"0x{bits:0{2 * dtype.itemsize}X} : {element_type(dtype)}"


def _scalar(value: np.generic) -> str:
  dtype = np.dtype(value.dtype)
  if dtype == np.bool_:
    return _bool(value)
  if dtypes.is_integer(dtype):
    return f"{int(value)} : {element_type(dtype)}"
  if dtype.kind == "f" or dtypes.is_float(dtype):
    return _float(value, dtype)
  raise TypeError(f"Unsupported scalar attribute type: {dtype.name} (attributes may be "
                  "booleans, integers, floats, strings, arrays, dtypes, or dicts and "
                  "tuples of those)")


def _python_int(value: int) -> str:
  if not -2**63 <= value < 2**63:
    raise OverflowError(f"The integer attribute {value} does not fit in int64 (Python ints "
                        "become i64 attributes; pass a NumPy uint64 for larger values)")
  return f"{value} : i64"


def _complex(value) -> str:
  raise TypeError(f"Unsupported scalar attribute type: complex ({value!r}); FFI attributes "
                  "cannot be complex: pass the real and imaginary parts separately")


def _string(value: str | bytes) -> str:
  """A string literal; bytes other than printable ASCII are escaped as ``\\XX``."""
  raw = value.encode() if isinstance(value, str) else bytes(value)
  body = "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else
                 ("\\\\" if b == 92 else f"\\{b:02X}") for b in raw)
  return f'"{body}"'


def _array(value: np.ndarray) -> str:
  return dense_attr(value, ShapedArray(value.shape, value.dtype))


_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")


def _entries(texts: Mapping[str, str]) -> str:
  """``{k = text, ...}`` from attribute texts (keys sorted, as MLIR keeps them)."""
  for k in texts:
    if not isinstance(k, str):
      raise TypeError(f"Dictionary attribute keys must be strings, got {k!r}")
  return "{" + ", ".join(f"{k if _BARE_KEY.match(k) else _string(k)} = {texts[k]}"
                         for k in sorted(texts)) + "}"


def dictionary(values: Mapping[str, Any]) -> str:
  """A dictionary attribute of ``values`` encoded with ``attribute``."""
  return _entries({k: attribute(v) for k, v in values.items()})


def _sequence(values: Sequence) -> str:
  return "[" + ", ".join(attribute(v) for v in values) + "]"


_ENCODERS = {
    bool: _bool, int: _python_int, float: lambda v: _float(v, np.dtype(np.float64)),
    complex: _complex, str: _string, bytes: _string, np.ndarray: _array,
    np.generic: _scalar, np.dtype: lambda d: element_type(d), dict: dictionary,
    tuple: _sequence, list: _sequence,
}


def attribute(value: Any) -> str:
  """``value`` as MLIR attribute text; a TypeError for values with no encoding."""
  for t in type(value).__mro__:
    encode = _ENCODERS.get(t)
    if encode is not None:
      return encode(value)
  if type(value).__module__.startswith("jaxlib.mlir"):  # an ir.Attribute or ir.Type
    return str(value)
  to_array = getattr(value, "__jax_array__", None)
  if to_array is not None:
    return attribute(np.asarray(to_array()))
  raise TypeError(f"No attribute handler defined for type: {type(value)}")


def layouts(orders: Sequence[Sequence[int]]) -> str:
  """Minor-to-major dimension orders, one per operand or result."""
  def one(order):
    order = [int(d) for d in order]
    body = f"[{', '.join(map(str, order))}]" if order else ""
    return f"dense<{body}> : tensor<{len(order)}xindex>"
  return "[" + ", ".join(one(o) for o in orders) + "]"


def attributes(target: str, *, api_version: int, backend_config: str | dict,
               has_side_effect: bool = False, operand_layouts=None, result_layouts=None,
               output_operand_aliases: Mapping[int, int] | None = None, num_results: int = 1,
               called_computations: Sequence[str] = (),
               extra: Mapping[str, Any] | None = None) -> dict[str, str]:
  """The attribute dictionary of a custom call to ``target``: ``backend_config`` is a dict
  of attribute texts (the typed FFI, ``api_version`` 4) or an opaque string; layouts are
  minor-to-major orders; ``output_operand_aliases`` maps operand to result indices."""
  attrs = {"call_target_name": _string(target), "api_version": f"{int(api_version)} : i32"}
  if has_side_effect:
    attrs["has_side_effect"] = "true"
  if isinstance(backend_config, dict):
    attrs["backend_config"] = _entries(backend_config)
  else:
    attrs["backend_config"] = _string(backend_config or "")
  if called_computations:
    attrs["called_computations"] = "[" + ", ".join(f"@{c}" for c in called_computations) + "]"
  if operand_layouts is not None:
    attrs["operand_layouts"] = layouts(operand_layouts)
  if result_layouts is not None:
    attrs["result_layouts"] = layouts(result_layouts)
  if output_operand_aliases:
    attrs["output_operand_aliases"] = "[" + ", ".join(
        "#stablehlo.output_operand_alias<output_tuple_indices = "
        f"[{o if num_results > 1 else ''}], operand_index = {i}, operand_tuple_indices = []>"
        for i, o in sorted(output_operand_aliases.items())) + "]"
  for k, v in (extra or {}).items():
    attrs[k] = attribute(v)
  return attrs
