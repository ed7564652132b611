"""xjax.numpy's promotion of operands: to a common dtype (weak types respected) and,
NumPy-style, to a common rank."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.execution.array import Array, scalar_array
from xjax._src.interpreters.staging import staged_constant
from xjax._src.foundations.config import config
from xjax._src.foundations.errors import user_stacklevel
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.interpreters.ad import JVPTracer, has_concrete_primal
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.primitives.lax.elementwise import convert_element_type
from xjax._src.primitives.lax.shapes import broadcast_in_dim
from xjax._src.primitives.lax.shapes import broadcast_shapes


_ARRAY_TYPES = (Array, Tracer)
_PYTHON_SCALARS = frozenset((bool, int, float, complex))


def promote_dtypes(*args):
  """Converts args to arrays of their common JAX result dtype (weak types respected)."""
  return _to_common_type(args)


def promote_dtypes_inexact(*args):
  return _to_common_type(args, dtypes.to_inexact_dtype)


def promote_dtypes_numeric(*args):
  return _to_common_type(args, dtypes.to_numeric_dtype)


def promote_dtypes_complex(*args):
  return _to_common_type(args, dtypes.to_complex_dtype)


def _to_common_type(args, to_kind=None) -> list:
  """``args`` as arrays of their common dtype (adjusted by ``to_kind``) and weak type."""
  if not args:
    return []
  dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
  if to_kind is not None:
    dtype = to_kind(dtype)
  return [_convert(a, dtype, weak) for a in args]


def _convert(x, dtype, weak: bool):
  """``x`` as an array of ``dtype`` (weak if ``weak``): itself if it is one already, but
  for eager differentiation's tracers, whose tangents the conversion types as JAX's does
  (JAX skips a conversion to an operand's own type only for values not concrete)."""
  if (isinstance(x, _ARRAY_TYPES) and x.aval.dtype == dtype and x.aval.weak_type == weak
      and not (type(x) is JVPTracer and has_concrete_primal(x))):
    return x
  return convert_element_type(x, dtype, weak)


def promote_shapes(name: str, *args):
  """Lower-rank operands with leading 1s (NumPy rank promotion)."""
  if len(args) < 2:
    return list(args)
  shapes = [get_aval(a).shape for a in args]
  first = next((s for s in shapes if s), ())
  if all(s == first or not s for s in shapes):
    return list(args)
  nd = max(len(s) for s in shapes)
  if all(len(s) in (0, nd) for s in shapes):
    return list(args)  # equal ranks: the lax primitive checks the dimensions (TypeError)
  mode = config._read("jax_numpy_rank_promotion")
  if mode != "allow" and len({len(s) for s in shapes if s}) > 1:
    shown = " ".join(map(str, shapes))
    if mode == "raise":
      raise ValueError(
          f"Operands could not be broadcast together for {name} on shapes {shown} and with "
          "the config option jax_numpy_rank_promotion='raise'. For more information, see "
          "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
    import warnings
    warnings.warn(
        f"Following NumPy automatic rank promotion for {name} on shapes {shown}. Set the "
        "jax_numpy_rank_promotion config option to 'allow' to disable this warning; for "
        "more information, see https://docs.jax.dev/en/latest/rank_promotion_warning.html.",
        stacklevel=user_stacklevel())
  broadcast_shapes(*shapes)  # ValueError for incompatible dimensions, as jnp's
  return [a if len(s) in (0, nd) else  # leading 1s added by a broadcast_in_dim, as JAX
          broadcast_in_dim(a, (1,) * (nd - len(s)) + s, tuple(range(nd - len(s), nd)))
          for a, s in zip(args, shapes)]


def _arraylike_avals(name: str, args) -> list:
  avals = []
  for a in args:
    if isinstance(a, _ARRAY_TYPES):
      avals.append(a.aval)
    elif type(a) in _PYTHON_SCALARS:
      avals.append(get_aval(a))
    else:  # (the checks, and the arrays ``__jax_array__`` gives, in arguments.arraylike)
      return None
  return avals


def _with_python_scalar(args) -> list | None:
  """The promoted operands of a strongly typed float or complex array and a Python int or
  float (in either order): the scalar converted to the array's dtype -- the common case,
  worked out without the promotion lattice -- or None for other operands. (The conversion
  is ``convert_element_type``'s of a Python scalar, whose dtype checks an array's
  canonical float dtype does not need: the cached scalar, a literal inside ``jit``.)"""
  x, y = args
  if _small_scalar(y) and isinstance(x, _ARRAY_TYPES):
    aval = x.aval
    if aval.dtype.kind in "fc" and not aval.weak_type:
      return [x, staged_constant(scalar_array(y, aval.dtype, False))]
  elif _small_scalar(x) and isinstance(y, _ARRAY_TYPES):
    aval = y.aval
    if aval.dtype.kind in "fc" and not aval.weak_type:
      return [staged_constant(scalar_array(x, aval.dtype, False)), y]
  return None


def _small_scalar(x) -> bool:
  """A Python float, or an int that fits int32 (a larger one takes the checked path, which
  raises JAX's OverflowError where it does not fit the integer type)."""
  kind = type(x)
  return kind is float or (kind is int and -2**31 <= x < 2**31)


def _promote(name: str, args, to_kind=None) -> list:
  """Dtype promotion (weak types respected; ``to_kind`` may adjust the result dtype), then
  NumPy rank promotion.  Each argument's aval is computed once: this runs for every op."""
  if len(args) == 2 and to_kind is not dtypes.to_complex_dtype:  # (a float array's
    # dtype is its own inexact and numeric dtype, not its complex one)
    out = _with_python_scalar(args)
    if out is not None:
      return out
  avals = _arraylike_avals(name, args)
  if avals is None:
    args = arraylike(name, *args)
    avals = [get_aval(a) for a in args]
  if (len(avals) == 2 and avals[0].dtype == avals[1].dtype and not avals[0].weak_type
      and not avals[1].weak_type and isinstance(avals[0].dtype, np.dtype)):
    dtype, weak = avals[0].dtype, False  # (one strong type: its own join; weak ones are
    # not, as a weak boolean's join is the strong boolean)
  else:
    try:
      dtype, weak = dtypes.result_type(*avals, return_weak_type_flag=True)
    except ValueError:
      _check_no_float0s(name, avals)
      raise
  if dtype == dtypes.float0:
    _check_no_float0s(name, avals)
  if to_kind is not None:
    dtype = to_kind(dtype)
  out = [a if (v.dtype == dtype and v.weak_type == weak and type(a) is not JVPTracer)
         else _convert(a, dtype, weak) for a, v in zip(args, avals)]
  if len(out) < 2:
    return out
  first = next((v.shape for v in avals if v.shape), ())
  if all(v.shape == first or not v.shape for v in avals):
    return out
  return promote_shapes(name, *out)


def _check_no_float0s(name: str, avals) -> None:
  if any(v.dtype == dtypes.float0 for v in avals):
    raise TypeError(
        f"Called {name} with a float0 array. float0s do not support any operations by design "
        "because they are not compatible with non-trivial vector spaces. No implicit dtype "
        "conversion is done. You can use np.zeros_like(arr, dtype=np.float) to cast a float0 "
        "array to a regular zeros array. \nIf you didn't expect to get a float0 you might "
        "have accidentally taken a gradient with respect to an integer argument.")


def promote_args(name: str, *args):
  return _promote(name, args)


def promote_args_inexact(name: str, *args):
  if len(args) == 1 and isinstance(args[0], _ARRAY_TYPES) and dtypes.is_inexact(
      args[0].dtype):  # fast path: one floating array needs no promotion
    return list(args)
  return _promote(name, args, dtypes.to_inexact_dtype)


def promote_args_numeric(name: str, *args):
  return _promote(name, args, dtypes.to_numeric_dtype)


def promote_args_complex(name: str, *args):
  return _promote(name, args, dtypes.to_complex_dtype)


def weak_if_all(out, *args, promoted=()):
  """``out`` with the weak type JAX's functions give that compare or combine their promoted
  operands with constants of their own (``gcd``/``lcm``, ``logaddexp``/``logaddexp2``):
  weak when every one of ``args`` is (Python scalars, weak arrays), or when ``out`` is 0-d
  and the ``promoted`` operands are weak; a weak promotion against a stronger array operand
  gives a strong array (``gcd(bool_array, 3)``), ``gcd(True, 2)`` stays weak."""
  weak_of = lambda a: (get_aval(a).weak_type if isinstance(a, (Array, Tracer))
                       else dtypes.is_weakly_typed(a))
  aval = get_aval(out)
  weak = (aval.ndim == 0 and bool(promoted) and all(map(weak_of, promoted))) or all(
      map(weak_of, args))
  return out if aval.weak_type == weak else convert_element_type(out, aval.dtype, weak)
