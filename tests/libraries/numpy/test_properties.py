"""Property-based tests (hypothesis) of broadcasting, promotion, indexing, reductions and
shape round trips, each against NumPy, with dtypes following JAX's promotion table."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import xjax
import xjax.numpy as jnp
from xjax._src.core.values import get_aval

from tests.checking import check
from tests.foundations.test_dtypes import COLUMNS, PAIR_TABLES, parse

DIMS = st.integers(0, 3)
DTYPES = [np.dtype(t) for t in ("bool", "int8", "uint8", "int32", "float16", "float32")]
CODE_DTYPE = {"b1": "bool", "u1": "uint8", "u2": "uint16", "u4": "uint32", "i1": "int8",
              "i2": "int16", "i4": "int32", "bf": "bfloat16", "f2": "float16", "f4": "float32",
              "c8": "complex64"}
TABLE = parse(PAIR_TABLES[(False, "standard")])
FAST = settings(max_examples=60, deadline=None)


def _column(x):
  """The promotion-table column index of an operand: its dtype's, or its Python type's."""
  if isinstance(x, (int, float)):  # by position: np.dtype("int64") == int
    return len(COLUMNS) - 3 + (type(x) is float)
  return COLUMNS.index(np.result_type(x))


def table_result(a, b):
  """(dtype, weak) of ``result_type(a, b)`` read off the JAX table."""
  code = TABLE[_column(a)][_column(b)]
  return np.dtype(CODE_DTYPE[code.rstrip("*")]), code.endswith("*")


def values(dtype, shape):
  """Small values of ``dtype`` (exactly representable, no overflow in one op)."""
  if dtype == np.bool_:
    return st.lists(st.booleans(), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))
                    ).map(lambda v: np.array(v, bool).reshape(shape))
  lo = 0 if dtype == np.uint8 else -5
  return st.lists(st.integers(lo, 5), min_size=int(np.prod(shape)),
                  max_size=int(np.prod(shape))).map(
                      lambda v: (np.array(v) / (2 if dtype.kind == "f" else 1)).astype(dtype)
                      .reshape(shape))


@st.composite
def arrays(draw, shape=None, dtypes=DTYPES, min_ndim=0):
  if shape is None:
    shape = tuple(draw(st.lists(DIMS, min_size=min_ndim, max_size=3)))
  return draw(values(draw(st.sampled_from(dtypes)), shape))


@st.composite
def broadcastable_operands(draw, n):
  """``n`` operands (arrays or Python scalars) whose shapes broadcast together."""
  base = draw(st.lists(DIMS, max_size=3))
  out = []
  for _ in range(n):
    kind = draw(st.sampled_from(["array", "array", "array", "int", "float"]))
    if kind == "int":
      out.append(draw(st.integers(-3, 3)))
    elif kind == "float":
      out.append(draw(st.sampled_from([0.5, -1.5, 2.0])))
    else:
      shape = base[draw(st.integers(0, len(base))):]
      shape = tuple(1 if draw(st.booleans()) else d for d in shape)
      out.append(draw(arrays(shape)))
  return out


def _as_np(x, dtype):
  return np.asarray(x).astype(dtype)


def _tolerance(dtype) -> dict:
  """Floats within 1e-3 (the orders of summation differ), other types exactly."""
  return dict(rtol=1e-3 if dtype.kind == "f" else 0, atol=0)


BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
          "maximum": np.maximum, "equal": np.equal, "greater_equal": np.greater_equal,
          "less": np.less}


@FAST
@given(st.sampled_from(sorted(BINARY)), broadcastable_operands(2))
def test_binary_broadcasting_and_promotion(name, operands):
  a, b = operands
  dtype = jnp.result_type(a, b)
  table_dtype, table_weak = table_result(a, b)
  assert dtype == table_dtype
  if name == "subtract" and dtype == np.bool_:
    with pytest.raises(TypeError):
      jnp.subtract(a, b)
    return
  got = getattr(jnp, name)(a, b)
  want = BINARY[name](_as_np(a, dtype), _as_np(b, dtype))
  if name in ("equal", "greater_equal", "less"):
    check(got, want, np.dtype(bool), rtol=0, atol=0)
  else:
    check(got, want, dtype, **_tolerance(dtype))
    assert get_aval(got).weak_type == table_weak


@FAST
@given(broadcastable_operands(3))
def test_where_broadcasting_and_promotion(operands):
  c, a, b = operands
  dtype = jnp.result_type(a, b)
  assert dtype == table_result(a, b)[0]
  got = jnp.where(c, a, b)
  want = np.where(np.asarray(c).astype(bool), _as_np(a, dtype), _as_np(b, dtype))
  check(got, want, dtype, **_tolerance(dtype))


# ---------------------------------------------------------------------------- indexing

@st.composite
def index_cases(draw, allow_bool):
  shape = tuple(draw(st.lists(DIMS, min_size=1, max_size=3)))
  x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
  if allow_bool and draw(st.integers(0, 3)) == 0:  # one boolean mask over leading axes
    k = draw(st.integers(1, len(shape)))
    mask = draw(values(np.dtype(bool), shape[:k]))
    return x, (mask,) if draw(st.booleans()) else (mask, Ellipsis)
  adv_shape = draw(st.sampled_from([(2,), (1,), (2, 1), ()]))
  idx, ellipsis_used = [], False
  for d in shape:
    if not ellipsis_used and draw(st.integers(0, 5)) == 0:
      idx.append(Ellipsis)
      ellipsis_used = True
      break
    if draw(st.integers(0, 6)) == 0:
      idx.append(None)
    kind = draw(st.sampled_from(["int", "slice", "slice", "array"] if d else ["slice"]))
    if kind == "int":
      idx.append(draw(st.integers(-d, d - 1)))
    elif kind == "array":
      n = int(np.prod(adv_shape))
      idx.append(np.array(draw(st.lists(st.integers(-d, d - 1), min_size=n, max_size=n)),
                          np.int32).reshape(adv_shape))
    else:
      bound = st.none() | st.integers(-4, 4)
      idx.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, -1, -2]))))
  if draw(st.booleans()):
    idx = idx[:draw(st.integers(0, len(idx)))]
  return x, tuple(idx)


@settings(max_examples=80, deadline=None)
@given(index_cases(allow_bool=True))
def test_indexing_matches_numpy_eagerly(case):
  x, idx = case
  want = x[idx]
  got = jnp.asarray(x)[idx]
  assert got.shape == want.shape
  np.testing.assert_array_equal(np.asarray(got), want)


@settings(max_examples=60, deadline=None)
@given(index_cases(allow_bool=False))
def test_indexing_matches_numpy_under_jit(case):
  x, idx = case
  arrays_at = [i for i, v in enumerate(idx) if isinstance(v, np.ndarray)]

  def f(x, *arrs):
    full = list(idx)
    for i, a in zip(arrays_at, arrs):
      full[i] = a
    return x[tuple(full)]

  got = xjax.jit(f)(x, *[idx[i] for i in arrays_at])
  np.testing.assert_array_equal(np.asarray(got), x[idx])


# -------------------------------------------------------------------------- reductions

RED_DTYPES = [np.dtype(t) for t in ("bool", "int32", "float32")]


@st.composite
def reduction_cases(draw):
  x = draw(arrays(dtypes=RED_DTYPES))
  nd = x.ndim
  axis = draw(st.none() | (st.integers(-nd, nd - 1) if nd else st.none())
              | st.lists(st.integers(0, max(nd - 1, 0)), unique=True, max_size=nd)
              .map(tuple))
  return x, axis, draw(st.booleans())


def _reduced_size(x, axis):
  axes = range(x.ndim) if axis is None else np.atleast_1d(axis)
  return int(np.prod([x.shape[a] for a in axes]))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["sum", "mean", "max", "min", "prod", "argmax"]), reduction_cases())
def test_reductions_match_numpy(name, case):
  x, axis, keepdims = case
  if name == "argmax" and isinstance(axis, tuple):
    axis = axis[0] if axis else None
  if name in ("max", "min", "argmax") and _reduced_size(x, axis) == 0:
    with pytest.raises(ValueError):
      getattr(jnp, name)(x, axis=axis, keepdims=keepdims)
    return
  if name == "mean" and _reduced_size(x, axis) == 0:
    return  # NaN with a NumPy warning; covered by the reduction tests
  got = getattr(jnp, name)(x, axis=axis, keepdims=keepdims)
  want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
  if name in ("sum", "prod"):
    dtype = np.dtype("float32" if x.dtype == np.float32 else "int32")
  elif name == "mean":
    dtype = np.dtype("float32")
  elif name == "argmax":
    dtype = np.dtype("int32")
  else:
    dtype = x.dtype
  check(got, np.asarray(want).astype(dtype), dtype, **_tolerance(dtype))


# ------------------------------------------------------------------------- round trips

@FAST
@given(arrays(dtypes=[np.dtype("float32")]), st.randoms(use_true_random=False))
def test_reshape_and_transpose_round_trips(x, rnd):
  perm = list(range(x.ndim))
  rnd.shuffle(perm)
  t = jnp.transpose(x, perm)
  np.testing.assert_array_equal(np.asarray(t), np.transpose(x, perm))
  np.testing.assert_array_equal(np.asarray(jnp.transpose(t, np.argsort(perm))), x)
  flat = jnp.reshape(x, (-1,))
  np.testing.assert_array_equal(np.asarray(flat), x.reshape(-1))
  shape2 = (x.size, 1) if x.size else (0, 2)
  np.testing.assert_array_equal(np.asarray(jnp.reshape(jnp.reshape(x, shape2), x.shape)), x)


@FAST
@given(arrays(dtypes=[np.dtype("int32")], min_ndim=1), st.data())
def test_concatenate_and_stack_round_trips(x, data):
  axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
  n = x.shape[axis]
  cut = data.draw(st.integers(0, n))
  parts = np.split(x, [cut], axis=axis)
  got = jnp.concatenate([jnp.asarray(p) for p in parts], axis=axis)
  np.testing.assert_array_equal(np.asarray(got), x)
  k = data.draw(st.integers(-x.ndim - 1, x.ndim))
  stacked = jnp.stack([x, x + 1], axis=k)
  np.testing.assert_array_equal(np.asarray(stacked), np.stack([x, x + 1], axis=k))
  np.testing.assert_array_equal(np.asarray(jnp.take(stacked, 1, axis=k)), x + 1)
