"""xjax.numpy's polynomials against NumPy: polyfit (SVD least squares, as JAX,
under jit and grad), polyval, polyadd/polysub/polymul, polyder/polyint and vander."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check

X = np.linspace(-1, 2, 9).astype(np.float32)
Y = np.sin(2 * X) + 0.1 * X ** 3
Y2 = np.stack([Y, np.cos(X)], axis=1)
W = np.linspace(0.5, 2, 9).astype(np.float32)


def _np(x, *args, **kw):
  return np.polyfit(np.asarray(x, np.float64), *args, **kw)


@pytest.mark.parametrize("deg", [0, 1, 3])
@pytest.mark.parametrize("y", [Y, Y2], ids=["1d", "2d"])
def test_coefficients_match_numpy(deg, y):
  got = jnp.polyfit(X, y, deg)
  assert got.dtype == np.float32 and got.shape == _np(X, y, deg).shape
  np.testing.assert_allclose(got, _np(X, y, deg), rtol=2e-4, atol=2e-4)


def test_weights_and_jit():
  f = xjax.jit(lambda x, y, w: jnp.polyfit(x, y, 2, w=w))
  np.testing.assert_allclose(f(X, Y2, W), _np(X, Y2.astype(np.float64), 2, w=W),
                             rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("y", [Y, Y2], ids=["1d", "2d"])
def test_full_outputs(y):
  c, res, rank, sv, rcond = jnp.polyfit(X, y, 3, full=True)
  ec, eres, erank, esv, ercond = _np(X, y.astype(np.float64), 3, full=True)
  np.testing.assert_allclose(c, ec, rtol=2e-4, atol=2e-4)
  np.testing.assert_allclose(res, eres, rtol=2e-3, atol=1e-5)
  assert rank.dtype == np.int32 and int(rank) == erank
  np.testing.assert_allclose(sv, esv, rtol=1e-4)
  assert rcond.dtype == np.float32 and float(rcond) == pytest.approx(9 * np.finfo(np.float32).eps)


def test_full_singular_values_underdetermined():
  _, _, rank, sv, _ = jnp.polyfit(X[:4], Y[:4], 6, full=True)
  _, _, erank, esv, _ = _np(X[:4], Y[:4].astype(np.float64), 6, full=True)
  assert sv.shape == (4,) and int(rank) == erank
  np.testing.assert_allclose(sv, esv, rtol=1e-3)


@pytest.mark.parametrize("cov", [True, "unscaled"])
@pytest.mark.parametrize("y", [Y, Y2], ids=["1d", "2d"])
def test_covariance(cov, y):
  c, v = jnp.polyfit(X, y, 2, cov=cov, w=W)
  ec, ev = _np(X, y.astype(np.float64), 2, cov=cov, w=W)
  assert v.shape == ev.shape
  np.testing.assert_allclose(c, ec, rtol=2e-4, atol=2e-4)
  np.testing.assert_allclose(v, ev, rtol=2e-3, atol=1e-6)


def test_grad_matches_finite_differences():
  f = lambda x, y: jnp.sum(jnp.polyfit(x, y, 2) * np.array([1., -2., 0.5], np.float32))
  gx, gy = xjax.grad(f, argnums=(0, 1))(X, Y)
  eps = 1e-3
  for arr, g, i in [(X, gx, 0), (Y, gy, 1)]:
    fd = np.zeros(arr.shape)
    for k in range(arr.size):
      up, dn = arr.astype(np.float64).copy(), arr.astype(np.float64).copy()
      up[k] += eps
      dn[k] -= eps
      args_up, args_dn = [X, Y], [X, Y]
      args_up[i], args_dn[i] = up, dn
      fd[k] = (_np(args_up[0], args_up[1], 2) - _np(args_dn[0], args_dn[1], 2)) @ \
          np.array([1., -2., 0.5]) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=2e-2, atol=2e-3)


def test_errors():
  with pytest.raises(ValueError):
    jnp.polyfit(X, Y, -1)
  with pytest.raises(TypeError):
    jnp.polyfit(X[:, None], Y, 1)
  with pytest.raises(TypeError):
    jnp.polyfit(X, Y[:3], 1)
  with pytest.raises(TypeError):
    jnp.polyfit(X, Y, 1, w=np.ones(3))
  with pytest.raises(ValueError):
    jnp.polyfit(X[:2], Y[:2], 3, cov=True)


def test_polyval_and_arithmetic():
  a = np.random.RandomState(0).randn(3, 4).astype(np.float32)
  check(jnp.polyval(np.array([1, 2, 3]), np.arange(3)), np.polyval([1, 2, 3], np.arange(
      3)).astype(np.int32))
  check(jnp.polyval(np.array([1., -2.], np.float32), a), np.polyval(np.float32([1, -2]), a))
  p, q = np.array([1., 2., 3.], np.float32), np.array([4., 5.], np.float32)
  check(jnp.polyadd(p, q), np.polyadd(p, q))
  check(jnp.polysub(q, p), np.polysub(q, p))
  check(jnp.polymul(p, q), np.polymul(p, q))
  check(jnp.polyder(p), np.polyder(p).astype(np.float32))
  check(jnp.polyder(p, 2), np.polyder(p, 2).astype(np.float32))
  check(jnp.polyint(p), np.polyint(p).astype(np.float32))
  check(jnp.polyint(p, 2, k=np.array([1., 2.])), np.polyint(p, 2, k=[1., 2.]).astype(np.float32))
  check(jnp.vander(q), np.vander(q).astype(np.float32))
  check(jnp.vander(p, 4, increasing=True), np.vander(p, 4, increasing=True).astype(np.float32))


@pytest.mark.cpu_bits
def test_polyfit_as_jax_solves_it():
  """Bits of JAX 0.10.2's results: the coefficients come from lstsq (an SVD), the residual
  is a squared norm, an integer x has no eps (ValueError), cov='unscaled' of a 2-D y has
  JAX's trailing axis."""
  x = jnp.arange(5.)
  y = x ** 2 + 0.3 * jnp.sin(x)
  bits = lambda a: np.asarray(a).ravel().view(np.uint32).tolist()
  c, resid, rank, s, rcond = jnp.polyfit(x, y, 2, full=True)
  assert bits(c) == [1063802015, 1050368345, 1015237194]
  assert bits(resid) == [999500104] and rank == 3
  assert bits(s) == [1070674773, 1057962860, 1040224913]
  c, v = jnp.polyfit(x, jnp.stack([y, x]).T, 1, cov="unscaled")
  assert v.shape == (2, 2, 1) and bits(v) == [1036831948, 3192704205, 3192704205, 1058642330]
  with pytest.raises(ValueError, match="not inexact"):
    jnp.polyfit(jnp.arange(5), y, 1)
