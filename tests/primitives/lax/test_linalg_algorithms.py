"""lax.linalg's algorithm choices (EigImplementation, EighImplementation, SvdAlgorithm), the
parameters eig/eigh/svd carry as JAX 0.10.2 does, subsets, and eig's eigenvector JVP."""
import warnings

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.lax import linalg as L
from xjax.test_util import check_grads

A = np.array([[4., 1, 0], [1, 3, 1], [0, 1, 2]], np.float32)
B = np.array([[1., 2, 0], [0.5, 3, 1], [0, 1, -2]], np.float32)


def test_enums_have_jax_members():
  assert [m.value for m in L.EigImplementation] == ["cusolver", "magma", "lapack"]
  assert [m.value for m in L.EighImplementation] == ["qr", "jacobi", "qdwh"]
  assert [m.value for m in L.SvdAlgorithm] == ["default", "QR", "Jacobi", "polar",
                                               "divide_and_conquer"]


def test_jaxprs_carry_jax_parameters():
  text = str(xjax.make_jaxpr(L.eigh)(A))
  assert "algorithm=None" in text and "subset_by_index=None" in text
  text = str(xjax.make_jaxpr(lambda a: L.svd(a, algorithm=L.SvdAlgorithm.QR))(A))
  assert "algorithm=SvdAlgorithm.QR" in text and "subset_by_index=None" in text
  text = str(xjax.make_jaxpr(L.eig)(A))
  assert "enable_eigvec_derivs=False" in text and "implementation=None" in text


@pytest.mark.parametrize("algorithm", [None, L.SvdAlgorithm.DEFAULT, L.SvdAlgorithm.QR,
                                       L.SvdAlgorithm.DIVIDE_AND_CONQUER])
def test_svd_algorithms_on_the_cpu(algorithm):
  rng = np.random.default_rng(1)
  a = rng.standard_normal((2, 5, 3)).astype(np.float32)
  u, s, vt = L.svd(a, full_matrices=False, algorithm=algorithm)
  np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-5)
  np.testing.assert_allclose(np.einsum("bik,bk,bkj->bij", u, s, vt), a, atol=1e-5)
  text = xjax.jit(lambda a: L.svd(a, algorithm=algorithm)).lower(a).as_text()
  kernel = "gesvd" if algorithm == L.SvdAlgorithm.QR else "gesdd"
  assert f"lapack_s{kernel}_ffi" in text


def test_unsupported_algorithms_raise_as_jax():
  for alg in (L.SvdAlgorithm.JACOBI, L.SvdAlgorithm.POLAR, "QR"):
    with pytest.raises(NotImplementedError, match="Jacobi and Polar"):
      L.svd(A, algorithm=alg)
  with pytest.raises(NotImplementedError, match="Jacobi implementation is not supported"):
    L.eigh(A, implementation=L.EighImplementation.JACOBI)
  with pytest.raises(NotImplementedError, match="only supported on TPU"):
    L.eigh(A, implementation=L.EighImplementation.QDWH)
  for impl in (L.EigImplementation.MAGMA, L.EigImplementation.CUSOLVER):
    with pytest.raises(ValueError, match="Only the lapack implementation"):
      L.eig(A, implementation=impl)
  with pytest.raises(ValueError, match="cannot both be set"):
    L.svd(A, subset_by_index=(0, 2))


def test_supported_implementations_and_use_magma():
  v, w = L.eigh(A, implementation=L.EighImplementation.QR)
  np.testing.assert_allclose(w, np.linalg.eigvalsh(A), rtol=1e-5)
  w = L.eig(A, implementation=L.EigImplementation.LAPACK)[0]
  np.testing.assert_allclose(np.sort(w.real), np.linalg.eigvalsh(A), rtol=1e-5)
  with pytest.warns(DeprecationWarning, match="use_magma is deprecated"):
    L.eig(A, use_magma=False)
  with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    with pytest.raises(ValueError, match="Only the lapack"):
      L.eig(A, use_magma=True)


def test_subsets_match_the_full_decomposition_and_differentiate():
  rng = np.random.default_rng(2)
  m = rng.standard_normal((4, 4))
  spd = (m @ m.T + 4 * np.eye(4)).astype(np.float64)
  v, w = L.eigh(spd, subset_by_index=(1, 3))
  wf, vf = np.linalg.eigh(spd)
  np.testing.assert_allclose(w, wf[1:3], rtol=1e-5)
  np.testing.assert_allclose(np.abs(v), np.abs(vf[:, 1:3]), atol=1e-4)
  with pytest.raises(ValueError, match="subset_by_index"):
    L.eigh(spd, subset_by_index=(2, 5))
  r = rng.standard_normal((5, 3)).astype(np.float32)
  u, s, vt = L.svd(r, full_matrices=False, subset_by_index=(1, 3))
  assert (u.shape, s.shape, vt.shape) == ((5, 2), (2,), (2, 3))
  np.testing.assert_allclose(s, np.linalg.svd(r, compute_uv=False)[1:3], rtol=1e-5)
  tol = dict(atol=5e-2, rtol=5e-2)
  check_grads(lambda x: L.eigh(x, subset_by_index=(1, 3))[1], (spd.astype(np.float32),), 1,
              **tol)
  check_grads(lambda x: L.svd(x, full_matrices=False, compute_uv=False,
                              subset_by_index=(0, 2)), (r,), 1, **tol)


def test_square_full_svd_is_differentiable_as_jax():
  # JAX 0.10.2: the JVP with full_matrices=True works for square matrices.
  _, t = xjax.jvp(lambda x: L.svd(x), (B,), (np.ones((3, 3), np.float32),))
  expected = [[-0.06003156, -0.01176956, 0.03957457],
              [0.05502867, -0.07882778, 0.04102098],
              [-0.05529158, -0.02319594, 0.04710707]]
  np.testing.assert_allclose(t[0], expected, atol=1e-5)


def test_empty_svd():
  u, s, vt = L.svd(np.zeros((0, 3), np.float32))
  assert (u.shape, s.shape) == ((0, 0), (0,))
  np.testing.assert_array_equal(vt, np.eye(3))
  u, s, vt = L.svd(np.zeros((3, 0), np.float32), full_matrices=False)
  assert (u.shape, s.shape, vt.shape) == ((3, 0), (0,), (0, 0))


def test_eig_eigenvector_derivatives_opt_in():
  with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
    xjax.jvp(lambda b: L.eig(b)[1], (B,), (np.ones((3, 3), np.float32),))
  f = lambda b: L.eig(b, compute_left_eigenvectors=False, enable_eigvec_derivs=True)[1]
  _, t = xjax.jvp(f, (B,), (np.ones((3, 3), np.float32),))
  expected = [[0.01753952, 0.05556986, -0.1374001],   # from JAX 0.10.2
              [-0.05105513, 0.3590194, -0.18330583],
              [0.20827265, -0.1424934, -0.01993911]]
  np.testing.assert_allclose(t, expected, atol=1e-5)
  f = lambda b: L.eig(b, compute_right_eigenvectors=False, enable_eigvec_derivs=True)[1]
  _, t = xjax.jvp(f, (B,), (np.arange(9, dtype=np.float32).reshape(3, 3),))
  expected = [[0.86183316, -0.86867034, -1.4575503],
              [-0.32350037, -1.4931552, -0.82327896],
              [0.86736757, 0.79433805, -0.12179255]]
  np.testing.assert_allclose(t, expected, atol=1e-5)
  # Finite differences agree on what geev fixes (it may flip an eigenvector's sign between
  # nearby matrices): the weighted projectors v_j v_j^H.
  def projectors(b):
    v = L.eig(b, compute_left_eigenvectors=False, enable_eigvec_derivs=True)[1]
    return jnp.real(jnp.einsum("ij,j,kj->ik", v, jnp.array([1., 2., 3.]), jnp.conj(v)))
  with xjax.enable_x64(True):
    check_grads(projectors, (B.astype(np.float64),), 1, modes=["fwd"], atol=1e-6, rtol=1e-6)
