"""``check_grads`` and the helpers behind it, with JAX's semantics (``jax.test_util`` and the
``jax._src.public_test_util`` that libraries' tests import): derivatives are checked along
one random direction against central differences, within per-dtype tolerances that scale
with the array's size, so a test passes or fails here as it does on JAX."""
from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Sequence

import ml_dtypes
import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.tree_util import tree_map, tree_reduce
from xjax._src.api.transformations import jvp, linearize, vjp

EPS = 1e-4

ToleranceDict = dict  # {np.dtype: int | float}

_LOW_PRECISION = {ml_dtypes.float8_e3m4: 1e-1, ml_dtypes.float8_e4m3: 1e-1,
                  ml_dtypes.float8_e4m3b11fnuz: 1e-1, ml_dtypes.float8_e4m3fn: 1e-1,
                  ml_dtypes.float8_e4m3fnuz: 1e-1, ml_dtypes.float8_e5m2: 1e-1,
                  ml_dtypes.float8_e5m2fnuz: 1e-1, ml_dtypes.float4_e2m1fn: 1e0,
                  ml_dtypes.float8_e8m0fnu: 1e0}
_INTEGERS = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
             np.uint64, ml_dtypes.int2, ml_dtypes.int4, ml_dtypes.uint2, ml_dtypes.uint4]

_default_tolerance: ToleranceDict = {
    np.dtype(dtypes.float0): 0, **{np.dtype(t): 0 for t in _INTEGERS},
    **{np.dtype(t): v for t, v in _LOW_PRECISION.items()},
    np.dtype(ml_dtypes.bfloat16): 1e-2, np.dtype(np.float16): 1e-3,
    np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-15,
    np.dtype(np.complex64): 1e-6, np.dtype(np.complex128): 1e-15}

default_gradient_tolerance: ToleranceDict = {
    **{np.dtype(t): v for t, v in _LOW_PRECISION.items()},
    np.dtype(ml_dtypes.bfloat16): 1e-1, np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 2e-3, np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5}


def default_tolerance() -> ToleranceDict:
  """The per-dtype tolerance ``check_close`` uses when none is given."""
  return _default_tolerance


def is_python_scalar(val: Any) -> bool:
  return not isinstance(val, np.generic) and isinstance(val, (bool, int, float, complex))


def _dtype(x) -> np.dtype:
  if hasattr(x, "dtype"):
    return x.dtype
  python = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64),
            complex: np.dtype(np.complex128)}.get(type(x))
  return python if python is not None else np.asarray(x).dtype


def tolerance(dtype, tol=None):
  """``tol`` itself when it is a number, else its entry for ``dtype`` (a dict), falling back
  to the default tolerance of ``dtype`` (canonicalized: float64 is float32 without x64)."""
  tol = {} if tol is None else tol
  if not isinstance(tol, dict):
    return tol
  tol = {np.dtype(key): value for key, value in tol.items()}
  dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
  return tol.get(dtype, default_tolerance()[dtype])


def _assert_numpy_allclose(a, b, atol=None, rtol=None, err_msg=""):
  if a.dtype == b.dtype == dtypes.float0:
    np.testing.assert_array_equal(a, b, err_msg=err_msg)
    return

  def upcast(x):  # NumPy cannot compare ml_dtypes' floats and small integers
    if x.dtype in (*map(np.dtype, _LOW_PRECISION), np.dtype(ml_dtypes.bfloat16)):
      return x.astype(np.float32)
    if x.dtype in map(np.dtype, (ml_dtypes.int2, ml_dtypes.int4)):
      return x.astype(np.int8)
    if x.dtype in map(np.dtype, (ml_dtypes.uint2, ml_dtypes.uint4)):
      return x.astype(np.uint8)
    return x

  kw = {k: v for k, v in (("atol", atol), ("rtol", rtol)) if v}
  with np.errstate(invalid="ignore"):
    np.testing.assert_allclose(upcast(a), upcast(b), **kw, err_msg=err_msg)


def _assert_numpy_close(a, b, atol=None, rtol=None, err_msg=""):
  a, b = np.asarray(a), np.asarray(b)
  assert a.shape == b.shape
  atol = max(tolerance(a.dtype, atol), tolerance(b.dtype, atol))
  rtol = max(tolerance(a.dtype, rtol), tolerance(b.dtype, rtol))
  _assert_numpy_allclose(a, b, atol=atol * a.size, rtol=rtol * b.size, err_msg=err_msg)


def check_close(xs, ys, atol=None, rtol=None, err_msg=""):
  """Asserts that the trees ``xs`` and ``ys`` are close leaf by leaf (tolerances per dtype,
  multiplied by the leaf's size)."""
  tree_map(functools.partial(_assert_numpy_close, atol=atol, rtol=rtol, err_msg=err_msg),
           xs, ys)


def _check_dtypes_match(xs, ys):
  def same(x, y):
    assert dtypes.canonicalize_dtype(_dtype(x)) == dtypes.canonicalize_dtype(_dtype(y))
  tree_map(same, xs, ys)


def inner_prod(xs, ys):
  """The real part of the sum of the leaves' inner products."""
  def contract(x, y):
    return np.real(np.dot(np.conj(x).reshape(-1), y.reshape(-1)))
  return tree_reduce(np.add, tree_map(contract, xs, ys))


def _safe_subtract(x, y, *, dtype):
  with np.errstate(invalid="ignore"):  # (inf - inf is 0 here)
    return np.where(np.equal(x, y), np.array(0, dtype), np.subtract(x, y, dtype=dtype))


def _preserve_input_types(f):
  def wrapped(*args):
    result = np.array(f(*args), dtype=_dtype(args[0]))
    return result.item() if all(is_python_scalar(a) for a in args) else result
  return wrapped


add = functools.partial(tree_map, _preserve_input_types(operator.add))
sub = functools.partial(tree_map, _preserve_input_types(operator.sub))
safe_sub = functools.partial(tree_map, lambda x, y: _safe_subtract(x, y, dtype=_dtype(x)))
conj = functools.partial(tree_map, _preserve_input_types(np.conj))


def scalar_mul(xs, a):
  def mul(x):
    dtype = _dtype(x)
    result = np.multiply(x, np.array(a, dtype=dtype), dtype=dtype)
    return result.item() if is_python_scalar(x) else result
  return tree_map(mul, xs)


def rand_like(rng, x):
  """Standard normal values of ``x``'s shape and dtype from ``rng`` (a RandomState)."""
  shape, dtype = np.shape(x), _dtype(x)
  randn = lambda: np.asarray(rng.randn(*shape), dtype=dtype)
  if np.issubdtype(dtype, np.complexfloating):
    result = randn() + dtype.type(1.0j) * randn()
  else:
    result = randn()
  return result.item() if is_python_scalar(x) else result


def numerical_jvp(f, primals, tangents, eps=EPS):
  """The central difference of ``f`` at ``primals`` along ``tangents``."""
  delta = scalar_mul(tangents, eps)
  f_pos = f(*add(primals, delta))
  f_neg = f(*sub(primals, delta))
  return scalar_mul(safe_sub(f_pos, f_neg), 0.5 / eps)


def _merge_tolerance(tol, default):
  if tol is None:
    return default
  if not isinstance(tol, dict):
    return tol
  out = default.copy()
  out.update({np.dtype(k): v for k, v in tol.items()})
  return out


def check_jvp(f: Callable, f_jvp: Callable, args, atol=None, rtol=None, eps=EPS,
              err_msg: str = "") -> None:
  """``f_jvp(args, tangents)`` (e.g. ``partial(jax.jvp, f)``) against central differences
  of ``f`` along one random direction."""
  atol = _merge_tolerance(atol, default_gradient_tolerance)
  rtol = _merge_tolerance(rtol, default_gradient_tolerance)
  tangent = tree_map(functools.partial(rand_like, np.random.RandomState(0)), args)
  v_out, t_out = f_jvp(args, tangent)
  _check_dtypes_match(v_out, t_out)
  v_out_expected = f(*args)
  _check_dtypes_match(v_out, v_out_expected)
  t_out_expected = numerical_jvp(f, args, tangent, eps=eps)
  check_close(v_out, v_out_expected, atol=atol, rtol=rtol,
              err_msg=f"{err_msg} primal" if err_msg else "primal")
  check_close(t_out, t_out_expected, atol=atol, rtol=rtol,
              err_msg=f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f: Callable, f_vjp: Callable, args, atol=None, rtol=None, eps=EPS,
              err_msg: str = "") -> None:
  """``f_vjp(*args)`` (e.g. ``partial(jax.vjp, f)``) against central differences of ``f``:
  ``<J^T u, v>`` from the pullback equals ``<u, J v>`` for random ``u`` and ``v``."""
  atol = _merge_tolerance(atol, default_gradient_tolerance)
  rtol = _merge_tolerance(rtol, default_gradient_tolerance)
  rand = functools.partial(rand_like, np.random.RandomState(0))
  v_out, vjpfun = f_vjp(*args)
  v_out_expected = f(*args)
  check_close(v_out, v_out_expected, atol=atol, rtol=rtol,
              err_msg=f"{err_msg} primal" if err_msg else "primal")
  tangent = tree_map(rand, args)
  tangent_out = numerical_jvp(f, args, tangent, eps=eps)
  cotangent = tree_map(rand, v_out)
  cotangent_out = conj(vjpfun(conj(cotangent)))
  check_close(inner_prod(tangent, cotangent_out), inner_prod(tangent_out, cotangent),
              atol=atol, rtol=rtol,
              err_msg=f"{err_msg} cotangent projection" if err_msg else "cotangent projection")


def _jvp_from_lin(f, primals, tangents):
  primal_out, f_lin = linearize(f, *primals)
  return primal_out, f_lin(*tangents)


def check_grads(f: Callable, args: Sequence, order: int, modes=("fwd", "rev"), atol=None,
                rtol=None, eps=None) -> None:
  """Checks ``f``'s derivatives at ``args`` up to ``order`` against finite differences, in
  ``modes`` ("fwd": jvp, "rev": vjp, "lin": linearize), each along one random direction."""
  args = tuple(args)
  eps = eps or EPS
  _check_jvp = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
  _check_vjp = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

  def _check_grads(f, args, order, err_msg=""):
    if "fwd" in modes:
      fwd_msg = f"JVP of {err_msg}" if err_msg else "JVP"
      _check_jvp(f, functools.partial(jvp, f), args, err_msg=fwd_msg)
      if order > 1:
        _check_grads(functools.partial(jvp, f), (args, args), order - 1, fwd_msg)
    if "rev" in modes:
      rev_msg = f"VJP of {err_msg}" if err_msg else "VJP"
      _check_vjp(f, functools.partial(vjp, f), args, err_msg=rev_msg)
      if order > 1:
        def f_vjp(*args):
          out, pullback = vjp(f, *args)
          return pullback(out)
        _check_grads(f_vjp, args, order - 1, rev_msg)
    if "lin" in modes:
      lin_msg = f"LIN of {err_msg}" if err_msg else "LIN"
      _check_jvp(f, functools.partial(_jvp_from_lin, f), args, err_msg=lin_msg)
      if order > 1:
        _check_grads(functools.partial(_jvp_from_lin, f), (args, args), order - 1, lin_msg)

  _check_grads(f, args, order)
