"""lax.custom_linear_solve and lax.custom_root: values against NumPy, derivatives (Jacobians,
finite differences), vmap and jit."""
import numpy as np

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
