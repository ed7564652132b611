"""xjax.scipy.linalg against SciPy: values, reconstructions, gradients, jit, errors."""
import numpy as np
import pytest
import scipy.linalg as sl

import xjax
import xjax.numpy as jnp
import xjax.scipy.linalg as L
from xjax.test_util import check_grads

from tests.checking import check

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 4))
SPD = A @ A.T + np.eye(4)
B = RNG.standard_normal((4, 2))
TOL = dict(rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [0, 1, 2, "T", "C"])
def test_solve_triangular(lower, trans):
  t = np.tril(A) if lower else np.triu(A)
  t = t + 4 * np.eye(4)
  check(L.solve_triangular(t, B, trans=trans, lower=lower),
        sl.solve_triangular(t, B, trans=trans, lower=lower), **TOL)
  check(L.solve_triangular(t, B[:, 0], trans=trans, lower=lower, unit_diagonal=True),
        sl.solve_triangular(t, B[:, 0], trans=trans, lower=lower, unit_diagonal=True), **TOL)


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_family(lower):
  check(L.cholesky(SPD, lower=lower), sl.cholesky(SPD, lower=lower), **TOL)
  check(L.cho_solve(L.cho_factor(SPD, lower=lower), B), sl.cho_solve(sl.cho_factor(SPD), B), **TOL)
  check(L.cho_solve(L.cho_factor(SPD, lower=lower), B[:, 0]), np.linalg.solve(SPD, B[:, 0]), **TOL)
  check(L.solve(SPD, B, assume_a="pos", lower=lower), np.linalg.solve(SPD, B), **TOL)


@pytest.mark.parametrize("m", [np.array([[1.0, 2.0], [2.0, 1.0]], np.float32),
                               np.array([[4.0, 2.0, 0.0], [2.0, 1.0, 3.0], [0.0, 3.0, 5.0]],
                                        np.float32)])
def test_cholesky_of_a_matrix_that_is_not_positive_definite(m):
  """JAX 0.10.2: NaN on and below the diagonal of the lower factor, zeros above (and the
  transpose of that for the default upper factor); cho_factor alike, with its lower flag."""
  low = np.where(np.tril(np.ones(m.shape, bool)), np.nan, 0).astype(np.float32)
  np.testing.assert_array_equal(L.cholesky(m), low.T)
  np.testing.assert_array_equal(L.cholesky(m, lower=True), low)
  c, lower = L.cho_factor(m)
  np.testing.assert_array_equal(c, low.T)
  assert lower is False
  np.testing.assert_array_equal(L.cho_factor(m, lower=True)[0], low)
  batch = np.stack([m, np.eye(len(m), dtype=np.float32)])
  np.testing.assert_array_equal(L.cholesky(batch), np.stack([low.T, np.eye(len(m))]))


def test_lu_family():
  p, l, u = L.lu(A)
  ep, el, eu = sl.lu(A)
  check(p, ep, **TOL)
  check(l, el, **TOL)
  check(u, eu, **TOL)
  pl, u = L.lu(A[:, :3], permute_l=True)
  check(np.asarray(pl) @ np.asarray(u), A[:, :3], **TOL)
  factors = L.lu_factor(A)
  np.testing.assert_array_equal(factors[1], sl.lu_factor(A)[1])
  for trans in (0, 1, 2):
    check(L.lu_solve(factors, B, trans=trans), sl.lu_solve(sl.lu_factor(A), B, trans=trans), **TOL)
  check(L.lu_solve(factors, B[:, 0]), np.linalg.solve(A, B[:, 0]), **TOL)


@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_qr_modes(mode):
  got = L.qr(A[:, :3], mode=mode)
  want = sl.qr(A[:, :3], mode=mode)
  assert len(got) == len(want)
  for g, w in zip(got, want):
    assert g.shape == w.shape
  if mode != "r":
    check(np.asarray(got[0]) @ np.asarray(got[1]), A[:, :3], **TOL)


def test_decompositions():
  u, s, vh = L.svd(A)
  check(s, sl.svd(A, compute_uv=False), **TOL)
  check((np.asarray(u) * np.asarray(s)) @ np.asarray(vh), A, **TOL)
  check(L.eigh(SPD, eigvals_only=True), sl.eigh(SPD, eigvals_only=True), **TOL)
  check(L.eigh(SPD, eigvals_only=True, subset_by_index=(1, 2)),
        sl.eigh(SPD, eigvals_only=True, subset_by_index=(1, 2)), **TOL)
  w, v = L.eigh(SPD, subset_by_index=(2, 3))
  assert w.shape == (2,) and v.shape == (4, 2)
  t, z = L.schur(A)
  check(np.asarray(z) @ np.asarray(t) @ np.asarray(z).T, A, **TOL)
  assert np.abs(np.tril(np.asarray(t), -2)).max() == 0
  t, z = L.schur(A, output="complex")
  assert t.dtype == np.complex64
  check(np.asarray(z) @ np.asarray(t) @ np.conj(np.asarray(z)).T, A, np.complex64, **TOL)
  h, q = L.hessenberg(A, calc_q=True)
  check(h, sl.hessenberg(A), **TOL)
  check(np.asarray(q) @ np.asarray(h) @ np.asarray(q).T, A, **TOL)
  for side, method in (("right", "qdwh"), ("right", "svd"), ("left", "svd")):
    u, p = L.polar(A, side=side, method=method)
    eu, ep = sl.polar(A, side=side)
    check(u, eu, **TOL)
    check(p, ep, **TOL)


def test_inv_det_solve():
  check(L.inv(A), sl.inv(A), **TOL)
  check(L.det(A), sl.det(A), **TOL)
  check(L.solve(A, B), sl.solve(A, B), **TOL)
  check(L.solve(A, B[:, 0]), sl.solve(A, B[:, 0]), **TOL)
  check(L.solve(SPD, B, assume_a="sym"), sl.solve(SPD, B, assume_a="sym"), **TOL)


@pytest.mark.parametrize("scale", [0.01, 1.0, 10.0])
def test_expm_and_frechet(scale):
  a = scale * A
  want = sl.expm(a)
  check(L.expm(a), want, rtol=1e-3 * max(1, np.abs(want).max()),
        atol=1e-3 * max(1, np.abs(want).max()))
  e = RNG.standard_normal((4, 4))
  got_e, got_f = L.expm_frechet(a, e)
  want_e, want_f = sl.expm_frechet(a, e)
  check(got_e, want_e, rtol=2e-3 * max(1, np.abs(want_e).max()),
        atol=2e-3 * max(1, np.abs(want_e).max()))
  check(got_f, want_f, rtol=2e-3 * max(1, np.abs(want_f).max()),
        atol=2e-3 * max(1, np.abs(want_f).max()))
  check(L.expm_frechet(a, e, compute_expm=False), want_f, rtol=2e-3 * max(1, np.abs(want_f).max()),
        atol=2e-3 * max(1, np.abs(want_f).max()))


def test_expm_batched_jit_and_gradient():
  a = 0.5 * RNG.standard_normal((3, 3, 3)).astype(np.float32)
  np.testing.assert_allclose(xjax.jit(L.expm)(a), np.stack([sl.expm(x) for x in a]),
                             atol=1e-4, rtol=1e-4)
  check_grads(L.expm, (a[0],), 1, atol=3e-2, rtol=3e-2)


@pytest.mark.cpu_bits
def test_expm_follows_jax_pade_schedule():
  # JAX 0.10.2's values: its degree choice (3/5/7 in float32) and squaring give these bits
  a = np.array([[0.5, -1.2, 0.3], [2.0, 0.1, -0.7], [0.4, 0.9, -0.3]], np.float32)
  want = {
      0.1: [[1.0396136045455933, -0.12171022593975067, 0.03439553081989288],
            [0.20370694994926453, 0.9948111176490784, -0.06594633311033249],
            [0.04928702861070633, 0.08625656366348267, 0.968097448348999]],
      1.0: [[0.470965176820755, -0.8964358568191528, 0.5693197846412659],
            [1.568581461906433, -0.19607162475585938, -0.08346196264028549],
            [1.0571799278259277, 0.23505976796150208, 0.7106146812438965]],
      30.0: [[34.32057189941406, -9.397443771362305, 36.10557174682617],
             [22.949474334716797, -4.818554401397705, 37.49037170410156],
             [77.28900146484375, -35.70979690551758, 109.92781829833984]]}
  for scale, values in want.items():
    np.testing.assert_allclose(L.expm(scale * a), values, rtol=2e-7, atol=0)
  np.testing.assert_allclose(
      L.expm(np.triu(a), upper_triangular=True),
      [[1.6487212181091309, -1.6306511163711548, 0.8108574748039246],
       [0.0, 1.1051709651947021, -0.6376171708106995], [0.0, 0.0, 0.7408182621002197]],
      rtol=2e-7)
  assert np.isnan(L.expm(30 * a, max_squarings=2)).all()  # needs 4 squarings
  np.testing.assert_allclose(L.expm_frechet(a, a.T, method="any", compute_expm=False),
                             [[2.801519, 0.1726998, -0.21952872],
                              [1.7468522, 2.122349, 0.2855012],
                              [0.13431665, 0.39480257, 0.15535434]], rtol=1e-5)
  with pytest.raises(TypeError, match="float16"):
    L.expm(a.astype(np.float16))


def test_sqrtm_and_funm():
  check(L.sqrtm(SPD), sl.sqrtm(SPD), np.complex64, **TOL)
  r = np.asarray(L.sqrtm(A))  # complex eigenvalues: the principal root, complex output
  assert r.dtype == np.complex64
  check(r @ r, A, np.complex64, **TOL)
  tol = 1e-3 * np.abs(sl.expm(SPD)).max()
  check(L.funm(SPD, jnp.exp), sl.expm(SPD), np.complex64, rtol=tol, atol=tol)
  check(L.funm(A, jnp.sin), sl.funm(A, np.sin), np.complex64, **TOL)


def test_special_matrices():
  check(L.block_diag(np.ones((2, 2)), 3 * np.ones((1, 3)), np.array(5.0)),
        sl.block_diag(np.ones((2, 2)), 3 * np.ones((1, 3)), 5), **TOL)
  np.testing.assert_array_equal(L.toeplitz(np.array([1, 2, 3]), np.array([1, 4, 5, 6])),
                                sl.toeplitz([1, 2, 3], [1, 4, 5, 6]))
  check(L.toeplitz(np.array([1, 2 + 1j, 3])), sl.toeplitz([1, 2 + 1j, 3]), **TOL)
  check(L.hilbert(4), sl.hilbert(4), **TOL)


def test_public_names():
  for name in ("block_diag", "cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm",
               "expm_frechet", "funm", "hessenberg", "hilbert", "inv", "lu", "lu_factor",
               "lu_solve", "polar", "qr", "schur", "solve", "solve_triangular", "sqrtm", "svd",
               "toeplitz"):
    assert callable(getattr(L, name)), name
  assert xjax.scipy.linalg is L


def test_bad_input():
  with pytest.raises(ValueError, match=r"\(3, 4\)"):
    L.expm(np.ones((3, 4)))
  with pytest.raises(ValueError, match="trans"):
    L.solve_triangular(A, B, trans=3)
  with pytest.raises(ValueError, match="output"):
    L.schur(A, output="bad")
  with pytest.raises(ValueError, match="assume_a"):
    L.solve(A, B, assume_a="banded")
  with pytest.raises(NotImplementedError):
    L.eigh(A, b=A)
  with pytest.raises(ValueError, match="side"):
    L.polar(A, side="up")


def test_arguments_as_jax_takes_them():
  # scipy reads one triangle: an asymmetric input gives SciPy's factor (JAX does the same)
  m = SPD + np.triu(np.ones_like(SPD), 1)
  check(L.cholesky(m), sl.cholesky(m), **TOL)
  check(L.cholesky(m, lower=True), sl.cholesky(m, lower=True), **TOL)
  rect = RNG.standard_normal((3, 5)).astype(np.float32)
  lu, piv = L.lu_factor(rect)  # rectangular matrices factor, as in SciPy and JAX
  want_lu, want_piv = sl.lu_factor(rect)
  check(lu, want_lu, **TOL)
  np.testing.assert_array_equal(piv, want_piv)
  with pytest.raises(ValueError, match="'trans' value must be 0, 1, or 2"):
    L.lu_solve(L.lu_factor(SPD), B, trans=3)
  check(L.solve_triangular(np.triu(SPD).tolist(), B[:, 0].tolist()),
        sl.solve_triangular(np.triu(SPD), B[:, 0]), **TOL)
  check(L.eigh(SPD, None, True, False, False, False, True, None, 1)[0], np.linalg.eigvalsh(SPD),
        **TOL)
  with pytest.raises(NotImplementedError, match="eigvals=None"):
    L.eigh(SPD, eigvals=(0, 1))


# Recorded from JAX 0.10.2 (float16/bfloat16 and complex behaviour of the factorizations).
_B = np.array([0.3, 1, 2, 3, 5, 7, 0.5, 4.25, 1.5]).reshape(3, 3) - 2.5


@pytest.mark.parametrize("dtype,det,tri,cho", [
    (np.float16, 32.625, [-0.87353515625, -0.125, -0.125],
     [-0.022705078125, -0.0034351348876953125, -0.0010633468627929688]),
    ("bfloat16", 32.75, [-0.87890625, -0.125, -0.125],
     [-0.0224609375, -0.003448486328125, -0.00104522705078125])])
def test_half_precision_det_and_triangular_solves_as_jax(dtype, det, tri, cho):
  a = jnp.asarray(_B.astype(dtype))
  spd = a @ a.T + 3 * jnp.eye(3, dtype=a.dtype)
  t = jnp.triu(a) + 5 * jnp.eye(3, dtype=a.dtype)
  for f, want in ((jnp.linalg.det, det), (L.det, det),
                  (lambda a: L.solve_triangular(t, a[0]), tri),
                  (lambda a: L.cho_solve((spd, True), a[0]), cho)):
    for g in (f, xjax.jit(f)):
      out = g(a)
      assert out.dtype == a.dtype
      np.testing.assert_array_equal(np.asarray(out, np.float32), np.float32(want))


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
@pytest.mark.parametrize("name,f", [
    ("inv", jnp.linalg.inv), ("slogdet", jnp.linalg.slogdet), ("pinv", jnp.linalg.pinv),
    ("lstsq", lambda a: jnp.linalg.lstsq(a, a[0])), ("qr", jnp.linalg.qr),
    ("svd", jnp.linalg.svd), ("norm2", lambda a: jnp.linalg.norm(a, 2)),
    ("eigh", lambda a: jnp.linalg.eigh(a + a.T)), ("lu", L.lu), ("cond", jnp.linalg.cond),
    ("cholesky", lambda a: jnp.linalg.cholesky(a @ a.T)), ("det4", jnp.linalg.det)])
def test_half_precision_factorizations_raise_as_jax(dtype, name, f):
  a = jnp.asarray((np.eye(4) + 0.1).astype(dtype) if name == "det4" else _B.astype(dtype))
  with pytest.raises(NotImplementedError) as info:
    f(a)
  key, msg = info.value.args
  assert isinstance(key, KeyError) and key.args == (a.dtype.type,)
  assert msg == f"Unsupported dtype {a.dtype.name}."


def test_det_closed_forms_gradient_as_jax():
  g = xjax.grad(jnp.linalg.det)(jnp.asarray(_B.astype(np.float32)))
  np.testing.assert_array_equal(g, np.float32([[-10.375, -8.5, 5.875],
                                               [-2.375, 1.2000000476837158, 6.850000381469727],
                                               [-5.5, 9.65000057220459, -4.75]]))
  h = jnp.asarray(_B.astype(np.float16))
  np.testing.assert_array_equal(xjax.vmap(jnp.linalg.det)(jnp.stack([h, h])), [32.625] * 2)
  assert float(jnp.linalg.det(h[:2, :2])) == -4.75


def test_lu_permutation_of_complex_input_is_real_as_jax():
  c = jnp.asarray((_B + 1j * _B.T).astype(np.complex64))
  for f in (L.lu, xjax.jit(L.lu)):
    p, l, u = f(c)
    assert p.dtype == np.float32 and l.dtype == u.dtype == np.complex64
    np.testing.assert_array_equal(p, [[1, 0, 0], [0, 0, 1], [0, 1, 0]])
    np.testing.assert_allclose(p @ l @ u, c, rtol=1e-5, atol=1e-5)
  assert L.lu(c, permute_l=True)[0].dtype == np.complex64


def test_expm_is_one_jitted_call_under_eager_vmap():
  """JAX jits expm, so an eager vmap of it runs one program and jax_debug_nans sees only
  its outputs; run op by op, the cond's NaN branch (taken by no element) raised."""
  rng = np.random.default_rng(0)
  m = rng.standard_normal((5, 3, 3)).astype(np.float32)
  m = m - m.transpose(0, 2, 1)
  with xjax.debug_nans(True):
    out = xjax.vmap(L.expm)(m)
  np.testing.assert_allclose(out, [sl.expm(a) for a in m], rtol=1e-5, atol=1e-6)


@pytest.mark.cpu_bits  # (recorded on an Intel CPU; an AMD one rounds other bits, JAX too)
def test_rsf2csf_bits_are_jaxs():
  # JAX 0.10.2's bits: the rotation's radius as a vector norm, the products of masked rows
  # and columns.
  rng = np.random.RandomState(1)
  a = rng.randn(6, 6).astype(np.float32)
  t, z = L.rsf2csf(*L.schur(a))
  np.testing.assert_array_equal(np.asarray(t).view(np.uint32).ravel()[:8], [
      1074024916, 1053284631, 3197314702, 3028287488, 3204818620, 1067168402, 1047011948,
      1046363927])
  np.testing.assert_array_equal(np.asarray(z).view(np.uint32).ravel()[:4],
                                [3205045699, 3182884224, 1040394571, 1052722225])


def test_which_functions_take_lists_as_jax():
  """JAX's cholesky, eigh, lu, lu_factor, svd and polar convert their input with asarray
  (a nested list works); expm, block_diag, jnp.linalg.matrix_transpose and ndtri refuse
  lists with JAX's TypeError."""
  m = [[4.0, 1.0], [1.0, 3.0]]
  a = np.array(m, np.float32)
  np.testing.assert_allclose(L.cholesky(m, lower=True), np.linalg.cholesky(a), rtol=1e-6)
  np.testing.assert_allclose(L.eigh(m, eigvals_only=True), np.linalg.eigvalsh(a), rtol=1e-6)
  p, l, u = L.lu(m)
  np.testing.assert_allclose(p @ l @ u, a, rtol=1e-6)
  assert L.lu_factor(m)[0].shape == (2, 2)
  np.testing.assert_allclose(L.svd(m, compute_uv=False), np.linalg.svd(a, compute_uv=False),
                             rtol=1e-6)
  np.testing.assert_allclose(L.polar(m)[0] @ L.polar(m)[1], a, rtol=1e-5, atol=1e-6)
  for call in (lambda: L.expm(m), lambda: L.block_diag(m, m),
               lambda: jnp.linalg.matrix_transpose(m),
               lambda: xjax.scipy.special.ndtri([0.5])):
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
      call()
