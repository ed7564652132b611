"""Keywords of jax.numpy functions JAX 0.10.2 takes: quantile weights / inverted_cdf,
argsort(dtype=), cov/corrcoef dtype=, nanvar/nanstd mean=, take_along_axis
wrap_negative_indices=, out_sharding= on dot/matmul/ravel/percentile.  Expected values are
JAX 0.10.2's (literals) or NumPy's."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check_exact

nan = np.nan


X5 = jnp.array([1, 2, 3, 4, 5])
W5 = jnp.array([1, 1, 2, 1, 1])
Y = jnp.array([[3., 1., 2., 7.], [0., nan, 5., 4.], [2., 2., 1., 8.]])
WY = jnp.array([0.5, 1., 2., 0.25])


def test_quantile_weights_inverted_cdf():
  check_exact(jnp.quantile(X5, 0.5, weights=W5, method="inverted_cdf"), 3., np.float32)
  check_exact(jnp.quantile(X5, jnp.array([0., .1, .3, .5, .51, .9, 1.]), weights=W5,
                           method="inverted_cdf"), [1., 1., 2., 3., 3., 5., 5.], np.float32)
  check_exact(jnp.quantile(Y, jnp.array([.2, .6]), axis=1, weights=WY, method="inverted_cdf"),
              [[1., nan, 1.], [2., nan, 2.]], np.float32)
  check_exact(jnp.quantile(Y, jnp.array([.2, .6]), axis=1, weights=WY, method="inverted_cdf",
                           keepdims=True), [[[1.], [nan], [1.]], [[2.], [nan], [2.]]], np.float32)
  check_exact(jnp.quantile(Y, .5, axis=0, weights=jnp.array([1., 3., 1.]), method="inverted_cdf"),
              [0., nan, 5., 4.], np.float32)
  check_exact(jnp.quantile(Y, .5, axis=1, weights=jnp.array([1., -1., 1., 1.]),
                           method="inverted_cdf"), [nan, nan, nan], np.float32)
  check_exact(jnp.quantile(Y, .5, axis=(0, 1), weights=jnp.arange(12.).reshape(3, 4),
                           method="inverted_cdf", keepdims=True), [[nan]], np.float32)
  check_exact(jnp.quantile(X5.astype(jnp.float16), 0.5, weights=W5.astype(jnp.float32),
                           method="inverted_cdf"), 3., np.float32)


def test_quantile_inverted_cdf_unweighted():
  q = jnp.array([0., .1, .2, .3, .5, .51, .9, 1.])
  check_exact(jnp.quantile(X5, q, method="inverted_cdf"), [1., 1., 1., 2., 3., 3., 5., 5.],
              np.float32)
  check_exact(jnp.quantile(X5, 0.4, method="inverted_cdf"), 2., np.float32)
  x = np.array([[4., 1., 9., 2., 2.], [0., 3., 3., 8., 5.]])
  np.testing.assert_array_equal(
      jnp.quantile(jnp.asarray(x), jnp.array([.05, .4, .61, 1.]), axis=1,
                   method="inverted_cdf"),
      np.quantile(x, [.05, .4, .61, 1.], axis=1, method="inverted_cdf").astype(np.float32))


def test_nanquantile_and_percentiles_weights():
  check_exact(jnp.nanquantile(Y, jnp.array([.2, .6]), axis=1, weights=WY, method="inverted_cdf"),
              [[1., 4., 1.], [2., 5., 2.]], np.float32)
  check_exact(jnp.nanquantile(Y, .5, weights=jnp.ones_like(Y), method="inverted_cdf"), 2.,
              np.float32)
  check_exact(jnp.nanquantile(jnp.array([1, 2, nan, 4, 5]), 0.5, weights=jnp.array([1, 1, 1, 2, 1]),
                              method="inverted_cdf"), 4., np.float32)
  check_exact(jnp.percentile(X5, 50, weights=W5, method="inverted_cdf"), 3., np.float32)
  check_exact(jnp.percentile(X5, jnp.array([10, 75]), weights=W5, method="inverted_cdf"), [1., 4.],
              np.float32)
  check_exact(jnp.nanpercentile(Y, 30, axis=0, weights=jnp.array([1., 3., 1.]),
                                method="inverted_cdf"), [0., 1., 2., 4.], np.float32)


def test_quantile_weights_errors():
  with pytest.raises(NotImplementedError, match="Only method 'inverted_cdf'"):
    jnp.quantile(X5, 0.5, weights=W5)
  with pytest.raises(ValueError, match="complex"):
    jnp.quantile(X5, 0.5, weights=W5 * 1j, method="inverted_cdf")
  with pytest.raises(ValueError, match="axis is None"):
    jnp.quantile(X5, 0.5, weights=W5[:3], method="inverted_cdf")
  with pytest.raises(ValueError, match="must match reduction axes"):
    jnp.quantile(Y, 0.5, axis=1, weights=W5, method="inverted_cdf")
  with pytest.raises(ValueError, match="method can only be"):
    jnp.quantile(X5, 0.5, method="weibull")


def test_percentile_out_sharding():
  check_exact(jnp.percentile(X5, 50., out_sharding=None), 3., np.float32)
  mesh = xjax.make_mesh((1,), ("x",))
  check_exact(jnp.percentile(X5, 50., out_sharding=xjax.NamedSharding(mesh, xjax.P())), 3.,
              np.float32)
  with pytest.raises(ValueError, match="PartitionSpec"):
    jnp.percentile(X5, 50., out_sharding=xjax.P())


def test_argsort_dtype():
  x = jnp.array([3., 1., 2., 1.])
  check_exact(jnp.argsort(x, dtype=jnp.int16), [1, 3, 2, 0], np.int16)
  check_exact(jnp.argsort(x, dtype=np.uint8), [1, 3, 2, 0], np.uint8)
  check_exact(jnp.argsort(x, dtype=jnp.float32), [1., 3., 2., 0.], np.float32)
  check_exact(jnp.argsort(x, descending=True, dtype=jnp.int16), [0, 2, 1, 3], np.int16)
  with pytest.raises(TypeError, match="'order'"):
    jnp.argsort(x, order="a")
  with pytest.raises(TypeError, match="'kind'"):
    jnp.argsort(x, kind="stable")


M = jnp.array([[1., 2., 4.], [2., 1., 7.]])


def test_cov_corrcoef_dtype():
  check_exact(jnp.cov(M, dtype=jnp.float16), [[2.334, 4.332], [4.332, 10.336]], np.float16)
  check_exact(jnp.cov(jnp.array([[1, 2, 4], [2, 1, 7]]), dtype=jnp.float32),
              [[2.3333333, 4.3333335], [4.3333335, 10.333333]], np.float32)
  c = jnp.cov(M, dtype=jnp.complex64)
  assert c.dtype == np.complex64
  np.testing.assert_allclose(c, np.cov(np.asarray(M)), rtol=1e-6)
  check_exact(jnp.corrcoef(jnp.array([1., 2., 4.]), dtype=jnp.float16), 1., np.float16)
  c = jnp.corrcoef(M, dtype=jnp.float16)
  assert c.dtype == np.float16
  np.testing.assert_allclose(c, np.corrcoef(np.asarray(M)), rtol=1e-3)
  for f in (jnp.cov, jnp.corrcoef):
    with pytest.raises(ValueError, match="subclass of float or complex"):
      f(M, dtype=jnp.int32)


A = jnp.array([[1., nan, 3.], [4., 5., 7.]])


def test_nanvar_nanstd_mean():
  check_exact(jnp.nanvar(A, axis=1, keepdims=True, mean=jnp.nanmean(A, axis=1, keepdims=True)),
              [[1.], [1.5555555]], np.float32)
  check_exact(jnp.nanvar(A, axis=1, keepdims=True, mean=jnp.array([[0.], [1.]])),
              [[5.], [20.333334]], np.float32)
  check_exact(jnp.nanvar(A, axis=1, mean=jnp.array([[0.], [1.]])), [5., 20.333334], np.float32)
  check_exact(jnp.nanstd(A, axis=1, mean=jnp.array([[0.], [1.]])), [2.236068, 4.5092497],
              np.float32)
  check_exact(jnp.nanvar(A, mean=2.0), 8., np.float32)
  check_exact(jnp.nanvar(jnp.array([1, 2, 4]), mean=1), 3.3333333, np.float32)
  with pytest.raises(TypeError):
    jnp.nanvar(A, axis=1, mean=jnp.array([0., 1.]))


TX = jnp.array([[1., 2., 3.], [4., 5., 6.]])
TI = jnp.array([[-1, 0, 2], [1, -3, -4]])


@pytest.mark.parametrize("wrap,mode,want", [
    (None, None, [[3., 1., 3.], [5., 4., nan]]),
    (None, "clip", [[3., 1., 3.], [5., 4., 4.]]),
    (None, "promise_in_bounds", [[1., 1., 3.], [5., 4., 4.]]),
    (True, "promise_in_bounds", [[3., 1., 3.], [5., 4., 4.]]),
    (False, None, [[nan, 1., 3.], [5., nan, nan]]),
    (False, "clip", [[1., 1., 3.], [5., 4., 4.]]),
    (False, "promise_in_bounds", [[1., 1., 3.], [5., 4., 4.]]),
])
def test_take_along_axis_wrap_negative_indices(wrap, mode, want):
  check_exact(jnp.take_along_axis(TX, TI, axis=1, mode=mode, wrap_negative_indices=wrap), want,
              np.float32)
  f = xjax.jit(lambda x, i: jnp.take_along_axis(x, i, axis=1, mode=mode,
                                                 wrap_negative_indices=wrap))
  check_exact(f(TX, TI), want, np.float32)


def test_take_along_axis_defaults_and_errors():
  check_exact(jnp.take_along_axis(TX, jnp.array([[2, 0, 1]] * 2)), [[3., 1., 2.], [6., 4., 5.]],
              np.float32)
  check_exact(jnp.take_along_axis(TX, TI, axis=1, fill_value=-7, wrap_negative_indices=False),
              [[-7., 1., 3.], [5., -7., -7.]], np.float32)
  check_exact(jnp.take_along_axis(jnp.array([[1, 2, 3], [4, 5, 6]]), TI, axis=1,
                                  wrap_negative_indices=False),
              [[-2147483648, 1, 3], [5, -2147483648, -2147483648]], np.int32)
  check_exact(jnp.take_along_axis(TX, jnp.array([-1, 7]), axis=None, wrap_negative_indices=False),
              [nan, nan], np.float32)
  with pytest.raises(ValueError, match="must be 1D if axis=None"):
    jnp.take_along_axis(TX, TI, axis=None)
  with pytest.raises(ValueError, match="gather mode"):
    jnp.take_along_axis(TX, TI, axis=1, mode="wrap")


def test_dot_matmul_ravel_out_sharding():
  a, b = jnp.arange(6.).reshape(2, 3), jnp.arange(3.)
  mesh = xjax.make_mesh((1,), ("x",))
  for sh in (None, xjax.NamedSharding(mesh, xjax.P()), xjax.NamedSharding(mesh, xjax.P("x")),
             xjax.typeof(a).sharding):
    check_exact(jnp.dot(a, b, out_sharding=sh), [5., 14.], np.float32)
    check_exact(jnp.dot(2, b, out_sharding=sh), [0., 2., 4.], np.float32)
    check_exact(jnp.matmul(a, b, out_sharding=sh), [5., 14.], np.float32)
    check_exact(jnp.ravel(a, "F", out_sharding=sh), [0., 3., 1., 4., 2., 5.], np.float32)
  sh = xjax.NamedSharding(mesh, xjax.P("x"))
  check_exact(xjax.jit(lambda x: jnp.ravel(x, out_sharding=sh))(a), [0., 1., 2., 3., 4., 5.],
              np.float32)
  for f in (lambda: jnp.dot(a, b, out_sharding=xjax.P()),
            lambda: jnp.matmul(a, b, out_sharding=xjax.P()),
            lambda: jnp.ravel(a, out_sharding=xjax.P())):
    with pytest.raises(ValueError, match="PartitionSpec"):
      f()
  with pytest.raises(TypeError):
    jnp.ravel(a, out_sharding="x")


def test_var_and_std_take_a_precomputed_mean():
  # JAX 0.10.2's values; a mean without the reduced axes kept is JAX's TypeError
  x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
  m = x.mean(0, keepdims=True)
  np.testing.assert_array_equal(jnp.var(x, axis=0, mean=m), np.float32([10.666667] * 4))
  np.testing.assert_array_equal(jnp.std(x, axis=0, mean=m, ddof=1), np.float32([4.0] * 4))
  assert float(jnp.var(x, mean=x.mean())) == np.float32(11.916667)
  with pytest.raises(TypeError, match="same number of dimensions"):
    jnp.var(x, axis=0, mean=x.mean(0))


M23 = jnp.arange(6.).reshape(2, 3)


@pytest.mark.parametrize("call, want, dtype", [
    # the method's arguments by position or name, as JAX's methods take them (netket
    # calls ``h.astype(dtype=...)``); values from JAX 0.10.2
    (lambda: M23.astype(dtype=jnp.int32), [[0, 1, 2], [3, 4, 5]], np.int32),
    (lambda: M23.astype(jnp.int32, True), [[0, 1, 2], [3, 4, 5]], np.int32),
    (lambda: M23.astype(jnp.int32, False, xjax.devices()[0]), [[0, 1, 2], [3, 4, 5]],
     np.int32),
    (lambda: M23.astype(None), [[0., 1., 2.], [3., 4., 5.]], np.float32),
    # (JAX 0.10.2's ``Array.sum`` drops ``initial``; xjax's adds it, as ``jnp.sum``:
    # docs/differences.md)
    (lambda: M23.sum(axis=1, keepdims=True, where=M23 > 1, initial=1.0), [[3.], [13.]],
     np.float32),
    (lambda: M23.sum(1, None, None, True, 5.0), [[8.], [17.]], np.float32),
    (lambda: M23.prod(axis=0, keepdims=True, initial=2.0, where=M23 > 0), [[6., 8., 20.]],
     np.float32),
    (lambda: M23.max(0, None, True, -1.0, M23 > 0), [[3., 4., 5.]], np.float32),
    (lambda: M23.std(0, None, None, 1, True), [[2.1213202476501465] * 3], np.float32),
    (lambda: M23.take(indices=jnp.array([0, 5]), mode="fill", fill_value=-1.0), [0., 5.],
     np.float32),
    (lambda: M23.clip(min=1, max=3), [[1., 1., 2.], [3., 3., 3.]], np.float32),
])
def test_array_methods_take_jax_arguments(call, want, dtype):
  check_exact(call(), want, dtype)
  check_exact(xjax.jit(call)(), want, dtype)


def test_array_method_compress_by_name():
  check_exact(M23.compress(condition=jnp.array([True, False]), axis=0), [[0., 1., 2.]],
              np.float32)
  with pytest.raises(xjax.errors.TracerBoolConversionError):  # as JAX: its size is data's
    xjax.jit(lambda: M23.compress(condition=jnp.array([True, False]), axis=0))()


def test_array_method_sum_initial_under_tracing():
  f = lambda a: a.sum(initial=10.0)
  check_exact(xjax.jit(f)(M23), 25., np.float32)
  check_exact(xjax.grad(f)(M23), np.ones((2, 3)), np.float32)
