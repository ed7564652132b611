"""Dtypes, canonicalization and JAX's type-promotion lattice (``jax.dtypes``).

Three ideas, all JAX's:

* *Canonicalization*: with ``jax_enable_x64`` off, 64-bit types become their 32-bit
  counterparts (int64 -> int32, uint64 -> uint32, float64 -> float32, complex128 -> complex64).
* *Weak types*: Python scalars (and values derived only from them) are weakly typed; they
  adopt the type of the arrays they meet instead of widening them (``x_f16 * 2.0`` is f16).
* *Promotion* is the least upper bound on a small lattice (see the "Type promotion semantics"
  page of the JAX docs), where ``int``/``float``/``complex`` stand for the weak kinds. Types
  narrower than 8-bit ints or 16-bit floats sit alone at the top of the lattice, so they never
  promote implicitly. ``jax_numpy_dtype_promotion='strict'`` keeps only the weak-type edges.

``result_type`` runs for every ``xjax.numpy`` operation, so its answers are cached by the
(dtype, weak) signature of the arguments together with the two flags that affect it.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any

import ml_dtypes
import numpy as np

from xjax._src.foundations.config import ExplicitX64Mode, config, enable_x64
from xjax._src.foundations.errors import user_stacklevel

# ---------------------------------------------------------------------------------------------
# The dtype set
# ---------------------------------------------------------------------------------------------

bfloat16 = ml_dtypes.bfloat16  # the scalar type, as ``jax.dtypes.bfloat16``
float0 = np.dtype([("float0", np.void, 0)])  # dtype of tangents of integer/boolean values

_bool, _i8, _i16, _i32, _i64 = map(np.dtype, ("bool", "int8", "int16", "int32", "int64"))
_u8, _u16, _u32, _u64 = map(np.dtype, ("uint8", "uint16", "uint32", "uint64"))
_f16, _bf16, _f32, _f64 = map(np.dtype, ("float16", bfloat16, "float32", "float64"))
_c64, _c128 = np.dtype("complex64"), np.dtype("complex128")


def _ml_dtypes(names: str) -> tuple[np.dtype, ...]:
  """The named ml_dtypes types that this ml_dtypes version provides."""
  return tuple(np.dtype(getattr(ml_dtypes, n)) for n in names.split() if hasattr(ml_dtypes, n))


# Sub-byte integers and sub-16-bit floats: storage types that never promote implicitly.
_NARROW_SINT = _ml_dtypes("int1 int2 int4")
_NARROW_UINT = _ml_dtypes("uint1 uint2 uint4")
_NARROW_FLOAT = _ml_dtypes(
    "float4_e2m1fn float6_e2m3fn float6_e3m2fn float8_e3m4 float8_e4m3 float8_e4m3b11fnuz "
    "float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu")

# Each supported numeric dtype and its NumPy category (bfloat16 and float8 count as floating,
# although their scalar types do not subclass np.floating).
_CATEGORY: dict[np.dtype, type] = {
    _bool: np.bool_,
    **dict.fromkeys((_i8, _i16, _i32, _i64, *_NARROW_SINT), np.signedinteger),
    **dict.fromkeys((_u8, _u16, _u32, _u64, *_NARROW_UINT), np.unsignedinteger),
    **dict.fromkeys((_f16, _bf16, _f32, _f64, *_NARROW_FLOAT), np.floating),
    **dict.fromkeys((_c64, _c128), np.complexfloating),
}
_SUPPORTED = frozenset(_CATEGORY) | {float0}
_X64_OFF = {_i64: _i32, _u64: _u32, _f64: _f32, _c128: _c64}
_DEFAULT_64 = {np.signedinteger: _i64, np.unsignedinteger: _u64, np.floating: _f64,
               np.complexfloating: _c128}
_SCALAR_TYPE = {np.bool_: bool, np.signedinteger: int, np.unsignedinteger: int,
                np.floating: float, np.complexfloating: complex}

python_scalar_dtypes: dict[type, np.dtype] = {bool: _bool, int: _i64, float: _f64, complex: _c128}
_WEAK_SCALAR_TYPES = (int, float, complex)


def _is_weak_scalar_type(x: Any) -> bool:
  # Identity, not ``in``: np.dtype('int64') == int is True.
  return x is int or x is float or x is complex


iinfo = ml_dtypes.iinfo  # like np.iinfo, also for int4 & co.
finfo = ml_dtypes.finfo  # like np.finfo, also for bfloat16 and the float8 types


# ---------------------------------------------------------------------------------------------
# Extended dtypes: elements that are not numbers (PRNG keys), stored as arrays of numbers
# ---------------------------------------------------------------------------------------------

class extended(np.generic):
  """Scalar class of every extended dtype (``jax.dtypes.extended``)."""


class prng_key(extended):
  """Scalar class of PRNG key dtypes (``jax.dtypes.prng_key``)."""


class ExtendedDType:
  """A dtype whose elements are stored as ``physical_shape``-shaped arrays of
  ``physical_dtype``: an array of logical shape ``s`` is held as one of shape
  ``s + physical_shape``. Subclasses set ``type`` (a subclass of ``extended``) and ``name``."""
  type: type = extended
  name: str = "extended"
  physical_shape: tuple = ()
  physical_dtype: np.dtype = np.dtype(np.uint32)
  kind = "V"
  tangent_dtype: np.dtype | None = None  # the dtype of its tangents (None: float0)
  allow_conversion = False  # convert_element_type to and from physical_dtype

  def full(self, shape: tuple, fill_value):
    """An array of ``shape`` of this dtype: what ``lax.full`` does for extended dtypes."""
    raise NotImplementedError(f"lax.full of dtype {self.name}")

  def __init_subclass__(cls, **kwargs) -> None:
    """A dtype defined outside xjax the way JAX's are (flax's fp8 "meta" dtype): its class
    holds ``_rules`` (``physical_element_aval``, ``convert_from``/``convert_to``, ``add``,
    ``zero``, ``tangent_dtype``, ``full``), from which its storage, conversions, tangents
    and accumulation (``add``, as autodiff adds cotangents) follow."""
    super().__init_subclass__(**kwargs)
    rules = cls.__dict__.get("_rules")
    if rules is None:
      return
    physical = lambda self: self._rules.physical_element_aval(self)
    cls.physical_dtype = property(lambda self: np.dtype(physical(self).dtype))
    cls.physical_shape = property(lambda self: tuple(physical(self).shape))
    if hasattr(rules, "tangent_dtype"):
      cls.tangent_dtype = property(lambda self: self._rules.tangent_dtype(self))
    cls.allow_conversion = hasattr(rules, "convert_from") or hasattr(rules, "convert_to")
    if hasattr(rules, "full"):
      cls.full = lambda self, shape, fill_value: self._rules.full(shape, fill_value, self)

  @property
  def itemsize(self) -> int:
    return int(np.prod(self.physical_shape, dtype=np.int64)) * self.physical_dtype.itemsize

  def __repr__(self) -> str:
    return self.name

  __str__ = __repr__


def is_extended(dtype: Any) -> bool:
  return isinstance(dtype, ExtendedDType)


class primal_tangent_dtype_scalar(extended):
  """Scalar class of the dtypes ``primal_tangent_dtype`` makes."""


class PrimalTangentDType(ExtendedDType):
  """Values stored as ``primal_dtype``, whose tangents (and cotangents) have another dtype;
  arrays convert to and from ``primal_dtype`` with ``lax.convert_element_type``."""
  type = primal_tangent_dtype_scalar
  allow_conversion = True

  def __init__(self, primal_dtype: np.dtype, tangent_dtype: np.dtype, name: str) -> None:
    self.physical_dtype = self.primal_dtype = primal_dtype
    self.tangent_dtype, self.name = tangent_dtype, name

  def __eq__(self, other) -> bool:
    return type(other) is PrimalTangentDType and (
        self.primal_dtype, self.tangent_dtype, self.name) == (
        other.primal_dtype, other.tangent_dtype, other.name)

  def __hash__(self) -> int:
    return hash((PrimalTangentDType, self.primal_dtype, self.tangent_dtype, self.name))


def _dtype_name(dt) -> str:
  if isinstance(dt, ExtendedDType):
    return str(dt)
  return (dt.name.replace("float", "f").replace("uint", "u").replace("int", "i")
          .replace("complex", "c"))


def primal_tangent_dtype(primal_dtype, tangent_dtype, name: str | None = None
                         ) -> PrimalTangentDType:
  """An extended dtype stored as ``primal_dtype`` whose tangents are ``tangent_dtype``
  (``jax.experimental.primal_tangent_dtype``)."""
  primal_dtype, tangent_dtype = (dt if isinstance(dt, ExtendedDType) else np.dtype(dt)
                                 for dt in (primal_dtype, tangent_dtype))
  return PrimalTangentDType(primal_dtype, tangent_dtype, name or (
      f"PrimalTangentDType{{{_dtype_name(primal_dtype)}/{_dtype_name(tangent_dtype)}}}"))


class TypePromotionError(ValueError):
  """Two dtypes have no implicit promotion (narrow types, or the 'strict' promotion mode)."""
  __module__ = "xjax.dtypes"


class InvalidInputException(TypeError):
  """A value that is not a valid JAX type where an array was needed (JAX's class, a
  TypeError, raised by ``vjp``'s input check)."""


# ---------------------------------------------------------------------------------------------
# Canonicalization, defaults and classification
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _canonicalize(dtype: Any, x64: bool) -> np.dtype:
  dt = np.dtype(dtype)
  return dt if x64 else _X64_OFF.get(dt, dt)


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> np.dtype:
  """The dtype xjax uses for ``dtype``: 64-bit types become 32-bit unless x64 is enabled.

  Extended dtypes (PRNG keys) are returned as they are when ``allow_extended_dtype``.
  """
  if isinstance(dtype, ExtendedDType):
    if allow_extended_dtype:
      return dtype
    raise ValueError(f"Internal: canonicalize_dtype called on extended dtype {dtype} with "
                     "allow_extended_dtype=False")
  return _canonicalize(dtype, enable_x64())


def default_int_dtype() -> np.dtype:
  return _i64 if enable_x64() else _i32


def default_uint_dtype() -> np.dtype:
  return _u64 if enable_x64() else _u32


def default_float_dtype() -> np.dtype:
  return _f64 if enable_x64() else _f32


def default_complex_dtype() -> np.dtype:
  return _c128 if enable_x64() else _c64


def _category(dtype: Any) -> type | None:
  cat = _CATEGORY.get(dtype)
  if cat is not None or isinstance(dtype, ExtendedDType):
    return cat
  return _CATEGORY.get(np.dtype(dtype))


def is_bool(dtype: Any) -> bool:
  return _category(dtype) is np.bool_


def is_integer(dtype: Any) -> bool:
  """Signed or unsigned integer (not bool)."""
  return _category(dtype) in (np.signedinteger, np.unsignedinteger)


def is_unsigned(dtype: Any) -> bool:
  return _category(dtype) is np.unsignedinteger


def is_float(dtype: Any) -> bool:
  """Real floating point, including bfloat16 and the float8 family."""
  return _category(dtype) is np.floating


def is_complex(dtype: Any) -> bool:
  return _category(dtype) is np.complexfloating


def is_inexact(dtype: Any) -> bool:
  return _category(dtype) in (np.floating, np.complexfloating)


def to_numeric_dtype(dtype: Any) -> np.dtype:
  """bool -> int32 (as JAX, whatever x64 says); other dtypes unchanged."""
  dt = np.dtype(dtype)
  return _i32 if dt == _bool else dt


def to_inexact_dtype(dtype: Any) -> np.dtype:
  """The dtype of ``sin(x)`` for ``x`` of this dtype: bool and integers become float32, or
  float64 for 64-bit integers; inexact dtypes are unchanged. Not canonicalized."""
  dt = np.dtype(dtype)
  if is_inexact(dt):
    return dt
  return _f64 if dt.itemsize == 8 else _f32


def to_floating_dtype(dtype: Any) -> np.dtype:
  """Like ``to_inexact_dtype``, but complex dtypes become their real component type."""
  dt = np.dtype(dtype)
  if is_complex(dt):
    return _f64 if dt == _c128 else _f32
  return to_inexact_dtype(dt)


def to_complex_dtype(dtype: Any) -> np.dtype:
  """The complex dtype holding values of this dtype: complex128 for 64-bit types (and
  complex128 itself), complex64 otherwise. Not canonicalized."""
  dt = np.dtype(dtype)
  return _c128 if dt == _c128 or (not is_complex(dt) and dt.itemsize == 8) else _c64


def itemsize_bits(dtype: Any) -> int:
  """Bits per element: 4 for int4, 8 for bool, 32 for float32, ..."""
  dt = np.dtype(dtype)
  if dt in _NARROW_FLOAT:
    return finfo(dt).bits
  if dt in _NARROW_SINT or dt in _NARROW_UINT:
    return iinfo(dt).bits
  if dt not in _CATEGORY:
    raise TypeError(f"itemsize_bits: {dt} is not a numeric dtype")
  return dt.itemsize * 8


def _short(dt: np.dtype) -> str:
  name = dt.name
  if name == "bfloat16":
    return "bf16"
  for prefix in ("uint", "int", "float", "complex"):
    if name.startswith(prefix):
      return prefix[0] + name[len(prefix):]
  return name


_SHORT_NAMES = {dt: _short(dt) for dt in _CATEGORY} | {float0: "float0"}


def short_name(dtype: Any) -> str:
  """The jaxpr printer's name: 'f32', 'bf16', 'i8', 'u4' (uint4), 'c64', 'f8_e4m3fn', 'bool'."""
  name = _SHORT_NAMES.get(dtype)
  if name is None:
    if isinstance(dtype, ExtendedDType):
      return dtype.name
    dt = np.dtype(dtype)
    name = _SHORT_NAMES.get(dt, dt.name)
  return name


# ---------------------------------------------------------------------------------------------
# dtype(), weak types, user-requested dtypes
# ---------------------------------------------------------------------------------------------

def _truncation_warning(requested: np.dtype, canonical: np.dtype, fun_name: str | None) -> None:
  """Warns that an explicitly requested 64-bit dtype is narrowed, or raises ValueError under
  ``jax_explicit_x64_dtypes='error'``."""
  where = f" requested in {fun_name}" if fun_name else ""
  if config._read("jax_explicit_x64_dtypes") == ExplicitX64Mode.ERROR:
    raise ValueError(
        f"Explicitly requested dtype {requested}{where} is not available. To enable more "
        "dtypes, set the jax_enable_x64 or allow_explicit_x64_dtypes configuration "
        "options.See https://github.com/jax-ml/jax#current-gotchas for more.")
  warnings.warn(
      f"Explicitly requested dtype {requested}{where} is not available, and will be "
      f"truncated to dtype {canonical}. To enable more dtypes, set the jax_enable_x64 "
      "configuration option or the JAX_ENABLE_X64 shell environment variable. See "
      "https://github.com/jax-ml/jax#current-gotchas for more.", UserWarning,
      stacklevel=user_stacklevel())


def unsupported_dtype_error(dt: np.dtype, value: Any = None) -> TypeError:
  """JAX's TypeError for a value (or a dtype) that no array can hold (strings, objects)."""
  what = f"Value '{value}' with dtype {dt}" if value is not None else f"Dtype {dt}"
  return TypeError(f"{what} is not a valid JAX array type. Only arrays of numeric types are "
                   "supported by JAX.")


def _specifier_dtype(x: Any) -> np.dtype:
  """The dtype named by a specifier: a dtype, a scalar type, a name like 'bfloat16'. Python's
  int/float/complex name int64/float64/complex128; None is rejected, as by JAX."""
  if x is None:
    raise ValueError("Invalid argument to dtype: None.")
  if isinstance(x, type):
    scalar = python_scalar_dtypes.get(x)
    if scalar is not None:
      return scalar
  if isinstance(x, ExtendedDType):
    return x
  return np.dtype(x)


def _value_dtype(x: Any) -> np.dtype | None:
  """The dtype of a value (Python scalar, array, NumPy scalar, tracer), or None if ``x`` is
  not a value."""
  dt = python_scalar_dtypes.get(type(x))
  if dt is not None:
    return dt
  if isinstance(x, (type, np.dtype, str, ExtendedDType)) or x is None:
    return None
  dt = getattr(x, "dtype", None)
  if isinstance(dt, (np.dtype, ExtendedDType)):
    return dt
  for typ in (bool, int, float, complex):  # subclasses of the Python scalar types
    if isinstance(x, typ):
      return python_scalar_dtypes[typ]
  raise TypeError(f"Cannot determine dtype of {x!r}")


def dtype(x: Any, canonicalize: bool = False) -> np.dtype:
  """The dtype of a value or dtype specifier (Python scalars give int64/float64/complex128,
  or their canonical forms when ``canonicalize``). Raises TypeError for non-numeric dtypes."""
  dt = _value_dtype(x)
  is_spec = dt is None
  if is_spec:
    dt = _specifier_dtype(x)
  if dt not in _SUPPORTED:
    if isinstance(dt, ExtendedDType):
      return dt
    raise unsupported_dtype_error(dt, x)
  if canonicalize:
    canonical = canonicalize_dtype(dt)
    if is_spec and canonical != dt and not _is_weak_scalar_type(x):
      _truncation_warning(dt, canonical, "dtype")
    dt = canonical
  return dt


def is_weakly_typed(x: Any) -> bool:
  """True for Python int/float/complex (not bool) and for values with a true ``weak_type``."""
  if type(x) in _WEAK_SCALAR_TYPES:
    return True
  return bool(getattr(x, "weak_type", False))


def scalar_type_of(x: Any) -> type:
  """The Python scalar type (bool, int, float or complex) matching the dtype of ``x``."""
  dt = dtype(x, canonicalize=True)  # canonicalizing: like JAX, warn for a float64 specifier
  if dt == float0:
    raise TypeError(f"No Python scalar type corresponds to dtype {dt}")
  return _SCALAR_TYPE[_CATEGORY[dt]]


def _user_dtype(spec: Any, x64: bool) -> tuple[np.dtype, np.dtype] | None:
  """(requested, canonical) dtypes, or None if ``spec`` names an unsupported dtype."""
  if not isinstance(spec, (type, np.dtype, str)):  # a value with a dtype (np.float32(1)) is
    spec = np.dtype(spec)  # keyed by it: 1 == np.float32(1) == True would share an entry
  return _user_dtype_of(spec, x64)


@functools.lru_cache(maxsize=None)
def _user_dtype_of(spec: Any, x64: bool) -> tuple[np.dtype, np.dtype] | None:
  requested = np.dtype(spec)
  if requested not in _SUPPORTED:
    return None
  return requested, (requested if x64 else _X64_OFF.get(requested, requested))


def reject_array_dtype(spec: Any) -> None:
  """ValueError for an xjax array or tracer given as a dtype (NumPy would read its dtype)."""
  if hasattr(spec, "aval"):
    raise ValueError("Passing an array as a dtype argument is not supported; instead of "
                     "dtype=arr use dtype=arr.dtype.")


def check_user_dtype_supported(dtype: Any, fun_name: str | None = None) -> np.dtype | None:
  """Validate a dtype passed by the user (``jnp.zeros(3, dtype=...)``); return it canonicalized.

  None (no dtype requested) passes through. Non-numeric dtypes raise TypeError naming
  ``fun_name``; 64-bit dtypes with x64 disabled warn that they will be truncated.
  """
  if dtype is None:
    return None
  reject_array_dtype(dtype)
  if isinstance(dtype, ExtendedDType):  # typed PRNG keys: conversions check them
    return dtype
  if _is_weak_scalar_type(dtype) or dtype is bool:  # Python types: their default, silently
    return canonicalize_dtype(python_scalar_dtypes[dtype])
  found = _user_dtype(dtype, enable_x64())
  if found is None:
    where = f" in {fun_name}" if fun_name else ""
    raise TypeError(f"xjax supports only boolean and numeric dtypes, got dtype {dtype}{where}")
  requested, canonical = found
  if canonical is not requested:
    _truncation_warning(requested, canonical, fun_name)
  return canonical


# ---------------------------------------------------------------------------------------------
# The promotion lattice
# ---------------------------------------------------------------------------------------------
# Nodes are dtypes (strong) and the Python types int, float, complex (the weak kinds).

def _lattice(strict: bool, x64: bool) -> dict[Any, tuple]:
  """Each node's immediate successors. (Without x64, uint32 and int32 join at int32: it
  shows only in ``promote_types``, as result_type canonicalizes int64 to int32 anyway.)"""
  if strict:
    return {int: (_u8, _u16, _u32, _u64, _i8, _i16, _i32, _i64, *_NARROW_SINT, *_NARROW_UINT,
                  float),
            float: (_f16, _bf16, _f32, _f64, *_NARROW_FLOAT, complex),
            complex: (_c64, _c128)}
  return {_bool: (int,), int: (_u8, _i8, *_NARROW_SINT, *_NARROW_UINT),
          _u8: (_u16, _i16), _u16: (_u32, _i32), _u32: (_u64, _i64 if x64 else _i32),
          _u64: (float,),
          _i8: (_i16,), _i16: (_i32,), _i32: (_i64,), _i64: (float,),
          float: (_f16, _bf16, *_NARROW_FLOAT, complex), _f16: (_f32,), _bf16: (_f32,),
          _f32: (_f64, _c64), _f64: (_c128,), complex: (_c64,), _c64: (_c128,)}


def _upper_bounds(strict: bool, x64: bool) -> dict[Any, frozenset]:
  """Each node's set of upper bounds (itself included)."""
  succ = _lattice(strict, x64)
  bounds: dict[Any, frozenset] = {}

  def visit(node):
    if node not in bounds:
      bounds[node] = frozenset({node}).union(*map(visit, succ.get(node, ())))
    return bounds[node]

  for node in (*_CATEGORY, *_WEAK_SCALAR_TYPES):
    visit(node)
  return bounds


_UPPER_BOUNDS = {(strict, x64): _upper_bounds(strict, x64)
                 for strict in (False, True) for x64 in (False, True)}


def _join(nodes: Any, strict: bool, x64: bool) -> Any:
  """The least upper bound of lattice nodes, or TypePromotionError."""
  bounds = _UPPER_BOUNDS[strict, x64]
  try:
    common = frozenset.intersection(*(bounds[n] for n in nodes))
  except KeyError:
    bad = next(n for n in nodes if n not in bounds)
    raise ValueError(f"dtype={bad!r} is not a valid dtype for JAX type promotion.") from None
  for candidate in common:
    if common <= bounds[candidate]:
      return candidate
  names = tuple(str(n) for n in dict.fromkeys(nodes))
  if strict:
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path when "
        "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired output "
        "type, or set jax_numpy_dtype_promotion=standard.")
  narrow = [n.name for n in nodes if n in _NARROW_FLOAT]
  if narrow:
    bits = "8-bit" if any(name.startswith("float8") for name in narrow) else "4-bit"
    kind, example = f"{bits} floats", "float32"
  else:
    kind, example = "1-bit, 2-bit and 4-bit integers", "int32"
  raise TypePromotionError(
      f"Input dtypes {names} have no available implicit dtype promotion path. To avoid "
      f"unintended promotion, {kind} do not support implicit promotion. If you'd like your "
      f"inputs to be promoted to another type, you can do so explicitly using e.g. "
      f"x.astype('{example}')")


def _node(dt: np.dtype, weak: bool) -> Any:
  """The lattice node of a value: its dtype, or its weak kind (a weak bool is just bool)."""
  if not weak or dt == _bool or dt not in _CATEGORY:
    return dt
  return _SCALAR_TYPE[_CATEGORY[dt]]


def _result(x64: bool, strict: bool, dts: tuple, weaks: tuple) -> tuple[np.dtype, bool]:
  """Uncached ``result_type`` of arguments with these dtypes and weak flags."""
  dts = tuple(dt if x64 else _X64_OFF.get(dt, dt) for dt in dts)
  for dt in dts:
    if dt not in _SUPPORTED:
      if isinstance(dt, ExtendedDType):
        return _extended_result(dts)
      raise unsupported_dtype_error(dt)
  if len(dts) == 1:
    out, weak = dts[0], weaks[0]
  elif all(weaks) and not strict:
    # Only weak inputs: join their dtypes as if strong, then weaken. (So two weak uint8
    # values give a weak unsigned result, not the weak int that their kind would give.)
    out, weak = _join(dts, strict, x64), True
  else:
    nodes = {_node(dt, w) for dt, w in zip(dts, weaks)}
    out = nodes.pop() if len(nodes) == 1 else _join(nodes, strict, x64)
    weak = isinstance(out, type)
  if isinstance(out, type):
    out = python_scalar_dtypes[out]
  category = _CATEGORY.get(out)
  weak = weak and category is not None and category is not np.bool_
  if weak:  # weak values have their kind's default width
    out = _DEFAULT_64[category]
  return (out if x64 else _X64_OFF.get(out, out)), weak


def _extended_result(dts: tuple) -> tuple[ExtendedDType, bool]:
  """Extended dtypes promote only with themselves: keys and numbers never mix."""
  if len(set(dts)) != 1:
    names = ", ".join(str(dt) for dt in dts)
    convertible = next((dt for dt in dts if getattr(dt, "allow_conversion", False)), None)
    if convertible is not None:
      raise ValueError(f"dtype={convertible} is not a valid dtype for JAX type promotion.")
    raise TypeError(f"xjax.numpy operations do not accept dtypes {names} together: "
                    "PRNG keys are not numbers. Use random.key_data(key) for the raw "
                    "uint32 data of a key.")
  return dts[0], False


_RESULT_CACHE: dict[tuple, tuple[np.dtype, bool]] = {}
_DTYPE_CLASSES = frozenset(type(dt) for dt in _SUPPORTED)  # np.dtype's per-type subclasses
_strict_promotion = [config._read("jax_numpy_dtype_promotion") == "strict"]  # kept current:
config.on_change("jax_numpy_dtype_promotion",
                 lambda mode: _strict_promotion.__setitem__(0, mode == "strict"))


def safe_to_cast(value_or_dtype: Any, output_dtype: Any) -> bool:
  """Whether promotion keeps ``output_dtype`` when combining it with ``value_or_dtype``
  (a value's weak type counts; ``output_dtype`` is taken as strongly typed)."""
  out = dtype(output_dtype)
  return dtype(value_or_dtype) == out or result_type(value_or_dtype, out) == out


def result_type(*args: Any, return_weak_type_flag: bool = False) -> Any:
  """The canonical dtype to which JAX promotes ``args`` (values or dtype specifiers).

  Python scalars and the types int/float/complex are weak; other values are weak when their
  ``weak_type`` attribute says so. With ``return_weak_type_flag``, return (dtype, weak_type).
  """
  if not args:
    raise ValueError("at least one array or dtype is required")
  x64 = enable_x64()
  key: tuple = (x64, _strict_promotion[0])
  for x in args:
    typ = type(x)
    dt = python_scalar_dtypes.get(typ)
    if dt is not None:
      key += (dt, typ is not bool)
      continue
    dt = getattr(x, "dtype", None)
    if type(dt) in _DTYPE_CLASSES and not isinstance(x, type):  # cheaper than isinstance
      key += (dt, getattr(x, "weak_type", False))
      continue
    dt = _value_dtype(x)
    if dt is not None:  # a Python-scalar subclass instance (strong), or an unsupported dtype
      key += (dt, False)
    elif x is None:  # NumPy's reading of None: the default float dtype
      key += (_f64, False)
    elif _is_weak_scalar_type(x):
      key += (python_scalar_dtypes[x], True)
    else:  # a dtype specifier: strong, and warns if it names an unavailable 64-bit type
      dt = _specifier_dtype(x)  # (as JAX's, except through a jnp scalar type's ``dtype``)
      key += (dt, False)
      if not x64 and dt in _X64_OFF and not (isinstance(x, type) and
                                             not issubclass(x, np.generic)):
        _truncation_warning(dt, _X64_OFF[dt], "dtype")
  out = _RESULT_CACHE.get(key)
  if out is None:
    out = _RESULT_CACHE[key] = _result(x64, key[1], key[2::2], key[3::2])
  return out if return_weak_type_flag else out[0]


@functools.lru_cache(maxsize=None)
def _promote_types(a: Any, b: Any, strict: bool, x64: bool) -> np.dtype:
  nodes = [x if _is_weak_scalar_type(x) else _specifier_dtype(x) for x in (a, b)]
  for node in nodes:
    if isinstance(node, ExtendedDType):  # (JAX's class: NumPy's, which cannot read it)
      raise TypeError(f"Cannot interpret '{node}' as a data type")
  out = _join(nodes, strict, x64)
  return python_scalar_dtypes[out] if isinstance(out, type) else out


def promote_types(a: Any, b: Any) -> np.dtype:
  """``jnp.promote_types``: the join of two dtypes on the lattice, not canonicalized.

  The Python types int/float/complex act as weak types (``promote_types('uint8', int)`` is
  uint8); joined with each other they give int64/float64/complex128.
  """
  return _promote_types(a, b, _strict_promotion[0], enable_x64())


# ---------------------------------------------------------------------------------------------
# issubdtype
# ---------------------------------------------------------------------------------------------

_SUPPORTED_SCALAR_TYPES = frozenset(dt.type for dt in _CATEGORY)


def _scalar_class(x: Any) -> type | np.dtype:
  """NumPy scalar classes that name no xjax dtype (np.floating, np.number, np.void, ...) as
  they are; anything else as its dtype."""
  if isinstance(x, type) and issubclass(x, np.generic) and x not in _SUPPORTED_SCALAR_TYPES:
    return x
  if isinstance(x, ExtendedDType):
    return x
  if x is None:  # NumPy's default dtype, as np.dtype(None)
    return np.dtype(np.float64)
  return _specifier_dtype(x)


@functools.lru_cache(maxsize=None)
def _issubdtype(a: type | np.dtype, b: type | np.dtype) -> bool:
  if isinstance(a, ExtendedDType) or isinstance(b, ExtendedDType):
    if isinstance(b, type):
      return issubclass(a.type, b)
    return a == b
  if isinstance(b, np.dtype):
    return isinstance(a, np.dtype) and a == b
  if not isinstance(a, np.dtype):
    return issubclass(a, b)
  category = _CATEGORY.get(a)
  return issubclass(a.type, b) or (category is not None and issubclass(category, b))


_SPECIFIER_TYPES = (np.dtype, type, str)  # safe to cache on: a small, fixed population


@functools.lru_cache(maxsize=None)
def _issubdtype_of_specifiers(a: Any, b: Any) -> bool:
  return _issubdtype(_scalar_class(a), _scalar_class(b))


def issubdtype(arg1: Any, arg2: Any) -> bool:
  """``np.issubdtype`` that knows bfloat16/float8 are floating and int4 is a signed integer
  (JAX's parameter names)."""
  if isinstance(arg1, _SPECIFIER_TYPES) and isinstance(arg2, _SPECIFIER_TYPES):
    return _issubdtype_of_specifiers(arg1, arg2)
  return _issubdtype(_scalar_class(arg1), _scalar_class(arg2))  # e.g. an array: its dtype
