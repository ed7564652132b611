"""More xjax.numpy: gather-based helpers, convolve/correlate, scalar types, frexp, partition,
cov/corrcoef, apply_along_axis/apply_over_axes, unique with axis/return_*."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

RNG = np.random.default_rng(0)


def check(x, expected, dtype=None):
  x = np.asarray(x)
  np.testing.assert_allclose(x, expected, rtol=1e-5, atol=1e-5)
  assert x.shape == np.shape(expected)
  if dtype is not None:
    assert x.dtype == np.dtype(dtype)


def test_gather_based_helpers_under_jit():
  a = np.arange(5.0, dtype=np.float32)
  rep = xjax.jit(lambda a, r: jnp.repeat(a, r, total_repeat_length=9))(a, np.array([2, 0, 3, 1, 3]))
  check(rep, np.repeat(a, [2, 0, 3, 1, 3]))
  m = np.array([0, 3, 0, 1, 0, 2], np.float32)
  (nz,) = xjax.jit(lambda m: jnp.nonzero(m, size=4, fill_value=-1))(m)
  check(nz, [1, 3, 5, -1], np.int32)
  u = xjax.jit(lambda x: jnp.unique(x, size=4))(np.array([3, 1, 3, 2, 1], np.int32))
  check(u, [1, 2, 3, 1])
  check(jnp.searchsorted(np.array([3., 1, 2]), np.array([1.5, 2.5]), sorter=np.array([1, 2, 0])),
        [1, 2])
  check(jnp.median(np.array([[3., 1, 2, 7], [0, 5, 4, 4]]), axis=1), [2.5, 4.0])
  check(jnp.interp(np.array([0.5, 2.5]), np.array([0., 1, 3]), np.array([0., 2, 6])), [1, 5])


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


def test_cumulative_empty_axis():
  assert jnp.cumsum(jnp.zeros((0, 3)), axis=0).shape == (0, 3)
  assert xjax.jit(lambda x: xjax.lax.cummax(x, 1, reverse=True))(jnp.zeros((2, 0))).shape == (2, 0)
  assert xjax.vmap(jnp.cumprod)(jnp.zeros((3, 0))).shape == (3, 0)
  check(jnp.cumulative_sum(jnp.zeros((0,), jnp.int32), include_initial=True), [0], np.int32)


def test_scalar_types():
  x = jnp.float32(1)
  assert isinstance(x, jnp.ndarray) and x.dtype == np.float32 and not x.weak_type
  check(jnp.int32([1.7, 2]), [1, 2], np.int32)
  check(jnp.bool_(2), True, np.bool_)
  check(jnp.bfloat16(1.5).astype(np.float32), 1.5)
  assert jnp.bfloat16(1.5).dtype == jnp.bfloat16.dtype
  assert np.dtype(jnp.float32) == np.float32 and np.dtype(jnp.bfloat16).name == "bfloat16"
  assert jnp.float32 == np.float32 and hash(jnp.float32) == hash(np.float32)
  assert isinstance(np.float32(1), jnp.float32) and not isinstance(np.int32(1), jnp.float32)
  assert jnp.issubdtype(jnp.float32, jnp.floating) and jnp.issubdtype(jnp.bfloat16, jnp.floating)
  assert jnp.issubdtype(jnp.uint8, np.unsignedinteger) and not jnp.issubdtype(jnp.int8, jnp.floating)
  assert jnp.zeros(2, jnp.float16).dtype == np.float16
  assert jnp.arange(3).astype(jnp.uint8).dtype == np.uint8
  assert jnp.result_type(jnp.float32, jnp.int32) == np.float32
  assert jnp.promote_types(jnp.int8, jnp.uint8) == np.int16
  assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps
  assert xjax.jit(lambda v: jnp.float32(v))(3).dtype == np.float32
  assert repr(jnp.float32) == "<class 'xjax.numpy.float32'>"


def test_frexp():
  x = np.array([0., -0., np.inf, -np.inf, np.nan, -3.5, 1.0, 0.3, 1e4, -7e-3], np.float32)
  for dt in (np.float32, np.float16):
    m, e = jnp.frexp(x.astype(dt))
    rm, re = np.frexp(x.astype(dt))
    assert m.dtype == dt and e.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(m), rm)
    np.testing.assert_array_equal(np.asarray(e), re)
  m, e = jnp.frexp(3)
  check(m, 0.75, np.float32)
  check(e, 2, np.int32)


def test_partition():
  a = RNG.permutation(12).reshape(3, 4).astype(np.float32)
  for axis, k in ((-1, 1), (0, 2), (-1, -1)):
    p = np.asarray(jnp.partition(a, k, axis=axis))
    check(np.take(p, k, axis), np.take(np.partition(a, k, axis=axis), k, axis))
    i = jnp.argpartition(a, k, axis=axis)
    check(np.take(np.take_along_axis(a, np.asarray(i), axis), k, axis),
          np.take(np.sort(a, axis), k, axis))
  with pytest.raises(ValueError):
    jnp.partition(a, 4)


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


def test_apply_along_and_over_axes():
  a = RNG.normal(size=(2, 3, 4)).astype(np.float32)
  f = lambda v: v * v.sum()
  for axis in (0, 1, 2, -1):
    check(jnp.apply_along_axis(f, axis, a), np.apply_along_axis(f, axis, a))
  check(jnp.apply_along_axis(lambda v: v.max(), 1, a), np.apply_along_axis(np.max, 1, a))
  check(jnp.apply_over_axes(jnp.sum, a, [0, 2]), np.apply_over_axes(np.sum, a, [0, 2]))


def test_unique_axis_and_outputs():
  a = np.array([[1, 2], [1, 2], [0, 3]], np.int32)
  for k, (r, e) in enumerate(zip(jnp.unique(a, axis=0, return_index=True, return_inverse=True,
                                            return_counts=True),
                                 np.unique(a, axis=0, return_index=True, return_inverse=True,
                                           return_counts=True))):
    check(r, e, np.int32)
  v, i, inv, c = jnp.unique(np.array([3, 1, 3, 2]), size=5, return_index=True,
                            return_inverse=True, return_counts=True)
  check(v, [1, 2, 3, 1, 1])
  check(i, [1, 3, 0, 1, 1])
  check(inv, [2, 0, 2, 1])
  check(c, [1, 1, 2, 0, 0])
  check(jnp.unique(a, axis=0, size=4, fill_value=9), [[0, 3], [1, 2], [9, 9], [9, 9]])


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


def test_axis_arguments_take_any_sequence_of_axes():
  # JAX reads axis= as one index or any iterable of them (distrax passes a range)
  x = jnp.ones((2, 1, 3))
  assert jnp.sum(x, axis=range(2)).shape == (3,)
  assert jnp.mean(x, axis=range(2)).shape == (3,)
  assert jnp.expand_dims(x, range(2)).shape == (1, 1, 2, 1, 3)
  assert jnp.expand_dims(x, np.array([0, 1])).shape == (1, 1, 2, 1, 3)
  assert jnp.squeeze(x, axis=range(1, 2)).shape == (2, 3)
  assert jnp.flip(x, axis=range(2)).shape == (2, 1, 3)
  assert jnp.sum(x, axis=np.int64(1)).shape == (2, 3)
  with pytest.raises(ValueError, match="duplicate value in 'axis'"):
    jnp.sum(x, axis=(0, 0))
