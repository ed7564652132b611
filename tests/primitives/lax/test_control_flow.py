"""Structured control flow: cond/switch, while_loop/fori_loop, scan/map, associative_scan.

Oracles: Python loops and NumPy for values, central finite differences for derivatives,
Python loops over the batch for vmap, eager evaluation for jit.
"""
import re

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from tests.checking import message_of


def fd(f, x, eps=1e-3):
  x = np.asarray(x, np.float64)
  g = np.zeros_like(x)
  for i in np.ndindex(x.shape):
    d = np.zeros_like(x)
    d[i] = eps
    g[i] = (float(f(jnp.asarray(x + d, np.float32))) -
            float(f(jnp.asarray(x - d, np.float32)))) / (2 * eps)
  return g


# -- cond / switch ------------------------------------------------------------------------

def _branchy(x):
  return lax.cond(jnp.sum(x) > 0, lambda x: jnp.sin(x) * x, lambda x: x * x, x)


def test_cond_values_eager_and_jit():
  for x in [np.array([0.5, 1.0], np.float32), np.array([-2.0, 0.5], np.float32)]:
    expect = np.sin(x) * x if x.sum() > 0 else x * x
    np.testing.assert_allclose(_branchy(x), expect, rtol=1e-6)
    np.testing.assert_allclose(xjax.jit(_branchy)(x), expect, rtol=1e-6)


def test_cond_python_bool_calls_branch_and_pred_dtypes():
  assert lax.cond(True, lambda: 1, lambda: 2) == 1
  assert float(lax.cond(jnp.int32(3), lambda x: x + 1, lambda x: x - 1, 1.0)) == 2.0
  assert float(lax.cond(jnp.float32(0), lambda x: x + 1, lambda x: x - 1, 1.0)) == 0.0
  jaxpr = xjax.make_jaxpr(lambda p, x: lax.cond(p, lambda x: x * 2, lambda x: x - 1, x))(True, 1.)
  assert sum(e.primitive.name == "cond" for e in jaxpr.eqns) == 1


def test_cond_pytrees_and_closure():
  c = jnp.arange(3.0)
  out = xjax.jit(lambda p, t: lax.cond(p, lambda t: {"a": t[0] + c, "b": t[1]},
                                       lambda t: {"a": t[0] - c, "b": t[1] * 2}, t))(
      False, (jnp.ones(3), 2.0))
  np.testing.assert_allclose(out["a"], 1 - np.arange(3.0))
  assert float(out["b"]) == 4.0


def _branch_error(fun) -> str:
  """The TypeError's text, with where the branches are defined taken out."""
  with pytest.raises(TypeError) as info:
    fun()
  return re.sub(r" at \S+:\d+", " at F", str(info.value).split("\n-----")[0])


def test_cond_errors():
  # (the texts as JAX 0.10.2 prints them)
  assert _branch_error(lambda: lax.cond(jnp.array(True), lambda x: x,
                                        lambda x: jnp.stack([x, x]), 1.0)) == (
      "cond branches must have equal output types but they differ.\n\ntrue_fun is <lambda> "
      "at F\nfalse_fun is <lambda> at F\n\nThe output of true_fun has type float32[] but the "
      "corresponding output of false_fun has type float32[2], so the shapes do not match.\n\n"
      "Revise true_fun and/or false_fun so that all output types match.")
  assert _branch_error(lambda: lax.cond(jnp.array(True), lambda x: x, lambda x: (x, x),
                                        1.0)) == (
      "cond branch outputs must have the same pytree structure, but they differ:\n\ntrue_fun "
      "is <lambda> at F\nfalse_fun is <lambda> at F\n\ntrue_fun output is a pytree leaf but "
      "false_fun output is a <class 'tuple'>, so their Python types differ.\n\nRevise "
      "true_fun and/or false_fun so that they have the same pytree structure.")
  assert _branch_error(lambda: lax.switch(
      2, [lambda x: (x, x, x), lambda x: (x, x.astype(int), x[None]), lambda x: [x, x, x]],
      1.0)) == (
      "switch branches must have equal output types but they differ.\n\nbranch 0 is <lambda> "
      "at F\nbranch1 is <lambda> at F\n\n  * the output of branch 0 at path [1] has type "
      "float32[] but the corresponding output of branch1 has type int32[], so the dtypes do "
      "not match;\n  * the output of branch 0 at path [2] has type float32[] but the "
      "corresponding output of branch1 has type float32[1], so the shapes do not match.\n\n"
      "Revise branch 0 and/or branch1 so that all output types match.")
  with pytest.raises(TypeError, match="cond branch outputs must have the same pytree "
                                      "structure, but they differ"):
    lax.cond(True, lambda: (1.0,), lambda: 1.0)
  with pytest.raises(TypeError, match="scalar"):
    lax.cond(jnp.array([True, False]), lambda: 1., lambda: 2.)
  with pytest.raises(TypeError):
    lax.cond(jnp.array(True), 1, lambda: 2.)
  with pytest.raises(TypeError):
    lax.switch(0, [lambda: 1., 3])


def test_switch_clamps_index():
  branches = [lambda x: x, lambda x: x * 10, lambda x: -x]
  f = xjax.jit(lambda i, x: lax.switch(i, branches, x))
  for i, expect in [(-3, 2.), (0, 2.), (1, 20.), (2, -2.), (7, -2.)]:
    assert float(lax.switch(i, branches, 2.)) == expect
    assert float(f(i, 2.)) == expect


def test_eager_cond_compiles_only_the_branch_taken():
  # An eager cond runs the branch its index picks, compiled alone: its results are the
  # compiled conditional's (jit's, bit for bit), and the other branches are not compiled.
  from xjax._src.backend import executables
  modules = []
  compile_and_load = executables.compile_hook[0]

  def recording(client, module, *rest):
    modules.append(str(module))
    return compile_and_load(client, module, *rest)

  executables.compile_hook[0] = recording
  try:
    _check_eager_cond(modules)
  finally:
    executables.compile_hook[0] = compile_and_load


def _check_eager_cond(modules: list) -> None:
  x = jnp.asarray(np.linspace(-3, 3, 7, dtype=np.float32))
  branches = [lambda x: jnp.cos(x) / 3, lambda x: jnp.sum(jnp.exp(x) * x) * x,
              lambda x: jnp.tanh(x) ** 3]
  every = xjax.jit(lambda i, x: lax.switch(i, branches, x))
  for i, (op, others) in enumerate([("cosine", ("exponential", "tanh")),
                                    ("exponential", ("cosine", "tanh")),
                                    ("tanh", ("cosine", "exponential"))]):
    modules.clear()
    index = jnp.int32(i)
    eager = lax.cond_p.bind(index, x, branches=every.trace(index, x).jaxpr.eqns[-1]
                            .params["branches"])[0]
    assert any(f"stablehlo.{op}" in m for m in modules), i
    assert not any(f"stablehlo.{o}" in m for m in modules for o in others), i
    assert not any("stablehlo.case" in m for m in modules), i
    np.testing.assert_array_equal(eager, every(index, x))
    np.testing.assert_array_equal(lax.switch(index, branches, x), every(index, x))
  # results have the conditional's types, which are its first branch's (the false one), as
  # in JAX 0.10.2: weak where that branch's output is, whichever branch runs
  for p in (True, False):
    for branches_, weak in [((lambda v: v, jnp.float32), False),
                            ((jnp.float32, lambda v: v), True)]:
      out = lax.cond(jnp.array(p), *branches_, 2.0)
      assert (out.dtype, out.weak_type, float(out)) == (np.float32, weak, 2.0)
    assert lax.cond(jnp.array(p), lambda: 1.0, lambda: 2.0).weak_type
  # cond's own index past the last branch runs the last one, as XLA's conditional does
  jaxpr = every.trace(jnp.int32(0), x).jaxpr.eqns[-1].params["branches"]
  for i in (-1, 3, 9):
    np.testing.assert_array_equal(lax.cond_p.bind(jnp.int32(i), x, branches=jaxpr)[0],
                                  every(2, x))


def test_tracer_bool_message_mentions_cond():
  with pytest.raises(xjax.errors.TracerBoolConversionError, match="lax.cond"):
    xjax.jit(lambda x: x if x > 0 else -x)(1.0)


def test_cond_grad_jvp_vs_finite_differences():
  f = lambda x: jnp.sum(_branchy(x))
  for x in [np.array([0.5, 1.0], np.float32), np.array([-2.0, 0.5], np.float32)]:
    np.testing.assert_allclose(xjax.grad(f)(x), fd(f, x), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(xjax.jit(xjax.grad(f))(x), fd(f, x), rtol=2e-3, atol=2e-3)
    _, t = xjax.jvp(f, (jnp.asarray(x),), (jnp.ones(2),))
    np.testing.assert_allclose(t, fd(f, x).sum(), rtol=2e-3)


def test_switch_grad_with_closure():
  w = jnp.float32(3.0)
  f = lambda i, x: lax.switch(i, [lambda x: x * w, lambda x: jnp.sin(x), lambda x: x ** 3], x)
  for i in range(3):
    g = xjax.grad(lambda x: f(i, x))(0.7)
    np.testing.assert_allclose(g, fd(lambda x: f(i, x), 0.7), rtol=2e-3)


def test_vmap_cond_batched_and_unbatched_predicate():
  ps = np.array([True, False, True])
  xs = np.array([1.0, 2.0, 3.0], np.float32)
  f = lambda p, x: lax.cond(p, lambda x: x * 2, lambda x: x - 1, x)
  np.testing.assert_allclose(xjax.vmap(f)(ps, xs), [f(p, x) for p, x in zip(ps, xs)])
  np.testing.assert_allclose(xjax.vmap(f, (None, 0))(jnp.array(False), xs), xs - 1)
  g = lambda i, x: lax.switch(i, [lambda x: x, lambda x: x * 10, lambda x: -x], x)
  idx = np.array([0, 2, 1])
  np.testing.assert_allclose(xjax.vmap(g)(idx, xs), [g(i, x) for i, x in zip(idx, xs)])


# -- while_loop / fori_loop ---------------------------------------------------------------

def test_while_loop_values():
  out = lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.), (0, 1.))
  assert int(out[0]) == 10 and float(out[1]) == 1024.
  f = xjax.jit(lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] + c[0]),
                                        (0, 0)))
  assert int(f(5)[1]) == sum(range(5))


def test_while_loop_errors():
  with pytest.raises(TypeError, match="boolean scalar"):
    lax.while_loop(lambda c: c, lambda c: c, 1.0)
  with pytest.raises(TypeError, match="must have equal types"):  # JAX's wording
    lax.while_loop(lambda c: c < 1, lambda c: jnp.stack([c, c]), 1.0)


def test_fori_loop_static_and_traced_bounds():
  body = lambda i, x: x * 1.5 + i
  expect = 1.0
  for i in range(2, 7):
    expect = expect * 1.5 + i
  np.testing.assert_allclose(lax.fori_loop(2, 7, body, 1.0), expect, rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(lambda lo: lax.fori_loop(lo, 7, body, 1.0))(2), expect,
                             rtol=1e-6)
  jaxpr = xjax.make_jaxpr(lambda x: lax.fori_loop(0, 3, body, x))(1.0)
  assert [e.primitive.name for e in jaxpr.eqns] == ["scan"]


def test_long_fori_loop_is_small_and_compiles_fast():
  import time
  f = lambda n: xjax.jit(lambda x: lax.fori_loop(0, n, lambda i, x: x * 0.999 + 0.001, x))
  jaxpr = xjax.make_jaxpr(lambda x: lax.fori_loop(0, 10000, lambda i, x: x * 0.5, x))(1.0)
  assert len(jaxpr.eqns) == 1
  t0 = time.perf_counter(); f(10)(jnp.float32(2.0)).block_until_ready()
  t1 = time.perf_counter(); out = f(10000)(jnp.float32(2.0))
  t2 = time.perf_counter()
  assert (t2 - t1) < 5 * (t1 - t0) + 0.5
  np.testing.assert_allclose(out, 1 + 0.999 ** 10000, rtol=1e-3)


def test_fori_loop_grad_static_bounds():
  f = lambda x: lax.fori_loop(0, 5, lambda i, x: jnp.sin(x) * 2.0, x)
  np.testing.assert_allclose(xjax.grad(f)(0.3), fd(f, 0.3), rtol=2e-3)


def test_while_jvp_and_reverse_mode_error():
  f = lambda x: lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, jnp.sin(c[1])), (0, x))[1]
  _, t = xjax.jvp(f, (0.3,), (1.0,))
  np.testing.assert_allclose(t, fd(f, 0.3), rtol=2e-3)
  with pytest.raises(ValueError, match="fori_loop with static"):
    xjax.grad(f)(0.3)


def test_vmap_while_batched_predicate():
  f = lambda x: lax.while_loop(lambda c: c < 10., lambda c: c * 2., x)
  xs = np.array([1.0, 3.0, 20.0], np.float32)
  np.testing.assert_allclose(xjax.vmap(f)(xs), [f(x) for x in xs])
  g = lambda n, x: lax.fori_loop(0, n, lambda i, x: x + i, x)
  ns = np.array([1, 4, 0])
  np.testing.assert_allclose(xjax.vmap(g, (0, None))(ns, 1.0), [g(n, 1.0) for n in ns])


# -- scan / map ----------------------------------------------------------------------------

def _np_scan(f, c, xs, reverse=False):
  ys = [None] * len(xs)
  order = range(len(xs))[::-1] if reverse else range(len(xs))
  for i in order:
    c, ys[i] = f(c, xs[i])
  return c, np.stack(ys)


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_values(reverse):
  xs = np.arange(5.0, dtype=np.float32)
  step = lambda c, x: (c * 0.5 + x, c * x)
  c, ys = lax.scan(step, 1.0, xs, reverse=reverse)
  ec, eys = _np_scan(step, 1.0, xs, reverse)
  np.testing.assert_allclose(c, ec, rtol=1e-6)
  np.testing.assert_allclose(ys, eys, rtol=1e-6)
  c2, ys2 = xjax.jit(lambda xs: lax.scan(step, 1.0, xs, reverse=reverse))(xs)
  np.testing.assert_allclose(ys2, ys, rtol=1e-6)


def test_scan_pytrees_length_and_none_xs():
  xs = {"a": np.ones((3, 2), np.float32), "b": np.arange(3, dtype=np.int32)}
  (c0, c1), ys = lax.scan(lambda c, x: ((c[0] + x["a"], c[1] + x["b"]), (x["b"] * 2, None)),
                          (jnp.zeros(2), 0), xs)
  np.testing.assert_allclose(c0, [3., 3.])
  assert int(c1) == 3 and ys[1] is None
  np.testing.assert_array_equal(ys[0], [0, 2, 4])
  c, ys = lax.scan(lambda c, _: (c + 1, c), 0, None, length=4)
  assert int(c) == 4
  np.testing.assert_array_equal(ys, [0, 1, 2, 3])


def test_scan_errors():
  with pytest.raises(ValueError, match="3, 4|different leading"):
    lax.scan(lambda c, x: (c, x), 0., (jnp.ones(3), jnp.ones(4)))
  with pytest.raises(ValueError, match="length"):
    lax.scan(lambda c, x: (c, x), 0., jnp.ones(3), length=5)
  with pytest.raises(TypeError, match=r"The input carry c has type float32\[\] but the "
                     r"corresponding output carry component has type float32\[3\], so the "
                     r"shapes do not match\."):   # (JAX's words)
    lax.scan(lambda c, x: (c * jnp.ones(3), x), jnp.float32(0.), jnp.ones(3))


def test_scan_jvp_and_grad_vs_finite_differences():
  xs0 = np.linspace(-1, 1, 4).astype(np.float32)

  def loss(w, xs):
    c, ys = lax.scan(lambda c, x: (jnp.sin(c * w + x), c * x), 0.5, xs)
    return c + jnp.sum(ys ** 2)
  gw, gx = xjax.grad(loss, argnums=(0, 1))(1.3, xs0)
  np.testing.assert_allclose(gw, fd(lambda w: loss(w, xs0), 1.3), rtol=3e-3)
  np.testing.assert_allclose(gx, fd(lambda x: loss(1.3, x), xs0), rtol=3e-3, atol=1e-3)
  np.testing.assert_allclose(xjax.jit(xjax.grad(loss))(1.3, xs0), gw, rtol=1e-5)
  _, t = xjax.jvp(lambda w: loss(w, xs0), (1.3,), (1.0,))
  np.testing.assert_allclose(t, gw, rtol=1e-4)


def test_scan_grad_reverse_with_closure():
  W = jnp.asarray(np.array([[0.5, -0.2], [0.1, 0.3]], np.float32))
  xs = np.ones((3, 2), np.float32)

  def loss(h0):
    h, ys = lax.scan(lambda h, x: (jnp.tanh(W @ h + x),) * 2, h0, xs, reverse=True)
    return jnp.sum(ys) + jnp.sum(h)
  h0 = np.array([0.2, -0.4], np.float32)
  np.testing.assert_allclose(xjax.grad(loss)(h0), fd(loss, h0), rtol=3e-3, atol=1e-3)


def test_scan_grad_keeps_loop_constants_out_of_the_stacked_residuals():
  # The weight matrix is a loop constant: reverse mode passes it to the backward scan as a
  # const (as JAX does), not as a [T, H, H] stack of copies.
  T, H = 6, 5
  rng = np.random.RandomState(0)
  W = rng.randn(H, H).astype(np.float32) * 0.3
  xs = rng.randn(T, H).astype(np.float32)

  def loss(W, xs):
    h, ys = lax.scan(lambda h, x: (jnp.tanh(W @ h + x),) * 2, jnp.zeros(H), xs)
    return jnp.sum(ys) + jnp.sum(h)
  text = str(xjax.make_jaxpr(xjax.grad(loss))(W, xs))
  assert f"f32[{T},{H},{H}]" not in text
  g = xjax.grad(loss)(W, xs)
  np.testing.assert_allclose(xjax.jit(xjax.grad(loss))(W, xs), g, rtol=1e-5)
  np.testing.assert_allclose(g, fd(lambda w: loss(w, xs), W), rtol=3e-3, atol=1e-3)


def test_scan_grad_passes_xs_residuals_without_restacking():
  # A residual that is one of the scanned inputs is handed to the backward scan as it is
  # (as JAX does), so the forward scan has no extra stacked output.
  f = lambda c: lax.scan(lambda c, x: (c * x, c), c, jnp.arange(1.0, 4.0))[0]
  jaxpr = xjax.make_jaxpr(xjax.grad(f))(2.0).jaxpr
  forward = [e for e in jaxpr.eqns if e.primitive.name == "scan"][0]
  assert len(forward.outvars) == 2
  np.testing.assert_allclose(xjax.grad(f)(2.0), 6.0)


def test_cond_grad_branches_share_residual_slots_of_one_type():
  # Branch residuals are joined by type, as in JAX: sin/cos's three f32[16] residuals and
  # tanh's three share three outputs (not 2 + 3 of them, each padded with zeros).
  W, x = jnp.ones((16, 16)) * 0.1, jnp.linspace(-1.0, 1.0, 16)

  def loss(W, x, flip):
    branch = lambda f: (lambda W, x: f(W @ x))
    return lax.cond(flip, branch(jnp.tanh), branch(jnp.sin), W, x).sum()
  jaxpr = xjax.make_jaxpr(xjax.grad(loss))(W, x, True).jaxpr
  forward = [e for e in jaxpr.eqns if e.primitive.name == "cond"][0]
  assert len(forward.outvars) == 1 + 3
  for flip in (True, False):
    g = xjax.grad(loss)(W, x, flip)
    np.testing.assert_allclose(g, fd(lambda w: loss(w, x, flip), W), rtol=3e-3, atol=1e-3)


def test_vmap_scan_vs_loop():
  step = lambda c, x: (c * x + 1, jnp.sin(c))
  cs = np.array([0.1, 0.5, 0.9], np.float32)
  xs = np.linspace(0, 1, 12).reshape(3, 4).astype(np.float32)
  f = lambda c, xs: lax.scan(step, c, xs)
  bc, bys = xjax.vmap(f)(cs, xs)
  for i in range(3):
    c, ys = f(cs[i], xs[i])
    np.testing.assert_allclose(bc[i], c, rtol=1e-6)
    np.testing.assert_allclose(bys[i], ys, rtol=1e-6)
  bc, _ = xjax.vmap(f, (0, None))(cs, xs[0])
  np.testing.assert_allclose(bc, [f(c, xs[0])[0] for c in cs], rtol=1e-6)


def test_map():
  xs = np.arange(7.0, dtype=np.float32)
  np.testing.assert_allclose(lax.map(lambda x: x ** 2, xs), xs ** 2)
  np.testing.assert_allclose(lax.map(lambda x: x ** 2, xs, batch_size=3), xs ** 2)


# -- associative_scan ------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_associative_scan_cumsum(n):
  x = np.arange(1.0, n + 1, dtype=np.float32)
  np.testing.assert_allclose(lax.associative_scan(jnp.add, x), np.cumsum(x))
  np.testing.assert_allclose(lax.associative_scan(jnp.add, x, reverse=True),
                             np.cumsum(x[::-1])[::-1])


def test_associative_scan_axis_pytree_and_grad():
  x = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 10
  np.testing.assert_allclose(lax.associative_scan(jnp.multiply, x, axis=1),
                             np.cumprod(x, axis=1), rtol=1e-6)
  # Linear recurrence h_t = a_t h_{t-1} + b_t as an associative scan over pairs.
  a = np.array([0.5, 0.9, 1.1, 0.3, 0.7], np.float32)
  b = np.array([1.0, -1.0, 2.0, 0.5, 0.1], np.float32)
  comb = lambda l, r: (l[0] * r[0], r[0] * l[1] + r[1])
  _, h = lax.associative_scan(comb, (a, b))
  expect, acc = [], 0.0
  for ai, bi in zip(a, b):
    acc = ai * acc + bi
    expect.append(acc)
  np.testing.assert_allclose(h, expect, rtol=1e-5)
  f = lambda a: jnp.sum(lax.associative_scan(comb, (a, jnp.asarray(b)))[1])
  np.testing.assert_allclose(xjax.grad(f)(a), fd(f, a), rtol=3e-3, atol=1e-3)


def test_higher_order_derivatives_through_scan_and_cond():
  x = jnp.array([1., 2., 3.])
  f = lambda x: lax.scan(lambda c, x: (c * x, c), 1., x)[0]
  np.testing.assert_allclose(xjax.jacrev(f)(x), [6., 3., 2.])
  np.testing.assert_allclose(xjax.hessian(f)(x), [[0, 3, 2], [3, 0, 1], [2, 1, 0]])
  g = lambda x: lax.cond(x[0] > 0, lambda x: jnp.sum(x ** 3), lambda x: -x[0], x)
  np.testing.assert_allclose(xjax.hessian(g)(x), np.diag(6 * np.asarray(x)))


@pytest.mark.parametrize("unroll", [1, 3, 4, 10, 20, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_unroll_matches_python_loop(unroll, reverse):
  xs = np.arange(10.0, dtype=np.float32)
  order = xs[::-1] if reverse else xs
  c, ys = np.float32(1.0), []
  for x in order:
    ys.append(c + x)
    c = c * np.float32(0.9) + x
  ys = ys[::-1] if reverse else ys
  f = lambda c, x: (c * 0.9 + x, c + x)
  out = xjax.jit(lambda xs: lax.scan(f, 1.0, xs, unroll=unroll, reverse=reverse))(xs)
  np.testing.assert_allclose(out[0], c, rtol=1e-5)
  np.testing.assert_allclose(out[1], ys, rtol=1e-5)


def test_scan_full_unroll_has_no_loop():
  f = lambda c, x: (c + x, c)
  xs = np.ones(5, np.float32)
  assert "stablehlo.while" not in xjax.jit(lambda xs: lax.scan(f, 0.0, xs, unroll=5)).lower(
      xs).as_text()
  assert "stablehlo.while" in xjax.jit(lambda xs: lax.scan(f, 0.0, xs, unroll=2)).lower(
      xs).as_text()


def test_scan_and_while_body_errors():
  xs = np.ones(3, np.float32)
  with pytest.raises(TypeError, match=r"scan body output must be a pair, got float32\[\]"):
    lax.scan(lambda c, x: c + x, 0.0, xs)
  with pytest.raises(TypeError, match="scan body function carry input and carry output must "
                                      "have the same pytree structure, but they differ"):
    lax.scan(lambda c, x: ((c, c), x), 0.0, xs)
  with pytest.raises(TypeError, match="while_loop body function carry input and carry output "
                                      "must have the same pytree structure"):
    lax.while_loop(lambda c: c < 3, lambda c: (c, c), 0)
  with pytest.raises(TypeError, match="scan body function carry input and carry output must "
                                      "have equal types"):
    lax.scan(lambda c, x: (jnp.stack([c, c]), x), 0.0, xs)


def test_scan_static_parameters_must_be_static():
  f = lambda c, x: (c + x, c)
  xs = np.ones(3, np.float32)
  for loop in (lambda u: lax.scan(f, 0.0, xs, unroll=u),
               lambda u: lax.fori_loop(0, 3, lambda i, c: c + i, 0, unroll=u)):
    with pytest.raises(xjax.errors.ConcretizationTypeError, match="unroll"):
      xjax.jit(loop)(2)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
      loop(1.5)
  # a traced reverse is a plain TypeError (JAX's: an unhashable parameter), not a bool error
  with pytest.raises(TypeError, match="reverse must be a static bool") as e:
    xjax.jit(lambda r: lax.scan(f, 0.0, xs, reverse=r))(True)
  assert type(e.value) is TypeError
  assert float(lax.fori_loop(0, 3, lambda i, c: c + i, 0, unroll=np.int32(2))) == 3.0


def test_grad_through_a_loop_carry_is_strong_when_the_loop_makes_it_strong():
  # A weak (Python-scalar) carry that the body makes strong gets a strong cotangent, as in
  # JAX; outside loops the cotangent of a weak input stays weak.
  scan_f = lambda c: lax.scan(lambda c, x: (c * x, c), c, jnp.arange(1.0, 4.0))[0]
  fori_f = lambda c: lax.fori_loop(0, 3, lambda i, c: c * jnp.float32(2), c)
  for f, expect in ((scan_f, 6.0), (fori_f, 8.0)):
    g = xjax.grad(f)(2.0)
    assert g.dtype == np.float32 and not g.weak_type
    np.testing.assert_allclose(g, expect)
  assert xjax.grad(lambda x: x * jnp.float32(2))(2.0).weak_type


def test_cond_older_five_argument_form():
  # cond(pred, true_operand, true_fun, false_operand, false_fun), as numpyro calls it;
  # values from JAX 0.10.2.
  assert float(lax.cond(True, 1.0, lambda x: x + 1, 2.0, lambda x: x * 10)) == 2.0
  assert float(lax.cond(False, 1.0, lambda x: x + 1, 2.0, lambda x: x * 10)) == 20.0
  f = xjax.jit(lambda p: lax.cond(p, 1.0, lambda x: x + 1, 2.0, lambda x: x * 10))
  assert float(f(False)) == 20.0
  with pytest.raises(TypeError, match="lax.cond: true_fun and false_fun arguments should be"):
    lax.cond(True, 1.0, lambda x: x + 1, 2.0, 5)


def test_associative_scan_takes_another_container_of_the_same_leaves():
  """fn may return a tuple for namedtuple elems (dynamax's parallel smoother does): JAX only
  flattens its result."""
  import collections
  Pair = collections.namedtuple("Pair", "a b")
  elems = Pair(jnp.arange(1., 5.), jnp.ones(4))
  out = lax.associative_scan(lambda x, y: (x.a + y.a, x.b * y.b), elems)
  assert isinstance(out, Pair)
  np.testing.assert_array_equal(out.a, [1., 3., 6., 10.])
  with pytest.raises(TypeError, match="same structure"):
    lax.associative_scan(lambda x, y: (x.a + y.a,), elems)


# Loop bodies whose carry output differs from the input: JAX 0.10.2's TypeError texts
_CARRY_ERRORS = [
    ('types', 'lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * jnp.ones(2)), (0, 1.))',
     'while_loop body function carry input and carry output must have equal types, but they differ:\n\nThe input carry component c[1] has type float32[] but the corresponding output carry component has type float32[2], so the shapes do not match.\n\nRevise the function so that all output types match the corresponding input types.'),
    ('two_types', 'lax.scan(lambda carry, x: ((carry[0] * jnp.ones(2), carry[1].astype(jnp.int32)), x), (0., 1.), jnp.ones(3))',
     'scan body function carry input and carry output must have equal types, but they differ:\n\n  * the input carry component carry[0] has type float32[] but the corresponding output carry component has type float32[2], so the shapes do not match;\n  * the input carry component carry[1] has type float32[] but the corresponding output carry component has type int32[], so the dtypes do not match.\n\nRevise the function so that all output types match the corresponding input types.'),
    ('length', 'lax.while_loop(lambda c: True, lambda c: (c[0] + 1,), (0, 1.))',
     'while_loop body function carry input and carry output must have the same pytree structure, but they differ:\n\nThe input carry c is a tuple of length 2 but the corresponding component of the carry output is a tuple of length 1, so the lengths do not match.\n\nRevise the function so that the carry output has the same pytree structure as the carry input.'),
    ('dict_keys', "lax.while_loop(lambda c: True, lambda c: {'a': c['a'], 'c': 1.}, {'a': 0, 'b': 1.})",
     "while_loop body function carry input and carry output must have the same pytree structure, but they differ:\n\nThe input carry c is a <class 'dict'> with pytree metadata ('a', 'b') but the corresponding component of the carry output is a <class 'dict'> with pytree metadata ('a', 'c'), so the pytree node metadata does not match.\n\nRevise the function so that the carry output has the same pytree structure as the carry input."),
    ('cond_pytree', 'lax.while_loop(lambda c: (True, True), lambda c: c, 1.)',
     'cond_fun must return a boolean scalar, but got pytree PyTreeDef((*, *)).'),
    ('cond_shape', 'lax.while_loop(lambda c: jnp.array([True]), lambda c: c, 1.)',
     'cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(bool[1])].'),
]


@pytest.mark.parametrize("name, program, message", _CARRY_ERRORS)
def test_carry_mismatches_raise_jaxs_words(name, program, message):
  with pytest.raises(TypeError) as info:
    eval(program)
  assert message_of(info.value) == message


def test_vmapped_while_with_batched_predicates_matches_python_loops():
  # the predicate batched by the inner vmap, by the outer one, or by both: each lane runs
  # until its own predicate fails (the jaxprs keep JAX's form: a bool[...] predicate)
  x = np.arange(6.).reshape(2, 3) + 1.

  def loop(c, limit):
    while c[0] < limit:
      c = c * 2.
    return c
  both = xjax.vmap(lambda n: xjax.vmap(lambda r: lax.while_loop(
      lambda c: c[0] < n, lambda c: c * 2., r))(x))(jnp.array([5., 20.]))
  np.testing.assert_array_equal(both, [[loop(r, n) for r in x] for n in (5., 20.)])
  inner = xjax.vmap(lambda r: xjax.vmap(lambda s: lax.while_loop(
      lambda c: c[0] < 10., lambda c: (c[0] * 2., c[1] + s), (s, 0.)))(r), in_axes=1)(x)

  def loop2(s):
    c = (s, 0.)
    while c[0] < 10.:
      c = (c[0] * 2., c[1] + s)
    return c
  expected = np.array([[loop2(s) for s in col] for col in x.T])   # (3, 2, 2)
  np.testing.assert_array_equal(inner[0], expected[..., 0])
  np.testing.assert_array_equal(inner[1], expected[..., 1])
  jitted = xjax.jit(xjax.vmap(lambda r: lax.while_loop(lambda c: c[0] < 10., lambda c: c * 2., r)))
  np.testing.assert_array_equal(jitted(x), [loop(r, 10.) for r in x])
