"""lax's special functions against SciPy: igamma/igammac (values, edges, derivatives, vmap,
jit), random_gamma_grad, betainc and zeta."""
import numpy as np
import pytest
import scipy.special as sp

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads

A = np.array([0.5, 1., 3., 10., 100., 0.1], np.float32)
X = np.array([0.3, 2., 3., 12., 90., 5.], np.float32)


def test_igamma_values_and_edges():
  np.testing.assert_allclose(lax.igamma(A, X), sp.gammainc(A, X), rtol=2e-5)
  np.testing.assert_allclose(lax.igammac(A, X), sp.gammaincc(A, X), rtol=2e-5)
  h = 1e-6
  a64 = A.astype(np.float64)
  fd = (sp.gammainc(a64 + h, X) - sp.gammainc(a64 - h, X)) / (2 * h)
  np.testing.assert_allclose(lax.igamma_grad_a(A, X), fd, rtol=1e-4)
  pdf = np.exp(-X + (A - 1) * np.log(X) - sp.gammaln(A))
  np.testing.assert_allclose(lax.random_gamma_grad(A, X), -fd / pdf, rtol=1e-4)
  edges_a = jnp.array([0., -1., 1., 1., np.inf, 1.])
  edges_x = jnp.array([1., 1., 0., -1., 1., np.inf])
  np.testing.assert_array_equal(lax.igamma(edges_a, edges_x), [1, np.nan, 0, np.nan, np.nan, 1])
  np.testing.assert_array_equal(lax.igammac(edges_a, edges_x),
                                [0, np.nan, 1, np.nan, np.nan, 0])
  with pytest.raises(TypeError):
    lax.igamma(1, 2)
  with pytest.raises(TypeError):
    lax.igamma(1., jnp.float16(2))
  assert lax.igamma(jnp.float16(1), jnp.float16(2)).dtype == np.float16


def test_igamma_grads_and_vmap():
  a, x = jnp.array([0.7, 2.5]), jnp.array([0.4, 4.0])
  check_grads(lax.igamma, (a, x), 1, atol=2e-2, rtol=2e-2)
  check_grads(lax.igammac, (a, x), 1, atol=2e-2, rtol=2e-2)
  out = xjax.vmap(lax.igamma)(jnp.asarray(A), jnp.asarray(X))
  np.testing.assert_allclose(out, [float(lax.igamma(a_, x_)) for a_, x_ in zip(A, X)],
                             rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(lax.igamma)(A, X), lax.igamma(A, X), rtol=1e-6)


def test_betainc():
  a = np.array([.5, 2., 5., 1.3], np.float32)
  b = np.array([.5, 3., 1., 7.], np.float32)
  x = np.array([.2, .5, .9, .05], np.float32)
  np.testing.assert_allclose(lax.betainc(a, b, x), sp.betainc(a, b, x), rtol=1e-5)
  edges = lax.betainc(jnp.array([0., 1., 1., 1., -1.]), jnp.array([1., 0., 1., 1., 1.]),
                      jnp.array([.5, .5, 0., 1., .5]))
  np.testing.assert_array_equal(edges, [1., 0., 0., 1., np.nan])
  check_grads(lambda x_: lax.betainc(jnp.asarray(a), jnp.asarray(b), x_), (x,), 1,
              atol=2e-2, rtol=2e-2)
  with pytest.raises(ValueError, match="a and b"):
    xjax.grad(lax.betainc)(1., 2., .3)
  np.testing.assert_allclose(xjax.vmap(lax.betainc, (0, 0, None))(a, b, np.float32(.4)),
                             sp.betainc(a, b, .4), rtol=1e-5)


def test_zeta():
  x = np.array([2., 3., 1.5, 4.], np.float32)
  q = np.array([1., 2., .5, 3.], np.float32)
  np.testing.assert_allclose(lax.zeta(x, q), sp.zeta(x, q), rtol=1e-5)
  assert np.isinf(float(lax.zeta(1., 1.)))


def test_random_gamma_grad_differentiates_forward_only_as_jax():
  """random_gamma_grad's JVP is its implementation's: forward mode works, reverse mode
  stops at its while loops with JAX's ValueError (values recorded from JAX 0.10.2)."""
  f = xjax.lax.random_gamma_grad
  np.testing.assert_allclose(xjax.jvp(f, (1.5, 0.8), (1., 1.)), (0.79832345, 0.20815676),
                             rtol=2e-6)
  np.testing.assert_allclose(xjax.jacfwd(f, argnums=(0, 1))(1.5, 0.8),
                             (-0.3508481, 0.55900496), rtol=2e-6)
  with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
    xjax.grad(f)(1.5, 0.8)
  key = xjax.random.key(0)
  g = lambda x: xjax.random.gamma(key, x + 1.)
  np.testing.assert_allclose(xjax.jacfwd(xjax.grad(g))(0.7), 0.024251055, rtol=5e-5)
  with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
    xjax.grad(xjax.grad(g))(0.7)


def test_incomplete_gamma_family_is_bit_for_bit_jax():
  """XLA's series and continued fraction, operation for operation: JAX 0.10.2's float32
  bit patterns (the old algorithm was up to 9 ulps away)."""
  a = np.float32([0.3, 1.7, 5., 20., 0.5, 3.])
  x = np.float32([0.2, 2.5, 4., 25., 3., 0.1])
  want = {
      lax.igamma: [1059607135, 1061737077, 1052641545, 1063112203, 1065113203, 958540377],
      lax.igammac: [1051679554, 1046263341, 1059126140, 1040762836, 1013605175, 1065350621],
      lax.igamma_grad_a: [3213032996, 3194579859, 3191380137, 3175048600, 3175186196,
                          3121645540],
      lax.random_gamma_grad: [1067131913, 1068110070, 1064056774, 1066402204, 1077570982,
                              1039766665],
  }
  jitted = dict(want)   # random_gamma_grad is not a primitive: eager, its ops run one by one
  jitted[lax.random_gamma_grad] = [1067131913, 1068110070, 1064056773, 1066402204, 1077570982,
                                   1039766665]
  for f, bits in want.items():
    np.testing.assert_array_equal(np.asarray(f(a, x)).view(np.uint32), bits)
    np.testing.assert_array_equal(np.asarray(xjax.jit(f)(a, x)).view(np.uint32), jitted[f])
  key = xjax.random.PRNGKey(0)
  grad = xjax.grad(lambda a: xjax.random.gamma(key, a).sum())(jnp.array([0.3, 1., 2., 10.]))
  np.testing.assert_array_equal(np.asarray(grad).view(np.uint32),
                                [1074688997, 1065231978, 1062054173, 1067111197])
