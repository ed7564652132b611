"""xjax.numpy's statistics against NumPy: median/quantile/percentile, average, ptp,
cov/corrcoef, and their composition with jit, vmap and grad."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A, I, N

RNG = np.random.default_rng(0)


def test_order_statistics():
  for kw in ({}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"axis": (0, 1)}):
    check(jnp.median(A, **kw), np.median(A, **kw))
  check(jnp.median(I), np.float32(np.median(I)))
  check(jnp.median(N), np.float32(np.nan))
  check(jnp.nanmedian(N[:3]), np.nanmedian(N[:3]))
  for m in ("linear", "lower", "higher", "nearest", "midpoint"):
    check(jnp.quantile(A, 0.3, method=m), np.quantile(A, 0.3, method=m))
  check(jnp.percentile(A, np.array([10., 50.]), axis=1),
        np.percentile(A, [10., 50.], axis=1).astype(np.float32))
  check(jnp.nanpercentile(N[:3], 50), np.nanpercentile(N[:3], 50))
  check(jnp.average(A), np.average(A))
  w = np.arange(4.).astype(np.float32)
  check(jnp.average(A, axis=1, weights=w), np.average(A, axis=1, weights=w))
  avg, ws = jnp.average(A, weights=np.abs(A), returned=True)
  ravg, rws = np.average(A, weights=np.abs(A), returned=True)
  check(avg, ravg)
  check(ws, rws)
  check(jnp.ptp(I), np.ptp(I))
  check(jnp.ptp(A, axis=0), np.ptp(A, axis=0))


def test_order_statistics_repeated_axis():
  # the same axis twice (-2 is 0 here) is JAX's (and NumPy's) ValueError
  for f in (jnp.median, jnp.nanmedian, lambda a, axis: jnp.quantile(a, 0.5, axis=axis)):
    with pytest.raises(ValueError, match="repeated axis"):
      f(A, axis=(0, -2))


def test_cov_corrcoef():
  x = RNG.normal(size=(3, 5)).astype(np.float32)
  y = RNG.normal(size=5).astype(np.float32)
  check(jnp.cov(x), np.cov(x), np.float32)
  check(jnp.cov(x.T, rowvar=False, bias=True), np.cov(x.T, rowvar=False, bias=True))
  check(jnp.cov(x, y, ddof=2), np.cov(x, y, ddof=2))
  fw, aw = np.array([1, 2, 1, 3, 1]), np.array([.5, 1, 2, 1, .3], np.float32)
  check(jnp.cov(x, fweights=fw, aweights=aw), np.cov(x, fweights=fw, aweights=aw))
  check(jnp.cov(np.arange(3)), np.cov(np.arange(3)), np.float32)
  check(jnp.corrcoef(x), np.corrcoef(x), np.float32)
  check(jnp.corrcoef(x[0], y), np.corrcoef(x[0], y))


def test_transforms_compose():
  f = xjax.jit(lambda x: (jnp.sort(x), jnp.median(x), jnp.cumsum(x), jnp.einsum("i,i", x, x)))
  x = np.array([3., 1., 3., 2.], np.float32)
  check(f(x), (np.sort(x), np.median(x), np.cumsum(x), np.float32(x @ x)))
  check(xjax.vmap(lambda r: jnp.roll(jnp.cumsum(r), 1))(A),
        np.roll(np.cumsum(A, axis=1), 1, axis=1))
  check(xjax.grad(lambda r: jnp.median(r))(np.array([3., 1., 2.], np.float32)),
        np.array([0., 0., 1.], np.float32))


def test_cov_checks_both_arguments_are_arrays():
  with pytest.raises(TypeError, match=r"cov requires ndarray or scalar arguments, got "
                                      r"<class 'list'> at position 1\."):
    jnp.cov(np.ones(3), [1.0, 2.0, 3.0])


def test_errors_as_jax_for_complex_quantiles_and_boolean_products():
  """JAX 0.10.2's classes and messages: quantiles of complex values are a ValueError
  (median, percentile, nanmedian too); kron multiplies as lax does, so booleans are a
  TypeError (as lax.mul's); a negative integer power names the operation."""
  from xjax import lax
  c = np.array([1 + 1j, 2 - 1j, 0.5j], np.complex64)
  for f in (jnp.median, jnp.nanmedian, lambda x: jnp.quantile(x, 0.5),
            lambda x: jnp.percentile(x, 50)):
    with pytest.raises(ValueError, match="quantile does not support complex input"):
      f(c)
  b = np.array([True, False])
  for f in (jnp.kron, lax.mul):
    with pytest.raises(TypeError, match="mul does not accept dtype bool at position 0"):
      f(b, b)
  np.testing.assert_array_equal(jnp.multiply(b, b), [True, False])   # jnp's is `and`
  with pytest.raises(TypeError, match=r"got integer_pow\(int32\[3\], -1\)"):
    jnp.power(jnp.arange(3), -1)
  np.testing.assert_array_equal(jnp.kron(np.array([1., -1.]), np.arange(6.).reshape(2, 3)),
                                np.kron([1., -1.], np.arange(6.).reshape(2, 3)))
  assert xjax.grad(lambda v: jnp.kron(v, np.ones(3)).sum())(1.5) == 3.0


def test_median_is_the_midpoint_as_jax():
  # JAX's median and nanmedian take method="midpoint", (low + high) * 0.5: infinities stay
  # infinite (linear interpolation gives inf * 0 = nan) and large values keep JAX's bits.
  x = np.array([[1.0, np.nan, 3.0, 4.0, 5.0], [np.nan, 2.0, 3.0, np.inf, -np.inf]], np.float32)
  np.testing.assert_array_equal(jnp.nanmedian(x, axis=()), x)
  np.testing.assert_array_equal(jnp.median(x, axis=()), x)
  np.testing.assert_array_equal(jnp.nanmedian(x, axis=1), np.nanmedian(x, axis=1))
  big = np.array([3e38, 2e38, 3.3e38, -1e38], np.float32)   # the middle two overflow a sum
  assert float(jnp.median(big)) == np.inf                     # (linear: 2.5e38)
  np.testing.assert_array_equal(xjax.grad(lambda v: jnp.median(v))(big), [0.5, 0.5, 0, 0])
