"""lax.linalg primitives and xjax.numpy.linalg: values against NumPy, reconstructions,
gradients, vmap against loops, jit against eager, the HLO fallbacks, and bad input."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax._src.backend import ffi_targets
from xjax._src.primitives.lax.linalg import lapack
from xjax.test_util import check_grads

from tests.checking import check

RNG = np.random.default_rng(0)
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
L = jnp.linalg


def _rand(shape, dtype, rng=RNG):
  x = rng.standard_normal(shape)
  if np.dtype(dtype).kind == "c":
    x = x + 1j * rng.standard_normal(shape)
  return x.astype(dtype)


def _spd(shape, dtype):
  a = _rand(shape, dtype)
  return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _tolerance(dtype) -> dict:
  tol = 1e-2 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-8
  return dict(rtol=tol, atol=tol)


def _H(x):
  return np.conj(np.swapaxes(x, -1, -2))


def test_jaxlib_exports_the_lapack_kernels_we_call():
  # The facts the lowering relies on: jaxlib 0.10.2 registers these FFI targets.
  names = ffi_targets.lapack_targets()
  for base in ("potrf", "getrf", "geqrf", "gesdd", "gesvd", "geev", "gees", "gehrd", "trsm",
               "gtsv"):
    for p in "sdcz":
      assert f"lapack_{p}{base}_ffi" in names
  for p in "sd":
    assert {f"lapack_{p}syevd_ffi", f"lapack_{p}orgqr_ffi", f"lapack_{p}sytrd_ffi"} <= names
  for p in "cz":
    assert {f"lapack_{p}heevd_ffi", f"lapack_{p}ungqr_ffi", f"lapack_{p}hetrd_ffi"} <= names
  text = xjax.jit(L.cholesky).lower(np.eye(3, dtype=np.float32)).as_text()
  assert '"stablehlo.custom_call"' in text and "lapack_spotrf_ffi" in text


@pytest.mark.parametrize("dtype", DTYPES)
def test_decompositions_reconstruct_in_every_dtype(dtype, x64):
  a = _rand((2, 5, 5), dtype)
  spd = _spd((2, 5, 5), dtype)
  c = L.cholesky(spd)
  assert c.dtype == dtype
  check(c, np.linalg.cholesky(spd), **_tolerance(dtype))
  check(np.asarray(c) @ _H(np.asarray(c)), spd, **_tolerance(dtype))
  q, r = L.qr(a)
  check(np.asarray(q) @ np.asarray(r), a, **_tolerance(dtype))
  check(np.triu(np.asarray(r)), r, **_tolerance(dtype))
  u, s, vh = L.svd(a, full_matrices=False)
  check((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), a, **_tolerance(dtype))
  check(s, np.linalg.svd(a, compute_uv=False), **_tolerance(dtype))
  w, v = L.eigh(spd)
  check(w, np.linalg.eigvalsh(spd), **_tolerance(dtype))
  check((np.asarray(v) * np.asarray(w)[..., None, :]) @ _H(np.asarray(v)), spd, **_tolerance(dtype))
  we, ve = L.eig(a)
  check(np.asarray(a) @ np.asarray(ve), np.asarray(ve) * np.asarray(we)[..., None, :],
        **_tolerance(dtype))
  check(L.solve(a, a[..., :2]), np.linalg.solve(a, a[..., :2]), **_tolerance(dtype))
  check(L.det(a), np.linalg.det(a), **_tolerance(dtype))
  check(L.inv(a), np.linalg.inv(a), **_tolerance(dtype))
  sign, logdet = L.slogdet(a)
  esign, elogdet = np.linalg.slogdet(a)
  check(sign, esign, **_tolerance(dtype))
  check(logdet, elogdet, **_tolerance(dtype))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 4, 4)])
def test_qr_and_svd_modes_match_numpy_shapes(shape):
  a = _rand(shape, np.float32)
  for mode in ("reduced", "complete"):
    q, r = L.qr(a, mode=mode)
    eq, er = np.linalg.qr(a, mode=mode)
    assert q.shape == eq.shape and r.shape == er.shape
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), a, atol=1e-5)
  assert L.qr(a, mode="r").shape == np.linalg.qr(a, mode="r").shape
  for full in (True, False):
    u, s, vh = L.svd(a, full_matrices=full)
    eu, _, evh = np.linalg.svd(a, full_matrices=full)
    assert u.shape == eu.shape and vh.shape == evh.shape
  lu, piv, perm = lax.linalg.lu(a)
  m, n = shape[-2:]
  k = min(m, n)
  lu, perm = np.asarray(lu), np.asarray(perm)
  lo = np.tril(lu, -1)[..., :, :k] + np.eye(m, k)
  up = np.triu(lu)[..., :k, :]
  np.testing.assert_allclose(np.take_along_axis(a, perm[..., None], -2), lo @ up, atol=1e-5)


def test_ill_conditioned_and_singular_inputs():
  h = 1 / (np.arange(8)[:, None] + np.arange(8)[None, :] + 1.0)  # Hilbert, cond ~ 1e10
  xjax.config.update("jax_enable_x64", True)
  try:
    np.testing.assert_allclose(L.svdvals(h), np.linalg.svd(h, compute_uv=False), rtol=1e-6,
                               atol=1e-16)
    np.testing.assert_allclose(L.cond(h), np.linalg.cond(h), rtol=1e-3)
    np.testing.assert_allclose(L.eigvalsh(h), np.linalg.eigvalsh(h), atol=1e-14)
  finally:
    xjax.config.update("jax_enable_x64", False)
  rect = _rand((2, 3, 5), np.float32)  # the 2-norm condition number of non-square matrices
  for p in (None, 2, -2):
    np.testing.assert_allclose(L.cond(rect, p), np.linalg.cond(rect, p), rtol=1e-4)
  sing = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
  assert float(L.cond(sing, 1)) == np.inf  # NaN from the broken-down inverse reads as inf
  assert np.isnan(L.cond(np.array([[1.0, np.nan], [0.0, 1.0]], np.float32), 1))
  assert float(L.det(sing)) == 0.0
  assert np.all(~np.isfinite(np.asarray(L.inv(sing))))
  assert np.all(~np.isfinite(np.asarray(L.solve(sing, np.ones(2, np.float32)))))
  assert np.isneginf(L.slogdet(sing).logabsdet) and float(L.slogdet(sing).sign) == 0
  np.testing.assert_array_equal(L.cholesky(-np.eye(3, dtype=np.float32)),
                                np.array(_LOW3, np.float32))  # JAX's NaN pattern
  # d det / dA is the adjugate, finite at a singular matrix (as in JAX).
  np.testing.assert_allclose(xjax.grad(L.det)(sing), [[4, -2], [-2, 1]], atol=1e-5)


# Values and shapes from JAX 0.10.2: the residuals are always computed (rank-deficient and
# wide systems too) and keep a length-1 axis for a 1-D b.
_DEF = np.array([[1, 2, 3], [2, 0, 2], [1, 0, 1], [0, 1, 1], [3, 3, 6]], np.float32)
_DEF_B = np.array([1, -2, 0.5, 3, 1], np.float32)


def test_lstsq_residual_shapes_and_values():
  x, res, rank, _ = L.lstsq(np.ones((5, 3), np.float32), np.ones(5, np.float32))
  assert res.shape == (1,) and int(rank) == 1 and abs(float(res[0])) < 1e-5
  x, res, rank, _ = L.lstsq(_DEF, _DEF_B)
  check(x, np.array([-1.0355807542800903, 1.1610490083694458, 0.1254684180021286], np.float32),
        atol=1e-5)
  check(res, np.array([5.41292142868042], np.float32), rtol=1e-5)
  assert int(rank) == 2
  x, res, rank, _ = L.lstsq(_DEF, np.stack([_DEF_B, _DEF_B[::-1]], 1))
  check(res, np.array([5.41292142868042, 4.176965713500977], np.float32), rtol=1e-5)
  wide = np.array([[1, 2, 0, 1], [0, 1, 1, 3]], np.float32)
  x, res, rank, _ = L.lstsq(wide, np.array([1, 2], np.float32))
  assert x.shape == (4,) and res.shape == (1,) and int(rank) == 2
  x, res, _, _ = L.lstsq(wide, np.ones((2, 3), np.float32))
  assert res.shape == (3,)
  # numpy_resid=True gives NumPy's shapes: empty unless full rank with more rows than columns.
  a = _rand((5, 3), np.float32)
  assert L.lstsq(a, _DEF_B, numpy_resid=True)[1].shape == (1,)
  check(L.lstsq(a, _DEF_B, numpy_resid=True)[1], np.linalg.lstsq(a, _DEF_B)[1], rtol=1e-4)
  assert L.lstsq(_DEF, _DEF_B, numpy_resid=True)[1].shape == (0,)
  assert L.lstsq(wide, np.ones(2, np.float32), numpy_resid=True)[1].shape == (0,)
  assert xjax.jit(L.lstsq)(_DEF, _DEF_B)[1].shape == (1,)
  check(xjax.vmap(L.lstsq, (None, 0))(_DEF, np.stack([_DEF_B, 2 * _DEF_B]))[1],
        np.array([[5.41292142868042], [21.65168571472168]], np.float32), rtol=1e-5)
  check(xjax.grad(lambda b: L.lstsq(_DEF, b)[1][0])(_DEF_B),
        np.array([-1.3258428573608398, -0.3595506548881531, 2.8202247619628906,
                  3.426966428756714, -0.2584269046783447], np.float32), atol=1e-4)


_N = np.nan
_LOW3 = [[_N, 0, 0], [_N, _N, 0], [_N, _N, _N]]


@pytest.mark.parametrize("m", [
    np.array([[1, 2], [2, 1]], np.float32), np.array([[-1, 0], [0, 1]], np.float32),
    np.array([[4, 1], [7, -3]], np.float32),
    np.array([[4, 2, 0], [2, 1, 3], [0, 3, 5]], np.float32),  # negative pivot in the middle
    np.array([[4, 2, 0], [2, 5, 3], [0, 3, 1]], np.float32)])  # ... and at the end
def test_cholesky_of_a_matrix_that_is_not_positive_definite(m):
  """JAX 0.10.2: the whole lower triangle NaN, the strict upper triangle zero (transposed for
  upper=True), eager, jitted, with or without symmetrizing."""
  low = np.where(np.tril(np.ones(m.shape, bool)), np.nan, 0).astype(np.float32)
  for out in (L.cholesky(m), xjax.jit(L.cholesky)(m), L.cholesky(m, symmetrize_input=False),
              lax.linalg.cholesky(m)):
    np.testing.assert_array_equal(out, low)
  np.testing.assert_array_equal(L.cholesky(m, upper=True), low.T)


def test_cholesky_failures_in_a_batch_and_complex():
  batch = np.stack([np.array([[4, 2, 0], [2, 1, 3], [0, 3, 5]], np.float32),
                    np.eye(3, dtype=np.float32), -np.eye(3, dtype=np.float32)])
  want = np.array([_LOW3, np.eye(3), _LOW3], np.float32)
  np.testing.assert_array_equal(L.cholesky(batch), want)
  np.testing.assert_array_equal(xjax.vmap(L.cholesky)(batch), want)
  np.testing.assert_array_equal(L.cholesky(batch, upper=True), want.swapaxes(1, 2))
  out = np.asarray(L.cholesky(np.array([[1, 2j], [-2j, 1]], np.complex64)))
  nan = complex(np.nan, np.nan)
  np.testing.assert_array_equal(out, np.array([[nan, 0], [nan, nan]], np.complex64))
  assert np.isnan(out[1, 0].imag)  # NaN in both parts, as JAX fills failed factorizations


@pytest.mark.slow
def test_more_numpy_linalg_values():
  a = _rand((3, 4, 4), np.float32)
  spd = _spd((3, 4, 4), np.float32)
  b = _rand((3, 4, 2), np.float32)
  np.testing.assert_allclose(L.cholesky(spd, upper=True), np.linalg.cholesky(spd, upper=True),
                             atol=1e-4)
  np.testing.assert_allclose(L.svd(spd, hermitian=True).S,
                             np.linalg.svd(spd, hermitian=True).S, rtol=1e-4)
  np.testing.assert_allclose(L.pinv(a[0, :, :3]), np.linalg.pinv(a[0, :, :3]), atol=1e-4)
  np.testing.assert_array_equal(L.matrix_rank(a), np.linalg.matrix_rank(a))
  assert int(L.matrix_rank(np.ones((4, 4), np.float32))) == 1
  x, res, rank, s = L.lstsq(a[0, :, :3], b[0])
  ex, eres, erank, es = np.linalg.lstsq(a[0, :, :3], b[0])
  np.testing.assert_allclose(x, ex, atol=1e-4)
  np.testing.assert_allclose(res, eres, atol=1e-4)
  assert int(rank) == erank
  np.testing.assert_allclose(L.matrix_power(a, 3), np.linalg.matrix_power(a, 3), atol=1e-3)
  np.testing.assert_allclose(L.matrix_power(spd[0], -2), np.linalg.matrix_power(spd[0], -2),
                             atol=1e-5)
  np.testing.assert_allclose(L.matrix_power(a, 0), np.broadcast_to(np.eye(4), a.shape))
  np.testing.assert_allclose(L.eigvalsh(spd, UPLO="U"), np.linalg.eigvalsh(spd, UPLO="U"),
                             rtol=1e-4)
  np.testing.assert_allclose(np.sort_complex(np.asarray(L.eigvals(a[0]))),
                             np.sort_complex(np.linalg.eigvals(a[0])), atol=1e-4)
  chain = [a[0], a[1], a[2][:, :2]]
  np.testing.assert_allclose(L.multi_dot(chain), np.linalg.multi_dot(chain), atol=1e-4)
  with pytest.raises(ValueError, match=r"multi_dot: last dimension of each array must match "
                                       r"first dimension of following array\. Got array shapes "
                                       r"\[\(4, 4\), \(3,\)\]"):
    L.multi_dot([a[0], np.ones(3)])
  with pytest.raises(ValueError, match="multi_dot: input arrays must all be two-dimensional"):
    L.multi_dot([a[0], a, a[0]])
  t = _rand((4, 6, 24), np.float32)
  np.testing.assert_allclose(L.tensorinv(t, ind=2), np.linalg.tensorinv(t, ind=2), atol=1e-2)
  rhs = _rand((4, 6), np.float32)
  np.testing.assert_allclose(L.tensorsolve(t, rhs), np.linalg.tensorsolve(t, rhs), atol=1e-2)
  np.testing.assert_allclose(L.cross(a[0, :, :3], a[1, :, :3]),
                             np.linalg.cross(a[0, :, :3], a[1, :, :3]),
                             atol=1e-5)
  np.testing.assert_allclose(L.diagonal(a, offset=1), np.linalg.diagonal(a, offset=1))
  np.testing.assert_allclose(L.trace(a), np.linalg.trace(a), atol=1e-5)
  np.testing.assert_allclose(L.outer(a[0, 0], a[0, 1]), np.linalg.outer(a[0, 0], a[0, 1]))
  np.testing.assert_allclose(L.vecdot(a, b[..., :1].swapaxes(-1, -2)),
                             np.linalg.vecdot(a, b[..., :1].swapaxes(-1, -2)), atol=1e-5)
  np.testing.assert_allclose(L.matrix_transpose(a), np.linalg.matrix_transpose(a))
  at = a.transpose(1, 2, 0)
  np.testing.assert_allclose(L.tensordot(a, at, axes=2), np.linalg.tensordot(a, at, axes=2),
                             atol=1e-4)
  assert L.det(np.eye(3, dtype=np.int32)).dtype == np.float32


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norms(ord, keepdims):
  a = _rand((3, 4, 5), np.float32)
  for axis in ((1, 2), (2, 0)):
    np.testing.assert_allclose(L.norm(a, ord, axis, keepdims),
                               np.linalg.norm(a, ord, axis, keepdims), rtol=1e-4)
  if ord is not None:
    np.testing.assert_allclose(L.matrix_norm(a, ord=ord, keepdims=keepdims),
                               np.linalg.matrix_norm(a, ord=ord, keepdims=keepdims), rtol=1e-4)


@pytest.mark.parametrize("ord", [None, 0, 1, -1, 2, 3, 0.5, np.inf, -np.inf])
def test_vector_norms(ord):
  a = _rand((3, 4), np.complex64)
  np.testing.assert_allclose(L.norm(a, ord, axis=1, keepdims=True),
                             np.linalg.norm(a, ord, axis=1, keepdims=True), rtol=1e-4)
  o = 2 if ord is None else ord
  np.testing.assert_allclose(L.vector_norm(a, ord=o), np.linalg.vector_norm(a, ord=o),
                             rtol=1e-4)
  np.testing.assert_allclose(L.norm(a), np.linalg.norm(a), rtol=1e-5)
  np.testing.assert_allclose(L.norm(a[0], keepdims=True), np.linalg.norm(a[0], keepdims=True),
                             rtol=1e-5)


def test_solve_has_numpy2_batching_semantics():
  # well conditioned whatever the shared RNG's state (tests run in any order under xdist)
  a = _rand((2, 3, 3), np.float32) + 3 * np.eye(3, dtype=np.float32)
  np.testing.assert_allclose(L.solve(a, np.ones(3, np.float32)),
                             np.linalg.solve(a, np.ones(3, np.float32)), atol=1e-4)
  b = _rand((2, 3, 4), np.float32)
  np.testing.assert_allclose(L.solve(a, b), np.linalg.solve(a, b), atol=1e-4)
  b = _rand((5, 1, 3, 2), np.float32)  # batch dims broadcast
  np.testing.assert_allclose(L.solve(a, b), np.linalg.solve(a, b), atol=1e-4)
  with pytest.raises(ValueError):
    L.solve(a, _rand((2, 3), np.float32))  # NumPy 2: a (2, 3) b is a stack of matrices


@pytest.mark.slow
def test_gradients():
  a = _rand((4, 4), np.float32, np.random.default_rng(1))
  # its own generator: float32 finite differences of eigh's second derivative are too
  # coarse for the tolerance at some matrices, so the inputs must not depend on test order
  rng = np.random.default_rng(0)
  m = rng.standard_normal((4, 4))
  spd = (m @ m.T + 4 * np.eye(4)).astype(np.float32)
  b = rng.standard_normal((4, 2)).astype(np.float32)
  tol = dict(atol=3e-2, rtol=3e-2)
  check_grads(lambda x: L.cholesky(x), (spd,), 2, **tol)
  check_grads(L.solve, (a, b), 2, **tol)
  check_grads(lambda x: L.eigh(x).eigenvalues, (spd,), 2, **tol)
  check_grads(lambda x, y: lax.linalg.triangular_solve(x, y, left_side=True, lower=True),
              (np.tril(a) + 4 * np.eye(4, dtype=np.float32), b), 1, **tol)
  check_grads(L.inv, (spd,), 1, **tol)
  check_grads(L.det, (a,), 1, **tol)
  check_grads(lambda x: L.slogdet(x).logabsdet, (a,), 1, **tol)
  check_grads(L.pinv, (a[:, :3],), 1, **tol)
  check_grads(lambda x: jnp.abs(L.eigh(x).eigenvectors), (spd,), 1, **tol)
  check_grads(L.svdvals, (a,), 1, **tol)
  check_grads(lambda x: jnp.abs(L.svd(x, full_matrices=False).U), (a[:, :3],), 1, **tol)
  check_grads(lambda x: jnp.abs(L.svd(x, full_matrices=False).Vh), (a[:3],), 1, **tol)
  check_grads(lambda x: L.qr(x), (a[:, :3],), 1, **tol)
  check_grads(lambda x: lax.linalg.lu(x)[0], (a,), 1, **tol)
  check_grads(lambda x: jnp.real(L.eigvals(x)), (a,), 1, modes=("fwd",), **tol)


@pytest.mark.slow
def test_complex_gradients():
  re, im = _rand((3, 3), np.float32), _rand((3, 3), np.float32)
  spd = lambda r, i: (lambda z: z @ jnp.conj(z.T) + 3 * jnp.eye(3))(r + 1j * i)
  tol = dict(atol=3e-2, rtol=3e-2)
  check_grads(lambda r, i: (lambda c: (jnp.real(c), jnp.imag(c)))(L.cholesky(spd(r, i))),
              (re, im), 1, **tol)
  check_grads(lambda r, i: L.eigvalsh(spd(r, i)), (re, im), 1, **tol)
  check_grads(lambda r, i: L.slogdet(r + 1j * i).logabsdet, (re, im), 1, **tol)


def test_degenerate_gradients_are_finite():
  # Repeated eigenvalues/singular values: JAX's rules give finite (zero-weighted) terms.
  f = lambda x: jnp.sum(L.eigh(x).eigenvalues ** 2)
  for g in (xjax.grad(f), xjax.jit(xjax.grad(f))):  # the eigenvectors' cotangent is zero
    np.testing.assert_allclose(g(np.eye(3, dtype=np.float32)), 2 * np.eye(3), atol=1e-5)
  g = xjax.grad(lambda x: jnp.sum(L.svdvals(x)))(np.eye(3, dtype=np.float32))
  np.testing.assert_allclose(g, np.eye(3), atol=1e-5)
  with pytest.raises(NotImplementedError):  # full U/V of a rectangular matrix (as JAX)
    xjax.jvp(lambda x: L.svd(x, full_matrices=True), (np.ones((3, 2), np.float32),),
             (np.ones((3, 2), np.float32),))
  with pytest.raises(NotImplementedError, match="eigenvectors"):
    xjax.jvp(lambda x: L.eig(x), (np.eye(2, dtype=np.float32),), (np.eye(2, dtype=np.float32),))


def test_vmap_matches_loops_and_jit_matches_eager():
  a = _rand((4, 3, 3), np.float32)
  spd = _spd((4, 3, 3), np.float32)
  b = _rand((4, 3), np.float32)
  fns = [lambda x, y: L.solve(x, y), lambda x, y: L.cholesky(x @ x.T + 3 * jnp.eye(3)) @ y,
         lambda x, y: L.eigh(x + x.T).eigenvalues + y, lambda x, y: L.svdvals(x) * y,
         lambda x, y: L.qr(x).R @ y, lambda x, y: L.det(x) * y, lambda x, y: L.inv(x) @ y,
         lambda x, y: lax.linalg.triangular_solve(jnp.tril(x) + 3 * jnp.eye(3), y,
                                                  left_side=True, lower=True)]
  for f in fns:
    np.testing.assert_allclose(xjax.vmap(f)(a, b), np.stack([f(x, y) for x, y in zip(a, b)]),
                               atol=1e-4, rtol=1e-4)
    np.testing.assert_allclose(xjax.jit(f)(a[0], b[0]), f(a[0], b[0]), atol=1e-5, rtol=1e-5)
  for f in (lambda x, y: jnp.sum(L.solve(x, y)), lambda x, y: L.det(x) + jnp.sum(y),
            lambda x, y: jnp.sum(L.inv(x) @ y), lambda x, y: L.slogdet(x).logabsdet):
    g = xjax.grad(lambda x: jnp.sum(xjax.vmap(f)(x, b)))(a)  # grad of vmap = loop of grads
    np.testing.assert_allclose(g, np.stack([xjax.grad(f)(x, y) for x, y in zip(a, b)]),
                               atol=1e-4, rtol=1e-4)
  f = lambda y: L.solve(spd[0], y)  # only the right-hand side batched
  np.testing.assert_allclose(xjax.vmap(f)(b), np.linalg.solve(spd[0], b.T).T, atol=1e-5)


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("b_axis", [0, 1, 2])
def test_triangular_solve_vmapped_over_b_alone_matches_loops(left_side, b_axis):
  """With ``a`` unbatched, JAX folds ``b``'s batch into its free dimension (one trsm)."""
  a = np.tril(_rand((3, 3), np.float32)) + 3 * np.eye(3, dtype=np.float32)
  b = _rand((4, 3, 2) if left_side else (4, 2, 3), np.float32)
  f = lambda y: lax.linalg.triangular_solve(a, y, left_side=left_side, lower=True,
                                            transpose_a=True)
  out = xjax.vmap(f, in_axes=b_axis, out_axes=b_axis)(np.moveaxis(b, 0, b_axis))
  np.testing.assert_allclose(np.moveaxis(np.asarray(out), b_axis, 0),
                             np.stack([f(y) for y in b]), rtol=1e-6, atol=1e-6)
  g = xjax.grad(lambda a: jnp.sum(xjax.vmap(lambda y: lax.linalg.triangular_solve(
      a, y, left_side=left_side, lower=True) ** 2)(b)))(a)
  want = sum(xjax.grad(lambda a: jnp.sum(lax.linalg.triangular_solve(
      a, y, left_side=left_side, lower=True) ** 2))(a) for y in b)
  np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["cholesky", "triangular_solve", "lu", "qr"])
def test_hlo_fallbacks_match_lapack(name, monkeypatch):
  a = _rand((2, 4, 4), np.float32)
  spd = _spd((2, 4, 4), np.float32)
  fns = {"cholesky": lambda: lax.linalg.cholesky(spd),
         "triangular_solve": lambda: lax.linalg.triangular_solve(
             np.tril(a) + 4 * np.eye(4, dtype=np.float32), a, left_side=True, lower=True),
         "lu": lambda: lax.linalg.lu(a)[0], "qr": lambda: lax.linalg.qr(a)[1]}
  f = xjax.jit(fns[name])
  want = np.asarray(f())
  monkeypatch.setattr(lapack, "available", lambda dtype: False)
  f = xjax.jit(lambda: fns[name]() + 0)  # a new program, lowered without LAPACK
  assert "lapack_" not in f.lower().as_text()
  np.testing.assert_allclose(np.abs(f()), np.abs(want), atol=1e-5)


def test_roots_poly_polyfit():
  np.testing.assert_allclose(np.sort_complex(np.asarray(jnp.roots(np.array([1., -6, 11, -6])))),
                             [1, 2, 3], atol=1e-4)
  np.testing.assert_allclose(jnp.roots(np.array([0., 1, 2])), [-2], atol=1e-6)
  out = xjax.jit(lambda p: jnp.roots(p, strip_zeros=False))(np.array([0., 1, 2]))
  assert np.isnan(out[1]) and abs(out[0] + 2) < 1e-6
  m = np.array([[1., 2], [3, 4]])
  np.testing.assert_allclose(jnp.poly(m), np.poly(m), atol=1e-4)
  x = np.linspace(0, 1, 10)
  np.testing.assert_allclose(jnp.polyfit(x, x ** 2, 2), [1, 0, 0], atol=1e-4)


def test_bad_input():
  # error classes as JAX 0.10.2 raises them (symmetrizing functions: TypeError for both)
  with pytest.raises(TypeError, match=r"\(3, 4\)"):
    L.cholesky(np.ones((3, 4), np.float32))
  with pytest.raises(ValueError, match=r"\(3, 4\)"):
    L.cholesky(np.ones((3, 4), np.float32), symmetrize_input=False)
  with pytest.raises(ValueError, match=r"\(2, 3\)"):
    L.inv(np.ones((2, 3), np.float32))
  with pytest.raises(ValueError, match="at least 2 dimensions"):
    L.det(np.ones(3, np.float32))
  with pytest.raises(TypeError, match="at least 2 dimensions"):
    L.eigh(np.ones(3, np.float32))
  with pytest.raises(TypeError, match="rank at least 2"):
    lax.linalg.svd(np.ones(3, np.float32))
  with pytest.raises(ValueError, match="square"):
    L.eig(np.ones((2, 3), np.float32))
  with pytest.raises(TypeError, match="square"):
    L.matrix_power(np.ones((2, 3), np.float32), 2)
  with pytest.raises(TypeError, match="integer"):
    L.matrix_power(np.eye(2), 2.5)
  with pytest.raises(ValueError, match="square"):
    L.cond(np.ones((2, 3), np.float32), p=1)
  with pytest.raises(ValueError, match="at least 2 dimensions"):
    L.pinv(np.ones(3, np.float32))
  with pytest.raises(TypeError, match="<class 'list'> at position 0"):
    L.solve([[1.0, 2.0], [3.0, 4.0]], np.ones(2))
  with pytest.raises(NotImplementedError, match="float16"):
    L.cholesky(np.eye(3, dtype=np.float16))
  with pytest.raises(ValueError, match="Unsupported QR decomposition mode"):
    L.qr(np.eye(3), mode="bogus")
  with pytest.raises(ValueError, match="Invalid order"):
    L.norm(np.ones((2, 2)), ord="bad", axis=(0, 1))
  with pytest.raises(ValueError, match="UPLO"):
    L.eigh(np.eye(2), UPLO="X")
  assert L.cholesky(np.eye(2, dtype=np.int32)).dtype == np.float32


def test_public_names_match_reference():
  names = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve",
           "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot",
           "vector_norm"]
  assert sorted(n for n in dir(jnp.linalg) if not n.startswith("_")) == names
  assert type(L.svd(np.eye(2))).__name__ == "SVDResult"
  assert L.eigh(np.eye(2))._fields == ("eigenvalues", "eigenvectors")
  assert L.slogdet(np.eye(2))._fields == ("sign", "logabsdet")
  for name in ("cholesky", "eig", "eigh", "hessenberg", "householder_product", "lu",
               "lu_pivots_to_permutation", "qr", "schur", "svd", "triangular_solve"):
    assert callable(getattr(lax.linalg, name)) and hasattr(lax.linalg, name + "_p")


# jnp.linalg.qr(mode="raw") (LAPACK's packed factorization) and lax.linalg.ormqr (products
# with its Q), as lineax's QR solver uses them; values from JAX 0.10.2 (LAPACK on the CPU).
_RAW_A = np.random.RandomState(0).randn(5, 3).astype(np.float32)
_RAW_H = [[-3.1279258728027344, 0.45807501673698425, 0.19421353936195374, 0.0839330181479454,
           0.15556849539279938],
          [-1.5661612749099731, -1.1195979118347168, -0.25557613372802734,
           -0.010062851011753082, -0.08829521387815475],
          [-0.11938339471817017, 1.1980544328689575, 1.6691299676895142, -0.5000306367874146,
           -0.013686275109648705]]
_RAW_TAUS = [1.5639687776565552, 1.8635571002960205, 1.5997209548950195]


def test_qr_raw_mode_and_ormqr():
  h, taus = jnp.linalg.qr(_RAW_A, mode="raw")
  np.testing.assert_allclose(h, _RAW_H, rtol=1e-6, atol=1e-7)
  np.testing.assert_allclose(taus, _RAW_TAUS, rtol=1e-6)
  c = np.arange(10, dtype=np.float32).reshape(5, 2)
  qc = lax.linalg.ormqr(h.mT, taus, c)
  np.testing.assert_allclose(qc, [[-4.3976545333862305, -5.209436893463135],
                                  [-1.0693764686584473, -2.464749574661255],
                                  [1.991255521774292, 2.2615549564361572],
                                  [6.353687286376953, 7.606354236602783],
                                  [7.428501129150391, 8.295512199401855]], rtol=1e-6)
  qtc = lax.linalg.ormqr(h.mT, taus, c, transpose=True)
  np.testing.assert_allclose(qtc[:2], [[-5.381851673126221, -7.340551376342773],
                                       [3.0917344093322754, 3.7040653228759766]], rtol=1e-6)
  q, _ = jnp.linalg.qr(_RAW_A, mode="complete")
  np.testing.assert_allclose(lax.linalg.ormqr(h.mT, taus, c.T, left=False), c.T @ q,
                             rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(xjax.vmap(lambda a: jnp.linalg.qr(a, mode="raw")[1])(
      np.stack([_RAW_A, _RAW_A])), [_RAW_TAUS] * 2, rtol=1e-6)
  with pytest.raises(NotImplementedError, match="geqrf"):
    xjax.grad(lambda a: jnp.linalg.qr(a, mode="raw")[0].sum())(_RAW_A)
  with pytest.raises(ValueError, match="ormqr"):
    lax.linalg.ormqr(h.mT, taus, np.ones((4, 2), np.float32))


def test_matrix_power_multiplies_in_jaxs_order():
  """a**3 is (a @ a) @ a, as JAX computes it (checked on JAX 0.10.2); a @ (a @ a) differs
  from it in float16 for this matrix."""
  m = jnp.asarray([[-2.2, -1.5, -0.5], [0.5, 2.5, 4.5], [-2.0, 1.75, -1.0]], jnp.float16)
  want = jnp.matmul(jnp.matmul(m, m), m)
  np.testing.assert_array_equal(jnp.linalg.matrix_power(m, 3), want)
  np.testing.assert_array_equal(xjax.jit(lambda v: jnp.linalg.matrix_power(v, 3))(m), want)


def test_hermitian_svd_orders_equal_singular_values_as_jax():
  """JAX 0.10.2 sorts |eigenvalues| ascending (stable) and reverses: equal singular values
  come in reverse order of their eigenvectors."""
  u, s, vh = xjax.numpy.linalg.svd(2 * np.eye(2, dtype=np.float32), hermitian=True)
  np.testing.assert_array_equal(np.asarray(u), [[0.0, 1.0], [1.0, 0.0]])
  np.testing.assert_array_equal(np.asarray(s), [2.0, 2.0])
  np.testing.assert_array_equal(np.asarray(vh), [[0.0, 1.0], [1.0, 0.0]])


def test_eigvals_gradient_bits_are_jaxs():
  # JAX 0.10.2's bits: the eigenvalues' JVP is diag(vr^-1 da vr) computed row by row,
  # ((vr^-1 da) * vr^T).sum(-1).
  g = xjax.grad(lambda a: xjax.numpy.linalg.eigvals(a).real.sum())(
      xjax.numpy.array([[2., 1.], [0.5, 3.]]))
  np.testing.assert_array_equal(np.asarray(g).view(np.uint32),
                                [[1065353216, 0], [0, 1065353216]])
