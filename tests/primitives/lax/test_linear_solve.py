"""lax.custom_linear_solve and lax.custom_root: values against NumPy, derivatives (Jacobians,
finite differences), vmap and jit."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads


def _inv2(m):
  a, b, c, d = m[0, 0], m[0, 1], m[1, 0], m[1, 1]
  return jnp.stack([jnp.stack([d, -b]), jnp.stack([-c, a])]) / (a * d - b * c)


def _solve(m, b):
  return lax.custom_linear_solve(lambda v: m @ v, b, lambda mv, y: _inv2(m) @ y,
                                 lambda vm, y: _inv2(m.T) @ y)


def test_custom_linear_solve():
  m = jnp.array([[2., 1.], [0.5, 3.]])
  b = jnp.array([1., 2.])
  np.testing.assert_allclose(_solve(m, b), np.linalg.solve(m, b), rtol=1e-6)
  inv = np.linalg.inv(m)
  np.testing.assert_allclose(xjax.jacfwd(_solve, 1)(m, b), inv, rtol=1e-5)
  np.testing.assert_allclose(xjax.jacrev(_solve, 1)(m, b), inv, rtol=1e-5)
  check_grads(_solve, (m, b), 1, atol=1e-2, rtol=1e-2)
  np.testing.assert_allclose(xjax.vmap(_solve, (None, 0))(m, jnp.stack([b, 2 * b])),
                             [np.linalg.solve(m, b), np.linalg.solve(m, 2 * b)], rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(_solve)(m, b), np.linalg.solve(m, b), rtol=1e-6)
  sym = lax.custom_linear_solve(lambda v: 4. * v, b, lambda mv, y: y / 4., symmetric=True)
  np.testing.assert_allclose(sym, b / 4.)
  x, aux = lax.custom_linear_solve(lambda v: 2. * v, b, lambda mv, y: (y / 2., 7),
                                   symmetric=True, has_aux=True)
  assert aux == 7 and x.tolist() == [0.5, 1.]


def _sqrt(a):
  def solve(g, x0):
    return lax.fori_loop(0, 30, lambda i, x: x - g(x) / (2 * x), x0)
  return lax.custom_root(lambda x: x * x - a, 1., solve, lambda g, y: y / g(1.))


def test_custom_root():
  np.testing.assert_allclose(_sqrt(2.), np.sqrt(2.), rtol=1e-6)
  np.testing.assert_allclose(xjax.grad(_sqrt)(2.), 0.5 / np.sqrt(2.), rtol=1e-5)
  np.testing.assert_allclose(xjax.jvp(_sqrt, (2.,), (1.,))[1], 0.5 / np.sqrt(2.), rtol=1e-5)
  np.testing.assert_allclose(xjax.vmap(_sqrt)(jnp.array([4., 9.])), [2., 3.], rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(xjax.grad(_sqrt))(4.), 0.25, rtol=1e-5)


def test_vmapped_solve_keeps_the_operator_derivative():
  """Under vmap a custom_linear_solve stays one (its jaxprs batched), so a gradient with
  respect to the operator still flows: it used to run the solve jaxpr directly, whose
  operator enters through stop_gradient, and the gradient was 0."""
  rng = np.random.default_rng(3)
  a = rng.standard_normal((3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
  bs = rng.standard_normal((4, 3)).astype(np.float32)

  def solve(a, b):
    inv = jnp.linalg.inv(lax.stop_gradient(a))
    return lax.custom_linear_solve(lambda x: a @ x, b, solve=lambda _, r: inv @ r,
                                   transpose_solve=lambda _, r: inv.T @ r)
  batched = xjax.grad(lambda a: jnp.sum(xjax.vmap(solve, (None, 0))(a, bs) ** 2))(a)
  looped = sum(xjax.grad(lambda a: jnp.sum(solve(a, b) ** 2))(a) for b in bs)
  np.testing.assert_allclose(batched, looped, rtol=1e-5)
  assert np.abs(batched).max() > 0.1


def test_linalg_solve_and_inv_derivatives_are_jaxs():
  """jnp.linalg.solve is JAX's custom_linear_solve over one LU factorization: its gradients
  (and inv's, a solve with the identity) are bit for bit JAX 0.10.2's on the same CPU. XLA's
  and LAPACK's kernels differ between CPUs, JAX's too: the bits were recorded from JAX on an
  Intel CPU with AVX-512 and on an AMD EPYC without it."""
  rng = np.random.default_rng(2)
  a = rng.standard_normal((6, 6)).astype(np.float32)
  b = rng.standard_normal((6, 3)).astype(np.float32)
  bits = lambda x: np.asarray(x).ravel().view(np.uint32).tolist()[:8]
  assert bits(xjax.grad(lambda a: jnp.sum(jnp.linalg.solve(a, b)))(a)) in (
      [3213413640, 1051149876, 1051362835, 1049899314, 1016396572, 1064975471, 1089340764,
       3222373719],
      [3213413638, 1051149875, 1051362832, 1049899312, 1016396570, 1064975467, 1089340763,
       3222373719])
  assert bits(xjax.grad(lambda b: jnp.sum(jnp.linalg.solve(a, b) ** 2))(b)) in (
      [3230427940, 3188987167, 3230784858, 1092550296, 1067399298, 1094763955, 3243910377,
       3226692363],
      [3230427941, 3188987156, 3230784859, 1092550296, 1067399293, 1094763954, 3243910380,
       3226692365])
  assert bits(jnp.linalg.inv(a)) in (
      [1054735878, 3212092379, 1061938532, 3217787500, 1014745379, 1067792632, 3185024169,
       1057805641],
      [1054735880, 3212092377, 1061938539, 3217787502, 1014745419, 1067792634, 3185024169,
       1057805641])


def test_custom_root_solve_closing_over_a_differentiated_value():
  """What ``solve`` closes over reaches the root as an operand without derivatives (JAX's
  values: d sqrt(a)/da at 2 = 0.35355338)."""
  def root_of(a):
    return lax.custom_root(lambda z: z**2 - a, 1., lambda f, z0: jnp.sqrt(a),
                           lambda g, v: v / g(1.))
  np.testing.assert_allclose(xjax.grad(root_of)(2.), 0.5 / np.sqrt(2.), rtol=1e-6)
  primal, tangent = xjax.jvp(root_of, (2.,), (1.,))
  np.testing.assert_allclose([primal, tangent], [np.sqrt(2.), 0.5 / np.sqrt(2.)], rtol=1e-6)
  np.testing.assert_allclose(xjax.vmap(xjax.grad(root_of))(jnp.array([1., 4.])), [0.5, 0.25],
                             rtol=1e-6)


def test_custom_root_checks_output_structures():
  with pytest.raises(TypeError, match=r"^f\(\) output pytree structure must match initial_guess"):
    lax.custom_root(lambda z: (z, z), 1., lambda f, z0: z0, lambda g, y: y)
  with pytest.raises(TypeError, match=r"^solve\(\) output pytree structure must match"):
    lax.custom_root(lambda z: z**2 - 4., 1., lambda f, z0: (z0, z0), lambda g, y: y)


def _aux_solve(m, b, transpose=True):
  """A solve with aux output (the solution's sum), as optimistix/lineax-style solvers."""
  def solve(mv, y):
    x = _inv2(m) @ y
    return x, {"sum": jnp.sum(x)}

  def tsolve(vm, y):
    x = _inv2(m.T) @ y
    return x, {"sum": jnp.sum(x)}
  return lax.custom_linear_solve(lambda v: m @ v, b, solve, tsolve if transpose else None,
                                 has_aux=True)


def test_aux_output_under_transformations():
  m = jnp.array([[2., 1.], [0.5, 3.]])
  b = jnp.array([1., 2.])
  x_np = np.linalg.solve(m, b)
  for x, aux in [_aux_solve(m, b), xjax.jit(_aux_solve)(m, b)]:  # aux used to leak a tracer
    np.testing.assert_allclose(x, x_np, rtol=1e-6)
    np.testing.assert_allclose(aux["sum"], x_np.sum(), rtol=1e-6)
    assert isinstance(aux["sum"], xjax.Array)
  xs, aux = xjax.vmap(_aux_solve, (None, 0))(m, jnp.stack([b, 2 * b]))
  np.testing.assert_allclose(aux["sum"], [x_np.sum(), 2 * x_np.sum()], rtol=1e-6)
  (x, aux), (dx, daux) = xjax.jvp(lambda b: _aux_solve(m, b), (b,), (b,))
  np.testing.assert_allclose(dx, x_np, rtol=1e-6)  # linear in b
  assert float(daux["sum"]) == 0.  # aux has no tangent, as in JAX
  inv = np.linalg.inv(m)
  # the aux output's cotangent is dropped: JAX 0.10.2 gives the same [0.4, 0.2]-style answer
  loss = lambda b: (lambda o: o[0].sum() + o[1]["sum"])(_aux_solve(m, b))
  np.testing.assert_allclose(xjax.grad(loss)(b), inv.sum(0), rtol=1e-6)
  np.testing.assert_allclose(xjax.jacrev(lambda b: _aux_solve(m, b)[0])(b), inv, rtol=1e-5)
  np.testing.assert_allclose(xjax.jacfwd(lambda b: _aux_solve(m, b, False)[0])(b), inv,
                             rtol=1e-5)


def test_checks_and_errors_are_jaxs():
  m = jnp.array([[2., 1.], [0.5, 3.]])
  b = jnp.array([1., 2.])
  with pytest.raises(TypeError, match="transpose_solve required for backwards mode"):
    xjax.grad(lambda b: _aux_solve(m, b, False)[0].sum())(b)
  with pytest.raises(ValueError, match=r"^transpose_solve\(\) output shapes must match b, "
                     r"got \[\(\)\] and \[\(2,\)\]"):  # (x, aux) unpacked from an array
    lax.custom_linear_solve(lambda v: v, b, lambda mv, y: (y, 0), lambda vm, y: y, has_aux=True)
  with pytest.raises(TypeError, match=r"^matvec\(\) output pytree structure must match b"):
    lax.custom_linear_solve(lambda v: (v, v), b, lambda mv, y: y)
