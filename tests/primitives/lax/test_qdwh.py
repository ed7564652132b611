"""lax.linalg.qdwh (QR-based dynamically weighted Halley polar decomposition) and
jax.scipy.linalg.polar(method="qdwh"): values against SciPy's polar, the iteration counts
and convergence flags JAX 0.10.2 reports, padding, vmap and jit, and bad input."""
import numpy as np
import pytest
import scipy.linalg

import xjax
from xjax.lax import linalg as L
from xjax.scipy import linalg as sl

RNG = np.random.default_rng(0)


def test_values_counts_and_dtypes_match_jax():
  x = RNG.standard_normal((5, 3)).astype(np.float32)
  u, h, k, ok = L.qdwh(x)
  eu, eh = scipy.linalg.polar(x)
  np.testing.assert_allclose(u, eu, atol=2e-6)
  np.testing.assert_allclose(h, eh, atol=2e-6)
  assert (int(k), bool(ok)) == (4, True)   # JAX 0.10.2
  assert k.dtype == np.int32 and k.weak_type and ok.dtype == np.bool_ and not ok.weak_type
  # An ill-conditioned matrix needs more steps; few allowed steps leave it unconverged.
  x2 = np.array([[1., 0.], [0., 1e-4], [0., 0.]], np.float32)
  u, h, k, ok = L.qdwh(x2)
  np.testing.assert_allclose(u, [[1, 0], [0, 1], [0, 0]], atol=1e-6)
  assert (int(k), bool(ok)) == (4, True)
  u, h, k, ok = L.qdwh(x2, max_iterations=2)
  np.testing.assert_allclose(u[1, 1], 0.7463236, rtol=1e-5)   # JAX 0.10.2
  assert (int(k), bool(ok)) == (2, False)
  x3 = np.random.default_rng(3).standard_normal((50, 20)).astype(np.float32)
  assert [(int(r[2]), bool(r[3])) for r in (L.qdwh(x3, eps=1e-3), L.qdwh(x3, max_iterations=4))
          ] == [(3, True), (4, False)]
  # The zero matrix: no scaling, u = 0.
  u, h, k, ok = L.qdwh(np.zeros((3, 2), np.float32))
  assert not np.asarray(u).any() and (int(k), bool(ok)) == (4, True)


def test_complex_float64_and_padding():
  xc = (RNG.standard_normal((4, 3)) + 1j * RNG.standard_normal((4, 3))).astype(np.complex64)
  u, h, k, ok = L.qdwh(xc)
  eu, eh = scipy.linalg.polar(xc)
  np.testing.assert_allclose(u, eu, atol=5e-6)
  np.testing.assert_allclose(h, eh, atol=5e-6)
  x64 = RNG.standard_normal((6, 4))
  with xjax.enable_x64(True):
    u, h, k, ok = L.qdwh(x64)
    assert k.dtype == np.int64 and (int(k), bool(ok)) == (6, True)
    np.testing.assert_allclose(u, scipy.linalg.polar(x64)[0], atol=1e-12)
  x = RNG.standard_normal((5, 3)).astype(np.float32)
  u, h, _, _ = L.qdwh(x, dynamic_shape=(4, 2))
  eu, eh = scipy.linalg.polar(x[:4, :2])
  np.testing.assert_allclose(u[:4, :2], eu, atol=2e-6)
  np.testing.assert_allclose(h[:2, :2], eh, atol=2e-6)
  assert not np.asarray(u)[4:].any() and not np.asarray(u)[:, 2:].any()


def test_vmap_jit_and_errors():
  xs = RNG.standard_normal((3, 4, 3)).astype(np.float32)
  us = xjax.vmap(lambda x: L.qdwh(x)[0])(xs)
  for i in range(3):
    np.testing.assert_allclose(us[i], L.qdwh(xs[i])[0], atol=1e-6)
  np.testing.assert_allclose(xjax.jit(lambda x: L.qdwh(x)[1])(xs[0]), L.qdwh(xs[0])[1],
                             atol=1e-6)
  with pytest.raises(ValueError, match="M >= N"):
    L.qdwh(xs[0].T)
  with pytest.raises(ValueError, match="not inexact"):
    L.qdwh(np.ones((3, 2), np.int32))


def test_scipy_polar_uses_qdwh_by_default():
  a = np.array([[1., 2], [3, 4]], np.float32)
  u, p = sl.polar(a)
  np.testing.assert_allclose(u, [[-0.51449573, 0.8574929], [0.8574929, 0.51449573]],
                             atol=1e-6)   # JAX 0.10.2
  np.testing.assert_allclose(p, [[2.057983, 2.40098], [2.40098, 3.7729688]], atol=1e-5)
  wide = RNG.standard_normal((2, 2, 4)).astype(np.float32)
  u, p = sl.polar(wide, side="left")
  for i in range(2):
    eu, ep = scipy.linalg.polar(wide[i], side="left")
    np.testing.assert_allclose(u[i], eu, atol=1e-5)
    np.testing.assert_allclose(p[i], ep, atol=1e-5)
  with pytest.raises(NotImplementedError, match="qdwh"):
    sl.polar(a, side="left")
  with pytest.raises(ValueError, match="Unknown polar decomposition method"):
    sl.polar(a, method="bad")
  with pytest.raises(ValueError, match="at least a 2-D"):
    sl.polar(np.ones(3, np.float32))


@pytest.mark.cpu_bits  # (recorded on an Intel CPU; an AMD one rounds other bits, JAX too)
def test_qdwh_bits_are_jaxs():
  # JAX 0.10.2's bits: its weights as arrays indexed in fori_loops, its convergence bound
  # (a float32 cube root), (0.5 u) @ (u^H u) in the Newton-Schulz polish.
  a = np.arange(15, dtype=np.float32).reshape(5, 3) / 7 + np.eye(5, 3, dtype=np.float32)
  u, h, k, converged = L.qdwh(a)
  np.testing.assert_array_equal(np.asarray(u).view(np.uint32)[:2],
                                [[1061456670, 3192491602, 3190114591],
                                 [3191383677, 1062778403, 3187779690]])
  np.testing.assert_array_equal(np.asarray(h).view(np.uint32)[0],
                                [1072633505, 1066232824, 1068220749])
  assert int(k) == 4 and bool(converged)
