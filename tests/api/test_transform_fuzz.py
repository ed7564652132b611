"""Differential fuzzing of the transformations against each other (issue 16).

Hypothesis generates small programs over a table of operations (elementwise maths, Python
scalar constants, reductions, where/cond/fori_loop) taking ``x: f32[3]`` and a Python float
``y``, and checks, for each program:

* ``jit(f) == f``: values, dtypes and weak types of every output;
* ``vmap(f) == a loop of f``: values, dtypes and weak types;
* ``grad`` against central finite differences along a random direction (smooth programs);
* ``jvp`` against ``vjp``: <u, J v> == <J^T u, v>, tangent and cotangent types.

Bounded for CI: few examples, no deadline.
"""
import numpy as np
from hypothesis import given, settings, strategies as st, HealthCheck

import xjax
import xjax.numpy as jnp
from xjax import lax

# name -> (arity, function, smooth)
_OPS = {
    "sin": (1, jnp.sin, True),
    "cos": (1, jnp.cos, True),
    "tanh": (1, jnp.tanh, True),
    "square": (1, lambda a: a * a, True),
    "gauss": (1, lambda a: jnp.exp(-a * a), True),
    "log1p_sq": (1, lambda a: jnp.log1p(a * a), True),
    "half": (1, lambda a: a * 0.5, True),            # a weakly typed Python scalar
    "rsub": (1, lambda a: 2.0 - a, True),
    "sum": (1, lambda a: jnp.sum(a), True),
    "mean_keep": (1, lambda a: jnp.mean(a, keepdims=True) + a, True),
    "cumsum": (1, lambda a: jnp.cumsum(a) if jnp.ndim(a) else a, True),
    "fori": (1, lambda a: lax.fori_loop(0, 2, lambda i, c: c * 0.9 + jnp.sin(c), a), True),
    "add": (2, lambda a, b: a + b, True),
    "sub": (2, lambda a, b: a - b, True),
    "mul": (2, lambda a, b: a * b, True),
    "ratio": (2, lambda a, b: a / (1.0 + b * b), True),
    "logaddexp": (2, jnp.logaddexp, True),
    "max": (2, jnp.maximum, False),
    "where": (2, lambda a, b: jnp.where(a > b, a, b * 2.0), False),
    "cond": (2, lambda a, b: lax.cond(jnp.sum(a) > 0, jnp.sin, jnp.cos, a + b), False),
}
_NAMES = sorted(_OPS)

_step = st.tuples(st.sampled_from(_NAMES), st.integers(0, 50), st.integers(0, 50))
_program = st.lists(_step, min_size=1, max_size=6)


def _build(program):
  """f(x, y) running ``program``: each step applies an op to earlier values."""
  def f(x, y):
    vals = [x, y]
    for name, i, j in program:
      arity, fn, _ = _OPS[name]
      a = vals[i % len(vals)]
      vals.append(fn(a) if arity == 1 else fn(a, vals[j % len(vals)]))
    return vals[-1], vals[-2]  # two outputs: types of both are checked
  return f


def _smooth(program):
  return all(_OPS[name][2] for name, _, _ in program)


def _assert_same_type(a, b, what):
  assert a.dtype == b.dtype, f"{what}: dtype {a.dtype} != {b.dtype}"
  assert a.aval.weak_type == b.aval.weak_type, f"{what}: weak type differs"


def _as_array(v):
  return v if hasattr(v, "aval") else jnp.asarray(v)


_settings = settings(max_examples=12, deadline=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))
_x = st.lists(st.floats(-1.5, 1.5, width=32), min_size=3, max_size=3)


@_settings
@given(program=_program, x=_x, y=st.floats(-1.0, 1.0, width=32))
def test_jit_matches_eager(program, x, y):
  f = _build(program)
  x = jnp.asarray(np.array(x, np.float32))
  eager = [_as_array(v) for v in f(x, y)]
  jitted = xjax.jit(f)(x, y)
  for a, b in zip(eager, jitted):
    _assert_same_type(a, b, "jit vs eager")
    np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


@_settings
@given(program=_program, x=_x, y=st.floats(-1.0, 1.0, width=32))
def test_vmap_matches_a_loop(program, x, y):
  f = _build(program)
  xs = jnp.asarray(np.array([x, np.roll(x, 1), np.negative(x)], np.float32))
  batched = xjax.vmap(f, in_axes=(0, None))(xs, y)
  rows = [[_as_array(v) for v in f(xs[i], y)] for i in range(3)]
  for k, out in enumerate(batched):
    looped = [r[k] for r in rows]
    assert out.shape == (3,) + looped[0].shape
    _assert_same_type(out, looped[0], "vmap vs loop")
    np.testing.assert_allclose(out, np.stack([np.asarray(v) for v in looped]),
                               rtol=2e-5, atol=2e-6)


@_settings
@given(program=_program, x=_x, y=st.floats(-1.0, 1.0, width=32),
       v=st.lists(st.floats(-1.0, 1.0, width=32), min_size=3, max_size=3))
def test_grad_matches_finite_differences(program, x, y, v):
  f = _build(program)
  loss = lambda x: jnp.sum(f(x, y)[0])
  x = np.array(x, np.float32)
  v = np.array(v, np.float32)
  g = xjax.grad(loss)(jnp.asarray(x))
  assert g.dtype == jnp.float32 and not g.aval.weak_type and g.shape == (3,)
  if not _smooth(program):
    return
  eps = 1e-2
  fd = (float(loss(jnp.asarray(x + eps * v))) - float(loss(jnp.asarray(x - eps * v)))) / (
      2 * eps)
  np.testing.assert_allclose(float(np.dot(np.asarray(g), v)), fd, rtol=3e-2, atol=3e-3)


@_settings
@given(program=_program, x=_x, y=st.floats(-1.0, 1.0, width=32),
       t=st.lists(st.floats(-1.0, 1.0, width=32), min_size=3, max_size=3),
       u=st.floats(-1.0, 1.0, width=32))
def test_jvp_is_the_transpose_of_vjp(program, x, y, t, u):
  f = lambda x: _build(program)(x, y)[0]
  x = jnp.asarray(np.array(x, np.float32))
  t = jnp.asarray(np.array(t, np.float32))
  out, out_t = xjax.jvp(f, (x,), (t,))
  out2, pullback = xjax.vjp(f, x)
  out, out2 = _as_array(out), _as_array(out2)
  _assert_same_type(out, out2, "jvp vs vjp primal")
  assert _as_array(out_t).dtype == out.dtype and _as_array(out_t).shape == out.shape
  ct = jnp.full(out.shape, u, out.dtype)
  (x_ct,) = pullback(ct)
  assert x_ct.dtype == x.dtype and x_ct.shape == x.shape and not x_ct.aval.weak_type
  lhs = float(np.sum(np.asarray(ct, np.float64) * np.asarray(out_t, np.float64)))
  rhs = float(np.sum(np.asarray(x_ct, np.float64) * np.asarray(t, np.float64)))
  np.testing.assert_allclose(lhs, rhs, rtol=1e-4, atol=1e-5)


def test_fuzz_programs_cover_the_op_table():
  """Every op of the table runs in each transformation at least once (not left to chance)."""
  x = jnp.asarray(np.array([0.3, -0.7, 1.1], np.float32))
  for name in _NAMES:
    f = _build([(name, 0, 1)])
    eager = [_as_array(v) for v in f(x, 0.5)]
    for a, b in zip(eager, xjax.jit(f)(x, 0.5)):
      _assert_same_type(a, b, name)
    xjax.vmap(f, in_axes=(0, None))(jnp.stack([x, x]), 0.5)
    xjax.grad(lambda x: jnp.sum(f(x, 0.5)[0]))(x)
