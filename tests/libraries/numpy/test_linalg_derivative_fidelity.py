"""Derivatives of linear algebra at the edges, as JAX 0.10.2 takes them: norms whose max ties
(``initial=0``, repeated singular values), slogdet's closed-form 1x1/2x2 path and its QR
method, the SVD JVP at repeated singular values, SciPy's ``solve(assume_a="pos")`` and QR
of wide, complete-tall and column-pivoted matrices.  Numbers are JAX's (literal) or come
from NumPy/SciPy and the defining identities."""
import numpy as np
import pytest
import scipy.linalg

import xjax
import xjax.numpy as jnp
import xjax.scipy.linalg as jsl
from xjax import lax

from tests.checking import check, check_exact

F32 = np.float32
SIXTH, THIRD = 1 / 6, 1 / 3


# -- norms: ties at the max share its gradient ------------------------------------------------

def test_vector_inf_norm_ties_with_its_initial_zero():
  grad = xjax.grad(lambda a: jnp.linalg.norm(a, ord=jnp.inf))
  check_exact(grad(jnp.zeros(3)), [SIXTH] * 3, F32)
  check_exact(xjax.grad(lambda a: jnp.linalg.norm(a, ord=jnp.inf, axis=1).sum())(
      jnp.zeros((2, 3))), [[SIXTH] * 3] * 2, F32)
  check_exact(xjax.grad(lambda a: jnp.linalg.vector_norm(a, ord=jnp.inf))(jnp.zeros(2)),
              [0.25, 0.25], F32)
  check_exact(grad(jnp.array([2., -2., 1.])), [0.5, -0.5, 0.], F32)  # away from 0: unchanged
  check_exact(xjax.grad(lambda a: jnp.linalg.norm(a, ord=-jnp.inf))(jnp.zeros(2)),
              [0.5, 0.5], F32)  # (no initial for the minimum)


def test_matrix_norms_max_ties():
  zeros = jnp.zeros((2, 3))
  check_exact(xjax.grad(lambda a: jnp.linalg.norm(a, ord=1))(zeros), [[SIXTH] * 3] * 2, F32)
  check_exact(xjax.grad(lambda a: jnp.linalg.norm(a, ord=jnp.inf))(zeros), [[0.25] * 3] * 2,
              F32)
  for ord in (2, -2):  # the spectral norms of I: every singular value ties
    grad = xjax.grad(lambda a, o=ord: jnp.linalg.norm(a, ord=o))(jnp.eye(3))
    check_exact(grad, np.eye(3) * THIRD, F32)
    check_exact(xjax.jit(xjax.grad(lambda a, o=ord: jnp.linalg.norm(a, ord=o)))(jnp.eye(3)),
                np.eye(3) * THIRD, F32)
  eye_and_zero = jnp.stack([jnp.eye(2), jnp.zeros((2, 2))])
  check(xjax.vmap(xjax.grad(lambda a: jnp.linalg.norm(a, ord=2)))(eye_and_zero)[0],
        np.eye(2) / 2)
  values = [jnp.linalg.norm(jnp.array([[1., -2.], [3., 4.]]), ord=o) for o in (1, jnp.inf, 2)]
  check(values, [np.linalg.norm(np.array([[1., -2.], [3., 4.]]), ord=o).astype(F32)
                 for o in (1, np.inf, 2)])


# -- SVD: only the diagonal of 1 / (s_j^2 - s_i^2) is guarded -------------------------------

def test_svd_jvp_at_repeated_singular_values_is_nonfinite_as_jax():
  _, du = xjax.jvp(lambda a: jnp.linalg.svd(a)[0], (jnp.eye(2),),
                   (jnp.array([[0., 1.], [0., 0.]]),))
  check_exact(du, [[np.nan, np.inf], [np.inf, np.nan]], F32)
  grad = xjax.grad(lambda a: jnp.abs(jnp.linalg.svd(a)[0]).sum())(jnp.eye(2))
  assert np.isnan(np.asarray(grad)).all()


def test_svd_jvp_with_distinct_singular_values_solves_the_identities():
  a = jnp.array([[3., 1.], [1., 2.], [0., 1.]])
  da = jnp.array([[1., 0.], [2., 1.], [0., -1.]])
  (u, s, vt), (du, ds, dvt) = xjax.jvp(lambda x: jnp.linalg.svd(x, full_matrices=False),
                                       (a,), (da,))
  u, s, vt, du, ds, dvt = map(np.asarray, (u, s, vt, du, ds, dvt))
  recon = du @ np.diag(s) @ vt + u @ np.diag(ds) @ vt + u @ np.diag(s) @ dvt
  np.testing.assert_allclose(recon, np.asarray(da), atol=1e-5)
  np.testing.assert_allclose(u.T @ du + du.T @ u, 0, atol=1e-5)


# -- slogdet ----------------------------------------------------------------------------------

def test_slogdet_2x2_closed_form_values():
  sign, logdet = jnp.linalg.slogdet(jnp.array([[0.1, 0.2], [0.3, 0.4]]))
  check_exact(sign, -1., F32)
  check_exact(logdet, -3.912022829055786, F32)
  check_exact(jnp.linalg.slogdet(jnp.array([[1e-3, 1.], [1., 1e-3]])).logabsdet,
              -1.0132795296158292e-06, F32)
  sign, logdet = jnp.linalg.slogdet(jnp.array([[1., 2.], [3., 4.]], jnp.float16))  # no LAPACK
  check_exact((sign, logdet), (-1., 0.693359375), np.float16)


def test_slogdet_small_jvp_is_the_closed_form():
  a = jnp.array([[2., 1.], [1., 3.]])
  _, (dsign, dlog) = xjax.jvp(jnp.linalg.slogdet, (a,), (jnp.ones((2, 2)),))
  check_exact(dlog, (3. - 1. - 1. + 2.) / 5., F32)
  check_exact(dsign, 0., F32)
  check_exact(xjax.grad(lambda a: jnp.linalg.slogdet(a)[1])(jnp.array([[-2.]])), [[-0.5]], F32)
  check_exact(xjax.grad(lambda a: jnp.linalg.slogdet(a)[1])(jnp.array([[1e-3, 1.], [1., 1e-3]])),
              [[-0.0010000010952353477, 1.000001072883606],
               [1.000001072883606, -0.0010000010952353477]], F32)
  check_exact(xjax.grad(lambda a: jnp.linalg.slogdet(a)[1])(jnp.array([[1., 2.], [2., 4.]])),
              [[np.inf, -np.inf], [-np.inf, np.inf]], F32)  # singular: +-1/0 as JAX
  check_exact(xjax.grad(lambda a: jnp.linalg.slogdet(a)[1])(
      jnp.array([[1., 2.], [3., 4.]], jnp.float16)), [[-2., 1.5], [1., -0.5]], np.float16)
  hess = xjax.hessian(lambda a: jnp.linalg.slogdet(a)[1])(a)
  want = np.frombuffer(bytes.fromhex(
      "eb51b8be8fc2f53d8fc2f53d08d723bd8fc2f53d0ad723bd90c275be0ad7a33d8fc2f53d90c275be0ad723bd"
      "0ad7a33d08d723bd0ad7a33d0ad7a33d0ad723be"), F32).reshape(2, 2, 2, 2)
  check_exact(hess, want, F32)
  batch = jnp.stack([jnp.eye(2), a])
  check(xjax.vmap(xjax.grad(lambda a: jnp.linalg.slogdet(a)[1]))(batch),
        np.linalg.inv(np.asarray(batch)).transpose(0, 2, 1))


def test_slogdet_complex_small_path():
  a = jnp.array([[1 + 1j, 2.], [3j, 4.]], jnp.complex64)
  sign, logdet = jnp.linalg.slogdet(a)
  check_exact(sign, 0.8944271802902222 - 0.4472135901451111j, np.complex64)
  check_exact(logdet, 1.497866153717041, F32)
  _, (dsign, dlog) = xjax.jvp(jnp.linalg.slogdet, (a,), (jnp.ones((2, 2), jnp.complex64),))
  check_exact(dsign, -0.04472136124968529 - 0.08944272249937057j, np.complex64)
  check_exact(dlog, 0.800000011920929, F32)


def test_slogdet_lu_sign_counts_negative_pivots():
  for d, sign in (([np.nan, 1., 2.], 1.), ([np.nan, -1., 2.], -1.)):
    check_exact(jnp.linalg.slogdet(jnp.diag(jnp.array(d))), (sign, np.nan), F32)
  with pytest.raises(ValueError, match="Unknown slogdet method"):
    jnp.linalg.slogdet(jnp.eye(2), method="cholesky")


def test_slogdet_qr_method():
  a = np.array([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]], F32)
  sign, logdet = np.linalg.slogdet(-a.astype(np.float64))
  check(jnp.linalg.slogdet(-a, method="qr"), (F32(sign), F32(logdet)))
  b = np.random.RandomState(0).randn(2, 4, 4).astype(F32)
  check(xjax.vmap(lambda x: jnp.linalg.slogdet(x, method="qr"))(b),
        tuple(x.astype(F32) for x in np.linalg.slogdet(b.astype(np.float64))), rtol=1e-5)
  check(xjax.grad(lambda x: jnp.linalg.slogdet(x, method="qr")[1])(a),
        np.linalg.inv(a).T, rtol=1e-5)
  with pytest.raises(NotImplementedError, match="complex"):
    jnp.linalg.slogdet(jnp.eye(2, dtype=jnp.complex64), method="qr")


# -- jax.scipy.linalg.solve(assume_a="pos") --------------------------------------------------

def _pos_grad_oracle(s):
  """d sum(S^{-1} 1) / dA for the symmetric S read from one triangle: -x x^T, x = S^{-1} 1."""
  x = np.linalg.solve(s, np.ones(2))
  return -np.outer(x, x)


def test_scipy_solve_pos_gradient_is_symmetric_through_the_whole_matvec():
  a = jnp.array([[2., 0.5], [1., 3.]])  # upper triangle 0.5, lower triangle 1
  for lower, s in ((False, [[2., .5], [.5, 3.]]), (True, [[2., 1.], [1., 3.]])):
    grad = xjax.grad(lambda a, lw=lower: jsl.solve(a, jnp.ones(2), assume_a="pos",
                                                   lower=lw).sum())(a)
    check(grad, _pos_grad_oracle(np.array(s)).astype(F32))
  check_exact(xjax.grad(lambda a: jsl.solve(a, jnp.ones(2), assume_a="pos").sum())(a),
              [[-0.18903590738773346, -0.11342154443264008],
               [-0.11342154443264008, -0.06805292516946793]], F32)
  spd = jnp.array([[2., 1.], [1., 3.]])
  rhs = jnp.array([[1., 2.], [3., 4.]])
  check(jsl.solve(spd, rhs, assume_a="pos"), np.linalg.solve(np.asarray(spd), np.asarray(rhs)))
  jac = xjax.jacfwd(lambda b: jsl.solve(spd, b, assume_a="pos"))(rhs)
  check(jac, np.einsum("ik,jl->ijkl", np.linalg.inv(np.asarray(spd)), np.eye(2)), atol=1e-6)
  batch = jnp.stack([jnp.eye(2) * 2, spd])
  grads = xjax.vmap(xjax.grad(lambda a: jsl.solve(a, jnp.ones(2), assume_a="pos").sum()))(batch)
  check(grads, np.stack([_pos_grad_oracle(np.asarray(s)) for s in batch]).astype(F32))
  check(jsl.solve(np.asarray(spd), [1., 2.], assume_a="pos"),
        np.linalg.solve(np.asarray(spd), [1., 2.]).astype(F32))  # (a list, as JAX's)


def test_scipy_solve_assume_a_values_and_shapes():
  for assume_a in ("gen", "sym", "her", "pos"):
    check(jsl.solve(jnp.eye(2) * 2, jnp.ones(2), assume_a=assume_a), [0.5, 0.5])
  for assume_a in ("general", "positive definite", "POS"):
    with pytest.raises(ValueError, match=r"one of \['gen', 'sym', 'her', 'pos'\]; got"):
      jsl.solve(jnp.eye(2), jnp.ones(2), assume_a=assume_a)
  with pytest.raises(ValueError, match="must have shapes"):  # pos: no batch of a for one b
    jsl.solve(jnp.zeros((3, 2, 2)) + jnp.eye(2), jnp.ones(2), assume_a="pos")
  with pytest.raises(ValueError, match="Invalid shapes for solve"):  # gen: jnp.linalg.solve's
    jsl.solve(jnp.zeros((3, 2, 2)) + jnp.eye(2), jnp.ones((3, 2)))


# -- QR: wide, complete-tall and pivoted ------------------------------------------------------

def _check_qr_tangents(a, da, q, r, dq, dr, atol=1e-5):
  """dA = dQ R + Q dR, Q^H dQ skew-Hermitian and dR upper triangular."""
  a, da, q, r, dq, dr = map(np.asarray, (a, da, q, r, dq, dr))
  np.testing.assert_allclose(dq @ r + q @ dr, da, atol=atol)
  np.testing.assert_allclose(q.T @ dq + dq.T @ q, 0, atol=atol)
  np.testing.assert_array_equal(np.tril(dr, -1), 0)


def test_qr_jvp_of_a_wide_matrix():
  a = jnp.array([[2., 1., 0.], [1., 3., 1.]])
  da = jnp.array([[1., 0., 2.], [0., 1., 1.]])
  (q, r), (dq, dr) = xjax.jvp(jnp.linalg.qr, (a,), (da,))
  _check_qr_tangents(a, da, q, r, dq, dr)
  check(dq, [[-0.08944281935691833, 0.1788853406906128],
             [0.17888541519641876, 0.08944272994995117]])
  check(dr, [[-0.8944270610809326, 2.309911195652603e-08, -2.0571823120117188],
             [0.0, 1.3416407108306885, 0.08944272994995117]])
  eps = 1e-3  # and the gradient of r's sum, by central differences
  grad = np.asarray(xjax.grad(lambda x: jnp.linalg.qr(x)[1].sum())(a))
  e = np.eye(6).reshape(6, 2, 3) * eps
  fd = [(np.linalg.qr(np.asarray(a, np.float64) + d)[1].sum()
         - np.linalg.qr(np.asarray(a, np.float64) - d)[1].sum()) / (2 * eps) for d in e]
  np.testing.assert_allclose(grad.ravel(), fd, atol=1e-3)


def test_qr_jvp_of_complete_tall_matrix():
  a = jnp.array([[2., 1., 0.], [1., 3., 1.], [0., 1., 4.], [1., 0., 1.]])
  da = jnp.ones((4, 3))
  (q, r), (dq, dr) = xjax.jvp(lambda x: jnp.linalg.qr(x, mode="complete"), (a,), (da,))
  assert dq.shape == (4, 4) and dr.shape == (4, 3)
  _check_qr_tangents(a, da, q, r, dq, dr)
  check(dq[:, 3], [-0.08032853901386261, -0.045902058482170105, -0.04016425088047981,
                   -0.05163975805044174], atol=1e-5)  # (JAX's: eqs. 32-33 of arXiv:2409.13374)
  (q3, _), (dq3, _) = xjax.jvp(lambda x: jnp.linalg.qr(x, mode="reduced"), (a,), (da,))
  check(dq[:, :3], dq3)  # the first n columns are the thin rule's
  grad = xjax.grad(lambda x: jnp.linalg.qr(x, mode="complete")[0].sum())(a)
  jac = xjax.jacfwd(lambda x: jnp.linalg.qr(x, mode="complete")[0].sum())(a)
  check(grad, jac, atol=1e-5)


def test_qr_pivoting_matches_lapack_geqp3():
  a = np.array([[1., 3., 0.], [2., 1., 4.], [0., 5., 1.]], F32)
  q, r, p = lax.linalg.qr(a, pivoting=True)
  _, r_ref, p_ref = scipy.linalg.qr(a, pivoting=True)
  check_exact(p, p_ref, np.int32)
  check(r, r_ref, rtol=1e-5, atol=1e-5)
  check(q @ r, a[:, p_ref], atol=1e-5)
  for mode in ("full", "economic"):
    q2, r2, p2 = jsl.qr(a, pivoting=True, mode=mode)
    check((q2, r2), (q, r))
    check_exact(p2, p_ref, np.int32)
  check_exact(jsl.qr(a.tolist(), pivoting=True, mode="r")[1], p_ref, np.int32)
  out, r3, p3 = jsl.qr_multiply(a, jnp.ones(3), pivoting=True)
  check(out, np.ones(3, F32) @ np.asarray(q), atol=1e-5)
  check(r3, r)
  check_exact(p3, p_ref, np.int32)
  shapes = xjax.eval_shape(lambda x: lax.linalg.qr(x, pivoting=True, full_matrices=False),
                           jnp.zeros((3, 4)))
  assert [(s.shape, s.dtype) for s in shapes] == [((3, 3), F32), ((3, 4), F32),
                                                  ((4,), np.int32)]
  q0, r0, p0 = lax.linalg.qr(jnp.zeros((0, 3)), pivoting=True)  # nothing to factor
  assert q0.shape == (0, 0) and r0.shape == (0, 3)
  check_exact(p0, [0, 0, 0], np.int32)


def test_qr_pivoting_derivatives():
  a = jnp.array([[1., 3., 0.], [2., 1., 4.], [0., 5., 1.]])
  grad = xjax.grad(lambda x: lax.linalg.qr(x, pivoting=True, full_matrices=False)[1].sum())(a)
  check(grad, [[-1.1438446044921875, -0.4706018567085266, -0.1637810915708542],
               [-1.2780429124832153, -0.7117908000946045, -1.1232960224151611],
               [-0.24130046367645264, -0.7584965229034424, -0.8602879643440247]], atol=1e-5)
  (q, r, p), (dq, dr, dp) = xjax.jvp(lambda x: lax.linalg.qr(x, pivoting=True), (a,), (a * 2,))
  assert dp.dtype == xjax.dtypes.float0 and dp.shape == (3,)
  _check_qr_tangents(np.asarray(a)[:, np.asarray(p)], 2 * np.asarray(a)[:, np.asarray(p)],
                     q, r, dq, dr)
  # wide: dR2 = dQ^H A2 + Q^H dA2 with JAX's A2, the unpermuted trailing columns
  wide = jnp.array([[1., 3., 0., 5.], [2., 1., 4., 0.]])
  _, (dq, dr) = xjax.jvp(lambda x: lax.linalg.qr(x, pivoting=True)[:2], (wide,),
                         (jnp.array([[1., 0., 2., 1.], [0., 1., 1., 3.]]),))
  check(dq, [[0., -0.6000000238418579], [0.6000000238418579, 0.]])
  check(dr, [[1., 4.400000095367432, 2.4000000953674316, 1.], [0., 1., 1., -3.]])


def test_jnp_qr_raw_is_a_named_tuple():
  out = jnp.linalg.qr(jnp.array([[1., 0.], [0., 1.], [0., 0.]]), mode="raw")
  assert type(out).__name__ == "QRResult"
  check(out.R, np.zeros(2, F32))
