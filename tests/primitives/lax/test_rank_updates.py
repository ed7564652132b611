"""lax.linalg.cholesky_update (rank-1 Cholesky update) and symmetric_product (syrk):
values against NumPy, JAX 0.10.2's numbers, gradients, vmap against loops, jit against
eager, and bad input as JAX."""
import numpy as np
import pytest

import xjax
from xjax.lax import linalg as L
from xjax.test_util import check_grads

RNG = np.random.default_rng(0)


def _upper_factor(n, batch=(), dtype=np.float32):
  m = RNG.standard_normal(batch + (n, n))
  a = m @ np.swapaxes(m, -1, -2) + n * np.eye(n)
  return np.swapaxes(np.linalg.cholesky(a), -1, -2).astype(dtype), a


def test_cholesky_update_values():
  a = np.array([[4., 1, 0], [1, 3, 1], [0, 1, 2]], np.float32)
  r = np.linalg.cholesky(a).T.astype(np.float32)
  w = np.array([1., 2, 3], np.float32)
  out = L.cholesky_update(r, w)
  want = [[2.236068, 1.3416407, 1.3416407],  # JAX 0.10.2, below-diagonal round-off included
          [0., 2.2803509, 2.2803507],
          [0., -9.9588595e-09, 1.9999999]]
  np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-12)
  np.testing.assert_allclose(out, np.linalg.cholesky(a + np.outer(w, w)).T, atol=1e-5)
  r, a = _upper_factor(6, dtype=np.float64)
  w = RNG.standard_normal(6)
  with xjax.enable_x64(True):
    out = np.asarray(L.cholesky_update(r, w))
  np.testing.assert_allclose(out.T @ out, a + np.outer(w, w), rtol=1e-12)
  np.testing.assert_allclose(np.tril(out, -1), 0, atol=1e-12)
  # A zero update leaves the factor unchanged.
  np.testing.assert_allclose(L.cholesky_update(r.astype(np.float32), np.zeros(6, np.float32)),
                             r, rtol=1e-6)


def test_cholesky_update_vmap_jit_and_gradients():
  r, _ = _upper_factor(4, batch=(3,))
  w = RNG.standard_normal((3, 4)).astype(np.float32)
  out = xjax.vmap(L.cholesky_update)(r, w)
  for i in range(3):
    np.testing.assert_allclose(out[i], L.cholesky_update(r[i], w[i]), rtol=1e-6, atol=1e-6)
  np.testing.assert_allclose(xjax.jit(L.cholesky_update)(r[0], w[0]), out[0], rtol=1e-6,
                             atol=1e-6)
  np.testing.assert_allclose(xjax.vmap(L.cholesky_update, (None, 0))(r[0], w)[1],
                             L.cholesky_update(r[0], w[1]), rtol=1e-6, atol=1e-6)
  r64, _ = _upper_factor(3, dtype=np.float64)
  w64 = RNG.standard_normal(3)
  with xjax.enable_x64(True):
    # Upper-triangular tangents for r: the update reads r as a factor.
    check_grads(lambda u, w: L.cholesky_update(np.triu(np.ones((3, 3))) * u, w),
                (r64, w64), 1, atol=1e-6, rtol=1e-6)


def test_cholesky_update_bad_input():
  with pytest.raises(TypeError, match="does not accept dtype complex64 at position 0"):
    L.cholesky_update(np.eye(3, dtype=np.complex64), np.ones(3, np.complex64))
  with pytest.raises(TypeError, match="same dtypes, got float32, float16"):
    L.cholesky_update(np.eye(3, dtype=np.float32), np.ones(3, np.float16))
  with pytest.raises(ValueError, match="Rank-1 update to Cholesky decomposition"):
    L.cholesky_update(np.eye(3, dtype=np.float32), np.ones(4, np.float32))
  with pytest.raises(TypeError, match="Input 1 to cholesky_update must have rank at least 1"):
    L.cholesky_update(np.eye(3, dtype=np.float32), np.float32(1))


def test_symmetric_product_values_and_jaxpr():
  a = np.arange(6, dtype=np.float32).reshape(3, 2)
  c = np.eye(3, dtype=np.float32)
  want = [[5., 6., 10.], [6., 29., 46.], [10., 46., 85.]]  # JAX 0.10.2
  np.testing.assert_array_equal(L.symmetric_product(a, c, alpha=2., beta=3.), want)
  np.testing.assert_array_equal(
      L.symmetric_product(a, c, alpha=2., beta=3., symmetrize_output=True), want)
  np.testing.assert_array_equal(L.symmetric_product(a, c), a @ a.T)
  text = str(xjax.make_jaxpr(lambda a, c: L.symmetric_product(a, c, alpha=2., beta=3.))(a, c))
  assert "symmetric_product[alpha=2.0 beta=3.0]" in text
  # symmetrize_output mirrors the lower triangle.
  lower_only = np.tril(np.arange(9, dtype=np.float32).reshape(3, 3))
  out = L.symmetric_product(np.zeros((3, 1), np.float32), lower_only, beta=1.,
                            symmetrize_output=True)
  np.testing.assert_array_equal(out, lower_only + np.tril(lower_only, -1).T)


def test_symmetric_product_batches_and_gradients():
  a = RNG.standard_normal((4, 3, 2)).astype(np.float32)
  c = RNG.standard_normal((4, 3, 3)).astype(np.float32)
  out = L.symmetric_product(a, c, alpha=0.5, beta=2.)
  np.testing.assert_allclose(out, 0.5 * a @ np.swapaxes(a, -1, -2) + 2 * c, rtol=1e-5)
  vm = xjax.vmap(lambda a, c: L.symmetric_product(a, c, alpha=0.5, beta=2.), (0, None))(a, c[0])
  for i in range(4):
    np.testing.assert_allclose(vm[i], 0.5 * a[i] @ a[i].T + 2 * c[0], rtol=1e-5)
  with xjax.enable_x64(True):
    check_grads(lambda a, c: L.symmetric_product(a, c, alpha=0.5, beta=2.),
                (a[0].astype(np.float64), c[0].astype(np.float64)), 2, atol=1e-6, rtol=1e-6)


def test_symmetric_product_bad_input():
  a = np.ones((3, 2), np.float32)
  with pytest.raises(TypeError, match="does not accept dtype complex64 at position 0"):
    L.symmetric_product(a.astype(np.complex64), np.eye(3, dtype=np.complex64))
  with pytest.raises(ValueError, match="symmetric_update expects a rectangular matrix"):
    L.symmetric_product(a, np.eye(2, dtype=np.float32))
  with pytest.raises(TypeError, match="same dtypes"):
    L.symmetric_product(a, np.eye(3, dtype=np.float16))
