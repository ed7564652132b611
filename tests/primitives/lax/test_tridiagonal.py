"""lax.linalg.tridiagonal (sytrd/hetrd) and tridiagonal_solve (gtsv, the perturbed kernel,
the Thomas-algorithm fallback): values against SciPy's LAPACK and dense solves, gradients,
transposes, vmap against loops, jit against eager, bad input as JAX 0.10.2."""
import numpy as np
import pytest
import scipy.linalg
from scipy.linalg import lapack as scipy_lapack

import xjax
from xjax.lax import linalg as L
from xjax._src.primitives.lax.linalg import lapack
from xjax.test_util import check_grads

RNG = np.random.default_rng(0)


def _rand(shape, dtype):
  x = RNG.standard_normal(shape)
  if np.dtype(dtype).kind == "c":
    x = x + 1j * RNG.standard_normal(shape)
  return x.astype(dtype)


def _system(m, k, dtype, batch=()):
  dl, du, b = _rand(batch + (m,), dtype), _rand(batch + (m,), dtype), _rand(batch + (m, k), dtype)
  d = _rand(batch + (m,), dtype) + 4  # diagonally dominant
  dl[..., 0] = 0
  du[..., -1] = 0
  return dl, d, du, b


def _dense(dl, d, du):
  return np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("lower", [True, False])
def test_tridiagonal_matches_lapack_sytrd(dtype, lower, x64):
  a = _rand((5, 5), dtype)
  a = a + np.conj(a.T)
  packed, d, e, taus = L.tridiagonal(a, lower=lower)
  kind = "he" if np.dtype(dtype).kind == "c" else "sy"
  fn = scipy_lapack.get_lapack_funcs(kind + "trd", (a,))
  c, sd, se, stau, info = fn(a, lower=int(lower))
  assert info == 0
  tol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10
  for got, want in ((packed, c), (d, sd), (e, se), (taus, stau)):
    np.testing.assert_allclose(got, want, atol=tol, rtol=tol)
  assert d.dtype == e.dtype == np.finfo(dtype).dtype and taus.dtype == dtype
  # T has a's eigenvalues.
  t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
  np.testing.assert_allclose(np.linalg.eigvalsh(t), np.linalg.eigvalsh(a), atol=tol * 10)


def test_tridiagonal_batches_and_bad_input():
  a = _rand((3, 4, 4), np.float32)
  a = a + np.swapaxes(a, -1, -2)
  out = xjax.vmap(L.tridiagonal)(a)
  for i in range(3):
    for got, want in zip(out, L.tridiagonal(a[i])):
      np.testing.assert_allclose(got[i], want, rtol=1e-6)
  one = L.tridiagonal(np.ones((1, 1), np.float32))
  assert [x.shape for x in one] == [(1, 1), (1,), (0,), (0,)]
  with pytest.raises(TypeError, match="does not accept dtype int32"):
    L.tridiagonal(np.eye(3, dtype=np.int32))
  with pytest.raises(ValueError, match="must be a square matrix"):
    L.tridiagonal(np.zeros((0, 0), np.float32))
  with pytest.raises(ValueError, match="must be a square matrix"):
    L.tridiagonal(np.zeros((2, 3), np.float32))
  with pytest.raises(NotImplementedError, match="float16"):
    L.tridiagonal(np.eye(3, dtype=np.float16))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_solve_matches_dense_solve(dtype, x64):
  dl, d, du, b = _system(6, 3, dtype, batch=(2,))
  x = L.tridiagonal_solve(dl, d, du, b)
  tol = 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10
  for i in range(2):
    np.testing.assert_allclose(x[i], np.linalg.solve(_dense(dl[i], d[i], du[i]), b[i]),
                               rtol=tol, atol=tol)
  assert x.dtype == dtype


def test_singular_systems_give_nans_or_perturbed_values_as_jax():
  dl, d, du = (np.array(v, np.float32) for v in ([0, 1, 2], [0, 0, 0], [1, 1, 0]))
  b = np.ones((3, 2), np.float32)
  assert np.isnan(L.tridiagonal_solve(dl, d, du, b)).all()
  out = L.tridiagonal_solve(dl, d, du, b, perturb_singular=True)
  np.testing.assert_allclose(out, [[8.388609e+06] * 2, [1.] * 2, [-8.388608e+06] * 2],
                             rtol=1e-6)  # JAX 0.10.2's values


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_thomas_fallback_matches_lapack(dtype, monkeypatch):
  dl, d, du, b = _system(7, 2, dtype, batch=(3,))
  want = np.asarray(L.tridiagonal_solve(dl, d, du, b))
  monkeypatch.setattr(lapack, "available", lambda dtype: False)
  f = xjax.jit(lambda *a: L.tridiagonal_solve(*a) + 0)
  assert "lapack_" not in f.lower(dl, d, du, b).as_text()
  np.testing.assert_allclose(f(dl, d, du, b), want, rtol=1e-4, atol=1e-5)
  with pytest.raises(NotImplementedError, match="perturb_singular"):
    xjax.jit(lambda *a: L.tridiagonal_solve(*a, perturb_singular=True) + 1)(dl, d, du, b)


def test_half_precision_runs_the_scan():
  dl, d, du, b = _system(5, 1, np.float32)
  x = L.tridiagonal_solve(*(v.astype(np.float16) for v in (dl, d, du, b)))
  assert x.dtype == np.float16
  np.testing.assert_allclose(x, np.linalg.solve(_dense(dl, d, du), b), rtol=2e-2, atol=2e-2)


def test_solve_gradients_and_transpose():
  dl, d, du, b = _system(5, 2, np.float64)
  with xjax.enable_x64(True):
    check_grads(L.tridiagonal_solve, (dl, d, du, b), 2, atol=1e-6, rtol=1e-6)
  # Gradients from JAX 0.10.2 for a small system (float32).
  dl, d, du = (np.array(v, np.float32) for v in ([0, 1, 2], [4, 5, 6], [1, 1, 0]))
  b = np.ones((3, 2), np.float32)
  loss = lambda *a: L.tridiagonal_solve(*a).sum()
  g = xjax.grad(loss, argnums=(0, 1, 2, 3))(dl, d, du, b)
  np.testing.assert_allclose(g[0], [0., -0.04093984, -0.03987184], rtol=1e-5)
  np.testing.assert_allclose(g[1], [-0.0982556, -0.0249199, -0.03702385], rtol=1e-5)
  np.testing.assert_allclose(g[2], [-0.05980776, -0.02313991, 0.], rtol=1e-5)
  np.testing.assert_allclose(g[3], [[0.2264151] * 2, [0.09433962] * 2, [0.1509434] * 2],
                             rtol=1e-5)
  # The transpose solves with T^T.
  ct = xjax.linear_transpose(lambda b: L.tridiagonal_solve(dl, d, du, b), b)(b)[0]
  np.testing.assert_allclose(ct, np.linalg.solve(_dense(dl, d, du).T, b), rtol=1e-5)


def test_vmap_against_loops_and_jit_against_eager():
  dl, d, du, b = _system(5, 2, np.float32, batch=(4,))
  for in_axes in [(0, 0, 0, 0), (None, None, None, 0), (0, None, 0, None), (None, 0, None, 2)]:
    args = [v[0] if ax is None else v for v, ax in zip((dl, d, du, b), in_axes)]
    if in_axes[3] == 2:
      args[3] = np.moveaxis(b, 0, 2)
    out = xjax.vmap(L.tridiagonal_solve, in_axes=in_axes)(*args)
    for i in range(4):
      one = [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)]
      np.testing.assert_allclose(out[i], L.tridiagonal_solve(*one), rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(xjax.jit(L.tridiagonal_solve)(dl, d, du, b),
                             L.tridiagonal_solve(dl, d, du, b), rtol=1e-6)
  text = str(xjax.make_jaxpr(L.tridiagonal_solve)(dl, d, du, b))
  assert "tridiagonal_solve[perturb_singular=False]" in text


def test_solve_bad_input_as_jax():
  dl, d, du, b = _system(3, 2, np.float32)
  with pytest.raises(TypeError, match="does not accept dtype int32 at position 0"):
    L.tridiagonal_solve(*(v.astype(np.int32) for v in (dl, d, du, b)))
  with pytest.raises(TypeError, match="requires arguments to have the same dtypes"):
    L.tridiagonal_solve(dl, d, du, b.astype(np.float16))
  with pytest.raises(TypeError, match="all diagonal arguments have the same shape"):
    L.tridiagonal_solve(dl, d, du[:2], b)
  with pytest.raises(TypeError, match="leading ndim-1 dimensions of b"):
    L.tridiagonal_solve(dl, d, du, b[:2])
  with pytest.raises(TypeError, match="Input 3 to tridiagonal_solve must have rank at least 2"):
    L.tridiagonal_solve(dl, d, du, b[:, 0])


def test_solve_banded_agrees():
  dl, d, du, b = _system(8, 1, np.float64)
  ab = np.stack([np.r_[0, du[:-1]], d, np.r_[dl[1:], 0]])
  with xjax.enable_x64(True):
    np.testing.assert_allclose(L.tridiagonal_solve(dl, d, du, b),
                               scipy.linalg.solve_banded((1, 1), ab, b), rtol=1e-12)
