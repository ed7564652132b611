"""Dot algorithms: ``precision=`` values that name the types a contraction rounds its
operands to and accumulates in (``DotAlgorithm``, ``DotAlgorithmPreset``), and how
``dot_general`` lowers them: operands converted to the algorithm's types, the product
accumulated in its type, then converted to the result dtype."""
from __future__ import annotations

import enum
from typing import NamedTuple, Union

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend.lowering import element_type


class DotAlgorithm(NamedTuple):
  """An explicit dot algorithm: operand rounding types, accumulation type, and how many
  components/operations emulate a higher precision (1 for none)."""
  lhs_precision_type: object
  rhs_precision_type: object
  accumulation_type: object
  lhs_component_count: int = 1
  rhs_component_count: int = 1
  num_primitive_operations: int = 1
  allow_imprecise_accumulation: bool = False

  def _hlo_types(self, lhs_dtype, rhs_dtype) -> tuple:
    return (self.lhs_precision_type, self.rhs_precision_type, self.accumulation_type,
            self.lhs_component_count, self.rhs_component_count,
            self.num_primitive_operations, self.allow_imprecise_accumulation)

  def _compute_types(self, lhs_dtype, rhs_dtype, out_dtype) -> tuple:
    return (np.dtype(self.lhs_precision_type), np.dtype(self.rhs_precision_type),
            np.dtype(self.accumulation_type))


_F8 = tuple(d for d in dtypes._NARROW_FLOAT if d.name.startswith("float8"))
_F16, _BF16, _F32, _F64 = (np.dtype(np.float16), np.dtype(dtypes.bfloat16),
                           np.dtype(np.float32), np.dtype(np.float64))


class DotAlgorithmPreset(enum.Enum):
  """Named dot algorithms, ``LHS_RHS_ACCUMULATION`` (``_X3``/``_X6``/``_X9``: emulated
  with that many operations); pass one (or its name) as ``precision=``."""
  DEFAULT = enum.auto()
  ANY_F8_ANY_F8_F32 = enum.auto()
  ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
  ANY_F8_ANY_F8_ANY = enum.auto()
  ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
  F16_F16_F16 = enum.auto()
  F16_F16_F32 = enum.auto()
  BF16_BF16_BF16 = enum.auto()
  BF16_BF16_F32 = enum.auto()
  BF16_BF16_F32_X3 = enum.auto()
  BF16_BF16_F32_X6 = enum.auto()
  BF16_BF16_F32_X9 = enum.auto()
  TF32_TF32_F32 = enum.auto()
  TF32_TF32_F32_X3 = enum.auto()
  F32_F32_F32 = enum.auto()
  F64_F64_F64 = enum.auto()

  def __repr__(self) -> str:
    return f"{type(self).__name__}.{self.name}"

  def __str__(self) -> str:
    return self.name

  @property
  def supported_lhs_types(self) -> tuple | None:
    """The operand types the algorithm takes as they are (others convert to the first)."""
    name = self.name
    if name == "DEFAULT" or name.startswith("ANY_F8"):
      return None
    if name.startswith("F16"):
      return (_F16,)
    if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
      return (_BF16, _F32)
    if name == "F64_F64_F64":
      return (_F64,)
    return (_F32,)

  @property
  def supported_rhs_types(self) -> tuple | None:
    return self.supported_lhs_types

  @property
  def accumulation_type(self) -> np.dtype | None:
    return _ACCUMULATION.get(self.name, _F32)

  def supported_output_types(self, lhs_dtype, rhs_dtype) -> tuple | None:
    name = self.name
    if name in ("ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM"):
      return (_F32, _F16, _BF16) + _F8
    narrow = {"F16_F16_F32": _F16, "BF16_BF16_F32": _BF16}.get(name)
    if narrow is not None:  # the narrow output only with narrow inputs
      both = dtypes.promote_types(lhs_dtype, rhs_dtype) == narrow
      return (_F32, narrow) if both else (_F32,)
    acc = self.accumulation_type
    return None if acc is None else (acc,)

  def _compute_types(self, lhs_dtype, rhs_dtype, out_dtype) -> tuple:
    lhs = _pick(lhs_dtype, self.supported_lhs_types)
    rhs = _pick(rhs_dtype, self.supported_rhs_types)
    return lhs, rhs, _pick(out_dtype, self.supported_output_types(lhs, rhs))

  def _hlo_types(self, lhs_dtype, rhs_dtype) -> tuple | None:
    name = self.name
    if name.startswith("ANY_F8"):
      if np.dtype(lhs_dtype) not in _F8 or np.dtype(rhs_dtype) not in _F8:
        raise ValueError(f"The dot algorithm '{name}' requires both inputs to have float8 "
                         f"dtypes. Got {lhs_dtype} and {rhs_dtype} instead.")
      return (lhs_dtype, rhs_dtype, _F32, 1, 1, 1, name.endswith("FAST_ACCUM"))
    if name == "DEFAULT":
      return None
    parts = name.split("_")
    ops = int(parts[3][1:]) if len(parts) == 4 else 1
    types = [_NAMED_TYPES[p] for p in parts[:3]]
    return (*types, 1, 1, ops, False)


_ACCUMULATION = {"DEFAULT": None, "ANY_F8_ANY_F8_ANY": None,
                 "ANY_F8_ANY_F8_ANY_FAST_ACCUM": None, "F16_F16_F16": _F16,
                 "BF16_BF16_BF16": _BF16, "F64_F64_F64": _F64}
_NAMED_TYPES = {"F16": _F16, "BF16": _BF16, "F32": _F32, "F64": _F64, "TF32": "tf32"}


def _pick(dtype, supported):
  if supported is None or np.dtype(dtype) in supported:
    return np.dtype(dtype)
  return np.dtype(supported[0])


PrecisionLike = Union[None, str, "Precision", tuple, DotAlgorithm, DotAlgorithmPreset]

# What XLA's CPU backend computes (it ignores the algorithm attribute; xjax, as JAX, checks).
_CPU_PRESETS = frozenset({
    DotAlgorithmPreset.DEFAULT, DotAlgorithmPreset.F16_F16_F16, DotAlgorithmPreset.F32_F32_F32,
    DotAlgorithmPreset.F64_F64_F64, DotAlgorithmPreset.BF16_BF16_F32,
    DotAlgorithmPreset.BF16_BF16_F32_X3, DotAlgorithmPreset.BF16_BF16_F32_X6})


def is_algorithm(precision) -> bool:
  return isinstance(precision, (DotAlgorithm, DotAlgorithmPreset))


def compute_types(algorithm, lhs_dtype, rhs_dtype, out_dtype, platform: str) -> tuple:
  """``(lhs, rhs, accumulation)`` dtypes of a dot with ``algorithm``; a ValueError for an
  algorithm the platform cannot compute."""
  if platform == "cpu" and algorithm not in _CPU_PRESETS:
    raise ValueError(f"The precision '{algorithm}' is not supported by dot_general on CPU")
  return algorithm._compute_types(lhs_dtype, rhs_dtype, out_dtype)


def algorithm_attr(algorithm, lhs_dtype, rhs_dtype) -> str | None:
  """The ``#stablehlo.dot_algorithm<...>`` attribute (None for the default algorithm)."""
  types = algorithm._hlo_types(lhs_dtype, rhs_dtype)
  if types is None:
    return None
  lhs, rhs, acc, lcount, rcount, ops, imprecise = types
  name = lambda t: "tf32" if t == "tf32" else element_type(dtypes.dtype(t))
  return (f"#stablehlo.dot_algorithm<lhs_precision_type = {name(lhs)}, "
          f"rhs_precision_type = {name(rhs)}, accumulation_type = {name(acc)}, "
          f"lhs_component_count = {lcount}, rhs_component_count = {rcount}, "
          f"num_primitive_operations = {ops}, "
          f"allow_imprecise_accumulation = {str(bool(imprecise)).lower()}>")
