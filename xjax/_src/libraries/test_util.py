"""``check_grads``: compare JVPs and VJPs against central finite differences."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.api.transformations import jvp, vjp


def _leaves(x):
  return [np.asarray(v) for v in tree_util.tree_leaves(x)]


def _default_tol(leaves, tol):
  if tol is not None:
    return tol
  dt = np.result_type(*leaves) if leaves else np.float32
  return 1e-5 if dt == np.float64 or dt == np.complex128 else 2e-2


def _assert_close(a, b, atol, rtol, what):
  la, lb = _leaves(a), _leaves(b)
  if len(la) != len(lb):
    raise AssertionError(f"{what}: structures differ ({len(la)} vs {len(lb)} leaves)")
  for x, y in zip(la, lb):
    x = x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    y = y.astype(np.complex128 if np.iscomplexobj(y) else np.float64)
    np.testing.assert_allclose(x, y, atol=atol, rtol=rtol, err_msg=what)


def _rand_like(rng, x):
  x = np.asarray(x)
  v = rng.standard_normal(x.shape)
  if np.iscomplexobj(x):
    v = v + 1j * rng.standard_normal(x.shape)
  return v.astype(x.dtype)


def _add(xs, ts, scale):
  return tuple(tree_util.tree_map(lambda x, t: (np.asarray(x) + scale * np.asarray(t))
                                  .astype(np.asarray(x).dtype), x, t) for x, t in zip(xs, ts))


def _inner(xs, ys):
  return sum(np.vdot(np.asarray(a, np.complex128).ravel(), np.asarray(b, np.complex128).ravel())
             for a, b in zip(_leaves(xs), _leaves(ys))).real


def check_jvp(f: Callable, f_jvp: Callable, args, atol=None, rtol=None, eps=1e-4,
              err_msg: str = "") -> None:
  """``f_jvp(args, tangents)`` against central differences of ``f`` along tangents."""
  rng = np.random.default_rng(0)
  tangents = tuple(tree_util.tree_map(lambda x: _rand_like(rng, x), a) for a in args)
  out, out_t = f_jvp(args, tangents)
  out_plus = f(*_add(args, tangents, eps))
  out_minus = f(*_add(args, tangents, -eps))
  numeric = tree_util.tree_map(
      lambda p, m: (np.asarray(p, np.float64 if not np.iscomplexobj(p) else np.complex128)
                    - np.asarray(m)) / (2 * eps), out_plus, out_minus)
  tol = _default_tol(_leaves(args), atol)
  _assert_close(out, f(*args), tol, _default_tol(_leaves(args), rtol), err_msg + " primal")
  _assert_close(out_t, numeric, tol, _default_tol(_leaves(args), rtol),
                err_msg + " jvp vs finite differences")


def check_vjp(f: Callable, f_vjp: Callable, args, atol=None, rtol=None, eps=1e-4,
              err_msg: str = "") -> None:
  """``<u, J v>`` from finite differences against ``<J^T u, v>`` from ``f_vjp``."""
  rng = np.random.default_rng(1)
  tangents = tuple(tree_util.tree_map(lambda x: _rand_like(rng, x), a) for a in args)
  out, pullback = f_vjp(*args)
  u = tree_util.tree_map(lambda o: _rand_like(rng, o), out)
  cts = pullback(u)
  out_plus = f(*_add(args, tangents, eps))
  out_minus = f(*_add(args, tangents, -eps))
  jv = tree_util.tree_map(lambda p, m: (np.asarray(p, np.float64) - np.asarray(m)) / (2 * eps),
                          out_plus, out_minus)
  tol = _default_tol(_leaves(args), atol)
  lhs, rhs = _inner(u, jv), _inner(cts, tangents)
  np.testing.assert_allclose(rhs, lhs, atol=tol, rtol=_default_tol(_leaves(args), rtol),
                             err_msg=err_msg + " vjp vs finite differences")


def check_grads(f: Callable, args: Sequence, order: int, modes=("fwd", "rev"), atol=None,
                rtol=None, eps=None) -> None:
  """Checks ``f``'s derivatives up to ``order`` in ``modes`` by finite differences.

  Forward mode compares ``jvp`` with central differences; reverse mode compares
  ``<u, J v>`` with ``<vjp(u), v>``.  Higher orders differentiate the derivative maps.
  """
  args = tuple(args)
  eps = eps or 1e-3
  for mode in modes:
    if mode not in ("fwd", "rev"):
      raise ValueError(f"Unrecognized mode: {mode}")

  def _check(f, args, order):
    if "fwd" in modes:
      check_jvp(f, lambda a, t: jvp(f, a, t), args, atol, rtol, eps, "fwd")
      if order > 1:
        rng = np.random.default_rng(2)
        ts = tuple(tree_util.tree_map(lambda x: _rand_like(rng, x), a) for a in args)
        _check(lambda *a: jvp(f, a, ts)[1], args, order - 1)
    if "rev" in modes:
      check_vjp(f, lambda *a: vjp(f, *a), args, atol, rtol, eps, "rev")
      if order > 1:
        rng = np.random.default_rng(3)
        u = tree_util.tree_map(lambda o: _rand_like(rng, o), f(*args))
        _check(lambda *a: vjp(f, *a)[1](u), args, order - 1)

  _check(f, args, order)
