"""Behaviours pinned by the differential sweep of less-used NumPy API (uncovered_api):
fromfunction's per-element vmap, place under tracing, compress/extract size checks,
column_stack of scalars, unique_values' NaNs, flip of 0-d arrays, the window functions'
exact bits and M handling, and loading bfloat16 .npy files. Expected numbers come from
JAX 0.10.2 (literal values or float32 bit patterns) or from NumPy."""
import io

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check, check_exact

X = np.array([1., 2., 3., 4., 5., 6.], np.float32)
B = X > 2.5
M = np.arange(12., dtype=np.float32).reshape(3, 4) - 5


def _bits(words):
  return np.array([int(w, 16) for w in words], np.uint32).view(np.float32)


# ---- fromfunction: the function sees one scalar index per dimension ----

def test_fromfunction_calls_the_function_per_element():
  check_exact(jnp.fromfunction(lambda a, c: jnp.sum(a) + c, (2, 3)),
              [[0, 1, 2], [1, 2, 3]], np.float32)
  check_exact(jnp.fromfunction(lambda a, c: jnp.zeros_like(a) + a.ndim, (2, 3), dtype=int),
              np.zeros((2, 3)), np.int32)
  check_exact(jnp.fromfunction(lambda a: (a + 1) * jnp.arange(3), (2,)),
              [[0, 1, 2], [0, 2, 4]], np.float32)
  plus, times = jnp.fromfunction(lambda a, c: (a + c, a * c), (2, 3))
  check_exact(plus, np.fromfunction(lambda a, c: a + c, (2, 3)), np.float32)
  check_exact(times, np.fromfunction(lambda a, c: a * c, (2, 3)), np.float32)
  check_exact(jnp.fromfunction(lambda a, c: 1, (2, 3)), np.ones((2, 3)), np.int32, weak=True)
  check_exact(jnp.fromfunction(lambda a, c: a + c, (2, 3), dtype=jnp.uint8),
              [[0, 1, 2], [1, 2, 3]], np.uint8)
  assert jnp.fromfunction(lambda a, c: a + c, (-1, 3)).shape == (0, 3)


def test_fromfunction_maps_keyword_arguments_and_checks_the_shape():
  with pytest.raises(ValueError):  # a scalar keyword cannot be mapped over axis 0
    jnp.fromfunction(lambda a, c, k=1: a + c * k, (2, 3), k=2)
  with pytest.raises(TypeError):
    jnp.fromfunction(lambda a, c: a + c, (2.5, 3))


def test_fromfunction_under_transformations():
  f = lambda s: jnp.fromfunction(lambda a, c: a * s + c, (2, 3))
  check_exact(xjax.jit(f)(2.), [[0, 1, 2], [2, 3, 4]], np.float32)
  check_exact(xjax.vmap(f)(np.arange(2.)), [[[0, 1, 2], [0, 1, 2]], [[0, 1, 2], [1, 2, 3]]],
              np.float32)
  check_exact(xjax.grad(lambda s: f(s).sum())(2.), 3., np.float32, weak=True)


# ---- place: traceable, with JAX's errors ----

def test_place_values_and_errors():
  check_exact(jnp.place(X, B, np.float32([7, 8, 9, 10, 11, 12, 13]), inplace=False),
              [1, 2, 7, 8, 9, 10], np.float32)
  check_exact(jnp.place(M, (M > 0).ravel(), np.float32([1, 2]), inplace=False),
              [[-5, -4, -3, -2], [-1, 0, 1, 2], [1, 2, 1, 2]], np.float32)
  check_exact(jnp.place(np.arange(6, dtype=np.uint8), B, 300, inplace=False),
              [0, 1, 44, 44, 44, 44], np.uint8)
  with pytest.raises(ValueError, match="empty array"):
    jnp.place(X, B, jnp.array([]), inplace=False)
  with pytest.raises(ValueError, match="same size"):
    jnp.place(X, B[:3], 1., inplace=False)
  with pytest.raises(TypeError):
    jnp.place(X, [True] * 6, 1., inplace=False)


def test_place_under_transformations():
  f = lambda a, c: jnp.place(a, c, -1., inplace=False)
  check_exact(xjax.jit(f)(X, B), [1, 2, -1, -1, -1, -1], np.float32)
  check_exact(xjax.vmap(f)(M, M > 0), [[-5, -4, -3, -2], [-1, 0, -1, -1], [-1, -1, -1, -1]],
              np.float32)
  g = lambda v: (jnp.place(X, B, v, inplace=False) * X).sum()
  check_exact(xjax.grad(g)(np.float32([1, 2])), [8, 10], np.float32)
  check_exact(xjax.grad(g)(1.), 18., np.float32, weak=True)


# ---- compress / extract: JAX's size checks ----

def test_compress_size_must_fit_the_axis():
  for size in (7, -1):
    with pytest.raises(ValueError, match="size must be positive"):
      jnp.compress(B, X, size=size)
  with pytest.raises(ValueError, match="a.shape.axis.=3"):  # a cut to the condition's length
    jnp.compress(np.array([True, False, True]), X, size=4)
  with pytest.raises(ValueError, match="size must be positive"):
    jnp.extract(B, X, size=7)
  with pytest.raises(ValueError, match="size must be positive"):
    jnp.extract(M > 0, M, size=13)
  with pytest.raises(TypeError):
    jnp.compress(B, X, size=2.0)


def test_compress_values():
  long_cond = np.array([True, False, True, False, False, False, True])
  check_exact(jnp.compress(long_cond, X, size=2), [1, 3], np.float32)  # extras ignored
  with pytest.raises(ValueError, match="out of bounds"):
    jnp.compress(long_cond, X)
  check_exact(jnp.compress(np.array([True, False, True]), X, size=3), [1, 3, 0], np.float32)
  check_exact(jnp.compress(np.array([1, 0, 1, 0]), M, axis=-1, size=3, fill_value=9.5),
              [[-5, -3, 9.5], [-1, 1, 9.5], [3, 5, 9.5]], np.float32)
  check_exact(jnp.compress(B, np.arange(6, dtype=np.uint8), size=5, fill_value=-1),
              [2, 3, 4, 5, 255], np.uint8)
  check_exact(jnp.compress(np.array([True]), 3), [3], np.int32, weak=True)
  check_exact(jnp.compress(np.array([True, True]), 3., size=1), [3], np.float32)
  check_exact(jnp.extract(B, X, size=3, fill_value=-2), [3, 4, 5], np.float32)
  with pytest.raises(TypeError):
    jnp.extract(B, X, fill_value=[1])


def test_compress_under_transformations():
  with pytest.raises(xjax.errors.TracerBoolConversionError):
    xjax.jit(lambda c, a: jnp.compress(c, a))(B, X)
  with pytest.raises(xjax.errors.TracerBoolConversionError):
    xjax.jit(lambda c, a: jnp.extract(c, a))(B, X)
  with pytest.raises(ValueError, match="size must be positive"):
    xjax.jit(lambda c, a: jnp.compress(c, a, size=7))(B, X)
  check_exact(xjax.jit(lambda c, a: jnp.compress(c, a, size=3, fill_value=-1))(B, X),
              [3, 4, 5], np.float32)
  check_exact(xjax.vmap(lambda c, a: jnp.compress(c, a, size=3))(M > 0, M),
              [[0, 0, 0], [1, 2, 0], [3, 4, 5]], np.float32)
  check_exact(xjax.grad(lambda a: (jnp.compress(B, a, size=5) * jnp.arange(5.)).sum())(X),
              [0, 0, 0, 1, 2, 3], np.float32)


# ---- column_stack: 0-d inputs and an array argument ----

def test_column_stack_scalars_and_arrays():
  check_exact(jnp.column_stack([1., 2.]), [[1, 2]], np.float32, weak=True)
  check_exact(jnp.column_stack([1, 2, 3]), [[1, 2, 3]], np.int32, weak=True)
  check_exact(jnp.column_stack([1, X[:1]]), [[1, 1]], np.float32)
  check_exact(jnp.column_stack(jnp.arange(3.)), [[0, 1, 2]], np.float32)
  check_exact(jnp.column_stack(M[:2, :3]), np.column_stack(M[:2, :3]), np.float32)
  check_exact(xjax.jit(jnp.column_stack)(M), np.column_stack(M), np.float32)
  with pytest.raises(ValueError):
    jnp.column_stack(jnp.float32(1))
  with pytest.raises(ValueError):
    jnp.vstack(jnp.float32(1))


# ---- unique_values keeps every NaN (Array API) ----

def test_unique_values_nans():
  check_exact(jnp.unique_values(np.float32([3, 1, 3, np.nan, np.nan])), [1, 3, np.nan, np.nan],
              np.float32)
  check_exact(jnp.unique_values(np.float32([np.nan, np.nan, 1]), size=4, fill_value=0.),
              [1, np.nan, np.nan, 0], np.float32)
  check_exact(xjax.jit(lambda a: jnp.unique_values(a, size=4, fill_value=0.))(
      np.float32([np.nan, 2, np.nan, 1])), [1, 2, np.nan, np.nan], np.float32)
  check_exact(jnp.unique(np.float32([np.nan, np.nan, 1])), [1, np.nan], np.float32)


# ---- flip of a 0-d array ----

def test_flip_scalar_axis_is_out_of_bounds():
  for f in (lambda: jnp.flip(3., 0), lambda: jnp.flipud(3.), lambda: jnp.flip(3., -1),
            lambda: xjax.jit(lambda a: jnp.flip(a, 0))(3.)):
    with pytest.raises(ValueError, match="out of bounds"):
      f()
  check_exact(jnp.flip(3.), 3., np.float32, weak=True)


# ---- window functions: JAX's bits, JAX's M handling ----

WINDOW_BITS = {
    "hanning(17)": ["00000000", "3d1be510", "3e15f61a", "3e9e0876", "3f000000", "3f30fbc6",
                    "3f5a827a", "3f7641b0", "3f800000", "3f7641af", "3f5a8278", "3f30fbc3",
                    "3f000000", "3e9e0872", "3e15f612", "3d1be508", "00000000"],
    "blackman(16)": ["b2800000", "3c89477a", "3d9dd824", "3e4d96af", "3ec9bc01", "3f2147b0",
                     "3f596722", "3f7b6eac", "3f7b6eaa", "3f59671f", "3f2147a8", "3ec9bbf4",
                     "3e4d96ac", "3d9dd810", "3c894756", "b2800000"],
    "hamming(11)": ["3da3d70c", "3e2be172", "3ecbb349", "3f2ea13e", "3f698286", "3f800000",
                    "3f698285", "3f2ea13b", "3ecbb346", "3e2be174", "3da3d70c"],
    "hanning(6)": ["00000000", "3eb0e444", "3f678ddf", "3f678dde", "3eb0e441", "00000000"],
    "hamming(6)": ["3da3d70c", "3ecbb349", "3f698286", "3f698285", "3ecbb346", "3da3d70c"],
    "blackman(7)": ["b2800000", "3e051eb8", "3f2147ae", "3f7fffff", "3f2147ad", "3e051eaf",
                    "b2800000"],
    "kaiser(9, 8.6)": ["3aaea7be", "3d8a2ecc", "3eae4814", "3f4619b2", "3f800000", "3f4619b2",
                       "3eae4814", "3d8a2ecc", "3aaea7be"],
    "bartlett(3.7)": ["00000000", "3f800000", "00000000"],
    "hanning(4.0)": ["00000000", "3f400000", "3f3fffff", "00000000"],
    "blackman(5.5)": ["b2800000", "3eae147c", "3f7fffff", "3eae147a", "b2800000"],
}


# Under jit the arithmetic is fused, and JAX's bits differ from its eager ones.
JIT_WINDOW_BITS = {
    "hamming(11)": ["3da3d70c", "3e2be172", "3ecbb349", "3f2ea13e", "3f698286", "3f800000",
                    "3f698285", "3f2ea13e", "3ecbb346", "3e2be16a", "3da3d70c"],
    "blackman(7)": ["b2800000", "3e051eb8", "3f2147ae", "3f7fffff", "3f2147ad", "3e051eba",
                    "b2800000"],
    "hanning(6)": WINDOW_BITS["hanning(6)"],
}


@pytest.mark.parametrize("expr", sorted(WINDOW_BITS))
def test_window_bits(expr):
  check_exact(eval("jnp." + expr), _bits(WINDOW_BITS[expr]), np.float32)


@pytest.mark.parametrize("expr", sorted(JIT_WINDOW_BITS))
def test_window_bits_under_jit(expr):
  check_exact(xjax.jit(lambda: eval("jnp." + expr))(), _bits(JIT_WINDOW_BITS[expr]),
              np.float32)


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
def test_window_lengths(name):
  fn = getattr(jnp, name)
  for m in (0, 1, 2, 6, 9):
    check(fn(m), getattr(np, name)(m), np.float32)  # NumPy as the oracle
  with pytest.raises(TypeError):
    fn(-1)
  with pytest.raises(xjax.errors.ConcretizationTypeError):
    xjax.jit(fn)(5)


def test_kaiser_beta_and_transformations():
  with pytest.raises(TypeError):
    jnp.kaiser(-1, 2.)
  check(jnp.kaiser(9, 3), np.kaiser(9, 3), np.float32)
  check_exact(xjax.vmap(lambda b: jnp.kaiser(5, b))(np.float32([1, 3])),
              _bits(["3f4a3381", "3f71edb0", "3f800000", "3f71edb0", "3f4a3381",
                     "3e51cd51", "3f3a17c9", "3f800000", "3f3a17c9", "3e51cd51"]).reshape(2, 5),
              np.float32)
  check_exact(xjax.grad(lambda b: jnp.kaiser(7, b).sum())(3.), _bits(["bf39fb4c"])[0],
              np.float32, weak=True)


# ---- load: bfloat16 .npy data ----

def _saved(array, save=np.save):
  f = io.BytesIO()
  save(f, array)
  f.seek(0)
  return f


def test_load_bfloat16_npy():
  data = np.asarray(M, jnp.bfloat16)
  for f in (_saved(data), _saved(jnp.asarray(data), jnp.save)):
    got = jnp.load(f)
    assert isinstance(got, jnp.ndarray)
    check_exact(got, M, jnp.bfloat16)
  strings = jnp.load(_saved(np.array(["ab", "c"])))
  assert type(strings) is np.ndarray and strings.dtype == np.dtype("<U2")
  check_exact(jnp.load(_saved(np.array([1, 2], np.int64))), [1, 2], np.int32)


def test_moveaxis_of_a_0d_array_is_a_value_error():
  with pytest.raises(ValueError, match="axis 0 is out of bounds for array of dimension 0"):
    jnp.moveaxis(jnp.array(3.), 0, 0)
  with pytest.raises(ValueError, match="out of bounds for array of dimension 0"):
    jnp.compress(jnp.array([True]), 3., axis=0)


def test_put_modes_as_jax():
  a = jnp.zeros(5)
  with pytest.raises(NotImplementedError, match="The 'raise' mode to jnp.put is not supported"):
    jnp.put(a, jnp.array([1]), 1., mode="raise", inplace=False)
  for mode in ("fill", "drop", "bogus"):
    with pytest.raises(ValueError, match="mode should be one of 'wrap' or 'clip'"):
      jnp.put(a, jnp.array([1]), 1., mode=mode, inplace=False)
  assert jnp.put(a, jnp.array([1, 7]), jnp.array([1., 2.]), mode="wrap",
                 inplace=False).tolist() == [0., 1., 2., 0., 0.]
  assert jnp.put(a, jnp.array([1, 7]), jnp.array([1., 2.]), inplace=False).tolist() == [
      0., 1., 0., 0., 2.]
