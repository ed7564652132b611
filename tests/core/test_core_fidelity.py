"""Core fidelity against JAX 0.10.2 (issue 16): weak types, low-precision accumulation,
printed forms, API forms, static-argument keys, error classes, custom derivatives under
eager transformations, vjp as a pytree.  Expected values were recorded on the reference."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.core import ShapedArray


def _weak(x) -> bool:
  return x.aval.weak_type


# ---------------------------------------------------------------------------------------
# Printed forms (classes 3 and 10)

def test_aval_str_and_repr():
  a = ShapedArray((3, 4), np.float32)
  w = ShapedArray((), np.float32, weak_type=True)
  assert str(a) == "float32[3,4]"
  assert repr(a) == "ShapedArray(float32[3,4])"
  assert str(w) == "~float32[]"
  assert repr(w) == "ShapedArray(float32[], weak_type=True)"
  closed = xjax.make_jaxpr(lambda x, y: x + y)(jnp.ones((3, 4)), 1.0)
  assert str(closed.in_avals) == ("[ShapedArray(float32[3,4]), "
                                  "ShapedArray(float32[], weak_type=True)]")


def test_a_type_given_a_sharding_that_splits_nothing_hashes_as_an_unsharded_one():
  """flax's scan builds `ShapedArray(shape, dtype, sharding=x.aval.sharding)`: equal types
  must hash alike, or jit's cache misses (flax's test_jit_scan_retracing traced once more)."""
  x = jnp.ones((4, 4))
  typed = ShapedArray((4, 4), np.float32, sharding=x.aval.sharding)
  plain = ShapedArray((4, 4), np.float32)
  assert typed == plain and hash(typed) == hash(plain) and len({typed, plain}) == 1
  assert {plain: "entry"}[typed] == "entry"  # (a cache keyed by one finds the other)


def test_inner_jit_jaxpr_names_its_binders_like_the_operands():
  def f(x, y):
    z = x * 3
    w = xjax.jit(lambda a, b: (jnp.sin(a) * b, a + 1.0))(z, y)
    return w[0] + w[1] + x
  assert str(xjax.make_jaxpr(f)(1.0, 2.0)) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = mul a 3.0:f32[]
    d:f32[] e:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; c:f32[] b:f32[]. let
          f:f32[] = sin c
          d:f32[] = mul f b
          e:f32[] = add c 1.0:f32[]
        in (d, e) }
    ] c b
    g:f32[] = add d e
    h:f32[] = add g a
  in (h,) }"""

  def g(x):
    return xjax.jit(lambda a: xjax.jit(lambda b: b * 2 + 1)(a) - a)(x) * x
  assert str(xjax.make_jaxpr(g)(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = jit[
            name=<lambda>
            jaxpr={ lambda ; a:f32[]. let
                d:f32[] = mul a 2.0:f32[]
                c:f32[] = add d 1.0:f32[]
              in (c,) }
          ] a
          b:f32[] = sub c a
        in (b,) }
    ] a
    e:f32[] = mul b a
  in (e,) }"""


def test_param_jaxpr_line_width_counts_the_param_name():
  f = lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.), (0, x))
  assert str(xjax.make_jaxpr(f)(1.0)) == """\
{ lambda ; a:f32[]. let
    b:i32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:i32[] e:f32[]. let
          f:i32[] = add d 1:i32[]
          g:f32[] = mul e 2.0:f32[]
        in (f, g) }
      body_nconsts=0
      cond_jaxpr={ lambda ; h:i32[] i:f32[]. let
          j:bool[] = lt h 3:i32[]
        in (j,) }
      cond_nconsts=0
    ] 0:i32[] a
  in (b, c) }"""


# ---------------------------------------------------------------------------------------
# API forms (class 4) and static-argument keys (class 5)

def test_cond_and_switch_accept_operand_keyword():
  r = lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand=2.0)
  assert float(r) == 3.0 and _weak(r)
  assert float(lax.switch(1, [lambda x: x, lambda x: x * 10], operand=2.0)) == 20.0
  with pytest.raises(TypeError, match="operand"):
    lax.cond(True, lambda x: x, lambda x: x, 1.0, operand=2.0)


def test_compiled_is_called_without_its_static_arguments():
  f = lambda x, n: x * n
  c = xjax.jit(f, static_argnums=1).lower(jnp.ones(2), 3).compile()
  np.testing.assert_array_equal(c(jnp.ones(2)), [3.0, 3.0])
  c = xjax.jit(f, static_argnames="n").lower(jnp.ones(2), n=3).compile()
  np.testing.assert_array_equal(c(jnp.ones(2)), [3.0, 3.0])
  with pytest.raises(TypeError, match="pytree"):
    xjax.jit(f, static_argnums=1).lower(jnp.ones(2), 3).compile()(jnp.ones(2), 3)
  # the weak type of an argument is not part of the compiled signature (JAX 0.10.2)
  c = xjax.jit(lambda x: x * 2).lower(1.0).compile()
  for a in (2.0, jnp.float32(2.0), np.float32(2.0)):
    out = c(a)
    assert float(out) == 4.0 and _weak(out)
  with pytest.raises(TypeError, match="Argument types differ"):
    c(2)


def test_numpy_dtype_promotion_strict_context():
  with xjax.numpy_dtype_promotion("strict"):
    assert (jnp.ones(2, jnp.float32) + 1.0).dtype == jnp.float32
    with pytest.raises(xjax.dtypes.TypePromotionError) as e:
      jnp.ones(2, jnp.float32) + jnp.ones(2, jnp.int32)
    assert isinstance(e.value, ValueError)
  assert (jnp.ones(2, jnp.int8) + jnp.ones(2, jnp.uint8)).dtype == jnp.int16


def test_static_arguments_are_keyed_by_type_and_value():
  traces = []

  def f(x, s):
    traces.append(s)
    return x * s
  g = xjax.jit(f, static_argnums=1)
  dtypes_seen = [g(jnp.int32(1), s).dtype for s in (2, 2.0, True, 2)]
  assert dtypes_seen == [jnp.int32, jnp.float32, jnp.int32, jnp.int32]
  assert len(traces) == 3  # 2, 2.0 and True each traced once (JAX 0.10.2)
  # only the top-level type counts: (2,) and (2.0,) are one key, as in JAX
  traces.clear()
  h = xjax.jit(lambda x, s: x, static_argnums=1)
  for s in [(2,), (2.0,), (True,)]:
    h(1.0, s)
  k = xjax.jit(f, static_argnames="s")
  assert [k(jnp.int32(1), s=s).dtype for s in (2, 2.0, True)] == [
      jnp.int32, jnp.float32, jnp.int32]


# ---------------------------------------------------------------------------------------
# Low-precision accumulation (class 2)

def test_float16_reductions_accumulate_in_float32():
  x = jnp.asarray(np.full(10000, 60000, np.float16))
  for fn, want in [(jnp.mean, 60000.0), (jnp.var, 0.0), (jnp.std, 0.0),
                   (jnp.average, 60000.0), (jnp.sum, np.inf),  # the sum itself overflows
                   (jnp.nanmean, np.inf)]:  # JAX's nanmean sums in float16
    out = fn(x)
    assert out.dtype == jnp.float16 and not _weak(out), fn
    assert float(out) == want, fn
  b = jnp.asarray(np.full(1000, 1.001), jnp.bfloat16)
  assert b.sum().dtype == jnp.bfloat16 and float(b.sum()) == 1000.0
  assert float(jnp.mean(b)) == 1.0
  # an explicit dtype is the accumulation dtype
  assert float(jnp.mean(x, dtype=jnp.float16)) == np.inf
  assert jnp.var(x, dtype=jnp.float32).dtype == jnp.float32


def test_float16_sum_jaxpr_converts_around_the_reduction():
  x = jnp.ones(4, jnp.float16)
  assert str(xjax.make_jaxpr(jnp.mean)(x)) == """\
{ lambda ; a:f16[4]. let
    b:f32[4] = convert_element_type[new_dtype=float32 weak_type=False] a
    c:f32[] = reduce_sum[axes=(0,) out_sharding=None] b
    d:f32[] = div c 4.0:f32[]
    e:f16[] = convert_element_type[new_dtype=float16 weak_type=False] d
  in (e,) }"""
  prims = [e.primitive.name for e in xjax.make_jaxpr(jnp.prod)(x).jaxpr.eqns]
  assert prims == ["convert_element_type", "reduce_prod", "convert_element_type"]
  prims = [e.primitive.name for e in xjax.make_jaxpr(jnp.max)(x).jaxpr.eqns]
  assert prims == ["reduce_max"]


# ---------------------------------------------------------------------------------------
# Custom derivatives under eager transformations (class 8) and their rule checks (class 6)

def _logged_custom_jvp():
  log = []

  @xjax.custom_jvp
  def f(x):
    log.append("primal")
    return x if x > 0 else -x  # Python control flow: needs concrete values

  @f.defjvp
  def f_jvp(primals, tangents):
    log.append("rule")
    x, = primals
    return f(x), (tangents[0] if x > 0 else -tangents[0])
  return f, log


def test_custom_jvp_rule_runs_on_concrete_values_under_eager_jvp_and_grad():
  f, log = _logged_custom_jvp()
  g = xjax.grad(f)(1.0)
  assert float(g) == 1.0 and _weak(g)
  assert log == ["rule", "primal"]  # JAX 0.10.2's order: the primal is not traced
  log.clear()
  assert float(xjax.grad(f)(-2.0)) == -1.0
  log.clear()
  p, t = xjax.jvp(f, (jnp.float32(3.0),), (jnp.float32(2.0),))
  assert (float(p), float(t)) == (3.0, 2.0) and log == ["rule", "primal"]
  log.clear()
  assert float(xjax.grad(xjax.grad(lambda x: f(x) * x))(2.0)) == 2.0
  log.clear()
  assert float(xjax.linearize(f, 1.0)[1](1.0)) == 1.0 and log == ["rule", "primal"]


def test_custom_jvp_side_effect_order_matches_jax():
  log = []

  @xjax.custom_jvp
  def f(x):
    log.append("primal")
    return jnp.sin(x)
  f.defjvp(lambda p, t: (log.append("rule"), (f(p[0]), jnp.cos(p[0]) * t[0]))[1])

  def run(fn):
    log.clear()
    out = fn()
    return np.asarray(out).tolist(), list(log)
  s, c = 0.8414709568023682, 0.5403022766113281
  assert run(lambda: f(1.0)) == (pytest.approx(s), ["primal"])
  assert run(lambda: xjax.jit(f)(1.0)) == (pytest.approx(s), ["primal"])
  assert run(lambda: xjax.grad(f)(1.0)) == (pytest.approx(c), ["rule", "primal"])
  assert run(lambda: xjax.jit(xjax.grad(f))(1.0)) == (pytest.approx(c), ["rule", "primal"])
  assert run(lambda: xjax.vmap(f)(jnp.ones(2)))[1] == ["primal"]
  assert run(lambda: xjax.vmap(xjax.grad(f))(jnp.ones(2)))[1] == ["rule", "primal"]
  assert run(lambda: xjax.grad(xjax.grad(f))(1.0)) == (pytest.approx(-s),
                                                        ["rule", "rule", "primal"])
  # a call on values the gradient does not flow through runs the function itself
  assert run(lambda: xjax.grad(lambda y: f(2.0) * y)(1.0))[1] == ["primal"]


def test_custom_vjp_fwd_and_bwd_run_on_concrete_values_under_eager_grad():
  log = []

  @xjax.custom_vjp
  def f(x):
    log.append("primal")
    return x if x > 0 else -x

  def fwd(x):
    log.append("fwd")
    return (x if x > 0 else -x), x

  def bwd(r, g):
    log.append("bwd")
    return (g if r > 0 else -g,)
  f.defvjp(fwd, bwd)
  assert float(xjax.grad(f)(1.0)) == 1.0 and log == ["fwd", "bwd"]
  log.clear()
  assert float(xjax.grad(f)(-1.0)) == -1.0 and log == ["fwd", "bwd"]
  with pytest.raises(TypeError, match="forward-mode"):
    xjax.jvp(f, (jnp.float32(1.0),), (jnp.float32(1.0),))


@pytest.mark.parametrize("wrap", [lambda f: f, xjax.jit])
def test_custom_jvp_tangent_of_the_wrong_type_is_a_type_error(wrap):
  @xjax.custom_jvp
  def f(x):
    return x * 2
  f.defjvp(lambda p, t: (f(p[0]), jnp.ones(3)))
  msg = (r"Custom JVP rule must produce primal and tangent outputs with corresponding shapes "
         r"and dtypes. Expected float32\[\] \(tangent type of float32\[\]\) but got "
         r"float32\[3\].")
  with pytest.raises(TypeError, match=msg):
    wrap(lambda x: xjax.jvp(f, (x,), (x,)))(jnp.float32(1.0))
  with pytest.raises(TypeError, match="Custom JVP rule"):
    xjax.grad(f)(1.0)

  @xjax.custom_jvp
  def g(x):
    return x * 2
  g.defjvp(lambda p, t: (g(p[0]), t[0].astype(jnp.float16)))
  with pytest.raises(TypeError, match=r"but got float16\[\]"):
    wrap(lambda x: xjax.jvp(g, (x,), (x,)))(jnp.float32(1.0))


def test_custom_vjp_bwd_of_the_wrong_shape_is_a_value_error():
  @xjax.custom_vjp
  def v(x):
    return x * 2
  v.defvjp(lambda x: (x * 2, None), lambda r, g: (jnp.ones(3),))
  with pytest.raises(ValueError, match=r"at output\[0\] the bwd rule produced an output of "
                     r"type float32\[3\] corresponding to an input of type float32\[\]"):
    xjax.grad(v)(1.0)


# ---------------------------------------------------------------------------------------
# Weak types through transformations (class 1) and smaller API facts (class 11)

def _kind(x):
  """'float' for a Python float, else 'dtype' + '~' when weakly typed."""
  if isinstance(x, float):
    return "float"
  return str(x.dtype) + ("~" if _weak(x) else "")


def test_jvp_returns_inputs_passed_through_as_given():
  p, t = xjax.jvp(lambda d: {"a": d["a"] * 2, "b": d["b"]}, ({"a": 1.0, "b": 2.0},),
                  ({"a": 1.0, "b": 1.0},))
  assert {k: _kind(v) for k, v in p.items()} == {"a": "float32~", "b": "float"}
  assert {k: _kind(v) for k, v in t.items()} == {"a": "float32~", "b": "float"}
  (p1, p2), (t1, t2) = xjax.jvp(lambda x, y: (x * y, x), (1.0, 2.0), (1.0, 1.0))
  assert [_kind(v) for v in (p1, p2, t1, t2)] == ["float32~", "float", "float32~", "float"]
  x = np.ones(2, np.float32)
  p, t = xjax.jvp(lambda x: x, (x,), (x,))
  assert p is x and t is x


@pytest.mark.parametrize("fn, want", [
    # reverse mode: the cotangent's weak type is what the backward pass computes (JAX 0.10.2)
    (lambda: xjax.vjp(lambda x: x * 2, 1.0)[1](jnp.float32(2.0))[0], ("float32", 4.0)),
    (lambda: xjax.vjp(lambda x: x * 2, jnp.float32(1.0))[1](2.0)[0], ("float32", 4.0)),
    (lambda: xjax.grad(lambda x, y: x, argnums=1)(1.0, 2.0), ("float32~", 0.0)),
    (lambda: xjax.grad(lambda x, y: x, argnums=1)(1.0, jnp.float32(2.0)), ("float32", 0.0)),
    (lambda: xjax.grad(lambda c: jnp.where(c > 0, c, 0.))(2.0), ("float32~", 1.0)),
    (lambda: xjax.grad(lambda c: jnp.maximum(c, 0.))(2.0), ("float32~", 1.0)),
    (lambda: xjax.grad(jnp.abs)(2.0), ("float32~", 1.0)),
    (lambda: xjax.grad(lambda c: jnp.exp(c) + jnp.log(c) + jnp.tanh(c))(2.0),
     ("float32~", 7.959707260131836)),
    (lambda: xjax.grad(xjax.nn.relu)(1.0), ("float32~", 1.0)),
    (lambda: xjax.grad(xjax.nn.softplus)(1.0), ("float32~", 0.7310585379600525)),
    (lambda: xjax.linear_transpose(lambda x: x * 2., 1.0)(3.0)[0], ("float32~", 6.0)),
    (lambda: xjax.linear_transpose(lambda x: x * 2., 1.0)(jnp.float32(3.0))[0],
     ("float32", 6.0)),
    (lambda: xjax.jacfwd(lambda x: x * 2.)(1.0), ("float32~", 2.0)),
    (lambda: xjax.jacrev(lambda x: x * 2.)(1.0), ("float32~", 2.0)),
    (lambda: xjax.hessian(lambda x: x ** 3)(1.0), ("float32~", 6.0)),
    # a complex input's gradient is strongly typed unless holomorphic (JAX 0.10.2)
    (lambda: xjax.grad(lambda z: (z * z).real)(1.0 + 1j), ("complex64", 2 + 2j)),
    (lambda: xjax.grad(lambda z: z * z, holomorphic=True)(1.0 + 1j), ("complex64~", 2 + 2j)),
    (lambda: jnp.logaddexp(1.0, 2.0), ("float32~", 2.3132617473602295)),
    (lambda: jnp.logaddexp2(1.0, 2.0), ("float32~", 2.5849623680114746)),
    (lambda: jnp.logaddexp2(jnp.float32(1.0), 2.0), ("float32", 2.5849623680114746)),
    (lambda: jnp.heaviside(1, 0.5), ("float32~", 1.0)),
])
def test_weak_types_through_transformations(fn, want):
  out = fn()
  assert _kind(out) == want[0]
  np.testing.assert_allclose(np.asarray(out), want[1], rtol=1e-6)


def test_logaddexp2_derivatives():
  p, t = xjax.jvp(jnp.logaddexp2, (1.0, 2.0), (1.0, 1.0))
  np.testing.assert_allclose([float(p), float(t)], [2.5849624, 1.0000001], rtol=1e-6)
  g = xjax.grad(jnp.logaddexp2, (0, 1))(1.0, 2.0)
  np.testing.assert_allclose(g, [0.33333337, 0.66666675], rtol=1e-6)
  assert [float(v) for v in xjax.grad(jnp.logaddexp2, (0, 1))(1.0, 1.0)] == [0.5, 0.5]


@pytest.mark.parametrize("fn", ["logaddexp", "logaddexp2"])
def test_logaddexp_derivatives_at_infinities_and_nan(fn):
  # d/da = base**(a - out) with +inf read as 0, as JAX 0.10.2 computes them
  want = {"logaddexp": [[1.0, 2.7182817459106445], [2.7182817459106445, 1.0], [0.0, 1.0],
                        [np.nan, np.nan], [1.0, 1.0], [0.5, 0.5], [np.nan, np.nan]],
          "logaddexp2": [[1.0, 2.0], [2.0, 1.0], [0.0, 1.0], [np.nan, np.nan], [1.0, 1.0],
                         [0.5, 0.5], [np.nan, np.nan]]}[fn]
  inf = np.inf
  points = [(inf, 1.), (1., inf), (-inf, 1.), (-inf, -inf), (inf, inf), (2., 2.), (np.nan, 1.)]
  got = [[float(g) for g in xjax.grad(getattr(jnp, fn), (0, 1))(np.float32(a), np.float32(b))]
         for a, b in points]
  np.testing.assert_array_equal(got, want)


def test_shape_dtype_struct_like():
  S = xjax.ShapeDtypeStruct
  assert repr(S.like(jnp.ones(3))) == "ShapeDtypeStruct(shape=(3,), dtype=float32)"
  assert repr(S.like(1.0)) == "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)"
  assert repr(S.like(np.ones((2, 2), np.int8))) == "ShapeDtypeStruct(shape=(2, 2), dtype=int8)"
  assert S.like(S((2,), jnp.float16, weak_type=True)) == S((2,), jnp.float16, weak_type=True)
  assert S.like(jnp.ones(3)).sharding is None  # uncommitted
  with pytest.raises(TypeError):
    S.like([1, 2])


def test_jacobian_rebuilds_custom_pytrees_as_jax():
  class P:
    def __init__(self, a, b):
      if a is None:
        raise ValueError("no None")
      self.a, self.b = a, b
  xjax.tree_util.register_pytree_node(P, lambda p: ((p.a, p.b), None),
                                      lambda aux, ch: P(*ch))
  for jac in (xjax.jacobian, xjax.jacfwd):
    with pytest.raises(ValueError, match="no None"):
      jac(lambda p: p.a * p.b)(P(1.0, 2.0))
  g = xjax.grad(lambda p: p.a * p.b)(P(1.0, 2.0))  # grad does not (as JAX)
  assert (float(g.a), float(g.b)) == (2.0, 1.0)


# ---------------------------------------------------------------------------------------
# Error classes (class 6)

@pytest.mark.parametrize("fn, msg", [
    (lambda x: lax.reduce_sum(x, (-1,)), r"reduction axes \(-1,\) contains out-of-bounds "
                                         r"indices for float32\[2,3\]\."),
    (lambda x: lax.reduce_max(x, (-1,)), "out-of-bounds"),
    (lambda x: lax.reduce_prod(x, (5,)), "out-of-bounds"),
    (lambda x: lax.reduce(x, 0., lax.add, (-1,)), "out-of-bounds"),
    (lambda x: lax.reduce_and(x > 0, (-1,)), "out-of-bounds"),
    (lambda x: lax.argmax(x, -1, jnp.int32), r"Invalid axis -1 for operand shape \(2, 3\)"),
    (lambda x: lax.cumsum(x, -1), "XLA operations do not allow negative axes"),
    (lambda x: lax.cummax(x, -2), "XLA operations do not allow negative axes"),
    (lambda x: lax.cumlogsumexp(x, -1), "XLA operations do not allow negative axes"),
    (lambda x: lax.cumsum(x, 5), r"axis 5 is out of bounds for array of shape \(2, 3\)"),
    (lambda x: lax.cumsum(x[0, 0], 0), r"axis 0 is out of bounds for array of shape \(\)"),
])
def test_lax_reductions_reject_negative_axes(fn, msg):
  with pytest.raises(ValueError, match=msg):
    fn(jnp.ones((2, 3)))
  # jnp normalises negative axes
  np.testing.assert_array_equal(jnp.cumsum(jnp.ones((2, 3)), -1)[:, -1], [3.0, 3.0])
  np.testing.assert_array_equal(jnp.sum(jnp.ones((2, 3)), -1), [3.0, 3.0])


def test_unexpected_tracer_error_is_a_type_error():
  assert issubclass(xjax.errors.UnexpectedTracerError, xjax.errors.JAXTypeError)
  assert issubclass(xjax.errors.UnexpectedTracerError, TypeError)


def test_fori_loop_unroll_needs_static_bounds():
  f = lambda n: lax.fori_loop(0, n, lambda i, c: c + 1, 0, unroll=2)
  with pytest.raises(ValueError, match="Can only use `unroll` in `fori_loop` if the loop "
                     "bounds are statically known"):
    xjax.jit(f)(3)
  assert int(f(3)) == 3  # concrete bounds: unrolled scan
  assert int(xjax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + 1, 0, unroll=1))(3)) == 3


def test_python_conversions_of_tracers_follow_jax():
  # float()/complex()/np.asarray()/tolist() never read a tracer's value; int() and astype do
  for conv in (float, complex, lambda x: x.tolist()):
    with pytest.raises(xjax.errors.ConcretizationTypeError):
      xjax.grad(lambda x: conv(x) * x)(2.0)
  with pytest.raises(xjax.errors.ConcretizationTypeError, match="astype"):
    xjax.grad(lambda x: float(x) * x)(2.0)
  with pytest.raises(xjax.errors.TracerArrayConversionError):
    xjax.grad(lambda x: np.asarray(x) * x)(2.0)
  assert float(xjax.grad(lambda x: int(x) * x)(2.0)) == 2.0
  assert float(xjax.grad(lambda x: x.astype(jnp.float32) * x)(2.0)) == 4.0
  # a NumPy function applied to a tracer tries to convert it
  for fn in (np.sin, lambda x: np.add(x, 1)):
    with pytest.raises(xjax.errors.TracerArrayConversionError, match=r"shape float32\[\]"):
      xjax.vmap(fn)(jnp.ones(3))
  # NumPy scalars and arrays still combine with tracers (the tracer's operator runs)
  out = xjax.vmap(lambda x: np.float32(2) * x - np.ones(3, np.float32))(jnp.ones(2))
  np.testing.assert_array_equal(out, np.ones((2, 3)))
  with pytest.raises(TypeError, match="unsupported format string"):
    xjax.jvp(lambda x: f"{x:.2f}", (jnp.float32(1.0),), (jnp.float32(1.0),))


# ---------------------------------------------------------------------------------------
# vjp's function is a pytree (class 9)

def test_vjp_function_is_a_pytree_returned_from_jit():
  f = lambda a: jnp.sin(a) * a
  y, pullback = xjax.jit(lambda x: xjax.vjp(f, x))(jnp.ones(3))
  assert isinstance(pullback, xjax.tree_util.Partial)
  assert len(xjax.tree_util.tree_leaves(pullback)) > 0  # the residuals
  x = jnp.arange(3.0)
  y, pullback = xjax.jit(lambda x: xjax.vjp(f, x))(x)  # same trace, new residuals
  (g,) = pullback(jnp.ones(3))
  np.testing.assert_allclose(g, np.sin(np.arange(3.0)) + np.arange(3.0) * np.cos(
      np.arange(3.0)), rtol=1e-6)
  g = xjax.jit(lambda p, c: p(c))(pullback, jnp.ones(3))[0]  # and passed into one
  np.testing.assert_allclose(g, np.sin(np.arange(3.0)) + np.arange(3.0) * np.cos(
      np.arange(3.0)), rtol=1e-6)
  closed = xjax.make_jaxpr(lambda x: xjax.vjp(f, x))(jnp.ones(3))
  assert len(closed.out_avals) == 1 + len(xjax.tree_util.tree_leaves(pullback))
  with pytest.raises(TypeError, match="exactly one argument"):
    pullback(jnp.ones(3), jnp.ones(3))


def test_array_of_tracers_converts_each_element_first():
  closed = xjax.make_jaxpr(lambda x, y: jnp.array([x, y, 1.0]))(1.0, 2)
  assert str(closed) == """\
{ lambda ; a:f32[] b:i32[]. let
    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a
    d:f32[1] = broadcast_in_dim c
    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
    f:f32[1] = broadcast_in_dim e
    g:f32[1] = broadcast_in_dim 1.0:f32[]
    h:f32[3] = concatenate[dimension=0] d f g
  in (h,) }"""
  out = xjax.jit(lambda x: jnp.array([x, jnp.float16(2)]))(1.0)
  assert out.dtype == jnp.float16 and not _weak(out)
  assert xjax.jit(lambda x: jnp.array([x] * 40))(1.0).shape == (40,)
  k = xjax.random.key(0)
  assert xjax.jit(lambda k: jnp.array([k, k]))(k).shape == (2,)


# ---------------------------------------------------------------------------------------
# Other instances found by differential sweeps against JAX 0.10.2

@pytest.mark.parametrize("fn, want", [
    (lambda: jnp.logical_and(True, 2), ("bool~", True)),
    (lambda: jnp.logical_or(jnp.int32(3), 2.0), ("bool~", True)),
    (lambda: jnp.logical_xor(jnp.array([1, 0]), jnp.array([1, 1])), ("bool", [False, True])),
    (lambda: jnp.vdot(1.5, 2.5), ("float32~", 3.75)),
    (lambda: jnp.dot(jnp.ravel(1.5), jnp.ravel(2.5)), ("float32~", 3.75)),
    (lambda: jnp.gcd(True, 2), ("int32~", 1)),
    (lambda: jnp.lcm(jnp.array([True]), jnp.array([4])), ("int32", [4])),
    (lambda: jnp.unique(1.5), ("float32~", [1.5])),
    (lambda: jnp.unique(jnp.float16(0.5)), ("float16", [0.5])),
    (lambda: xjax.grad(lambda x: jnp.power(x, 0.7))(0.6), ("float32", 0.8159)),
    (lambda: xjax.grad(lambda x: x ** 3.0)(0.6), ("float32", 1.08)),
])
def test_sweep_instances(fn, want):
  out = fn()
  assert _kind(out) == want[0]
  np.testing.assert_allclose(np.asarray(out, np.float64), want[1], rtol=1e-4)


def test_gcd_of_two_bools_is_an_error():
  with pytest.raises(ValueError, match="must be integers"):
    jnp.gcd(True, False)


def test_histogram_of_a_constant_input_widens_the_range():
  counts, edges = jnp.histogram(jnp.array([1, 1]))
  np.testing.assert_allclose(edges, np.linspace(0.5, 1.5, 11), rtol=1e-6)
  np.testing.assert_array_equal(counts, [0, 0, 0, 0, 0, 2, 0, 0, 0, 0])
  counts, edges = jnp.histogram(1.5)
  assert not _weak(counts) and float(edges[0]) == 1.0 and float(edges[-1]) == 2.0


def test_weak_carry_promotes_to_the_promotion_of_both_types():
  body_int = lambda c, x: (c.astype(jnp.int32), x)
  with pytest.raises(TypeError, match="carry"):
    lax.scan(body_int, 0.0, jnp.ones(3))  # a weak float does not become an int (JAX)
  with pytest.raises(TypeError, match="carry"):
    lax.while_loop(lambda c: c < 3, lambda c: c.astype(jnp.int32), 0.0)
  assert lax.scan(lambda c, x: (c + 1.5, x), 0, jnp.ones(3))[0].dtype == jnp.float32
  assert lax.scan(lambda c, x: (c.astype(jnp.float16), x), 0.0, jnp.ones(3))[0].dtype == (
      jnp.float16)
  assert lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0).dtype == jnp.float32


def test_printed_forms_of_common_primitives():
  closed = xjax.make_jaxpr(lambda a, b: lax.dot(a, b))(jnp.ones(3), jnp.ones(3, jnp.float16))
  assert str(closed) == """\
{ lambda ; a:f32[3] b:f16[3]. let
    c:f32[] = dot_general[dimension_numbers=(([0], [0]), ([], []))] a b
  in (c,) }"""
  assert str(xjax.make_jaxpr(xjax.grad(xjax.nn.relu))(1.0)).endswith("""\
    d:bool[] = gt a 0.0:f32[]
    e:f32[] = select_n d 0.0:f32[] 1.0:f32[]
  in (e,) }""")

  @xjax.custom_vjp
  def f(x):
    return x * 2
  f.defvjp(lambda x: (x * 2, None), lambda r, g: (g * 2,))
  assert str(xjax.make_jaxpr(f)(1.0)) == """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_vjp_call[
      name=f
      bwd=<lambda>
      call_jaxpr={ lambda ; c:f32[]. let d:f32[] = mul c 2.0:f32[] in (d,) }
      fwd=<lambda>
      symbolic_zeros=False
    ] a
  in (b,) }"""


def test_jvp_of_stop_gradient_gives_an_array_of_zeros():
  for f in (lax.stop_gradient, lambda x: lax.stop_gradient(x) * 2):
    _, t = xjax.jvp(f, (1.0,), (1.0,))
    assert _kind(t) == "float32~" and float(t) == 0.0
  _, t = xjax.jvp(lax.stop_gradient, (jnp.float32(1.0),), (jnp.float32(1.0),))
  assert _kind(t) == "float32" and float(t) == 0.0
  _, t = xjax.jvp(lax.stop_gradient, (jnp.ones(2),), (jnp.ones(2),))
  np.testing.assert_array_equal(t, [0.0, 0.0])


def test_stop_gradient_of_a_non_array_leaf_is_a_type_error():
  assert lax.stop_gradient({"a": 1, "b": None}) == {"a": 1, "b": None}
  with pytest.raises(TypeError, match=r"'a' of type <class 'str'> is not a valid JAX type"):
    lax.stop_gradient((1.0, "a"))


def test_float16_bessel_i0e_is_evaluated_in_float32():
  x = np.linspace(-5, 5, 11).astype(np.float16)
  want = [0.18359375, 0.20703125, 0.2430419921875, 0.30859375, 0.4658203125, 1.0,
          0.4658203125, 0.30859375, 0.2430419921875, 0.20703125, 0.18359375]  # JAX 0.10.2
  out = lax.bessel_i0e(jnp.asarray(x))
  assert out.dtype == jnp.float16
  assert np.asarray(out).tolist() == want
  assert float(jnp.i0(jnp.float16(0.5))) == pytest.approx(1.063, abs=1e-3)


def test_angle_of_a_real_scalar_is_default_float():
  assert jnp.angle(jnp.float16(1)).dtype == jnp.float32  # as JAX 0.10.2
  assert jnp.angle(jnp.array([1.0], jnp.float16)).dtype == jnp.float16
  assert float(jnp.angle(jnp.bfloat16(-1))) == pytest.approx(np.pi)


def test_aux_outputs_that_are_inputs_come_back_as_given():
  (v, aux), g = xjax.value_and_grad(lambda a: (a * a, {"x": a}), has_aux=True)(2.0)
  assert isinstance(aux["x"], float) and _kind(v) == "float32~" and float(g) == 4.0
  _, _, aux = xjax.vjp(lambda a: (a * 2, a), 1.0, has_aux=True)
  assert isinstance(aux, float)
  _, _, aux = xjax.jvp(lambda a: (a * 2, a), (1.0,), (1.0,), has_aux=True)
  assert isinstance(aux, float)


def test_arange_is_an_iota_as_jax():
  # values to the last bit of JAX 0.10.2's (start + step * iota in the working dtype)
  for args in [(0., 1., 0.1), (-3, 3, 0.7), (10, 0, -1.5), (1.5, 10.2, 0.3)]:
    start, stop, step = args
    n = int(np.ceil((stop - start) / step))
    want = np.float32(start) + np.float32(step) * np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(jnp.arange(*args), want)
  assert str(xjax.make_jaxpr(lambda: jnp.arange(1., 4.))()) == """\
{ lambda ; . let
    a:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None] 
    b:f32[3] = add 1.0:f32[] a
  in (b,) }"""
  assert jnp.arange(0, 1, 0.1, dtype=jnp.float16).dtype == jnp.float16
  assert jnp.arange(5, 2).shape == (0,)


def test_nan_to_num_types_as_jax():
  g = xjax.grad(jnp.nan_to_num)(0.6)
  assert _kind(g) == "float32~" and float(g) == 1.0
  out = jnp.nan_to_num(1.5)
  assert _kind(out) == "float32" and float(out) == 1.5
  assert _kind(jnp.nan_to_num(2)) == "int32~"
  np.testing.assert_array_equal(jnp.nan_to_num(jnp.array([np.nan, np.inf]), nan=1.0,
                                               posinf=2.0), [1.0, 2.0])


def test_linearize_function_is_a_pytree_returned_from_jit():
  f = lambda a: jnp.sin(a) * a
  x = jnp.arange(3.0)
  _, f_jvp = xjax.jit(lambda x: xjax.linearize(f, x))(x)
  assert isinstance(f_jvp, xjax.tree_util.Partial)
  np.testing.assert_allclose(f_jvp(jnp.ones(3)), np.sin(np.arange(3.0)) + np.arange(3.0) *
                             np.cos(np.arange(3.0)), rtol=1e-6)
  with pytest.raises(TypeError, match="inconsistent"):
    f_jvp(jnp.ones(3), jnp.ones(3))


def test_shaped_array_takes_jax_keywords_of_an_unsharded_type():
  # flax's nn.scan builds ShapedArray(shape, dtype, sharding=x.aval.sharding[.update(spec=...)])
  from xjax.core import ShapedArray
  from xjax.sharding import PartitionSpec
  x = jnp.ones((5, 3))
  sharding = xjax.typeof(x).sharding.update(spec=PartitionSpec(*xjax.typeof(x).sharding.spec[1:]))
  assert sharding.spec == PartitionSpec(None)
  a = ShapedArray((3,), np.float32, sharding=sharding, weak_type=True)
  assert a == ShapedArray((3,), np.float32, True)
  assert a.update(shape=(4,), sharding=None) == ShapedArray((4,), np.float32, True)
  mesh = xjax.make_mesh((1,), ("i",)).abstract_mesh  # Explicit axes: the type is sharded
  typed = ShapedArray((3,), np.float32, sharding=xjax.sharding.NamedSharding(mesh, PartitionSpec("i")))
  assert str(typed) == "float32[3@i]" and repr(typed) == "ShapedArray(float32[3@i])"
  assert typed != ShapedArray((3,), np.float32) and typed.sharding.spec == PartitionSpec("i")
  auto = xjax.make_mesh((1,), ("i",), axis_types=(xjax.sharding.AxisType.Auto,)).abstract_mesh
  assert str(ShapedArray((3,), np.float32,
                         sharding=xjax.sharding.NamedSharding(auto, PartitionSpec("i")))) == (
      "float32[3]")  # Auto axes are not in types
