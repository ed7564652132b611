"""NumPy-API names: set ops, NumPy 2 aliases, editing helpers, index tricks, windows,
vectorize and friends, checked against NumPy (values and dtypes) and under jit."""
import inspect
import re

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check

A = np.array([5, 1, 3, 3, 7], np.int32)
B = np.array([3, 4, 5, 9], np.int32)
F = np.array([[0.5, -1.25, 2.0], [3.0, 0.0, -0.75]], np.float32)


# ---- set operations ----

def test_set_ops_eager():
  check(jnp.isin(A, B), np.isin(A, B), np.bool_)
  check(jnp.isin(A, B, invert=True), np.isin(A, B, invert=True))
  check(jnp.union1d(A, B), np.union1d(A, B), np.int32)
  check(jnp.setdiff1d(A, B), np.setdiff1d(A, B), np.int32)
  check(jnp.setxor1d(A, B), np.setxor1d(A, B), np.int32)
  check(jnp.intersect1d(A, B), np.intersect1d(A, B), np.int32)
  for got, want in zip(jnp.intersect1d(A, B, return_indices=True),
                       np.intersect1d(A, B, return_indices=True)):
    check(got, want, np.int32)
  assert jnp.setdiff1d(np.array([1., 2.], np.float32), np.array([1])).dtype == np.float32
  assert jnp.intersect1d(A[:1], B[:1]).shape == (0,)        # empty results
  assert jnp.setxor1d(A[:1], A[:1]).shape == (0,)
  assert jnp.compress(np.array([0]), A[:1]).shape == (0,)


def test_setxor1d_keeps_a_nan_of_each_input_and_pads_as_jax():
  f = np.float32([3, 1, np.nan, 2, np.nan, 1])
  g = np.float32([2, np.nan, 5, np.nan])
  check(jnp.setxor1d(f, g), [1, 3, 5, np.nan, np.nan])       # JAX 0.10.2's values
  check(jnp.setxor1d(f, g, size=6), [1, 3, 5, np.nan, np.nan, np.nan])
  check(jnp.setxor1d(np.float32([1, 2]), np.float32([1, 3]), size=4), [2, 3, 2, 2])
  check(jnp.setxor1d(np.int32([5]), np.int32([5]), size=3), [0, 0, 0], np.int32)
  check(jnp.setxor1d(np.bool_([True, False]), np.bool_([True]), size=2), [False, False])


def test_set_ops_size_under_jit():
  f = xjax.jit(lambda a, b: (jnp.union1d(a, b, size=9), jnp.setdiff1d(a, b, size=4),
                             jnp.setxor1d(a, b, size=8, fill_value=-1),
                             jnp.intersect1d(a, b, size=3, return_indices=True)))
  union, diff, xor, (inter, i1, i2) = f(A, B)
  check(union, [1, 3, 4, 5, 7, 9, 1, 1, 1])   # padded with the first value
  check(diff, [1, 7, 0, 0])                    # padded with 0
  check(xor, [1, 4, 7, 9, -1, -1, -1, -1])
  check(inter, [3, 5, 3])
  check(i1, [2, 0, 5])
  check(i2, [0, 2, 4])


def test_unique_family():
  x = np.array([[2, 1, 7], [1, 0, 2]], np.int32)
  res = jnp.unique_all(x)
  want = np.unique_all(x)
  for got, w in zip(res, want):
    check(got, w)
  assert res.inverse_indices.shape == x.shape
  check(jnp.unique_counts(x).counts, np.unique_counts(x).counts, np.int32)
  check(jnp.unique_inverse(x).inverse_indices, np.unique_inverse(x).inverse_indices)
  out = xjax.jit(lambda v: jnp.unique_all(v, size=6))(x)
  check(out.values, [0, 1, 2, 7, 0, 0])
  check(out.indices, [4, 1, 0, 2, 4, 4])
  check(out.counts, [1, 2, 2, 1, 0, 0])
  check(out.inverse_indices, want.inverse_indices)


# ---- aliases, queries, elementwise extras ----

def test_numpy2_aliases():
  x = np.array([0.25, -0.5], np.float32)
  for name in ("acos", "asin", "atan", "asinh", "atanh"):
    check(getattr(jnp, name)(x), getattr(np, name)(x), np.float32)
  check(jnp.acosh(x + 2), np.acosh(x + 2))
  check(jnp.atan2(x, x[::-1]), np.atan2(x, x[::-1]))
  check(jnp.pow(x, 2), x ** 2)
  i = np.array([1, -8, 255], np.int32)
  check(jnp.bitwise_left_shift(i, 2), np.bitwise_left_shift(i, 2))
  check(jnp.bitwise_right_shift(i, 1), np.bitwise_right_shift(i, 1))
  check(jnp.bitwise_count(np.array([-3, 7], np.int8)), [2, 3], np.uint8)
  check(jnp.concat([F, F], axis=1), np.concat([F, F], axis=1))
  check(jnp.concat([F, F[0]], axis=None), np.concatenate([F.ravel(), F[0]]))
  check(jnp.permute_dims(F, (1, 0)), F.T)
  check(jnp.matrix_transpose(np.ones((2, 3, 4))), np.ones((2, 4, 3)))
  with pytest.raises(ValueError):
    jnp.matrix_transpose(np.ones(3))
  check(jnp.astype(F, np.int32), F.astype(np.int32), np.int32)
  check(jnp.copy(F), F)
  assert [np.asarray(u).tolist() for u in jnp.unstack(F, axis=1)] == F.T.tolist()
  v = np.array([1 + 2j, 3 - 1j], np.complex64)
  m = np.arange(6, dtype=np.complex64).reshape(2, 3)
  check(jnp.vecmat(v, m), np.einsum("i,ij->j", v.conj(), m))
  check(jnp.matvec(np.ones((4, 2, 3), np.float32), np.arange(3.)), np.full((4, 2), 3.))
  assert (jnp.ndim(F), jnp.shape(F), jnp.size(F), jnp.size(F, 1)) == (2, (2, 3), 6, 3)


def test_dtype_queries():
  assert jnp.isdtype(jnp.float32, "real floating") and jnp.isdtype(jnp.bfloat16, "real floating")
  assert jnp.isdtype(jnp.int32, ("bool", "integral")) and not jnp.isdtype(jnp.bool_, "numeric")
  assert jnp.can_cast(jnp.int8, jnp.float32) and not jnp.can_cast(jnp.float32, jnp.int32)
  assert jnp.isscalar(1) and jnp.isscalar(jnp.array(1.)) and not jnp.isscalar(jnp.ones(2))
  assert not jnp.isscalar([1]) and jnp.iterable([1]) and not jnp.iterable(1)
  assert jnp.iscomplexobj(1j) and not jnp.iscomplexobj(F) and jnp.isrealobj(F)
  # JAX's scalar types count by their dtype (optax's tests skip complex cases with it)
  assert jnp.iscomplexobj(jnp.complex64) and not jnp.iscomplexobj(jnp.float32)
  assert jnp.isrealobj(jnp.float32) and not jnp.isrealobj(jnp.complex128)
  z = np.array([1 + 0j, 1 + 1j], np.complex64)
  check(jnp.iscomplex(z), np.iscomplex(z))
  check(jnp.isreal(z), np.isreal(z))


def test_elementwise_extras():
  x = np.array([1., np.nan, np.nan, -2.], np.float32)
  y = np.array([np.nan, 2., np.nan, 3.], np.float32)
  check(jnp.fmax(x, y), np.fmax(x, y), np.float32)
  check(jnp.fmin(x, y), np.fmin(x, y), np.float32)
  s = np.array([0., 1., -1., 1e30, np.inf], np.float32)
  check(jnp.spacing(s), np.spacing(s), np.float32)
  z = np.array([1 + 1j, -1 + 0j, -2j], np.complex64)
  check(jnp.angle(z), np.angle(z), np.float32)
  check(jnp.angle(z, deg=True), np.angle(z, deg=True))
  check(jnp.angle(np.array([1, -1])), [0, np.pi], np.float32)
  check(jnp.sort_complex(np.array([3, 1, 2], np.int32)), [1, 2, 3], np.complex64)


# ---- picking and editing ----

def test_choose_compress_extract():
  c = [np.arange(3), np.arange(3) * 10, np.arange(3) * 100]
  check(jnp.choose(np.array([0, 2, 1]), c), np.choose([0, 2, 1], c))
  check(jnp.choose(np.array([0, 5, -1]), c, mode="clip"), np.choose([0, 5, -1], c, mode="clip"))
  check(jnp.choose(np.array([0, 5, -1]), c, mode="wrap"), np.choose([0, 5, -1], c, mode="wrap"))
  with pytest.raises(ValueError):
    jnp.choose(np.array([0, 5]), c)
  cond = np.array([True, False, True])
  check(jnp.compress(cond, F, axis=1), np.compress(cond, F, axis=1))
  check(jnp.compress(np.array([1, 0]), np.arange(4)), np.compress([1, 0], np.arange(4)))
  f = xjax.jit(lambda c, a: jnp.compress(c, a, size=3, fill_value=-1))
  check(f(np.array([1, 0, 1, 0]), np.arange(4)), [0, 2, -1])
  check(jnp.extract(F > 0, F), np.extract(F > 0, F))


def test_delete_insert_resize():
  a = np.arange(6).reshape(2, 3)
  check(jnp.delete(np.arange(5), 1), np.delete(np.arange(5), 1))
  check(jnp.delete(a, np.array([0, 2]), axis=1), np.delete(a, [0, 2], axis=1))
  check(jnp.delete(np.arange(5), slice(1, 4, 2)), np.delete(np.arange(5), slice(1, 4, 2)))
  f = xjax.jit(lambda i: jnp.delete(np.arange(5), i, assume_unique_indices=True))
  check(f(np.array([3, 0])), [1, 2, 4])
  check(jnp.insert(np.arange(5), 1, 9), np.insert(np.arange(5), 1, 9))
  check(jnp.insert(np.arange(5), np.array([1, 3]), np.array([9, 8])),
        np.insert(np.arange(5), [1, 3], [9, 8]))
  check(jnp.insert(a, 1, 7, axis=1), np.insert(a, 1, 7, axis=1))
  check(jnp.insert(a, 1, np.array([7, 8, 9]), axis=0), np.insert(a, 1, [7, 8, 9], axis=0))
  check(jnp.insert(a, np.array([1]), np.array([[7], [8]]), axis=1),
        np.insert(a, [1], [[7], [8]], axis=1))
  check(jnp.insert(np.arange(3), 1, 9.7), np.insert(np.arange(3), 1, 9.7))
  check(jnp.resize(np.arange(3), (2, 4)), np.resize(np.arange(3), (2, 4)))
  assert jnp.rollaxis(np.ones((2, 3, 4)), 2).shape == np.rollaxis(np.ones((2, 3, 4)), 2).shape
  assert jnp.rollaxis(np.ones((2, 3, 4)), 0, 3).shape == (3, 4, 2)
  t = np.array([0, 0, 1, 2, 0])
  check(jnp.trim_zeros(t), np.trim_zeros(t))
  check(jnp.trim_zeros(t, "f"), np.trim_zeros(t, "f"))
  check(jnp.trim_zeros(np.pad([[1]], 1)), [[1]])


def test_diagonal_and_put_helpers():
  with pytest.raises(NotImplementedError):
    jnp.fill_diagonal(np.zeros((3, 3)), 1)
  want = np.zeros((5, 2))
  np.fill_diagonal(want, [1., 2.])
  check(jnp.fill_diagonal(np.zeros((5, 2)), np.array([1., 2.]), inplace=False), want)
  want = np.zeros((2, 2, 2))
  np.fill_diagonal(want, 3.)
  check(jnp.fill_diagonal(np.zeros((2, 2, 2)), 3., inplace=False), want)
  m = np.ones((3, 4))
  for got, w in zip(jnp.tril_indices_from(m, 1), np.tril_indices_from(m, 1)):
    check(got, w)
  for got, w in zip(jnp.triu_indices_from(m), np.triu_indices_from(m)):
    check(got, w)
  for got, w in zip(jnp.diag_indices_from(np.ones((3, 3))), np.diag_indices_from(np.ones((3, 3)))):
    check(got, w)
  for got, w in zip(jnp.mask_indices(3, jnp.triu, 1), np.mask_indices(3, np.triu, 1)):
    check(got, w)
  idx = np.array([[1], [2]])
  want = np.zeros((2, 3))
  np.put_along_axis(want, idx, 5., axis=1)
  check(jnp.put_along_axis(np.zeros((2, 3)), idx, 5., axis=1, inplace=False), want)
  with pytest.raises(ValueError):
    jnp.put_along_axis(np.zeros((2, 3)), idx, 5., axis=1)


def test_block():
  blocks = [[np.ones((2, 2)), np.zeros((2, 1))], [np.full((1, 3), 2.)]]
  check(jnp.block(blocks), np.block(blocks))
  check(jnp.block([1, np.array([2, 3])]), np.block([1, np.array([2, 3])]))


# ---- index tricks and windows ----

def test_index_tricks():
  check(jnp.mgrid[0:3, 0:2], np.mgrid[0:3, 0:2], np.int32)
  check(jnp.mgrid[0:1:5j], np.mgrid[0:1:5j], np.float32)
  for got, w in zip(jnp.ogrid[0:3, 0:2], np.ogrid[0:3, 0:2]):
    check(got, w)
  check(jnp.r_[1:3, 5, [7, 8]], np.r_[1:3, 5, [7, 8]])
  check(jnp.r_["0,2", [1, 2], [3, 4]], np.r_["0,2", [1, 2], [3, 4]])
  check(jnp.r_["-1,2,0", [1, 2], [3, 4]], np.r_["-1,2,0", [1, 2], [3, 4]])
  check(jnp.c_[[1, 2], [3, 4]], np.c_[[1, 2], [3, 4]])
  check(jnp.c_[np.ones((2, 2)), [5, 6]], np.c_[np.ones((2, 2)), [5, 6]])
  assert jnp.s_[1:2, ::3] == np.s_[1:2, ::3] and jnp.index_exp[1] == np.index_exp[1]
  for got, w in zip(jnp.ix_(np.array([0, 1]), np.array([2, 3, 4])), np.ix_([0, 1], [2, 3, 4])):
    check(got, w)


def test_concat_matrix_directives():
  row, col = jnp.r_["r", [1, 2], [3, 4]], jnp.r_["c", [1, 2], [3, 4]]
  assert row.shape == (1, 4) and col.shape == (4, 1)
  check(row, [[1, 2, 3, 4]])
  check(col, [[1], [2], [3], [4]])
  check(jnp.r_["c", [[1, 2]], [[3, 4]]], [[1, 2], [3, 4]])
  check(jnp.c_["r", [1, 2]], [[1], [2]])


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
def test_windows(name):
  for m in (0, 1, 6):
    check(getattr(jnp, name)(m), getattr(np, name)(m), np.float32)


def test_kaiser():
  check(jnp.kaiser(7, 3.0), np.kaiser(7, 3.0), np.float32)


# ---- functions and signals ----

def test_vectorize():
  f = jnp.vectorize(lambda a, b: a * 2 + b)
  check(f(F, np.float32(1)), F * 2 + 1)
  dot = jnp.vectorize(lambda a, b: jnp.sum(a * b), signature="(n),(n)->()")
  x = np.arange(12, dtype=np.float32).reshape(4, 3)
  check(dot(x, x[0]), x @ x[0])
  check(xjax.jit(dot)(x, x[0]), x @ x[0])
  with pytest.raises(ValueError):
    dot(x, np.ones(4, np.float32))
  two = jnp.vectorize(lambda a: (a * 2, a.sum()), signature="(n)->(n),()")
  doubled, sums = two(x)
  check(doubled, x * 2)
  check(sums, x.sum(1))
  g = jnp.vectorize(lambda a, p: a ** p, excluded={1})
  check(g(np.arange(3.), 2), np.arange(3.) ** 2)


def test_vectorize_as_jax():
  """JAX 0.10.2's: a function wrapping ``pyfunc``; loop dimensions of size 1 are squeezed
  and not mapped (the jaxpr is JAX's); outputs checked against the signature; None
  arguments pass through; its errors."""
  def f(a, b=2):
    "doc of f"
    return a * b
  v = jnp.vectorize(f)
  assert inspect.isfunction(v) and v.__name__ == "f" and v.__doc__ == "doc of f"
  assert str(inspect.signature(v)) == "(a, b=2)" and v.__wrapped__ is f
  assert str(xjax.make_jaxpr(jnp.vectorize(lambda a, b: a * b))(
      jnp.ones((1, 3)), jnp.ones((2, 1)))) == (
          "{ lambda ; a:f32[1,3] b:f32[2,1]. let\n"
          "    c:f32[3] = squeeze[dimensions=(0,)] a\n"
          "    d:f32[2] = squeeze[dimensions=(1,)] b\n"
          "    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] c\n"
          "    f:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] d\n"
          "    g:f32[2,3] = mul e f\n  in (g,) }")
  check(jnp.vectorize(lambda a, b: a * b)(np.ones((1, 3), np.float32), np.ones((1, 3))),
        np.ones((1, 3)), np.float32)
  check(jnp.vectorize(lambda a, n, b: a + b if n is None else 0)(F, None, F), F * 2)
  context = "on vectorized function with excluded=frozenset() and signature="
  x = np.ones((2, 3), np.float32)
  with pytest.raises(ValueError, match=re.escape(
      f"output shape (3,) does not match core dimensions () {context}'(n)->()'")):
    jnp.vectorize(lambda a: a, signature="(n)->()")(x)
  with pytest.raises(ValueError, match=re.escape(
      f"inconsistent size for core dimension 'n': 2 vs 3 {context}'(n)->(n)'")):
    jnp.vectorize(lambda a: a[:2], signature="(n)->(n)")(x)
  with pytest.raises(TypeError, match="wrong number of output arguments: expected 2, got 3"):
    jnp.vectorize(lambda a: (a, a, a), signature="(n)->(n),(n)")(x)
  with pytest.raises(TypeError, match="output must be a tuple when multiple outputs"):
    jnp.vectorize(lambda a: a, signature="(n)->(),()")(x)
  with pytest.raises(ValueError, match=re.escape(
      "Cannot pass None at locations {1} with signature='(),(k)->()'")):
    jnp.vectorize(lambda a, n: a, signature="(),(k)->()")(F, None)
  with pytest.raises(ValueError, match=re.escape("excluded={-1} contains negative numbers")):
    jnp.vectorize(f, excluded={-1})
  with pytest.raises(TypeError, match="can only exclude integer or string arguments"):
    jnp.vectorize(f, excluded={1.5})
  with xjax.numpy_rank_promotion("raise"):
    with pytest.raises(ValueError, match=re.escape(
        "operands with shapes [(2, 3), (3,)] require rank promotion")):
      jnp.vectorize(lambda a, b: a + b)(x, np.ones(3, np.float32))


def test_fromfunction_piecewise_unwrap():
  check(jnp.fromfunction(lambda i, k: i + k, (2, 3)),
        np.fromfunction(lambda i, k: i + k, (2, 3)), np.float32)
  assert jnp.fromfunction(lambda i, k: i + k, (2, 3), dtype=int).dtype == np.int32
  x = np.array([-1., 0.5, 2.], np.float32)
  conds = [x < 0, x > 1]
  check(jnp.piecewise(x, conds, [lambda v: -v, 7.]), np.piecewise(x, conds, [lambda v: -v, 7.]))
  check(jnp.piecewise(x, conds, [lambda v: -v, 7., 3.]),
        np.piecewise(x, conds, [lambda v: -v, 7., 3.]))
  p = np.array([0., 3., 6.5, 1., -4.], np.float32)
  check(jnp.unwrap(p), np.unwrap(p), np.float32)
  check(jnp.unwrap(p, period=4.), np.unwrap(p, period=4.))


def test_bits():
  bits = np.array([[1, 0, 1, 1, 0, 0, 0, 0, 1], [0, 1, 1, 0, 1, 0, 1, 1, 1]], np.int32)
  check(jnp.packbits(bits), np.packbits(bits), np.uint8)
  check(jnp.packbits(bits, axis=1, bitorder="little"),
        np.packbits(bits, axis=1, bitorder="little"))
  bytes_ = np.array([[3, 200], [17, 255]], np.uint8)
  check(jnp.unpackbits(bytes_), np.unpackbits(bytes_), np.uint8)
  check(jnp.unpackbits(bytes_, axis=0, count=5, bitorder="little"),
        np.unpackbits(bytes_, axis=0, count=5, bitorder="little"))
  check(jnp.unpackbits(bytes_, axis=1, count=-3), np.unpackbits(bytes_, axis=1, count=-3))
  with pytest.raises(TypeError):
    jnp.unpackbits(np.array([3], np.int32))


def test_poly_polydiv_einsum_path():
  check(jnp.poly(np.array([1., 2., -3.])), np.poly([1., 2., -3.]), np.float32)
  q, r = jnp.polydiv(np.array([1., 3., 2., 5.]), np.array([2., 1.]))
  nq, nr = np.polydiv([1., 3., 2., 5.], [2., 1.])
  check(q, nq)
  check(r[-len(nr):], nr)
  path, report = jnp.einsum_path("ij,jk,kl->il", np.ones((2, 3)), np.ones((3, 4)),
                                 np.ones((4, 5)))
  assert path == [(0, 1), (0, 1)] and "Complete contraction" in str(report)


def test_printoptions():
  with jnp.printoptions(precision=2):
    assert jnp.get_printoptions()["precision"] == 2
  assert jnp.get_printoptions()["precision"] == np.get_printoptions()["precision"]


def test_frompyfunc_ufunc():
  u = jnp.frompyfunc(lambda x, y: x * y + 1, 2, 1, identity=0)
  nu = np.frompyfunc(lambda x, y: x * y + 1, 2, 1, identity=0)
  a = np.arange(1, 5)
  assert isinstance(u, jnp.ufunc) and (u.nin, u.nout, u.identity) == (2, 1, 0)
  check(u(a, 2), nu(a, 2).astype(int))
  check(u.outer(a[:2], a), nu.outer(a[:2], a).astype(int))
  # the fold starts from the identity, as in JAX (NumPy's from the first element: [3, 13])
  check(u.reduce(a.reshape(2, 2), axis=1), np.array([3, 5]))
  check(u.reduce(a, initial=3), nu.reduce(a, initial=3))
  check(u.accumulate(a), nu.accumulate(a).astype(int))
  check(u.at(a, np.array([0, 0]), 5, inplace=False), [31, 2, 3, 4])
  check(u.reduce(np.zeros((0,), np.float32)), 0.)


def test_host_io(tmp_path):
  import io
  check(jnp.frombuffer(np.arange(3, dtype=np.int32).tobytes(), dtype=jnp.int32), [0, 1, 2],
        np.int32)
  check(jnp.fromstring("1 2.5", sep=" "), [1., 2.5], np.float32)
  buf = io.BytesIO()
  jnp.save(buf, jnp.arange(3.))
  buf.seek(0)
  loaded = jnp.load(buf)
  assert isinstance(loaded, jnp.ndarray)
  check(loaded, [0., 1., 2.], np.float32)
  with pytest.raises(NotImplementedError):
    jnp.fromiter(iter([1, 2]), float)
  assert jnp.array_str(jnp.array([1.5])) == "[1.5]"
  assert jnp.object_ is np.object_ and jnp.ComplexWarning is np.exceptions.ComplexWarning


def test_binary_functions_are_ufunc_objects():
  assert isinstance(jnp.add, jnp.ufunc) and repr(jnp.add) == "<jnp.ufunc 'add'>"
  assert (jnp.add.identity, jnp.multiply.identity, jnp.maximum.identity) == (0, 1, None)
  m = jnp.arange(6).reshape(2, 3)
  np.testing.assert_array_equal(jnp.add.reduce(m), [3, 5, 7])
  np.testing.assert_array_equal(jnp.add.accumulate(jnp.arange(4)), [0, 1, 3, 6])
  np.testing.assert_array_equal(jnp.multiply.outer(jnp.arange(2), jnp.arange(3)),
                                np.multiply.outer(np.arange(2), np.arange(3)))
  np.testing.assert_array_equal(jnp.add.at(jnp.zeros(3), jnp.array([0, 0]), 1.0,
                                           inplace=False), [2.0, 0.0, 0.0])
  np.testing.assert_array_equal(jnp.maximum.reduce(m, axis=1), [2, 5])
  assert int(jnp.subtract.reduce(jnp.arange(4))) == -6
  assert not bool(jnp.logical_and.reduce(jnp.array([True, False])))


def test_print_option_functions_are_jax_numpys_own():
  # as JAX's: functions of jax.numpy's own that call NumPy's (not NumPy's objects)
  import numpy
  for name in ("printoptions", "get_printoptions", "set_printoptions"):
    assert getattr(jnp, name) is not getattr(numpy, name)
  before = numpy.get_printoptions()["precision"]
  jnp.set_printoptions(precision=3)
  try:
    assert jnp.get_printoptions()["precision"] == numpy.get_printoptions()["precision"] == 3
  finally:
    numpy.set_printoptions(precision=before)
