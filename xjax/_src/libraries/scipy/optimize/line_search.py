"""The strong-Wolfe line search of the quasi-Newton methods (Nocedal & Wright, algorithms
3.5 and 3.6): double the step until a bracket is found, then zoom into it with cubic,
quadratic or bisection steps. Constants, limits, step choices and failure tests are JAX's,
so evaluation counts and end states agree with it step for step."""
from __future__ import annotations

from typing import NamedTuple

from xjax._src.foundations import dtypes
from xjax._src.api.transformations import value_and_grad
from xjax._src.primitives.lax.control_flow.loops import while_loop
from xjax._src.primitives.lax.dot import Precision
from xjax._src.libraries.numpy import namespace as jnp

_HIGHEST = Precision.HIGHEST
_ZOOM_MAXITER = 30          # zoom steps before the bracket search gives up
_CUBIC_MARGIN = 0.2         # a cubic step must land this fraction of the bracket inside it
_QUAD_MARGIN = 0.1          # likewise for the quadratic step


def dot(a, b):
  return jnp.dot(a, b, precision=_HIGHEST)


class LineSearchResults(NamedTuple):
  """``failed``: no step met the strong Wolfe conditions; ``status``: 0 found, 1 the zoom
  failed, 3 ``maxiter`` doubling steps ran out; ``a_k``, ``f_k``, ``g_k``: the step and
  the value and gradient there; ``nfev``: evaluations of ``value_and_grad(f)``."""
  failed: object
  status: object
  nfev: object
  a_k: object
  f_k: object
  g_k: object


class _Zoom(NamedTuple):
  done: object
  failed: object
  j: object
  a_lo: object
  phi_lo: object
  dphi_lo: object
  a_hi: object
  phi_hi: object
  dphi_hi: object
  a_rec: object      # the previous a_hi (or a_lo): the third point of the cubic fit
  phi_rec: object
  a_star: object
  phi_star: object
  g_star: object
  nfev: object


def _cubic_min(a, fa, fpa, b, fb, c, fc):
  """The minimizer of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc)."""
  dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)
  db, dc = b - a, c - a
  denom = (db * dc) ** 2 * (db - dc)
  m = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
  rhs = jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
  k3, k2 = dot(m, rhs) / denom
  return a + (-k2 + jnp.sqrt(k2 * k2 - 3. * k3 * fpa)) / (3. * k3)


def _quad_min(a, fa, fpa, b, fb):
  """The minimizer of the parabola through (a, fa) with slope fpa and (b, fb)."""
  db = b - a
  k2 = (fb - fa - fpa * db) / (db ** 2)
  return a - fpa / (2. * k2)


def _zoom(phi_and_dphi, too_high, flat_enough, lo, hi, g0, skip):
  """Shrinks the bracket ``[lo, hi]`` (each ``(a, phi, dphi)``; ``phi(lo)`` the lower) to
  a step meeting the strong Wolfe conditions; does nothing where ``skip``."""
  (a_lo, phi_lo, dphi_lo), (a_hi, phi_hi, dphi_hi) = lo, hi

  def body(z):
    width = z.a_hi - z.a_lo
    threshold = 1e-5 if dtypes.finfo(width.dtype).bits < 64 else 1e-10
    left, right = jnp.minimum(z.a_hi, z.a_lo), jnp.maximum(z.a_hi, z.a_lo)
    cubic_margin, quad_margin = _CUBIC_MARGIN * width, _QUAD_MARGIN * width
    failed = z.failed | (width <= threshold)
    a_cubic = _cubic_min(z.a_lo, z.phi_lo, z.dphi_lo, z.a_hi, z.phi_hi, z.a_rec, z.phi_rec)
    use_cubic = (z.j > 0) & (a_cubic > left + cubic_margin) & (a_cubic < right - cubic_margin)
    a_quad = _quad_min(z.a_lo, z.phi_lo, z.dphi_lo, z.a_hi, z.phi_hi)
    use_quad = ~use_cubic & (a_quad > left + quad_margin) & (a_quad < right - quad_margin)
    a_j = jnp.where(use_cubic, a_cubic, jnp.where(use_quad, a_quad, (z.a_lo + z.a_hi) / 2.))

    phi_j, dphi_j, g_j = phi_and_dphi(a_j)
    phi_j, dphi_j = phi_j.astype(z.phi_lo.dtype), dphi_j.astype(z.dphi_lo.dtype)
    g_j = g_j.astype(z.g_star.dtype)
    new_hi = too_high(a_j, phi_j) | (phi_j >= z.phi_lo)
    found = flat_enough(dphi_j) & ~new_hi
    new_lo = ~new_hi & ~found
    flip = new_lo & (dphi_j * width >= 0.)       # the slope at a_j points back to lo: hi = lo
    rec_gets_hi, rec_gets_lo = new_hi | flip, new_lo & ~flip
    pick = lambda mask, new, old: jnp.where(mask, new, old)
    j = z.j + 1
    return _Zoom(
        done=z.done | found, failed=failed | (j >= _ZOOM_MAXITER), j=j,
        a_lo=pick(new_lo, a_j, z.a_lo), phi_lo=pick(new_lo, phi_j, z.phi_lo),
        dphi_lo=pick(new_lo, dphi_j, z.dphi_lo),
        a_hi=pick(new_hi, a_j, pick(flip, z.a_lo, z.a_hi)),
        phi_hi=pick(new_hi, phi_j, pick(flip, z.phi_lo, z.phi_hi)),
        dphi_hi=pick(new_hi, dphi_j, pick(flip, z.dphi_lo, z.dphi_hi)),
        a_rec=pick(rec_gets_hi, z.a_hi, pick(rec_gets_lo, z.a_lo, z.a_rec)),
        phi_rec=pick(rec_gets_hi, z.phi_hi, pick(rec_gets_lo, z.phi_lo, z.phi_rec)),
        a_star=pick(found, a_j, z.a_star), phi_star=pick(found, phi_j, z.phi_star),
        g_star=pick(found, g_j, z.g_star), nfev=z.nfev + 1)

  start = _Zoom(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo,
                a_hi=a_hi, phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.,
                phi_rec=(phi_lo + phi_hi) / 2., a_star=1., phi_star=phi_lo, g_star=g0, nfev=0)
  return while_loop(lambda z: ~z.done & ~skip & ~z.failed, body, start)


class _Search(NamedTuple):
  done: object
  failed: object
  i: object
  a_prev: object
  phi_prev: object
  dphi_prev: object
  nfev: object
  a_star: object
  phi_star: object
  g_star: object


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1: float = 1e-4,
                c2: float = 0.9, maxiter: int = 20) -> LineSearchResults:
  """A step ``a`` along the descent direction ``pk`` from ``xk`` with
  ``f(xk + a pk) <= f(xk) + c1 a f'(xk).pk`` and ``|f'(xk + a pk).pk| <= c2 |f'(xk).pk|``.

  ``old_fval``/``gfk`` are f and its gradient at ``xk`` (evaluated when not given);
  ``old_old_fval``, the value one step before, sets the first trial step (else 1).
  """
  xk, pk = jnp.asarray(xk), jnp.asarray(pk)
  dtype = dtypes.result_type(xk, pk, float)
  xk, pk = xk.astype(dtype), pk.astype(dtype)
  grad_f = value_and_grad(f)

  def phi_and_dphi(t):
    phi, g = grad_f(xk + jnp.asarray(t, pk.dtype) * pk)
    return phi, jnp.real(dot(g, pk)), g

  evaluated = old_fval is None or gfk is None
  if evaluated:
    phi_0, dphi_0, gfk = phi_and_dphi(0)
  else:
    phi_0, dphi_0 = jnp.asarray(old_fval), jnp.real(dot(gfk, pk))
  # Steps start as Python scalars (weakly typed), so they take the precision of the values
  # they meet, as JAX's do.
  if old_old_fval is None:
    first_step = 1.
  else:
    guess = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
    first_step = jnp.where(guess > 1, 1.0, guess)

  def too_high(a, phi):        # the sufficient-decrease (Armijo) condition fails
    return phi > phi_0 + c1 * a * dphi_0

  def flat_enough(dphi):       # the strong curvature condition holds
    return jnp.abs(dphi) <= -c2 * dphi_0

  def body(s):
    a_i = jnp.where(s.i == 1, first_step, s.a_prev * 2.)
    phi_i, dphi_i, g_i = phi_and_dphi(a_i)
    bracket_ahead = too_high(a_i, phi_i) | ((phi_i >= s.phi_prev) & (s.i > 1))
    found = flat_enough(dphi_i) & ~bracket_ahead
    bracket_behind = (dphi_i >= 0.) & ~bracket_ahead & ~found
    prev, here = (s.a_prev, s.phi_prev, s.dphi_prev), (a_i, phi_i, dphi_i)
    lo = tuple(jnp.where(bracket_ahead, p, h) for p, h in zip(prev, here))
    hi = tuple(jnp.where(bracket_ahead, h, p) for p, h in zip(prev, here))
    zoomed = bracket_ahead | bracket_behind
    z = _zoom(phi_and_dphi, too_high, flat_enough, lo, hi, gfk, ~zoomed)
    pick = lambda z_val, here_val, old: jnp.where(zoomed, z_val, jnp.where(found, here_val, old))
    return _Search(done=s.done | zoomed | found, failed=s.failed | (zoomed & z.failed),
                   i=s.i + 1, a_prev=a_i, phi_prev=phi_i, dphi_prev=dphi_i,
                   nfev=s.nfev + 1 + z.nfev, a_star=pick(z.a_star, a_i, s.a_star),
                   phi_star=pick(z.phi_star, phi_i, s.phi_star),
                   g_star=pick(z.g_star, g_i, s.g_star))

  false = jnp.array(False)
  start = _Search(done=false, failed=false, i=1, a_prev=0., phi_prev=phi_0, dphi_prev=dphi_0,
                  nfev=int(evaluated), a_star=0., phi_star=phi_0, g_star=gfk)
  s = while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, body, start)
  status = jnp.where(s.failed, 1, jnp.where(s.i > maxiter, 3, 0))
  # below 64 bits a vanishing step would stall the minimizer: floor its size at 1e-8
  a_k = jnp.asarray(s.a_star)
  if dtypes.finfo(a_k.dtype).bits != 64:
    a_k = jnp.where(jnp.abs(a_k) < 1e-8, jnp.sign(a_k) * 1e-8, a_k)
  return LineSearchResults(failed=s.failed | ~s.done, status=status, nfev=s.nfev, a_k=a_k,
                           f_k=s.phi_star, g_k=s.g_star)
