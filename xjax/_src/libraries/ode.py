"""`odeint`: adaptive Dormand–Prince (RK45) integration of ``dy/dt = func(y, t, *args)``,
differentiable in reverse mode by the adjoint method (a second, backward ODE solve).

The state is raveled to one vector (`ravel_pytree`); each step runs the seven-stage
Dormand–Prince tableau, accepts it when the RMS error ratio is <= 1, and adapts the step.
Outputs at the requested times come from the 4th-order dense-output polynomial.
"""
from __future__ import annotations

import functools

from xjax._src.api.transformations import vjp, vmap
from xjax._src.foundations.config_states import STATES
from xjax._src.libraries.numpy.linalg import norm
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.api.closure_convert import closure_convert
from xjax._src.primitives.custom_derivatives import custom_vjp
from xjax._src.libraries.flatten_util import ravel_pytree
from xjax._src.api.jit import jit
from xjax._src.primitives.lax.control_flow.loops import fori_loop, scan, while_loop
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.foundations.tree_util import tree_leaves, tree_map

# Dormand–Prince: the stage nodes and coefficients, the 5th-order weights, JAX's error
# weights (the 5th-order weights less those of the embedded formula JAX uses), and the
# weights of the midpoint the dense-output fit passes through.
_ALPHA = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1., 1., 0]
_BETA = [[1 / 5, 0, 0, 0, 0, 0, 0],
         [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
         [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
         [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]]
_C_SOL = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_C_ERROR = [35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
            -2187 / 6784 - -12231 / 42400, 11 / 84 - 649 / 6300, -1. / 60.]
_C_MID = [6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2,
          -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
          -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2]

# Matrix products at full precision while the solver traces, as JAX's.
_highest = STATES["default_matmul_precision"]("highest")


def ravel_first_arg(f, unravel):
  """``f(y, *args)`` on a raveled ``y``, returning a raveled result."""
  def flat(y_flat, *args):
    return ravel_pytree(f(unravel(y_flat), *args))[0]
  return flat


def abs2(x):
  """|x|^2, elementwise (real and complex)."""
  if jnp.iscomplexobj(x):
    return x.real ** 2 + x.imag ** 2
  return x ** 2


def fit_4th_order_polynomial(y0, y1, y_mid, dy0, dy1, dt):
  """Coefficients (highest power first, in the step fraction) of the quartic through
  y0, y_mid, y1 with slopes dy0, dy1 at the ends."""
  dt = dt.astype(y0.dtype)
  a = -2. * dt * dy0 + 2. * dt * dy1 - 8. * y0 - 8. * y1 + 16. * y_mid
  b = 5. * dt * dy0 - 3. * dt * dy1 + 18. * y0 + 14. * y1 - 32. * y_mid
  c = -4. * dt * dy0 + dt * dy1 - 11. * y0 - 5. * y1 + 16. * y_mid
  return a, b, c, dt * dy0, y0


def interp_fit_dopri(y0, y1, k, dt):
  """Dense output of one Dormand–Prince step (k: the seven stage derivatives)."""
  y_mid = y0 + dt.astype(y0.dtype) * jnp.dot(jnp.array(_C_MID, dtype=y0.dtype), k)
  return jnp.asarray(fit_4th_order_polynomial(y0, y1, y_mid, k[0], k[-1], dt))


def initial_step_size(fun, t0, y0, order, rtol, atol, f0):
  """Hairer, Nørsett & Wanner's starting step for an integrator of ``order`` (norms of the
  scaled state and slope, as JAX's)."""
  y0, f0 = promote_dtypes_inexact(y0, f0)
  dtype = y0.dtype
  scale = (atol + jnp.abs(y0) * rtol).astype(dtype)
  d0, d1 = norm(y0 / scale), norm(f0 / scale)
  h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
  f1 = fun(y0 + h0.astype(dtype) * f0, t0 + h0)
  d2 = norm((f1 - f0) / scale) / h0
  h1 = jnp.where((d1 <= 1e-15) & (d2 <= 1e-15), jnp.maximum(1e-6, h0 * 1e-3),
                 (0.01 / jnp.maximum(d1, d2)) ** (1. / (order + 1.)))
  return jnp.minimum(100. * h0, h1)


def runge_kutta_step(func, y0, f0, t0, dt):
  """One Dormand–Prince step: (y1, f(y1, t0 + dt), error estimate, stage derivatives);
  the six later stages in a ``fori_loop``, as JAX's."""
  dtype = f0.dtype
  alpha, beta = jnp.array(_ALPHA, dtype=dt.dtype), jnp.array(_BETA, dtype=dtype)

  def stage(i, k):
    yi = y0 + dt.astype(dtype) * jnp.dot(beta[i - 1, :], k)
    return k.at[i, :].set(func(yi, t0 + dt * alpha[i - 1]))

  k = fori_loop(1, 7, stage, jnp.zeros((7, f0.shape[0]), dtype).at[0, :].set(f0))
  y1 = dt.astype(dtype) * jnp.dot(jnp.array(_C_SOL, dtype=dtype), k) + y0
  error = dt.astype(dtype) * jnp.dot(jnp.array(_C_ERROR, dtype=dtype), k)
  return y1, k[-1], error, k


def mean_error_ratio(error_estimate, rtol, atol, y0, y1):
  """RMS of the error relative to ``atol + rtol * max(|y0|, |y1|)``."""
  tol = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
  return jnp.sqrt(jnp.mean(abs2(error_estimate / tol.astype(error_estimate.dtype))))


def optimal_step_size(last_step, mean_error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2,
                      order=5.0):
  """The next step from the error ratio: grow at most ``ifactor``, shrink at most
  ``dfactor`` (and never shrink after an accepted step)."""
  dfactor = jnp.where(mean_error_ratio < 1, 1.0, dfactor)
  factor = jnp.minimum(ifactor, jnp.maximum(
      mean_error_ratio ** (-1.0 / order) * safety, dfactor))
  return jnp.where(mean_error_ratio == 0, last_step * ifactor, last_step * factor)


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=jnp.inf, hmax=jnp.inf):
  """The solution of ``dy/dt = func(y, t, *args)`` from ``y(t[0]) = y0`` at the times ``t``
  (increasing), with ``y0`` any pytree of floating arrays; reverse-mode differentiable in
  ``y0``, ``t`` and ``args`` (and values ``func`` closes over)."""
  for arg in tree_leaves(args):
    if not (hasattr(arg, "dtype") or isinstance(arg, (int, float, complex, bool))):
      raise TypeError("The contents of odeint *args must be arrays or scalars, but got "
                      f"{arg}.")
  if not jnp.issubdtype(t.dtype, jnp.floating):
    raise TypeError(f"t must be an array of floats, but got {t}.")
  converted, consts = closure_convert(func, y0, t[0], *args)
  return _odeint_wrapper(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


@functools.partial(jit, static_argnums=(0, 1, 2, 3, 4))
@_highest
def _odeint_wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
  y0, unravel = ravel_pytree(y0)
  func = ravel_first_arg(func, unravel)
  out = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
  return vmap(unravel)(out)


@functools.partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
@_highest
def _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args):
  func_ = lambda y, t: func(y, t, *args)

  def scan_fun(carry, target_t):
    def cond_fun(state):
      i, _, _, t, dt, _, _ = state
      return (t < target_t) & (i < mxstep) & (dt > 0)

    def body_fun(state):
      i, y, f, t, dt, last_t, coeff = state
      next_y, next_f, error, k = runge_kutta_step(func_, y, f, t, dt)
      next_t = t + dt
      ratio = mean_error_ratio(error, rtol, atol, y, next_y)
      new_coeff = interp_fit_dopri(y, next_y, k, dt)
      dt = jnp.clip(optimal_step_size(dt, ratio), min=0., max=hmax)
      new = [i + 1, next_y, next_f, next_t, dt, t, new_coeff]
      old = [i + 1, y, f, t, dt, last_t, coeff]
      return [jnp.where(ratio <= 1., a, b) for a, b in zip(new, old)]

    _, *carry = while_loop(cond_fun, body_fun, [0] + carry)
    _, _, t, _, last_t, coeff = carry
    frac = (target_t - last_t) / (t - last_t)
    return carry, jnp.polyval(coeff, frac.astype(coeff.dtype))

  f0 = func_(y0, ts[0])
  dt = jnp.clip(initial_step_size(func_, ts[0], y0, 4, rtol, atol, f0), min=0., max=hmax)
  init = [y0, f0, ts[0], dt, ts[0], jnp.array([y0] * 5)]
  _, ys = scan(scan_fun, init, ts[1:])
  return jnp.concatenate([y0[None], ys])


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
  ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
  return ys, (ys, ts, args)


@_highest
def _odeint_rev(func, rtol, atol, mxstep, hmax, res, g):
  """Adjoint method: integrate (y, a = dL/dy, dL/dt0, dL/dargs) backwards between
  consecutive output times, adding each output's cotangent on the way."""
  ys, ts, args = res

  def aug_dynamics(state, t, *args):
    y, y_bar, *_ = state
    y_dot, pullback = vjp(func, y, -t, *args)      # time runs backwards: t -> -t
    return (-y_dot, *pullback(y_bar))

  def scan_fun(carry, i):
    y_bar, t0_bar, args_bar = carry
    t_bar = jnp.dot(func(ys[i], ts[i], *args), g[i]).real   # (a time: real)
    t0_bar = t0_bar - t_bar
    _, y_bar, t0_bar, args_bar = odeint(
        aug_dynamics, (ys[i], y_bar, t0_bar, args_bar), jnp.stack([-ts[i], -ts[i - 1]]),
        *args, rtol=rtol, atol=atol, mxstep=mxstep, hmax=hmax)
    y_bar, t0_bar, args_bar = tree_map(lambda x: x[1], (y_bar, t0_bar, args_bar))
    return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

  init = (g[-1], 0., tree_map(jnp.zeros_like, args))
  (y_bar, t0_bar, args_bar), rev_ts_bar = scan(scan_fun, init,
                                               jnp.arange(len(ts) - 1, 0, -1))
  ts_bar = jnp.concatenate([jnp.array([t0_bar]), rev_ts_bar[::-1]])
  return (y_bar, ts_bar, *args_bar)


_odeint.defvjp(_odeint_fwd, _odeint_rev)
