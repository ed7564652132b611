"""Jaxprs print as JAX 0.10.2 prints them: layout (80 columns, parameters on their own lines
when an equation does not fit, shared and long sub-jaxprs hoisted as ``let name = ... in``),
the parameters shown, and nested ``jit[name=...]`` equations where JAX jits a jnp function
(texts recorded from the reference JAX)."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import lax

X3 = jnp.ones(3)
M33 = jnp.ones((3, 3))


@jax.custom_jvp
def _long_sin(y):
  for _ in range(11):
    y = jnp.sin(y)
  return y


_long_sin.defjvp(lambda p, t: (_long_sin(p[0]), t[0]))

PROGRAMS = {
    "dot": (lambda a, b: a @ b, (M33, M33)),
    "where": (lambda x: jnp.where(x > 0, x, 0.), (X3,)),
    "grad_where": (jax.grad(lambda x: jnp.sum(jnp.where(x > 0, x, 0.))), (X3,)),
    "clip": (lambda x: jnp.clip(x, 0., 1.), (X3,)),
    "sum": (lambda x: jnp.sum(x, axis=0), (M33,)),
    "scan": (lambda x: lax.scan(lambda c, y: (c + y, c * y), 0., x), (X3,)),
    "while": (lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.),
                                  (0, x)), (X3,)),
    "cond": (lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x), (True, X3)),
    "jit": (lambda x: jax.jit(lambda y: y * 2)(x), (X3,)),
    "checkpoint": (jax.grad(lambda x: jnp.sum(jax.checkpoint(lambda y: jnp.sin(jnp.sin(y)))(x))),
                   (X3,)),
    "cond_where": (lambda p, x: lax.cond(p, lambda y: jnp.where(y > 0, y, 1.), jnp.cos, x),
                   (True, X3)),
    "grad_jit_fwd": (jax.grad(lambda x: jax.jit(lambda a, b: jnp.sin(a) * b)(x, x)), (1.,)),
    "vmap_sort": (jax.vmap(lambda v: jnp.sort(v) * 2.), (M33,)),
    "scan_where": (lambda x: lax.scan(lambda c, y: (jnp.where(y > c, y, c), None), 0., x)[0],
                   (X3,)),
    "grad_abs": (jax.grad(lambda y: jnp.sum(jnp.abs(y))), (X3,)),
    "grad_maximum": (jax.grad(lambda y: jnp.sum(jnp.maximum(y, 1.))), (X3,)),
    "grad_max": (jax.grad(jnp.max), (M33,)),
    "atleast_shared": (lambda x: jnp.atleast_1d(x, x), (X3,)),
    "long_body": (lambda x: jax.jit(lambda y: [y := jnp.sin(y) for _ in range(11)][-1])(x),
                  (X3,)),
    "custom_jvp_long_body": (_long_sin, (X3,)),  # (its shared jaxpr is named "jaxpr")
}

# the body of eleven sines both long-body cases print ahead of the jaxpr
_ELEVEN_SINS = "".join(f"    {b}:f32[3] = sin {a}\n" for a, b in zip("abcdefghijk", "bcdefghijkl")
                       ) + "  in (l,) } in\n"

# str(jax.make_jaxpr(f)(*args)) under JAX 0.10.2
RECORDED = {
    "grad_abs": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = abs a\n"
        "    c:bool[3] = ge a 0.0:f32[]\n"
        "    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n"
        "    d:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    e:f32[3] = broadcast_in_dim 0.0:f32[]\n"
        "    f:f32[3] = select_n c d e\n"
        "    g:f32[3] = select_n c e d\n"
        "    h:f32[3] = neg f\n"
        "    i:f32[3] = add_any g h\n"
        "  in (i,) }"
    ),
    "grad_maximum": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = max a 1.0:f32[]\n"
        "    c:bool[3] = eq a b\n"
        "    d:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    e:f32[3] = broadcast_in_dim 0.0:f32[]\n"
        "    f:f32[3] = select_n c e d\n"
        "    g:bool[3] = eq 1.0:f32[] b\n"
        "    h:f32[3] = broadcast_in_dim 2.0:f32[]\n"
        "    i:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    j:f32[3] = select_n g i h\n"
        "    k:f32[3] = div f j\n"
        "    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n"
        "    l:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    m:f32[3] = mul l k\n"
        "  in (m,) }"
    ),
    "grad_max": (
        "{ lambda ; a:f32[3,3]. let\n"
        "    b:f32[] = reduce_max[axes=(0, 1)] a\n"
        "    c:f32[1,1] = reshape[dimensions=None new_sizes=(1, 1) sharding=None] b\n"
        "    d:bool[3,3] = eq a c\n"
        "    e:f32[3,3] = convert_element_type[new_dtype=float32 weak_type=False] d\n"
        "    f:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] e\n"
        "    g:f32[] = div 1.0:f32[] f\n"
        "    h:f32[3,3] = broadcast_in_dim g\n"
        "    i:f32[3,3] = mul h e\n"
        "  in (i,) }"
    ),
    "dot": (
        "{ lambda ; a:f32[3,3] b:f32[3,3]. let\n"
        "    c:f32[3,3] = dot_general[\n"
        "      dimension_numbers=(([1], [0]), ([], []))\n"
        "      preferred_element_type=float32\n"
        "    ] a b\n"
        "  in (c,) }"
    ),
    "where": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:bool[3] = gt a 0.0:f32[]\n"
        "    c:f32[3] = jit[\n"
        "      name=_where\n"
        "      jaxpr={ lambda ; b:bool[3] a:f32[3] d:f32[]. let\n"
        "          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n"
        "          f:f32[3] = broadcast_in_dim e\n"
        "          c:f32[3] = select_n b f a\n"
        "        in (c,) }\n"
        "    ] b a 0.0:f32[]\n"
        "  in (c,) }"
    ),
    "grad_where": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:bool[3] = gt a 0.0:f32[]\n"
        "    c:f32[3] d:f32[3] = jit[\n"
        "      name=_where\n"
        "      jaxpr={ lambda ; b:bool[3] a:f32[3] e:f32[]. let\n"
        "          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e\n"
        "          g:f32[3] = broadcast_in_dim f\n"
        "          c:f32[3] = select_n b g a\n"
        "          d:f32[3] = broadcast_in_dim 0.0:f32[]\n"
        "        in (c, d) }\n"
        "    ] b a 0.0:f32[]\n"
        "    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n"
        "    h:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    i:f32[3] = jit[\n"
        "      name=_where\n"
        "      jaxpr={ lambda ; b:bool[3] d:f32[3] h:f32[3]. let\n"
        "          j:f32[3] = broadcast_in_dim 0.0:f32[]\n"
        "          i:f32[3] = select_n b j h\n"
        "        in (i,) }\n"
        "    ] b d h\n"
        "  in (i,) }"
    ),
    "clip": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = jit[\n"
        "      name=clip\n"
        "      jaxpr={ lambda ; a:f32[3] c:f32[] d:f32[]. let\n"
        "          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n"
        "          f:f32[3] = max e a\n"
        "          g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n"
        "          b:f32[3] = min g f\n"
        "        in (b,) }\n"
        "    ] a 0.0:f32[] 1.0:f32[]\n"
        "  in (b,) }"
    ),
    "sum": (
        "{ lambda ; a:f32[3,3]. let\n"
        "    b:f32[3] = reduce_sum[axes=(0,) out_sharding=None] a\n"
        "  in (b,) }"
    ),
    "scan": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[] c:f32[3] = scan[\n"
        "      jaxpr={ lambda ; d:f32[] e:f32[]. let\n"
        "          f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n"
        "          g:f32[] = add f e\n"
        "          h:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n"
        "          i:f32[] = mul h e\n"
        "        in (g, i) }\n"
        "      length=3\n"
        "      num_carry=1\n"
        "      num_consts=0\n"
        "      reverse=False\n"
        "      unroll=1\n"
        "    ] 0.0:f32[] a\n"
        "  in (b, c) }"
    ),
    "while": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:i32[] c:f32[3] = while[\n"
        "      body_jaxpr={ lambda ; d:i32[] e:f32[3]. let\n"
        "          f:i32[] = add d 1:i32[]\n"
        "          g:f32[3] = mul e 2.0:f32[]\n"
        "        in (f, g) }\n"
        "      body_nconsts=0\n"
        "      cond_jaxpr={ lambda ; h:i32[] i:f32[3]. let\n"
        "          j:bool[] = lt h 10:i32[]\n"
        "        in (j,) }\n"
        "      cond_nconsts=0\n"
        "    ] 0:i32[] a\n"
        "  in (b, c) }"
    ),
    "cond": (
        "{ lambda ; a:bool[] b:f32[3]. let\n"
        "    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
        "    d:f32[3] = cond[\n"
        "      branches=(\n"
        "        { lambda ; e:f32[3]. let f:f32[3] = cos e in (f,) }\n"
        "        { lambda ; g:f32[3]. let h:f32[3] = sin g in (h,) }\n"
        "      )\n"
        "    ] c b\n"
        "  in (d,) }"
    ),
    "jit": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = jit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }\n"
        "    ] a\n"
        "  in (b,) }"
    ),
    "checkpoint": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = sin a\n"
        "    c:f32[3] = sin b\n"
        "    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n"
        "    d:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    e:f32[3] = remat2[\n"
        "      differentiated=True\n"
        "      jaxpr={ lambda ; f:f32[3] g:f32[3]. let\n"
        "          h:f32[3] = sin f\n"
        "          i:f32[3] = cos f\n"
        "          j:f32[3] = cos h\n"
        "          k:f32[3] = mul g j\n"
        "          l:f32[3] = mul k i\n"
        "        in (l,) }\n"
        "      policy=None\n"
        "      prevent_cse=True\n"
        "    ] a d\n"
        "  in (e,) }"
    ),
    "cond_where": (
        "{ lambda ; a:bool[] b:f32[3]. let\n"
        "    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n"
        "    d:f32[3] = cond[\n"
        "      branches=(\n"
        "        { lambda ; e:f32[3]. let f:f32[3] = cos e in (f,) }\n"
        "        { lambda ; g:f32[3]. let\n"
        "            h:bool[3] = gt g 0.0:f32[]\n"
        "            i:f32[3] = jit[\n"
        "              name=_where\n"
        "              jaxpr={ lambda ; h:bool[3] g:f32[3] j:f32[]. let\n"
        "                  k:f32[] = convert_element_type[\n"
        "                    new_dtype=float32\n"
        "                    weak_type=False\n"
        "                  ] j\n"
        "                  l:f32[3] = broadcast_in_dim k\n"
        "                  i:f32[3] = select_n h l g\n"
        "                in (i,) }\n"
        "            ] h g 1.0:f32[]\n"
        "          in (i,) }\n"
        "      )\n"
        "    ] c b\n"
        "  in (d,) }"
    ),
    "grad_jit_fwd": (
        "{ lambda ; a:f32[]. let\n"
        "    _:f32[] b:f32[] c:f32[] = jit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; a:f32[] d:f32[]. let\n"
        "          c:f32[] = sin a\n"
        "          b:f32[] = cos a\n"
        "          _:f32[] = mul c d\n"
        "        in (_, b, c) }\n"
        "    ] a a\n"
        "    e:f32[] f:f32[] = jit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; b:f32[] a:f32[] c:f32[] g:f32[]. let\n"
        "          f:f32[] = mul c g\n"
        "          h:f32[] = mul g a\n"
        "          e:f32[] = mul h b\n"
        "        in (e, f) }\n"
        "    ] b a c 1.0:f32[]\n"
        "    i:f32[] = add_any e f\n"
        "  in (i,) }"
    ),
    "vmap_sort": (
        "{ lambda ; a:f32[3,3]. let\n"
        "    b:f32[3,3] = jit[\n"
        "      name=sort\n"
        "      jaxpr={ lambda ; a:f32[3,3]. let\n"
        "          b:f32[3,3] = sort[dimension=1 is_stable=True num_keys=1] a\n"
        "        in (b,) }\n"
        "    ] a\n"
        "    c:f32[3,3] = mul b 2.0:f32[]\n"
        "  in (c,) }"
    ),
    "scan_where": (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[] = scan[\n"
        "      jaxpr={ lambda ; c:f32[] d:f32[]. let\n"
        "          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n"
        "          f:bool[] = gt d e\n"
        "          g:f32[] = jit[\n"
        "            name=_where\n"
        "            jaxpr={ lambda ; f:bool[] d:f32[] c:f32[]. let\n"
        "                h:f32[] = convert_element_type[\n"
        "                  new_dtype=float32\n"
        "                  weak_type=False\n"
        "                ] c\n"
        "                g:f32[] = select_n f h d\n"
        "              in (g,) }\n"
        "          ] f d c\n"
        "        in (g,) }\n"
        "      length=3\n"
        "      num_carry=1\n"
        "      num_consts=0\n"
        "      reverse=False\n"
        "      unroll=1\n"
        "    ] 0.0:f32[] a\n"
        "  in (b,) }"
    ),
    "atleast_shared": (
        "{ lambda ; a:f32[3]. let\n"
        "    c:f32[3] b:f32[3] = jit[\n"
        "      name=atleast_1d\n"
        "      jaxpr={ lambda ; a:f32[3] b:f32[3]. let  in (a, b) }\n"
        "    ] a a\n"
        "  in (c, b) }"
    ),
    "custom_jvp_long_body": (
        "let jaxpr = { lambda ; a:f32[3]. let\n" + _ELEVEN_SINS +
        "{ lambda ; m:f32[3]. let\n"
        "    n:f32[3] = custom_jvp_call[\n"
        "      name=_long_sin\n"
        "      call_jaxpr=jaxpr\n"
        "      jvp=<lambda>\n"
        "      symbolic_zeros=False\n"
        "    ] m\n"
        "  in (n,) }"
    ),
    "long_body": (
        "let lambda = { lambda ; a:f32[3]. let\n" + _ELEVEN_SINS +
        "{ lambda ; m:f32[3]. let n:f32[3] = jit[name=<lambda> jaxpr=lambda] m in (n,) }"
    ),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jaxpr_text_is_jaxs(name):
  fun, args = PROGRAMS[name]
  assert str(jax.make_jaxpr(fun)(*args)) == RECORDED[name]


def test_values_through_the_nested_jit_calls_are_unchanged():
  x = np.array([-1.25, 0.25, 2.0], np.float32)
  f = lambda v: jnp.sum(jnp.clip(jnp.where(v > 0, v, 0.1 * v), -1.0, 1.5) ** 2)
  want_val = np.sum(np.clip(np.where(x > 0, x, 0.1 * x), -1.0, 1.5) ** 2)
  want_grad = np.where(x > 0, np.where(x < 1.5, 2 * x, 0.0), 0.02 * x)
  for g in (f, jax.jit(f), jax.checkpoint(f)):
    np.testing.assert_allclose(g(x), want_val, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(g)(x), want_grad, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(g))(x), want_grad, rtol=1e-6)
  y = -x
  want_y = np.where(y > 0, np.where(y < 1.5, 2 * y, 0.0), 0.02 * y)
  np.testing.assert_allclose(jax.vmap(jax.grad(f))(np.stack([x, y])),
                             np.stack([want_grad, want_y]), rtol=1e-6)
  _, t = jax.jvp(f, (x,), (np.ones(3, np.float32),))
  np.testing.assert_allclose(t, want_grad.sum(), rtol=1e-6)
  carry, _ = lax.scan(lambda c, v: (c + f(v), None), 0.0, np.stack([x, x]))
  np.testing.assert_allclose(carry, 2 * want_val, rtol=1e-6)
  np.testing.assert_allclose(lax.cond(True, f, lambda v: 0.0, x), want_val, rtol=1e-6)


def test_nested_jit_lowers_to_private_functions_as_jax():
  # JAX 0.10.2 emits func.call @_where and @clip (private functions) for these
  text = jax.jit(lambda x: jnp.clip(jnp.where(x > 0, x, 0.), 0., 1.)).lower(X3).as_text()
  assert "@_where" in text and "@clip" in text


@pytest.fixture
def jax_tracer_repr():
  jax.config.update("jax_tracer_repr", "jax")
  yield
  jax.config.update("jax_tracer_repr", "xjax")


def _seen(transform, fun, *args):
  out = []
  def probe(x):
    out.append(repr(x))
    return fun(x)
  transform(probe)(*args)
  return out[0]


def test_tracer_repr_default_is_xjaxs():
  assert _seen(jax.jit, lambda x: x, 1.0) == (
      "Traced<ShapedArray(float32[], weak_type=True)>with<DynamicJaxprTrace>")
  assert _seen(jax.vmap, lambda x: x, X3) == "Traced<ShapedArray(float32[])>with<BatchTrace>"


def test_tracer_repr_as_jax(jax_tracer_repr):
  # recorded from JAX 0.10.2
  assert _seen(jax.jit, lambda x: x, 1.0) == "JitTracer(~float32[])"
  assert _seen(jax.jit, lambda x: x, jnp.ones((2, 3))) == "JitTracer(float32[2,3])"
  assert _seen(jax.grad, lambda x: x, 1.0) == "GradTracer(primal=1.0, typeof(tangent)=f32[])"
  assert _seen(jax.vmap, lambda x: x, X3) == "VmapTracer(aval=float32[], batched=float32[3])"
  assert _seen(lambda f: lambda x: jax.jvp(f, (x,), (x,)), lambda x: x, 1.0) == (
      "JVPTracer(primal=1.0, tangent=1.0)")
  assert _seen(lambda f: jax.jit(jax.grad(f)), lambda x: x, 1.0) == (
      "GradTracer(primal=JitTracer(~float32[]), typeof(tangent)=f32[])")
  assert _seen(lambda f: jax.vmap(jax.grad(f)), lambda x: x, X3) == (
      "GradTracer(primal=VmapTracer(aval=float32[], batched=float32[3]), "
      "typeof(tangent)=f32[])")


def test_tracer_repr_option_is_checked():
  with pytest.raises(ValueError, match="jax_tracer_repr"):
    jax.config.update("jax_tracer_repr", "numpy")


CONV_RECORDED = {  # str(jax.make_jaxpr(...)) under JAX 0.10.2
    "high": (
        "{ lambda ; a:f32[1,1,2,2]. let\n    b:f32[1,1,2,2] = conv_general_dilated[\n"
        "      batch_group_count=1\n      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1,"
        " 2, 3), rhs_spec=(0, 1, 2, 3), out_spec=(0, 1, 2, 3))\n      feature_group_count=1\n"
        "      lhs_dilation=(1, 1)\n      out_sharding=None\n      padding=((0, 1), (0, 1))\n"
        "      precision=(Precision.HIGH, Precision.HIGH)\n      preferred_element_type=None\n"
        "      rhs_dilation=(1, 1)\n      window_strides=(1, 1)\n    ] a a\n  in (b,) }"),
    None: (
        "{ lambda ; a:f32[1,1,2,2]. let\n    b:f32[1,1,2,2] = conv_general_dilated[\n"
        "      batch_group_count=1\n      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1,"
        " 2, 3), rhs_spec=(0, 1, 2, 3), out_spec=(0, 1, 2, 3))\n      feature_group_count=1\n"
        "      lhs_dilation=(1, 1)\n      out_sharding=None\n      padding=((0, 1), (0, 1))\n"
        "      precision=None\n      preferred_element_type=None\n"
        "      rhs_dilation=(1, 1)\n      window_strides=(1, 1)\n    ] a a\n  in (b,) }"),
}


@pytest.mark.parametrize("precision", ["high", None])
def test_conv_prints_precision_pair_and_out_sharding(precision):
  fun = lambda x: lax.conv(x, x, (1, 1), "SAME", precision=precision)
  assert str(jax.make_jaxpr(fun)(jnp.ones((1, 1, 2, 2)))) == CONV_RECORDED[precision]


@pytest.mark.parametrize("default, shown", [
    ("tensorfloat32", "(Precision.HIGH, Precision.HIGH)"),
    ("float32", "(Precision.HIGHEST, Precision.HIGHEST)"),
    ("BF16_BF16_F32", "BF16_BF16_F32"),
])
def test_default_matmul_precision_fills_an_unset_precision(default, shown):
  """As JAX: ``jax.default_matmul_precision`` is the precision of products given none; an
  explicit one wins; it reaches the lowered module."""
  with jax.default_matmul_precision(default):
    text = str(jax.make_jaxpr(lambda a: a @ a)(M33))
    explicit = jax.make_jaxpr(lambda a: jnp.dot(a, a, precision="default"))(M33)
  assert (f"      precision={shown}\n") in text
  assert "Precision.DEFAULT, Precision.DEFAULT" in str(explicit)
  assert "precision" not in str(jax.make_jaxpr(lambda a: a @ a)(M33))
  f = jax.jit(lambda a: a @ a)
  with jax.default_matmul_precision("float32"):
    assert "precision HIGHEST" in f.lower(M33).as_text()
    np.testing.assert_array_equal(f(M33), np.full((3, 3), 3.0))
  assert "precision HIGHEST" not in f.lower(M33).as_text()


M34 = jnp.ones((3, 4))
I2 = jnp.array([2, -1])
INDEXING = {  # x[idx] of M34 with the index array I2
    "index_array": lambda x, i: x[i],
    "index_array_cols": lambda x, i: x[:, i],
    "index_slice_array": lambda x, i: x[1:, i],
    "index_strided_array": lambda x, i: x[::2, i],
    "index_two_arrays": lambda x, i: x[i, i],
    "index_array_none": lambda x, i: x[None, i],
}

# str(jax.make_jaxpr(f)(M34, I2)) under JAX 0.10.2: a gather with the int, slice and
# array entries' starts (negative ones wrapped), promising in-bounds indices
INDEXING_RECORDED = {
    'index_array': (
        '{ lambda ; a:f32[3,4] b:i32[2]. let\n'
        '    c:bool[2] = lt b 0:i32[]\n'
        '    d:i32[2] = add b 3:i32[]\n'
        '    e:i32[2] = select_n c b d\n'
        '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[2,4] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 4)\n'
        '      unique_indices=False\n'
        '    ] a f\n'
        '  in (g,) }'
    ),
    'index_array_cols': (
        '{ lambda ; a:f32[3,4] b:i32[2]. let\n'
        '    c:bool[2] = lt b 0:i32[]\n'
        '    d:i32[2] = add b 4:i32[]\n'
        '    e:i32[2] = select_n c b d\n'
        '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[3,2] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(1,), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(3, 1)\n'
        '      unique_indices=False\n'
        '    ] a f\n'
        '  in (g,) }'
    ),
    'index_slice_array': (
        '{ lambda ; a:f32[3,4] b:i32[2]. let\n'
        '    c:bool[2] = lt b 0:i32[]\n'
        '    d:i32[2] = add b 4:i32[]\n'
        '    e:i32[2] = select_n c b d\n'
        '    f:i32[2,1] = broadcast_in_dim 1:i32[]\n'
        '    g:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    h:i32[2,2] = concatenate[dimension=1] f g\n'
        '    i:f32[2,2] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(0, 1), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(2, 1)\n'
        '      unique_indices=False\n'
        '    ] a h\n'
        '  in (i,) }'
    ),
    'index_strided_array': (
        '{ lambda ; a:f32[3,4] b:i32[2]. let\n'
        '    c:bool[2] = lt b 0:i32[]\n'
        '    d:i32[2] = add b 4:i32[]\n'
        '    e:i32[2] = select_n c b d\n'
        '    f:i32[2] = iota[dimension=0 dtype=int32 shape=(2,) sharding=None] \n'
        '    g:i32[2] = mul 2:i32[] f\n'
        '    h:i32[2] = add 0:i32[] g\n'
        '    i:i32[2,2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] h\n'
        '    j:i32[2,2,1] = broadcast_in_dim[broadcast_dimensions=(1,)] e\n'
        '    k:i32[2,2,2] = concatenate[dimension=2] i j\n'
        '    l:f32[2,2] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 1)\n'
        '      unique_indices=False\n'
        '    ] a k\n'
        '  in (l,) }'
    ),
    'index_two_arrays': (
        '{ lambda ; a:f32[3,4] b:i32[2]. let\n'
        '    c:bool[2] = lt b 0:i32[]\n'
        '    d:i32[2] = add b 3:i32[]\n'
        '    e:i32[2] = select_n c b d\n'
        '    f:bool[2] = lt b 0:i32[]\n'
        '    g:i32[2] = add b 4:i32[]\n'
        '    h:i32[2] = select_n f b g\n'
        '    i:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    j:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] h\n'
        '    k:i32[2,2] = concatenate[dimension=1] i j\n'
        '    l:f32[2] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 1)\n'
        '      unique_indices=False\n'
        '    ] a k\n'
        '  in (l,) }'
    ),
    'index_array_none': (
        '{ lambda ; a:f32[3,4] b:i32[2]. let\n'
        '    c:bool[2] = lt b 0:i32[]\n'
        '    d:i32[2] = add b 3:i32[]\n'
        '    e:i32[2] = select_n c b d\n'
        '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[2,4] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '      fill_value=None\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n'
        '      slice_sizes=(1, 4)\n'
        '      unique_indices=False\n'
        '    ] a f\n'
        '    h:f32[1,2,4] = broadcast_in_dim[broadcast_dimensions=(1, 2)] g\n'
        '  in (h,) }'
    ),
}


@pytest.mark.parametrize("name", sorted(INDEXING))
def test_indexing_jaxpr_text_is_jaxs(name):
  assert str(jax.make_jaxpr(INDEXING[name])(M34, I2)) == INDEXING_RECORDED[name]


X23 = jnp.arange(6.0).reshape(2, 3)
X23_PROGRAMS = {  # one-argument programs of X23
    "at_set_add_mul": lambda x: x.at[0, 1].set(5.).at[:, 1].add(5.).at[0].multiply(2.),
    "at_add_twice_min": lambda x: x.at[:, 1].add(5.).at[0].add(2.).at[1].min(0.),
    "take": lambda x: jnp.take(x, jnp.array([0, 1]), axis=1),
    "take_flat_clip": lambda x: jnp.take(x, 4, mode='clip'),
    "get_fill": lambda x: x.at[jnp.array([0, 5])].get(mode='fill', fill_value=3),
    "softmax": jax.nn.softmax,
    "slice_in_dim": lambda x: lax.slice_in_dim(x, 0, 1, axis=1),
    "diff": jnp.diff,
    "relu": jax.nn.relu,
    "pad": lambda x: jnp.pad(x, ((1, 1), (0, 2)), constant_values=2.),
    "dot_int": lambda x: jnp.dot(x, jnp.ones((3,), jnp.int32)),
    "dot_scalar": lambda x: jnp.dot(x, 2),
    "matmul_f16": lambda x: x @ jnp.ones((3, 2), jnp.float16),
    "einsum_int": lambda x: jnp.einsum('ij,kj->ik', x, jnp.ones((2, 3), jnp.int32)),
    "inner_int": lambda x: jnp.inner(x, jnp.ones((3,), jnp.int32)),
    "triu": lambda x: jnp.triu(x, 1),
    "tril": lambda x: jnp.tril(x),
    "trace_offset": lambda x: jnp.trace(x, 1),
    "diag_vector": lambda x: jnp.diag(x[0], -1),
    "outer": lambda x: jnp.outer(x[0] > 1, x[1]),
    "split": lambda x: jnp.split(x, 3, axis=1),
    "one_hot": lambda x: jax.nn.one_hot(jnp.array([0, 2]), 3),
    "standardize": lambda x: jax.nn.standardize(x),
    "meshgrid": lambda x: jnp.meshgrid(x[0], x[1][:2]),
    "fft": lambda x: jnp.fft.fft(x),
    "broadcast_to": lambda x: jnp.broadcast_to(x[:, :1], (2, 3)),
    "linspace": lambda x: jnp.linspace(0., 1., 5) + x[0, 0],
    "linspace_axis": lambda x: jnp.linspace(x[0], x[1], 4, axis=1, endpoint=False),
    "floor_divide": lambda x: x // 2.,
    "mod": lambda x: x % 2.,
    "divmod_int": lambda x: jnp.divmod(x.astype(int), 2),
    "remainder_rank": lambda x: jnp.remainder(x, x[0]),
}

# str(jax.make_jaxpr(f)(X23)) under JAX 0.10.2
X23_RECORDED = {
    'at_set_add_mul': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:i32[1] = broadcast_in_dim 0:i32[]\n'
        '    c:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    d:i32[2] = concatenate[dimension=0] b c\n'
        '    e:f32[2,3] = scatter[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0, 1), scatter_dims_to_operand_dims=(0, 1), operand_batching_dims=(), scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=None\n'
        '    ] a d 5.0:f32[]\n'
        '    f:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    g:f32[2] = broadcast_in_dim 5.0:f32[]\n'
        '    h:f32[2,3] = scatter-add[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), operand_batching_dims=(), scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr={ lambda ; i:f32[] j:f32[]. let k:f32[] = add i j in (k,) }\n'
        '    ] e f g\n'
        '    l:i32[1] = broadcast_in_dim 0:i32[]\n'
        '    m:f32[3] = broadcast_in_dim 2.0:f32[]\n'
        '    n:f32[2,3] = scatter-mul[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr={ lambda ; o:f32[] p:f32[]. let q:f32[] = mul o p in (q,) }\n'
        '    ] h l m\n'
        '  in (n,) }'
    ),
    'at_add_twice_min': (
        'let jaxpr = { lambda ; a:f32[] b:f32[]. let c:f32[] = add a b in (c,) } in\n'
        '{ lambda ; d:f32[2,3]. let\n'
        '    e:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    f:f32[2] = broadcast_in_dim 5.0:f32[]\n'
        '    g:f32[2,3] = scatter-add[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,), operand_batching_dims=(), scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=jaxpr\n'
        '    ] d e f\n'
        '    h:i32[1] = broadcast_in_dim 0:i32[]\n'
        '    i:f32[3] = broadcast_in_dim 2.0:f32[]\n'
        '    j:f32[2,3] = scatter-add[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr=jaxpr\n'
        '    ] g h i\n'
        '    k:i32[1] = broadcast_in_dim 1:i32[]\n'
        '    l:f32[3] = broadcast_in_dim 0.0:f32[]\n'
        '    m:f32[2,3] = scatter-min[\n'
        '      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())\n'
        '      indices_are_sorted=True\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      unique_indices=True\n'
        '      update_consts=()\n'
        '      update_jaxpr={ lambda ; n:f32[] o:f32[]. let p:f32[] = min n o in (p,) }\n'
        '    ] j k l\n'
        '  in (m,) }'
    ),
    'take': (
        '{ lambda a:i32[2]; b:f32[2,3]. let\n'
        '    c:f32[2,2] = jit[\n'
        '      name=_take\n'
        '      jaxpr={ lambda ; b:f32[2,3] a:i32[2]. let\n'
        '          d:bool[2] = lt a 0:i32[]\n'
        '          e:i32[2] = add a 3:i32[]\n'
        '          f:i32[2] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; d:bool[2] e:i32[2] a:i32[2]. let\n'
        '                f:i32[2] = select_n d a e\n'
        '              in (f,) }\n'
        '          ] d e a\n'
        '          g:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n'
        '          c:f32[2,2] = gather[\n'
        '            dimension_numbers=GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(1,), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '            fill_value=nan\n'
        '            indices_are_sorted=False\n'
        '            mode=GatherScatterMode.FILL_OR_DROP\n'
        '            slice_sizes=(2, 1)\n'
        '            unique_indices=False\n'
        '          ] b g\n'
        '        in (c,) }\n'
        '    ] b a\n'
        '  in (c,) }'
    ),
    'take_flat_clip': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[] = jit[\n'
        '      name=_take\n'
        '      jaxpr={ lambda ; a:f32[2,3] c:i32[]. let\n'
        '          d:f32[6] = reshape[dimensions=None new_sizes=(6,) sharding=None] a\n'
        '          e:i32[1] = broadcast_in_dim c\n'
        '          b:f32[] = gather[\n'
        '            dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '            fill_value=None\n'
        '            indices_are_sorted=False\n'
        '            mode=GatherScatterMode.CLIP\n'
        '            slice_sizes=(1,)\n'
        '            unique_indices=False\n'
        '          ] d e\n'
        '        in (b,) }\n'
        '    ] a 4:i32[]\n'
        '  in (b,) }'
    ),
    'get_fill': (
        '{ lambda a:i32[2]; b:f32[2,3]. let\n'
        '    c:bool[2] = lt a 0:i32[]\n'
        '    d:i32[2] = add a 2:i32[]\n'
        '    e:i32[2] = select_n c a d\n'
        '    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '    g:f32[2,3] = gather[\n'
        '      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())\n'
        '      fill_value=3\n'
        '      indices_are_sorted=False\n'
        '      mode=GatherScatterMode.FILL_OR_DROP\n'
        '      slice_sizes=(1, 3)\n'
        '      unique_indices=False\n'
        '    ] b f\n'
        '  in (g,) }'
    ),
    'softmax': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2] = reduce_max[axes=(1,)] a\n'
        '    c:f32[2] = max -inf:f32[] b\n'
        '    d:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c\n'
        '    e:f32[2,1] = stop_gradient d\n'
        '    f:f32[2,3] = sub a e\n'
        '    g:f32[2,3] = exp f\n'
        '    h:f32[2] = reduce_sum[axes=(1,) out_sharding=None] g\n'
        '    i:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] h\n'
        '    j:f32[2,3] = div g i\n'
        '  in (j,) }'
    ),
    'slice_in_dim': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,1] = slice[limit_indices=(2, 1) start_indices=(0, 0) strides=(1, 1)] a\n'
        '  in (b,) }'
    ),
    'diff': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,2] = jit[\n'
        '      name=diff\n'
        '      jaxpr={ lambda ; a:f32[2,3]. let\n'
        '          c:f32[2,2] = slice[\n'
        '            limit_indices=(2, 3)\n'
        '            start_indices=(0, 1)\n'
        '            strides=None\n'
        '          ] a\n'
        '          d:f32[2,2] = slice[\n'
        '            limit_indices=(2, 2)\n'
        '            start_indices=(0, 0)\n'
        '            strides=None\n'
        '          ] a\n'
        '          b:f32[2,2] = sub c d\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'relu': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = custom_jvp_call[\n'
        '      name=relu\n'
        '      call_jaxpr={ lambda ; c:f32[2,3]. let\n'
        '          d:f32[2,3] = jit[\n'
        '            name=relu\n'
        '            jaxpr={ lambda ; c:f32[2,3]. let\n'
        '                d:f32[2,3] = max c 0.0:f32[]\n'
        '              in (d,) }\n'
        '          ] c\n'
        '        in (d,) }\n'
        '      jvp=jvp\n'
        '      symbolic_zeros=False\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'pad': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[4,5] = jit[\n'
        '      name=_pad\n'
        '      jaxpr={ lambda ; a:f32[2,3] c:f32[]. let\n'
        '          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '          b:f32[4,5] = pad[\n'
        '            padding_config=((np.int64(1), np.int64(1), 0), (np.int64(0), np.int64(2), 0))\n'
        '          ] a d\n'
        '        in (b,) }\n'
        '    ] a 2.0:f32[]\n'
        '  in (b,) }'
    ),
    'dot_int': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:i32[3] = broadcast_in_dim 1:i32[]\n'
        '    c:f32[2] = dot_general[\n'
        '      dimension_numbers=(([1], [0]), ([], []))\n'
        '      preferred_element_type=float32\n'
        '    ] a b\n'
        '  in (c,) }'
    ),
    'dot_scalar': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = dot_general[\n'
        '      dimension_numbers=(([], []), ([], []))\n'
        '      preferred_element_type=float32\n'
        '    ] a 2:i32[]\n'
        '  in (b,) }'
    ),
    'matmul_f16': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f16[3,2] = broadcast_in_dim 1.0:f16[]\n'
        '    c:f32[2,2] = dot_general[\n'
        '      dimension_numbers=(([1], [0]), ([], []))\n'
        '      preferred_element_type=float32\n'
        '    ] a b\n'
        '  in (c,) }'
    ),
    'einsum_int': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:i32[2,3] = broadcast_in_dim 1:i32[]\n'
        '    c:f32[2,2] = dot_general[\n'
        '      dimension_numbers=(([1], [1]), ([], []))\n'
        '      preferred_element_type=float32\n'
        '    ] a b\n'
        '  in (c,) }'
    ),
    'inner_int': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:i32[3] = broadcast_in_dim 1:i32[]\n'
        '    c:f32[2] = dot_general[\n'
        '      dimension_numbers=(([1], [0]), ([], []))\n'
        '      preferred_element_type=float32\n'
        '    ] a b\n'
        '  in (c,) }'
    ),
    'triu': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=triu\n'
        '      jaxpr={ lambda ; a:f32[2,3]. let\n'
        '          c:i32[2,3] = iota[dimension=0 dtype=int32 shape=(2, 3) sharding=None] \n'
        '          d:i32[2,3] = add c 0:i32[]\n'
        '          e:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) sharding=None] \n'
        '          f:bool[2,3] = ge d e\n'
        '          g:f32[2,3] = broadcast_in_dim 0.0:f32[]\n'
        '          b:f32[2,3] = select_n f a g\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'tril': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=tril\n'
        '      jaxpr={ lambda ; a:f32[2,3]. let\n'
        '          c:i32[2,3] = iota[dimension=0 dtype=int32 shape=(2, 3) sharding=None] \n'
        '          d:i32[2,3] = add c 0:i32[]\n'
        '          e:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) sharding=None] \n'
        '          f:bool[2,3] = ge d e\n'
        '          g:f32[2,3] = broadcast_in_dim 0.0:f32[]\n'
        '          b:f32[2,3] = select_n f g a\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'trace_offset': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[] = jit[\n'
        '      name=trace\n'
        '      jaxpr={ lambda ; a:f32[2,3] c:i32[]. let\n'
        '          d:i32[2,3] = iota[dimension=0 dtype=int32 shape=(2, 3) sharding=None] \n'
        '          e:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) sharding=None] \n'
        '          f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] c\n'
        '          g:i32[2,3] = add d f\n'
        '          h:bool[2,3] = eq g e\n'
        '          i:f32[2,3] = broadcast_in_dim 0.0:f32[]\n'
        '          j:f32[2,3] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; h:bool[2,3] a:f32[2,3] i:f32[2,3]. let\n'
        '                j:f32[2,3] = select_n h i a\n'
        '              in (j,) }\n'
        '          ] h a i\n'
        '          b:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] j\n'
        '        in (b,) }\n'
        '    ] a 1:i32[]\n'
        '  in (b,) }'
    ),
    'diag_vector': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n'
        '    c:f32[3] = squeeze[dimensions=(0,)] b\n'
        '    d:f32[4,4] = jit[\n'
        '      name=_diag\n'
        '      jaxpr={ lambda ; c:f32[3]. let\n'
        '          e:f32[4] = pad[padding_config=((1, 0, 0),)] c 0.0:f32[]\n'
        '          f:i32[4,4] = iota[dimension=0 dtype=int32 shape=(4, 4) sharding=None] \n'
        '          g:i32[4,4] = iota[dimension=1 dtype=int32 shape=(4, 4) sharding=None] \n'
        '          h:i32[4,4] = add f -1:i32[]\n'
        '          i:bool[4,4] = eq h g\n'
        '          j:f32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n'
        '          d:f32[4,4] = jit[\n'
        '            name=_where\n'
        '            jaxpr={ lambda ; i:bool[4,4] j:f32[4,1] k:f32[]. let\n'
        '                l:f32[4,4] = broadcast_in_dim[broadcast_dimensions=(0, 1)] j\n'
        '                m:f32[4,4] = broadcast_in_dim k\n'
        '                d:f32[4,4] = select_n i m l\n'
        '              in (d,) }\n'
        '          ] i j 0.0:f32[]\n'
        '        in (d,) }\n'
        '    ] c\n'
        '  in (d,) }'
    ),
    'outer': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n'
        '    c:f32[3] = squeeze[dimensions=(0,)] b\n'
        '    d:bool[3] = gt c 1.0:f32[]\n'
        '    e:f32[1,3] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=None] a\n'
        '    f:f32[3] = squeeze[dimensions=(0,)] e\n'
        '    g:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] d\n'
        '    h:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] g\n'
        '    i:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] f\n'
        '    j:f32[3,3] = mul h i\n'
        '  in (j,) }'
    ),
    'split': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,1] c:f32[2,1] d:f32[2,1] = split[\n'
        '      axis=1\n'
        '      sizes=(np.int64(1), np.int64(1), np.int64(1))\n'
        '    ] a\n'
        '  in (b, c, d) }'
    ),
    'one_hot': (
        '{ lambda a:i32[2]; b:f32[2,3]. let\n'
        '    c:f32[2,3] = jit[\n'
        '      name=_one_hot\n'
        '      jaxpr={ lambda ; a:i32[2]. let\n'
        '          d:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n'
        '          e:i32[1,3] = iota[dimension=1 dtype=int32 shape=(1, 3) sharding=None] \n'
        '          f:bool[2,3] = eq d e\n'
        '          c:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] f\n'
        '        in (c,) }\n'
        '    ] a\n'
        '  in (c,) }'
    ),
    'standardize': (
        'let standardize = { lambda ; a:f32[2,3]. let\n'
        '    b:f32[2] = reduce_sum[axes=(1,) out_sharding=None] a\n'
        '    c:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] b\n'
        '    d:f32[2,1] = div c 3.0:f32[]\n'
        '    e:f32[2,3] = square a\n'
        '    f:f32[2] = reduce_sum[axes=(1,) out_sharding=None] e\n'
        '    g:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n'
        '    h:f32[2,1] = div g 3.0:f32[]\n'
        '    i:f32[2,1] = square d\n'
        '    j:f32[2,1] = sub h i\n'
        '    k:f32[2,1] = jit[\n'
        '      name=clip\n'
        '      jaxpr={ lambda ; j:f32[2,1] l:i32[]. let\n'
        '          m:f32[] = convert_element_type[new_dtype=float32 weak_type=False] l\n'
        '          k:f32[2,1] = max m j\n'
        '        in (k,) }\n'
        '    ] j 0:i32[]\n'
        '    n:f32[2,3] = sub a d\n'
        '    o:f32[2,1] = add k 9.999999747378752e-06:f32[]\n'
        '    p:f32[2,1] = rsqrt o\n'
        '    q:f32[2,3] = mul n p\n'
        '  in (q,) } in\n'
        '{ lambda ; r:f32[2,3]. let\n'
        '    s:f32[2,3] = jit[name=standardize jaxpr=standardize] r\n'
        '  in (s,) }'
    ),
    'meshgrid': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n'
        '    c:f32[3] = squeeze[dimensions=(0,)] b\n'
        '    d:f32[1,3] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=None] a\n'
        '    e:f32[3] = squeeze[dimensions=(0,)] d\n'
        '    f:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=None] e\n'
        '    g:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(0,)] f\n'
        '    h:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n'
        '  in (h, g) }'
    ),
    'fft': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:c64[2,3] = jit[\n'
        '      name=fft\n'
        '      jaxpr={ lambda ; a:f32[2,3]. let\n'
        '          c:c64[2,3] = convert_element_type[new_dtype=complex64 weak_type=False] a\n'
        '          b:c64[2,3] = fft[fft_lengths=(3,) fft_type=0] c\n'
        '        in (b,) }\n'
        '    ] a\n'
        '  in (b,) }'
    ),
    'broadcast_to': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,1] = slice[limit_indices=(2, 1) start_indices=(0, 0) strides=None] a\n'
        '    c:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(0, 1)] b\n'
        '  in (c,) }'
    ),
    'linspace': (
        'let _linspace = { lambda ; a:f32[] b:f32[]. let\n'
        '    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] a\n'
        '    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
        '    e:f32[] = sub d c\n'
        '    f:f32[] = div e 4.0:f32[]\n'
        '    g:f32[4] = iota[dimension=0 dtype=float32 shape=(4,) sharding=None] \n'
        '    h:f32[4] = div g 4.0:f32[]\n'
        '    i:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] c\n'
        '    j:f32[4] = sub 1.0:f32[] h\n'
        '    k:f32[4] = mul i j\n'
        '    l:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] d\n'
        '    m:f32[4] = mul l h\n'
        '    n:f32[4] = add k m\n'
        '    o:f32[1] = broadcast_in_dim d\n'
        '    p:f32[5] = concatenate[dimension=0] n o\n'
        '  in (p,) } in\n'
        '{ lambda ; q:f32[2,3]. let\n'
        '    r:f32[5] = jit[name=_linspace jaxpr=_linspace] 0.0:f32[] 1.0:f32[]\n'
        '    s:f32[1,1] = slice[limit_indices=(1, 1) start_indices=(0, 0) strides=None] q\n'
        '    t:f32[] = squeeze[dimensions=(0, 1)] s\n'
        '    u:f32[5] = add r t\n'
        '  in (u,) }'
    ),
    'linspace_axis': (
        'let _linspace = { lambda ; a:f32[3] b:f32[3]. let\n'
        '    c:f32[3] = sub b a\n'
        '    d:f32[3] = div c 4.0:f32[]\n'
        '    e:f32[4] = iota[dimension=0 dtype=float32 shape=(4,) sharding=None] \n'
        '    f:f32[1,4] = reshape[dimensions=None new_sizes=(1, 4) sharding=None] e\n'
        '    g:f32[1,4] = div f 4.0:f32[]\n'
        '    h:f32[3,1] = reshape[dimensions=None new_sizes=(3, 1) sharding=None] a\n'
        '    i:f32[1,4] = sub 1.0:f32[] g\n'
        '    j:f32[3,4] = mul h i\n'
        '    k:f32[3,1] = reshape[dimensions=None new_sizes=(3, 1) sharding=None] b\n'
        '    l:f32[3,4] = mul k g\n'
        '    m:f32[3,4] = add j l\n'
        '  in (m,) } in\n'
        '{ lambda ; n:f32[2,3]. let\n'
        '    o:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] n\n'
        '    p:f32[3] = squeeze[dimensions=(0,)] o\n'
        '    q:f32[1,3] = slice[limit_indices=(2, 3) start_indices=(1, 0) strides=None] n\n'
        '    r:f32[3] = squeeze[dimensions=(0,)] q\n'
        '    s:f32[3,4] = jit[name=_linspace jaxpr=_linspace] p r\n'
        '  in (s,) }'
    ),
    'floor_divide': (
        'let floor_divide = { lambda ; a:f32[2,3] b:f32[]. let\n'
        '    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b\n'
        '    d:f32[2,3] = rem a c\n'
        '    e:bool[] = eq c 0.0:f32[]\n'
        '    f:f32[2,3] = sub a d\n'
        '    g:f32[2,3] = jit[\n'
        '      name=_where\n'
        '      jaxpr={ lambda ; e:bool[] a:f32[2,3] f:f32[2,3]. let\n'
        '          g:f32[2,3] = select_n e f a\n'
        '        in (g,) }\n'
        '    ] e a f\n'
        '    h:f32[2,3] = div g c\n'
        '    i:bool[2,3] = ne d 0.0:f32[]\n'
        '    j:f32[] = sign c\n'
        '    k:f32[2,3] = sign d\n'
        '    l:bool[2,3] = ne j k\n'
        '    m:bool[2,3] = and i l\n'
        '    n:f32[2,3] = add d c\n'
        '    o:f32[2,3] = select_n m d n\n'
        '    p:f32[2,3] = sub h 1.0:f32[]\n'
        '    q:f32[2,3] = select_n m h p\n'
        '    r:f32[2,3] = round[rounding_method=0] q\n'
        '  in (r,) } in\n'
        '{ lambda ; s:f32[2,3]. let\n'
        '    t:f32[2,3] = jit[name=floor_divide jaxpr=floor_divide] s 2.0:f32[]\n'
        '  in (t,) }'
    ),
    'mod': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[2,3] = jit[\n'
        '      name=remainder\n'
        '      jaxpr={ lambda ; a:f32[2,3] c:f32[]. let\n'
        '          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n'
        '          e:f32[2,3] = rem a d\n'
        '          f:bool[2,3] = ne e 0.0:f32[]\n'
        '          g:bool[2,3] = lt e 0.0:f32[]\n'
        '          h:bool[] = lt d 0.0:f32[]\n'
        '          i:bool[2,3] = ne g h\n'
        '          j:bool[2,3] = and i f\n'
        '          k:f32[2,3] = add e d\n'
        '          b:f32[2,3] = select_n j e k\n'
        '        in (b,) }\n'
        '    ] a 2.0:f32[]\n'
        '  in (b,) }'
    ),
    'divmod_int': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:i32[2,3] = convert_element_type[new_dtype=int32 weak_type=False] a\n'
        '    c:i32[2,3] d:i32[2,3] = jit[\n'
        '      name=divmod\n'
        '      jaxpr={ lambda ; b:i32[2,3] e:i32[]. let\n'
        '          f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e\n'
        '          c:i32[2,3] = jit[\n'
        '            name=floor_divide\n'
        '            jaxpr={ lambda ; b:i32[2,3] f:i32[]. let\n'
        '                g:i32[2,3] = div b f\n'
        '                h:i32[2,3] = sign b\n'
        '                i:i32[] = sign f\n'
        '                j:bool[2,3] = ne h i\n'
        '                k:i32[2,3] = rem b f\n'
        '                l:bool[2,3] = ne k 0:i32[]\n'
        '                m:bool[2,3] = and j l\n'
        '                n:i32[2,3] = sub g 1:i32[]\n'
        '                c:i32[2,3] = jit[\n'
        '                  name=_where\n'
        '                  jaxpr={ lambda ; m:bool[2,3] n:i32[2,3] g:i32[2,3]. let\n'
        '                      c:i32[2,3] = select_n m g n\n'
        '                    in (c,) }\n'
        '                ] m n g\n'
        '              in (c,) }\n'
        '          ] b f\n'
        '          d:i32[2,3] = jit[\n'
        '            name=remainder\n'
        '            jaxpr={ lambda ; b:i32[2,3] f:i32[]. let\n'
        '                o:bool[] = eq f 0:i32[]\n'
        '                p:i32[] = jit[\n'
        '                  name=_where\n'
        '                  jaxpr={ lambda ; o:bool[] q:i32[] f:i32[]. let\n'
        '                      p:i32[] = select_n o f q\n'
        '                    in (p,) }\n'
        '                ] o 1:i32[] f\n'
        '                r:i32[2,3] = rem b p\n'
        '                s:bool[2,3] = ne r 0:i32[]\n'
        '                t:bool[2,3] = lt r 0:i32[]\n'
        '                u:bool[] = lt p 0:i32[]\n'
        '                v:bool[2,3] = ne t u\n'
        '                w:bool[2,3] = and v s\n'
        '                x:i32[2,3] = add r p\n'
        '                d:i32[2,3] = select_n w r x\n'
        '              in (d,) }\n'
        '          ] b f\n'
        '        in (c, d) }\n'
        '    ] b 2:i32[]\n'
        '  in (c, d) }'
    ),
    'remainder_rank': (
        '{ lambda ; a:f32[2,3]. let\n'
        '    b:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n'
        '    c:f32[3] = squeeze[dimensions=(0,)] b\n'
        '    d:f32[2,3] = jit[\n'
        '      name=remainder\n'
        '      jaxpr={ lambda ; a:f32[2,3] c:f32[3]. let\n'
        '          e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n'
        '          f:f32[2,3] = rem a e\n'
        '          g:bool[2,3] = ne f 0.0:f32[]\n'
        '          h:bool[2,3] = lt f 0.0:f32[]\n'
        '          i:bool[1,3] = lt e 0.0:f32[]\n'
        '          j:bool[2,3] = ne h i\n'
        '          k:bool[2,3] = and j g\n'
        '          l:f32[2,3] = add f e\n'
        '          d:f32[2,3] = select_n k f l\n'
        '        in (d,) }\n'
        '    ] a c\n'
        '  in (d,) }'
    ),
}


@pytest.mark.parametrize("name", sorted(X23_PROGRAMS))
def test_program_jaxpr_text_is_jaxs(name):
  assert str(jax.make_jaxpr(X23_PROGRAMS[name])(X23)) == X23_RECORDED[name]


SCALAR_INDEXING = {  # f(M34, i), i a scalar of the given type (JAX: a dynamic_slice)
    "scalar_index": (lambda x, i: x[i], jnp.array(1)),
    "scalar_index_cols": (lambda x, i: x[:, i], jnp.array(1)),
    "scalar_index_twice_rev": (lambda x, i: x[None, i, ::-1][:, i], jnp.array(1)),
    "scalar_index_unsigned": (lambda x, i: x[i, 1:], jnp.array(1, jnp.uint32)),
    "static_out_of_bounds": (lambda x, i: x[5, i], jnp.array(1, jnp.int8)),
    "get_clip": (lambda x, i: x.at[1].get(mode='clip') + i, jnp.float32(1)),
}

# str(jax.make_jaxpr(f)(M34, i)) under JAX 0.10.2
SCALAR_INDEXING_RECORDED = {
    'scalar_index': (
        '{ lambda ; a:f32[3,4] b:i32[]. let\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    d:bool[] = lt c 0:i32[]\n'
        '    e:i32[] = add c 3:i32[]\n'
        '    f:i32[] = select_n d c e\n'
        '    g:bool[] = lt 0:i32[] 0:i32[]\n'
        '    h:i32[] = add 0:i32[] 4:i32[]\n'
        '    i:i32[] = select_n g 0:i32[] h\n'
        '    j:f32[1,4] = dynamic_slice[slice_sizes=(1, 4)] a f i\n'
        '    k:f32[4] = squeeze[dimensions=(0,)] j\n'
        '  in (k,) }'
    ),
    'scalar_index_cols': (
        '{ lambda ; a:f32[3,4] b:i32[]. let\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    d:bool[] = lt 0:i32[] 0:i32[]\n'
        '    e:i32[] = add 0:i32[] 3:i32[]\n'
        '    f:i32[] = select_n d 0:i32[] e\n'
        '    g:bool[] = lt c 0:i32[]\n'
        '    h:i32[] = add c 4:i32[]\n'
        '    i:i32[] = select_n g c h\n'
        '    j:f32[3,1] = dynamic_slice[slice_sizes=(3, 1)] a f i\n'
        '    k:f32[3] = squeeze[dimensions=(1,)] j\n'
        '  in (k,) }'
    ),
    'scalar_index_twice_rev': (
        '{ lambda ; a:f32[3,4] b:i32[]. let\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    d:bool[] = lt c 0:i32[]\n'
        '    e:i32[] = add c 3:i32[]\n'
        '    f:i32[] = select_n d c e\n'
        '    g:bool[] = lt 0:i32[] 0:i32[]\n'
        '    h:i32[] = add 0:i32[] 4:i32[]\n'
        '    i:i32[] = select_n g 0:i32[] h\n'
        '    j:f32[1,4] = dynamic_slice[slice_sizes=(1, 4)] a f i\n'
        '    k:f32[1,4] = rev[dimensions=(1,)] j\n'
        '    l:f32[4] = squeeze[dimensions=(0,)] k\n'
        '    m:f32[1,4] = broadcast_in_dim[broadcast_dimensions=(1,)] l\n'
        '    n:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    o:bool[] = lt 0:i32[] 0:i32[]\n'
        '    p:i32[] = add 0:i32[] 1:i32[]\n'
        '    q:i32[] = select_n o 0:i32[] p\n'
        '    r:bool[] = lt n 0:i32[]\n'
        '    s:i32[] = add n 4:i32[]\n'
        '    t:i32[] = select_n r n s\n'
        '    u:f32[1,1] = dynamic_slice[slice_sizes=(1, 1)] m q t\n'
        '    v:f32[1] = squeeze[dimensions=(1,)] u\n'
        '  in (v,) }'
    ),
    'scalar_index_unsigned': (
        '{ lambda ; a:f32[3,4] b:u32[]. let\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    d:bool[] = lt c 0:i32[]\n'
        '    e:i32[] = add c 3:i32[]\n'
        '    f:i32[] = select_n d c e\n'
        '    g:bool[] = lt 1:i32[] 0:i32[]\n'
        '    h:i32[] = add 1:i32[] 4:i32[]\n'
        '    i:i32[] = select_n g 1:i32[] h\n'
        '    j:f32[1,3] = dynamic_slice[slice_sizes=(1, 3)] a f i\n'
        '    k:f32[3] = squeeze[dimensions=(0,)] j\n'
        '  in (k,) }'
    ),
    'static_out_of_bounds': (
        '{ lambda ; a:f32[3,4] b:i8[]. let\n'
        '    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n'
        '    d:bool[] = lt 5:i32[] 0:i32[]\n'
        '    e:i32[] = add 5:i32[] 3:i32[]\n'
        '    f:i32[] = select_n d 5:i32[] e\n'
        '    g:bool[] = lt c 0:i32[]\n'
        '    h:i32[] = add c 4:i32[]\n'
        '    i:i32[] = select_n g c h\n'
        '    j:f32[1,1] = dynamic_slice[slice_sizes=(1, 1)] a f i\n'
        '    k:f32[] = squeeze[dimensions=(0, 1)] j\n'
        '  in (k,) }'
    ),
    'get_clip': (
        '{ lambda ; a:f32[3,4] b:f32[]. let\n'
        '    c:f32[1,4] = slice[limit_indices=(2, 4) start_indices=(1, 0) strides=None] a\n'
        '    d:f32[4] = squeeze[dimensions=(0,)] c\n'
        '    e:f32[4] = add d b\n'
        '  in (e,) }'
    ),
}


@pytest.mark.parametrize("name", sorted(SCALAR_INDEXING))
def test_scalar_indexing_jaxpr_text_is_jaxs(name):
  f, i = SCALAR_INDEXING[name]
  assert str(jax.make_jaxpr(f)(M34, i)) == SCALAR_INDEXING_RECORDED[name]


def test_object_addresses_print_as_jaxs():
  """Parameters holding functions print their address as X's, as JAX prints them."""
  text = str(jax.make_jaxpr(lambda x: jax.pure_callback(
      lambda a: a, jax.ShapeDtypeStruct((3,), jnp.float32), x))(X3))
  assert "at 0xXXXXXXXXXXXX>, in_tree=PyTreeDef(((*,), {})))" in text

