"""xjax.numpy's numeric helpers against NumPy: comparisons (isclose, array_equal),
differences and integration, interp, convolve/correlate, counting and histograms,
ravel_multi_index/unravel_index."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A, I, N, V

RNG = np.random.default_rng(0)


def test_comparisons():
  check(jnp.isclose(A, A + 1e-6), np.isclose(A, A + 1e-6))
  check(jnp.isclose(N, N), np.isclose(N, N))
  check(jnp.isclose(N, N, equal_nan=True), np.isclose(N, N, equal_nan=True))
  assert bool(jnp.allclose(A, A)) and not bool(jnp.allclose(A, A + 1))
  assert bool(jnp.array_equal(A, A)) and not bool(jnp.array_equal(A, A[:2]))
  assert bool(jnp.array_equal(N, N, equal_nan=True))
  assert bool(jnp.array_equiv(np.ones((2, 3)), 1.0)) and not bool(jnp.array_equiv(A, V))


def test_differences_and_integration():
  check(jnp.diff(I), np.diff(I))
  check(jnp.diff(A, 2, axis=0), np.diff(A, 2, axis=0))
  check(jnp.diff(np.array([True, False, False])), np.diff([True, False, False]))
  check(jnp.diff(np.arange(3), prepend=0, append=np.array([9])),
        np.diff(np.arange(3), prepend=0, append=[9]).astype(np.int32))
  check(jnp.ediff1d(I, to_begin=-1), np.ediff1d(I, to_begin=-1).astype(np.int32))
  check(jnp.gradient(V), np.gradient(V))
  check(jnp.gradient(A), np.gradient(A))
  xs = np.array([0., 1, 3, 4, 7], np.float32)
  check(jnp.gradient(V, xs), np.gradient(V, xs))
  check(jnp.trapezoid(V), np.float32(np.trapezoid(V)))
  check(jnp.trapezoid(A, dx=0.5, axis=0), np.trapezoid(A, dx=0.5, axis=0))
  check(jnp.trapezoid(V, xs), np.float32(np.trapezoid(V, xs)))


def test_interp_period():
  x = np.array([-1., 0.5, 3.5, 7., 9.25], np.float32)
  xp = np.array([3., 0, 1, 2], np.float32)
  fp = np.array([1., 5, 2, 7], np.float32)
  check(jnp.interp(x, xp, fp, period=4), np.interp(x, xp, fp, period=4))
  check(jnp.interp(x, xp, fp, period=-4, left=100), np.interp(x, xp, fp, period=4))
  assert jnp.interp(np.array([1, 2]), xp.astype(int), fp, period=4).dtype == np.float32
  with pytest.raises(ValueError, match="period must be a scalar"):
    jnp.interp(x, xp, fp, period=np.array([1., 2.]))


def test_interp_extrapolate_and_bounds():
  x = np.array([-1.5, 0.5, 2.5], np.float32)
  xp, fp = np.array([0., 1, 2], np.float32), np.array([1., 5, 2], np.float32)
  check(jnp.interp(x, xp, fp, left="extrapolate", right="extrapolate"), [-5., 3., 0.5])
  check(jnp.interp(x, xp, fp, left=-1, right=9), np.interp(x, xp, fp, left=-1, right=9))
  with pytest.raises(ValueError, match="extrapolate"):
    jnp.interp(x, xp, fp, left="nearest")


def test_gradient_edge_order_unsupported():
  with pytest.raises(NotImplementedError):
    jnp.gradient(jnp.arange(5.), edge_order=2)


def test_interp_and_counting():
  x = np.array([-1., 0.5, 1.5, 2., 9.], np.float32)
  xp, fp = np.array([0., 1., 2.], np.float32), np.array([1., 3., 2.], np.float32)
  check(jnp.interp(x, xp, fp), np.interp(x, xp, fp).astype(np.float32))
  check(jnp.interp(x, xp, fp, left=-1, right=7), np.interp(x, xp, fp, -1, 7).astype(
      np.float32))
  check(jnp.bincount(np.array([0, 1, 1, 3])), np.bincount([0, 1, 1, 3]).astype(np.int32))
  check(xjax.jit(lambda v: jnp.bincount(v, length=6))(np.array([0, 1, 1, 3])),
        np.bincount([0, 1, 1, 3], minlength=6).astype(np.int32))
  # negative values count in bin 0, as JAX clips them (values recorded from JAX 0.10.2)
  i = np.array([-3, -2, -1, 0, 2, 4], np.int32)
  np.testing.assert_array_equal(jnp.bincount(i), [4, 0, 1, 0, 1])
  np.testing.assert_array_equal(jnp.bincount(i, length=3), [4, 0, 1])
  np.testing.assert_array_equal(jnp.bincount(np.array([-3, -1])), [2])
  with pytest.raises(ValueError, match="type of weights must match type of x"):
    jnp.bincount(i, np.ones(3))
  w = np.array([.5, 1., 2.], np.float32)
  check(jnp.bincount(np.array([0, 1, 1]), weights=w), np.bincount([0, 1, 1], w).astype(
      np.float32))
  counts, edges = jnp.histogram(A)
  rc, re = np.histogram(A)
  check(counts, rc.astype(np.float32))
  check(edges, re.astype(np.float32))
  counts, edges = jnp.histogram(A, bins=3, range=(-1, 1))
  check(counts, np.histogram(A, bins=3, range=(-1, 1))[0].astype(np.float32))
  bins = np.array([0., 1., 2.5, 4., 10.])
  xs = np.array([0.2, 6.4, 3.0, 1.6, 1.0])
  for right in (False, True):
    check(jnp.digitize(xs, bins, right=right), np.digitize(xs, bins, right).astype(np.int32))
    check(jnp.digitize(xs, bins[::-1], right=right),
          np.digitize(xs, bins[::-1], right).astype(np.int32))


def test_histogram_edges_are_inexact_and_bins_array_like():
  data = np.int32([-7, -3, -1, 0, 1, 2, 3, 5, 100])
  edges = jnp.histogram_bin_edges(data, np.int32([0, 2, 5]))
  check(edges, np.float32([0, 2, 5]), np.float32)   # the data's inexact dtype, as JAX
  counts, edges = jnp.histogram(data.astype(np.float16), np.float32([0, 2, 5]))
  assert edges.dtype == np.float16
  check(counts, [2, 3])
  with pytest.raises(TypeError, match="histogram requires ndarray or scalar arguments"):
    jnp.histogram(data, [0, 2, 5])
  with pytest.raises(TypeError, match="expected ArrayLike"):
    jnp.histogram_bin_edges(data, "auto")


def test_histogram2d_and_dd():
  x, y = RNG.normal(size=(2, 50)).astype(np.float32)
  w = RNG.random(50).astype(np.float32)
  for kw in (dict(bins=3), dict(bins=[3, 4], range=[(-1, 1), (-2, 2)], weights=w),
             dict(bins=5, density=True)):
    counts_dt = np.int32 if kw == dict(bins=3) else np.float32  # JAX: int counts unweighted
    res, ref = jnp.histogram2d(x, y, **kw), np.histogram2d(x, y, **kw)
    check(res[0], ref[0], counts_dt)
    for r, e in zip(res[1:], ref[1:]):
      check(r, e, np.float32)
  s = RNG.normal(size=(40, 3)).astype(np.float32)
  h, edges = jnp.histogramdd(s, bins=(2, 3, 4), density=True)
  rh, redges = np.histogramdd(s, bins=(2, 3, 4), density=True)
  check(h, rh)
  for r, e in zip(edges, redges):
    check(r, e)


@pytest.mark.parametrize("n,m", [(10, 3), (3, 10), (4, 4), (5, 2)])
@pytest.mark.parametrize("cplx", [False, True])
def test_convolve_correlate(n, m, cplx):
  a = RNG.normal(size=n).astype(np.float32)
  v = RNG.normal(size=m).astype(np.float32)
  if cplx:
    a = (a + 1j * RNG.normal(size=n)).astype(np.complex64)
    v = (v - 2j * RNG.normal(size=m)).astype(np.complex64)
  for mode in ("full", "same", "valid"):
    check(jnp.convolve(a, v, mode), np.convolve(a, v, mode), a.dtype)
    check(jnp.correlate(a, v, mode), np.correlate(a, v, mode), a.dtype)


def test_convolve_seed_and_errors():
  out = jnp.convolve(jnp.array([1, 2, 1]), jnp.ones(10))
  check(out, [1, 3, 4, 4, 4, 4, 4, 4, 4, 4, 3, 1], np.float32)
  check(jnp.convolve(np.array([1, 2, 3]), np.array([0, 1, 1])), [0, 1, 3, 5, 3], np.float32)  # JAX promotes to inexact
  with pytest.raises(ValueError):
    jnp.convolve(np.ones(3), np.ones(2), mode="bad")
  with pytest.raises(ValueError):
    jnp.convolve(np.ones((2, 2)), np.ones(2))


def test_convolve_correlate_index_math():
  a, v = np.arange(5.).astype(np.float32), np.array([1., 2, 3], np.float32)
  for mode in ("full", "same", "valid"):
    check(jnp.convolve(a, v, mode), np.convolve(a, v, mode))
    check(jnp.convolve(v, a, mode), np.convolve(v, a, mode))
    check(jnp.correlate(a, v, mode), np.correlate(a, v, mode))
    check(jnp.correlate(v, a, mode), np.correlate(v, a, mode))
  idx = (np.array([1, 2]), np.array([3, 0]))
  check(jnp.ravel_multi_index(idx, (3, 4)), np.ravel_multi_index(idx, (3, 4)).astype(np.int32))
  check(jnp.unravel_index(np.array([5, 11]), (3, 4)),
        [i.astype(np.int32) for i in np.unravel_index([5, 11], (3, 4))])


def test_ravel_multi_index_fortran_order():
  idx = (np.array([1, 0, 2]), np.array([2, 1, 0]), np.array([0, 4, 3]))
  for order in ("C", "F"):
    check(jnp.ravel_multi_index(idx, (3, 4, 5), order=order),
          np.ravel_multi_index(idx, (3, 4, 5), order=order))
  check(jnp.ravel_multi_index(idx, (3, 4, 5), mode="clip", order="F"),
        np.ravel_multi_index(idx, (3, 4, 5), mode="clip", order="F"))
  with pytest.raises(ValueError, match="invalid order"):
    jnp.ravel_multi_index(idx, (3, 4, 5), order="X")
  with pytest.raises(ValueError, match=r"invalid mode='foo'\. Expected 'raise', 'wrap', "
                                       r"'clip', or 'ignore'\."):
    jnp.ravel_multi_index(idx, (3, 4, 5), mode="foo")


def test_interp_as_jax_computes_it():
  """JAX 0.10.2's values: below repeated xp points the lower fp is taken (where dx is 0),
  a complex fp stays complex, x and xp promote apart from fp; the gradient with respect to
  fp is bit for bit the reference's (its three gathers of fp[i - 1])."""
  xp, fp = jnp.array([1., 1., 2., 3.]), jnp.array([0., 10., 20., 30.])
  x = jnp.array([0.5, 1., 1.5, 3.5])
  check(jnp.interp(x, xp, fp, left="extrapolate", right="extrapolate"),
        np.array([0., 10., 15., 35.], np.float32))
  out = jnp.interp(jnp.array([0.5, 1.5]), jnp.array([0., 1., 2.]), jnp.array([1j, 2., 3 + 1j]))
  check(out, np.array([1 + 0.5j, 2.5 + 0.5j], np.complex64))
  check(jnp.interp(jnp.array([0.5], jnp.float16), jnp.array([0., 1.]),
                   jnp.array([0., 3.], jnp.float16)), np.array([1.5], np.float32))
  rng = np.random.default_rng(0)
  xs = np.sort(rng.standard_normal(50)).astype(np.float32)
  fs = rng.standard_normal(50).astype(np.float32)
  pts = rng.standard_normal(200).astype(np.float32) * 1.5
  g = np.asarray(xjax.grad(lambda f: jnp.sum(jnp.interp(pts, xs, f)))(fs))
  # JAX 0.10.2's float32 bits of the first nine entries
  assert g[:9].view(np.uint32).tolist() == [
      1105318917, 1099836409, 1015487712, 1087231890, 1089089312, 1087525285, 1083736498,
      1075491368, 1083915823]
  assert xjax.jit(lambda l: jnp.interp(jnp.array([0.]), xp, fp, left=l))(-3.) == -3.
