"""jax.scipy.linalg's qr (pivoting) and qr_multiply, rsf2csf, solve_sylvester and
eigh_tridiagonal: values against SciPy, numbers taken from JAX 0.10.2, gradients, batching,
jit against eager, and bad input."""
import numpy as np
import pytest
import scipy.linalg as sl

import xjax
import xjax.numpy as jnp
from xjax import random
from xjax.scipy import linalg as L
from xjax.test_util import check_grads

from tests.checking import check

RNG = np.random.default_rng(0)
A4 = RNG.standard_normal((4, 3)).astype(np.float32)
C2 = RNG.standard_normal((2, 4)).astype(np.float32)
TOL = dict(rtol=2e-5, atol=2e-5)


def test_pivoted_qr_matches_scipy_and_differentiates():
  q, r, p = L.qr(A4, pivoting=True)
  eq, er, ep = sl.qr(A4, pivoting=True)
  np.testing.assert_array_equal(p, ep)
  assert p.dtype == np.int32
  check(q, eq, **TOL)
  check(r, er, **TOL)
  check(np.asarray(q) @ np.asarray(r), A4[:, ep], **TOL)
  r, p = L.qr(A4, pivoting=True, mode="r")
  check(r, er, **TOL)
  q, r, p = L.qr(A4, pivoting=True, mode="economic")
  assert q.shape == (4, 3) and r.shape == (3, 3)
  with xjax.enable_x64(True):
    check_grads(lambda a: L.qr(a, pivoting=True, mode="economic")[1], (A4.astype(np.float64),),
                1, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("conjugate", [False, True])
def test_qr_multiply_matches_scipy(conjugate):
  a = (RNG.standard_normal((5, 3)) + 1j * RNG.standard_normal((5, 3))).astype(np.complex64)
  for mode, c in (("right", RNG.standard_normal((2, 5))), ("left", RNG.standard_normal((3, 2))),
                  ("right", RNG.standard_normal(5)), ("left", RNG.standard_normal(3))):
    c = c.astype(np.complex64)
    got, r = L.qr_multiply(a, c, mode=mode, conjugate=conjugate)
    want, wr = sl.qr_multiply(a, c, mode=mode, conjugate=conjugate)
    check(got, want, **TOL)
    check(r, wr, **TOL)
  got, r, p = L.qr_multiply(A4, C2, pivoting=True, conjugate=conjugate)
  want, wr, wp = sl.qr_multiply(A4, C2, pivoting=True, conjugate=conjugate)
  check(got, want, **TOL)
  np.testing.assert_array_equal(p, wp)


def test_qr_multiply_shapes_batches_and_errors():
  out, r = L.qr_multiply(A4, C2)
  check(out[0, :3], [0.55542, 0.44108, -1.17987], rtol=1e-4, atol=1e-4)  # JAX 0.10.2
  got, _ = L.qr_multiply(A4.T, C2[:, :3].T, mode="left")  # wide a: Q is 3 x 3
  want, _ = sl.qr_multiply(A4.T, C2[:, :3].T, mode="left")
  check(got, want, **TOL)
  out, r = L.qr_multiply(np.stack([A4, 2 * A4]), C2)
  assert out.shape == (2, 2, 3) and r.shape == (2, 3, 3)
  check(out[1], L.qr_multiply(2 * A4, C2)[0], **TOL)
  out, _ = L.qr_multiply(np.eye(3, dtype=np.int32), np.ones((2, 3), np.int32))
  assert out.dtype == np.float32
  with pytest.raises(ValueError, match="mode must be 'right' or 'left'"):
    L.qr_multiply(A4, C2, mode="x")
  with pytest.raises(ValueError, match="c @ Q operation"):
    L.qr_multiply(A4, C2[:, :3])
  with pytest.raises(ValueError, match="Q @ c operation"):
    L.qr_multiply(A4, C2, mode="left")


def test_rsf2csf():
  a = np.array([[1., 2, 0], [-3, 1, 2], [2, 0, 1]], np.float32)
  t, z = L.schur(a)
  tc, zc = L.rsf2csf(t, z)
  assert tc.dtype == zc.dtype == np.complex64
  check(tc[0, 0], 0.44643 + 2.63046j, rtol=1e-4, atol=1e-4)  # JAX 0.10.2 (and SciPy's order)
  st, sz = sl.rsf2csf(np.asarray(t), np.asarray(z))
  check(tc, st, rtol=1e-4, atol=1e-4)
  check(zc, sz, rtol=1e-4, atol=1e-4)
  assert np.abs(np.tril(np.asarray(tc), -1)).max() == 0
  check(np.asarray(zc) @ np.asarray(tc) @ np.conj(np.asarray(zc)).T, a, np.complex64, rtol=1e-4,
        atol=1e-4)
  tb, zb = L.rsf2csf(np.stack([t, t]), z)  # batch dims broadcast
  check(tb[1], tc, **TOL)
  t1, z1 = L.rsf2csf(np.ones((1, 1), np.float32), np.ones((1, 1), np.float32))
  assert t1.dtype == np.complex64
  with pytest.raises(ValueError, match="'T' must be square"):
    L.rsf2csf(t[:2], z)
  with pytest.raises(ValueError, match="shapes must match"):
    L.rsf2csf(t, z[:2, :2])


@pytest.mark.parametrize("method", ["schur", "eigen"])
def test_solve_sylvester(method):
  rng = np.random.default_rng(1)  # its own draws: the result does not hang on test order
  a = rng.standard_normal((4, 4)).astype(np.float32) + 4 * np.eye(4, dtype=np.float32)
  b = rng.standard_normal((3, 3)).astype(np.float32) + 4 * np.eye(3, dtype=np.float32)
  c = rng.standard_normal((4, 3)).astype(np.float32)
  x = L.solve_sylvester(a, b, c, method=method)
  assert x.dtype == np.float32
  check(x, sl.solve_sylvester(a, b, c), rtol=1e-4, atol=1e-4)
  a3 = np.array([[1., 2, 0], [-3, 1, 2], [2, 0, 1]], np.float32)
  x = L.solve_sylvester(a3, np.array([[2., 1], [0, 3]], np.float32),
                        np.arange(6., dtype=np.float32).reshape(3, 2), method=method)
  check(x.ravel(), [0.07547, 0.04953, -0.11321, 0.36321, 1.28302, 0.90448],  # JAX's
        rtol=1e-4, atol=1e-4)
  xb = L.solve_sylvester(np.stack([a, 2 * a]), b, c, method=method)
  check(xb[1], sl.solve_sylvester(2 * a, b, c), rtol=1e-4, atol=1e-4)
  ac = (a + 1j * np.eye(4)).astype(np.complex64)
  xc = L.solve_sylvester(ac, b, c, method=method)
  assert xc.dtype == np.complex64
  # float32 loses digits on some complex systems (JAX's both routes as much as xjax's: 1.4e-3
  # against SciPy on one matrix); the residual is the independent check
  check(xc, sl.solve_sylvester(ac, b, c), rtol=2e-3, atol=2e-3)
  xc = np.asarray(xc, np.complex128)
  check(ac @ xc + xc @ b, c, np.complex128, **TOL)
  eye = np.eye(2, dtype=np.float32)
  assert np.isnan(L.solve_sylvester(eye, -eye, np.ones((2, 2), np.float32),
                                    method=method)).all()


def test_solve_sylvester_jit_grad_and_errors():
  a = np.diag(np.array([1., 2, 3], np.float32)) + 0.1
  b = np.diag(np.array([1., 3], np.float32))
  c = np.ones((3, 2), np.float32)
  check(xjax.jit(L.solve_sylvester)(a, b, c), L.solve_sylvester(a, b, c), **TOL)
  with xjax.enable_x64(True):
    check_grads(lambda c: L.solve_sylvester(a.astype(np.float64), b.astype(np.float64), c),
                (c.astype(np.float64),), 1, atol=1e-6, rtol=1e-6)
  assert L.solve_sylvester(np.eye(2, dtype=np.int32), np.eye(2, dtype=np.int32),
                           np.ones((2, 2), np.int32)).dtype == np.float32
  with pytest.raises(ValueError, match="Unrecognized method"):
    L.solve_sylvester(a, b, c, method="x")
  with pytest.raises(ValueError, match="Incompatible shapes"):
    L.solve_sylvester(a, b, c.T)


def _tridiag_dense(d, e):
  return np.diag(d) + np.diag(e, 1) + np.diag(np.conj(e), -1)


def test_eigh_tridiagonal_values_and_vectors():
  d = np.array([1., 2, 3, 4], np.float32)
  e = np.array([0.5, 0.25, 1], np.float32)
  w = L.eigh_tridiagonal(d, e, eigvals_only=True)
  check(w, sl.eigh_tridiagonal(d, e, eigvals_only=True), rtol=1e-5, atol=1e-5)
  check(w, [0.78798, 2.07702, 2.51015, 4.62485], rtol=1e-4, atol=1e-4)  # JAX 0.10.2
  w, v = L.eigh_tridiagonal(d, e)
  check(np.abs(v), np.abs(sl.eigh_tridiagonal(d, e)[1]), rtol=1e-4, atol=1e-4)
  check(_tridiag_dense(d, e) @ np.asarray(v), np.asarray(v) * np.asarray(w), rtol=1e-4, atol=1e-4)
  check(L.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 2)),
        np.asarray(w)[1:3], rtol=1e-5, atol=1e-5)
  tol = L.eigh_tridiagonal(d, e, eigvals_only=True, tol=0.1)
  check(tol, w, rtol=0.1, atol=0.1)
  # Hermitian (complex off-diagonal)
  ec = (e * 1j).astype(np.complex64)
  w, v = L.eigh_tridiagonal(d.astype(np.complex64), ec)
  assert w.dtype == np.float32 and v.dtype == np.complex64
  check(_tridiag_dense(d, ec) @ np.asarray(v), np.asarray(v) * np.asarray(w), rtol=1e-4, atol=1e-4)
  w, v = L.eigh_tridiagonal(d[:1], e[:0])
  assert (w.shape, v.shape) == ((1,), (1, 1))


def test_eigh_tridiagonal_clusters_x64_and_errors():
  n = 30
  d = np.full(n, 2.)
  e = np.full(n - 1, -1.)
  with xjax.enable_x64(True):
    w, v = L.eigh_tridiagonal(d, e, key=random.key(1))
    check(w, np.linalg.eigvalsh(_tridiag_dense(d, e)), rtol=1e-12, atol=1e-12)
    check(np.asarray(v).T @ np.asarray(v), np.eye(n), rtol=1e-8, atol=1e-8)
  # A matrix with repeated eigenvalues: orthonormal vectors within the cluster.
  d = np.array([1., 1, 1, 5, 5], np.float32)
  e = np.zeros(4, np.float32)
  w, v = L.eigh_tridiagonal(d, e)
  check(w, [1, 1, 1, 5, 5], **TOL)
  check(np.asarray(v).T @ np.asarray(v), np.eye(5), rtol=1e-5, atol=1e-5)
  with pytest.raises(NotImplementedError, match="select='v'"):
    L.eigh_tridiagonal(d, e, select="v", select_range=(0., 1.))
  with pytest.raises(ValueError, match="select must have a value"):
    L.eigh_tridiagonal(d, e, select="x")
  with pytest.raises(ValueError, match="select_range must be specified"):
    L.eigh_tridiagonal(d, e, select="i")
  with pytest.raises(ValueError, match="empty index range"):
    L.eigh_tridiagonal(d, e, select="i", select_range=(2, 1))
  with pytest.raises(TypeError, match="same dtype"):
    L.eigh_tridiagonal(d, e.astype(np.complex64))
  with pytest.raises(TypeError, match="Only float32 and float64"):
    L.eigh_tridiagonal(d.astype(np.int32), e.astype(np.int32))
  assert float(jnp.max(xjax.jit(lambda d: L.eigh_tridiagonal(d, e, eigvals_only=True))(d))) == \
      pytest.approx(5, rel=1e-6)


@pytest.mark.cpu_bits  # (recorded on an Intel CPU; an AMD one rounds other bits, JAX too)
def test_eigh_tridiagonal_bits_are_jaxs():
  # JAX 0.10.2's bits for a cluster of close eigenvalues (its bisection, its inverse
  # iteration with the cluster orthonormalised by QR, random.key(42)'s starts).
  w, v = xjax.scipy.linalg.eigh_tridiagonal(xjax.numpy.ones(6), xjax.numpy.ones(5) * 1e-4)
  np.testing.assert_array_equal(np.asarray(w).view(np.uint32), [
      1065350193, 1065351125, 1065352469, 1065353590, 1065354262, 1065354728])
  np.testing.assert_array_equal(np.asarray(v).view(np.uint32)[:2], [
      [3194846360, 1054210008, 1057318958, 1057318957, 1054210005, 1047362712],
      [1054210008, 3204802606, 3194846362, 1047362717, 1057318959, 1054210008]])
