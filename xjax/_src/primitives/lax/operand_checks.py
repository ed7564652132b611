"""Checks on primitives' operands: dtype classes, equal dtypes, and lax's broadcasting shape
rule for n-ary elementwise operations (with the error messages JAX gives)."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray


def dtype_name(dtype) -> str:
  return dtype.name if isinstance(dtype, dtypes.ExtendedDType) else np.dtype(dtype).name


# The jnp function that promotes its arguments, for the lax operations JAX's error names one
_JNP_PROMOTING = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide",
                  "max": "maximum", "min": "minimum", "pow": "float_power", "atan2": "arctan2",
                  "nextafter": "nextafter", "eq": "equal", "ne": "not_equal",
                  "shift_left": "left_shift", "shift_right_logical": "right_shift",
                  "shift_right_arithmetic": "right_shift", "select_n": "where",
                  "concatenate": "concatenate"}


def check_same_dtypes(name: str, avals: Sequence[ShapedArray]) -> None:
  if len({a.dtype for a in avals}) > 1:
    got = ", ".join(dtype_name(a.dtype) for a in avals)
    tip = _JNP_PROMOTING.get(name)
    raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {got}."
                    + (f" (Tip: jnp.{tip} is a similar function that does automatic type "
                       "promotion on inputs)." if tip else ""))


def broadcasting_shape(name: str, shapes: Sequence[tuple]) -> tuple:
  """lax's shape rule for n-ary elementwise ops: equal ranks (or rank 0), dims equal or 1."""
  result = ()
  for s in shapes:  # fast path: every shape equal (or rank 0)
    if s:
      if not result:
        result = s
      elif s != result:
        return _broadcasting_shape(name, shapes)
  return result


def _broadcasting_shape(name: str, shapes: Sequence[tuple]) -> tuple:
  ranked = [s for s in shapes if len(s)]
  if not ranked:
    return ()
  ranks = {len(s) for s in ranked}
  if len(ranks) > 1:
    raise TypeError(f"{name}: arrays must have the same number of dimensions, got "
                    f"{{{', '.join(str(r) for r in sorted(ranks))}}}")
  out = []
  for dims in zip(*ranked):
    sizes = {d for d in dims if d != 1}
    if len(sizes) > 1:
      raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                      f"{', '.join(str(tuple(s)) for s in shapes)}.")
    out.append(sizes.pop() if sizes else 1)
  return tuple(out)


def weak_of(avals: Sequence[ShapedArray]) -> bool:
  return all(a.weak_type for a in avals)


DTYPE_CLASSES = {
    "float": dtypes.is_float,
    "complex": dtypes.is_complex,
    "inexact": dtypes.is_inexact,
    "int": lambda d: dtypes.is_integer(d),
    "signed": lambda d: dtypes.is_integer(d) and not dtypes.is_unsigned(d),
    "bool": lambda d: np.dtype(d) == np.bool_,
    "number": lambda d: dtypes.is_integer(d) or dtypes.is_inexact(d),
}


# The classes as NumPy's abstract scalar types name them (JAX's error messages do)
_NUMPY_NAMES = {"float": "floating", "complex": "complexfloating",
                "inexact": "floating, complexfloating", "int": "integer",
                "signed": "signedinteger", "bool": "bool", "number": "number"}


FLOAT0_ADVICE = (
    "float0s do not support any operations by design, because they are not compatible with "
    "non-trivial vector spaces. No implicit dtype conversion is done. You can use "
    "np.zeros_like(arr, dtype=np.float) to cast a float0 array to a regular zeros array. \n"
    "If you didn't expect to get a float0 you might have accidentally taken a gradient with "
    "respect to an integer argument.")


def dtype_checker(*classes: str) -> Callable:
  """``check(name, dtype, position=None)``: TypeError unless ``dtype`` is in one of the
  ``classes`` (the position of the operand is named for an n-ary operation)."""
  tests = [DTYPE_CLASSES[c] for c in classes]
  description = ", ".join(_NUMPY_NAMES[c] for c in classes)
  accepted: set = set()  # dtypes already checked (this runs for every traced operation)

  def check(name: str, dtype, position: int | None = None) -> None:
    if dtype in accepted:
      return
    if not any(t(dtype) for t in tests):
      at = "" if position is None else f" at position {position}"
      if dtype == dtypes.float0:
        raise TypeError(f"Called {name} with a float0{' array' if position is None else at}. "
                        f"{FLOAT0_ADVICE}")
      raise TypeError(f"{name} does not accept dtype {dtype_name(dtype)}{at}. "
                      f"Accepted dtypes{at} are subtypes of {description}.")
    accepted.add(dtype)
  return check


any_dtype = lambda name, dtype, position=None: None
