"""xjax.experimental.ode.odeint and xjax.closure_convert: solutions against SciPy's
solve_ivp, the adjoint gradient against finite differences and JAX 0.10.2's numbers."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import xjax
import xjax.numpy as jnp
from xjax.experimental.ode import odeint

TS = np.linspace(0, 3, 7).astype(np.float32)


def decay(y, t, a):
  return -a * y + jnp.sin(t)


def test_odeint_matches_solve_ivp():
  ys = odeint(decay, jnp.array([1., 2.]), TS, 0.7)
  sol = solve_ivp(lambda t, y: -0.7 * y + np.sin(t), (0, 3), [1., 2.], t_eval=TS,
                  rtol=1e-10, atol=1e-10)
  np.testing.assert_allclose(np.asarray(ys).T, sol.y, atol=2e-5)
  np.testing.assert_allclose(ys[-1], [0.93536454, 1.0578208], rtol=2e-5)   # JAX 0.10.2


def test_odeint_pytree_state_and_stiffer_system():
  def lotka(state, t, p):
    x, y = state["prey"], state["pred"]
    return {"prey": p[0] * x - p[1] * x * y, "pred": -p[2] * y + p[3] * x * y}
  p = jnp.array([1.1, 0.4, 0.4, 0.1])
  ts = np.linspace(0., 10., 5).astype(np.float32)
  out = odeint(lotka, {"prey": jnp.array(10.), "pred": jnp.array(5.)}, ts, p,
               rtol=1e-6, atol=1e-6)
  sol = solve_ivp(lambda t, s: [1.1 * s[0] - 0.4 * s[0] * s[1], -0.4 * s[1] + 0.1 * s[0] * s[1]],
                  (0, 10), [10., 5.], t_eval=ts, rtol=1e-10, atol=1e-10)
  np.testing.assert_allclose(out["prey"], sol.y[0], rtol=2e-3)
  np.testing.assert_allclose(out["pred"], sol.y[1], rtol=2e-3)


@pytest.mark.slow
def test_adjoint_gradient_against_finite_differences():
  y0 = jnp.array([1., 2.])
  loss = lambda y0, a: odeint(decay, y0, TS[::3], a)[-1].sum()
  g_y0, g_a = xjax.grad(loss, argnums=(0, 1))(y0, 0.7)
  np.testing.assert_allclose(g_y0, [np.exp(-2.1)] * 2, rtol=1e-4)   # d y(3)/d y0 = e^{-a t}
  eps = 1e-3
  fd = (loss(y0, 0.7 + eps) - loss(y0, 0.7 - eps)) / (2 * eps)
  np.testing.assert_allclose(g_a, fd, rtol=1e-3)
  g_ts = xjax.grad(lambda ts: odeint(decay, y0, ts, 0.7)[-1].sum())(TS[::3])
  np.testing.assert_allclose(g_ts, [0.25715867, 0, -1.1129897], atol=2e-4)   # JAX 0.10.2
  # a value the dynamics close over is differentiated too (closure conversion)
  g_b = xjax.grad(lambda b: odeint(lambda y, t: -b * y, 1.0, jnp.array([0., 1.]))[-1])(0.5)
  np.testing.assert_allclose(g_b, -0.60653055, rtol=1e-4)


def test_odeint_under_jit_and_vmap():
  f = xjax.jit(lambda y0, a: odeint(decay, y0, TS, a))
  np.testing.assert_allclose(f(jnp.array([1., 2.]), 0.7)[-1], [0.93536454, 1.0578208],
                             rtol=2e-5)
  batched = xjax.vmap(lambda a: odeint(decay, jnp.array([1., 2.]), TS[::3], a)[-1])(
      jnp.array([0.7, 1.5]))
  for a, row in zip((0.7, 1.5), np.asarray(batched)):
    sol = solve_ivp(lambda t, y: -a * y + np.sin(t), (0, 3), [1., 2.], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(row, sol.y[:, -1], rtol=1e-5)


def test_odeint_takes_jaxs_steps_bit_for_bit():
  # JAX 0.10.2's bits: its starting step (norms of the scaled state and slope), its error
  # weights, the stages in a fori_loop and the dense output by polyval.
  ys = odeint(decay, jnp.array([1., 2.]), TS, 0.7)
  np.testing.assert_array_equal(np.asarray(ys[-1]).view(np.uint32), [1064268813, 1065838252])
  np.testing.assert_array_equal(np.asarray(ys[3]).view(np.uint32), [1065403065, 1068338556])
  g = xjax.grad(lambda a: odeint(decay, jnp.array([1., 2.]), TS, a).sum())(0.7)
  assert np.asarray(g).view(np.uint32) == 3243574277
  with pytest.raises(TypeError, match=r"t must be an array of floats, but got \[0 1 2\]"):
    odeint(decay, jnp.array([1., 2.]), jnp.arange(3), 0.7)


def test_odeint_errors():
  with pytest.raises(TypeError, match="must be arrays or scalars"):
    odeint(decay, jnp.array([1., 2.]), TS, "x")


def test_closure_convert():
  def outer(a):
    f, consts = xjax.closure_convert(lambda x: x * a + jnp.sin(a), 1.0)
    assert len(consts) == 1
    return f(2.0, *consts)
  np.testing.assert_allclose(xjax.grad(outer)(0.5), 2 + np.cos(0.5), rtol=1e-6)
  f, consts = xjax.closure_convert(lambda x, y: {"s": x + y}, 1., 2.)
  assert consts == [] and float(f(3., 4.)["s"]) == 7.
