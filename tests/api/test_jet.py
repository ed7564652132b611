"""jax.experimental.jet: Taylor-mode AD against nested jvp, and against numbers, dtypes and
errors taken from JAX 0.10.2's jet."""
import math

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.experimental import jet as jet_module
from xjax.experimental.jet import jet, jet2, jet_rules

X3 = np.array([0.3, 0.7, 1.2], np.float32)
V3 = np.array([1.0, -0.5, 2.0], np.float32)
W3 = np.array([0.2, 0.1, -0.3], np.float32)


def taylor_by_jvp(f, primals, series):
  """The derivatives d^k/dt^k f(p(t)) at t=0 along the path p(t) = x + sum_k h_k t^k/k!,
  by nested jvp in t: what jet's k-th output term must be."""
  def along_path(t):
    args = [jnp.asarray(x) + sum(h * t ** (k + 1) / math.factorial(k + 1) for k, h in enumerate(hs))
            for x, hs in zip(primals, series)]
    return f(*args)

  derivs, g = [], along_path
  for _ in range(len(series[0])):
    g = (lambda g: lambda t: xjax.jvp(g, (t,), (1.,))[1])(g)
    derivs.append(g(0.))
  return along_path(0.), derivs


def assert_series(got, want, rtol=2e-5, atol=2e-5):
  (p, terms), (wp, wterms) = got, want
  np.testing.assert_allclose(p, wp, rtol=rtol, atol=atol)
  assert len(terms) == len(wterms)
  for k, (t, w) in enumerate(zip(terms, wterms)):
    np.testing.assert_allclose(t, w, rtol=rtol, atol=atol, err_msg=f"term {k + 1}")


# ---------------------------------------------------------------------------------------
# The public names

def test_public_names_are_the_references():
  names = {n for n in dir(jet_module) if not n.startswith("_")}
  assert {"JetTrace", "JetTracer", "ZeroSeries", "ZeroTerm", "call_param_updaters",
          "def_comp", "def_deriv", "deflinear", "defzero", "deriv_prop", "fact", "jet",
          "jet2", "jet_rules", "linear_prop", "zero_prop", "zero_series",
          "zero_term"} <= names
  assert isinstance(jet_rules, dict) and isinstance(jet_module.call_param_updaters, dict)
  assert isinstance(jet_module.zero_series, jet_module.ZeroSeries)
  assert isinstance(jet_module.zero_term, jet_module.ZeroTerm)
  # symbolic zeros are pytrees without leaves, as in JAX
  leaves, tree = xjax.tree_util.tree_flatten(jet_module.zero_series)
  assert leaves == [] and xjax.tree_util.tree_unflatten(tree, []) is jet_module.zero_series
  assert xjax.tree_util.tree_leaves(jet_module.zero_term) == []
  np.testing.assert_allclose(jet_module.fact(4), 24., rtol=1e-6)


# The keys of JAX 0.10.2's jet_rules (89), by primitive name; xjax has no `reshard`
# primitive (docs/differences.md).
REFERENCE_RULES = (
    "abs acosh add add_any and asinh atan2 atanh bitcast_convert_type broadcast_in_dim ceil "
    "clamp complex concatenate conj conv_general_dilated convert_element_type copy cos cosh "
    "cummax cummin cumprod cumsum device_put div dot_general dynamic_slice "
    "dynamic_update_slice eq erf erf_inv erfc exp expm1 fft floor gather ge gt imag "
    "integer_pow is_finite jit le log log1p logistic lt max min mul ne neg not or pad pow "
    "real reduce_max reduce_min reduce_sum reduce_window_sum rem reshape reshard rev round "
    "rsqrt scatter-add select_n shift_left shift_right_arithmetic shift_right_logical sign "
    "sin sinh slice split sqrt square squeeze stack stop_gradient sub tanh transpose unstack "
    "xor").split()


def test_jet_rules_cover_the_references_primitives():
  assert len(REFERENCE_RULES) == 89
  ours = {p.name for p in jet_rules}
  expected = set(REFERENCE_RULES) - {"reshard"}
  assert expected <= ours
  # xjax's custom-derivative calls are primitives: their rule runs the function itself
  assert ours - expected == {"custom_jvp_call", "custom_vjp_call"}
  assert all(callable(r) for r in jet_rules.values())


# ---------------------------------------------------------------------------------------
# Against nested jvp

UNARY = [
    ("sin", jnp.sin, X3), ("cos", jnp.cos, X3), ("sinh", jnp.sinh, X3),
    ("cosh", jnp.cosh, X3), ("exp", jnp.exp, X3), ("log", jnp.log, X3),
    ("tanh", jnp.tanh, X3), ("logistic", lax.logistic, X3), ("sqrt", jnp.sqrt, X3),
    ("rsqrt", lax.rsqrt, X3), ("square", jnp.square, X3), ("expm1", jnp.expm1, X3),
    ("log1p", jnp.log1p, X3), ("asinh", jnp.arcsinh, X3), ("acosh", jnp.arccosh, X3 + 1.5),
    ("atanh", jnp.arctanh, X3 / 2), ("erf", lax.erf, X3), ("erfc", lax.erfc, X3),
    ("erf_inv", lax.erf_inv, X3 / 2), ("abs", jnp.abs, X3 - 0.5),
    ("pow_const", lambda x: x ** 2.5, X3), ("integer_pow", lambda x: lax.integer_pow(x, 5), X3),
    ("integer_pow_neg", lambda x: lax.integer_pow(x, -3), X3),
    ("poly", lambda x: 3 * x ** 3 - 2 * x ** 2 + x - 5, X3),
    ("softplus", xjax.nn.softplus, X3),   # a custom_jvp function
]


@pytest.mark.parametrize("name,f,x", UNARY, ids=[u[0] for u in UNARY])
def test_unary_against_nested_jvp(name, f, x):
  series = ((V3, W3, V3),)
  assert_series(jet(f, (x,), series), taylor_by_jvp(f, (x,), series), rtol=1e-4, atol=1e-4)


BINARY = [
    ("mul", lambda x, y: x * y), ("div", lambda x, y: x / y), ("pow", lambda x, y: x ** y),
    ("atan2", lax.atan2), ("sub", lambda x, y: x - y),
    ("composite", lambda x, y: jnp.sqrt(x * x + y * y) * lax.logistic(x - y)),
]


@pytest.mark.parametrize("name,f", BINARY, ids=[b[0] for b in BINARY])
def test_binary_against_nested_jvp(name, f):
  primals, series = (X3, X3[::-1] + 0.1), ((V3, W3, V3), (W3, V3, W3))
  assert_series(jet(f, primals, series), taylor_by_jvp(f, primals, series), rtol=1e-4,
                atol=1e-4)


def test_order_four_composite_against_nested_jvp():
  f = lambda x: jnp.exp(jnp.sin(x)) / (1 + x * x) + jnp.log(1 + jnp.tanh(x) ** 2)
  x, v = np.float32(0.7), np.float32(1.5)
  series = ((v, 0., 0., 0.),)
  assert_series(jet(f, (x,), series), taylor_by_jvp(f, (x,), series), rtol=1e-4, atol=1e-4)


def test_structural_and_indexing_primitives_against_nested_jvp():
  A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
  def f(x):
    y = jnp.sin(x)
    parts = [jnp.cumsum(y), jnp.cumprod(x), lax.cummax(x * y, 0), y[np.array([2, 0])],
             lax.dynamic_slice(jnp.exp(x), (1,), (2,)), jnp.pad(y, 1),
             lax.dynamic_update_slice(x, jnp.exp(x[:1]), (2,)),
             x.at[np.array([0, 0, 2])].add(y), jnp.concatenate([x, y])[::-1],
             jnp.tanh(A @ x), jnp.where(x > 0.5, y, x * x), jnp.sum(x * y, keepdims=True),
             jnp.max(x * x, keepdims=True), jnp.min(x, keepdims=True),
             jnp.maximum(x, 0.7), jnp.clip(x, 0.5, 1.0), lax.rem(x, np.float32(0.5)),
             jnp.reshape(jnp.outer(x, y), (-1,)), jnp.stack(jnp.split(y, 3))[:, 0]]
    return jnp.concatenate(parts)
  series = ((V3, W3),)
  assert_series(jet(f, (X3,), series), taylor_by_jvp(f, (X3,), series), rtol=1e-4,
                atol=1e-4)


def test_windowed_complex_and_fft_primitives_against_nested_jvp():
  img = np.linspace(-1, 1, 2 * 5 * 5).reshape(2, 1, 5, 5).astype(np.float32)
  ker = np.linspace(-1, 1, 3 * 2 * 2).reshape(3, 1, 2, 2).astype(np.float32)
  conv = lambda a, k: lax.conv(a, k, (1, 1), "SAME") ** 2
  primals, series = (img, ker), ((img * 0.5, img), (ker, ker * 2))
  assert_series(jet(conv, primals, series), taylor_by_jvp(conv, primals, series),
                rtol=1e-4, atol=1e-4)
  pool = lambda x: lax.reduce_window(x * x, 0., lax.add, (1, 1, 2, 2), (1, 1, 1, 1), "VALID")
  assert_series(jet(pool, (img,), ((img, img),)), taylor_by_jvp(pool, (img,), ((img, img),)),
                rtol=1e-4, atol=1e-4)
  def f(x):
    z = lax.complex(x, x * x) * lax.complex(x, 1. + 0 * x)
    spectrum = jnp.fft.ifft(jnp.fft.fft(x * x))
    return jnp.imag(z) + jnp.real(jnp.conj(z)) + jnp.real(spectrum)
  assert_series(jet(f, (X3,), ((V3, W3),)), taylor_by_jvp(f, (X3,), ((V3, W3),)),
                rtol=1e-4, atol=1e-4)


def test_library_functions_against_nested_jvp():
  f = lambda x: (xjax.nn.softmax(x) * xjax.nn.gelu(x) + jnp.var(x)
                 + xjax.nn.logsumexp(x) + jnp.linalg.norm(x))
  assert_series(jet(f, (X3,), ((V3, W3, V3),)), taylor_by_jvp(f, (X3,), ((V3, W3, V3),)),
                rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------------------
# Against JAX 0.10.2's jet (numbers taken from it)

def test_composites_match_the_reference():
  f = lambda x: jnp.exp(jnp.sin(x)) / (1 + x * x) + jnp.log(1 + jnp.tanh(x) ** 2)
  p, terms = jet(f, (X3,), ((V3, W3, V3, W3),))
  np.testing.assert_allclose(p, [1.3143209218978882, 1.5895308256149292, 1.5685245990753174],
                             rtol=1e-5)
  want = [[0.9906343221664429, -0.1692991554737091, -0.693177342414856],
          [-0.8366507887840271, -0.4102683961391449, -3.476243734359741],
          [-5.186373233795166, -0.02073161117732525, 16.426349639892578],
          [7.842966079711914, -1.164628505706787, -37.27971267700195]]
  for t, w in zip(terms, want):
    np.testing.assert_allclose(t, w, rtol=1e-4, atol=1e-5)

  A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
  p, terms = jet(lambda A, x: jnp.tanh(A @ x), (A, X3), ((A * 2, A), (V3, W3)))
  np.testing.assert_allclose(p, [0.9517459869384766, -0.26827114820480347], rtol=1e-5)
  np.testing.assert_allclose(terms[0], [0.8193624019622803, -0.6264207363128662], rtol=1e-4)
  np.testing.assert_allclose(terms[1], [-11.56764030456543, 0.018061498180031776], rtol=1e-4,
                             atol=1e-5)

  p, terms = jet(lax.erf_inv, (X3 / 2,), ((V3, W3, V3, W3),))
  np.testing.assert_allclose(p, [0.13372692465782166, 0.320858359336853, 0.5951160788536072],
                             rtol=1e-5)
  want = [[0.9022178053855896, -0.4911629855632782, 2.5257248878479004],
          [0.398150235414505, 0.2530410885810852, 7.213974952697754],
          [2.6067142486572266, -0.9186131954193115, 76.98479461669922],
          [5.523077487945557, 1.7526432275772095, 1050.2427978515625]]
  for t, w in zip(terms, want):
    np.testing.assert_allclose(t, w, rtol=1e-4)

  # reduce_max: the chosen element's terms
  p, terms = jet(lambda x: jnp.max(x * x), (np.float32([0.5, -1., 1.]),), ((V3, W3),))
  assert float(p) == 1.0
  np.testing.assert_allclose(terms, [2.5, 3.8500008583068848], rtol=1e-5)


def test_docstring_example():
  h0, h1, h2 = 0.5 ** 3., 3. * 0.5 ** 2., 6. * 0.5
  f0, (f1, f2) = jet(jnp.sin, (h0,), ((h1, h2),))
  np.testing.assert_allclose([f0, f1, f2], [0.12467473, 0.74414825, 2.9064636], rtol=1e-6)


def test_jet2_takes_unscaled_coefficients():
  p, (t1, t2, t3) = jet2(lambda x: jnp.exp(x) * x, (X3,), ((V3, W3, V3),))
  q, (s1, s2, s3) = jet(lambda x: jnp.exp(x) * x, (X3,), ((V3, 2 * W3, 6 * V3),))
  np.testing.assert_allclose(p, q)
  for a, b, k in ((t1, s1, 1), (t2, s2, 2), (t3, s3, 6)):
    np.testing.assert_allclose(a * k, b, rtol=1e-5, atol=1e-6)
  # JAX 0.10.2: jet2(sin, (0.5,), ((1., 2.),))
  _, terms = jet2(jnp.sin, (0.5,), ((1., 2.),))
  np.testing.assert_allclose(terms, [0.87758255, 1.5154524], rtol=1e-6)


# ---------------------------------------------------------------------------------------
# dtypes and weak types, as JAX's

def _types(tree):
  return [(str(x.dtype), x.weak_type) if hasattr(x, "weak_type") else type(x).__name__
          for x in xjax.tree_util.tree_leaves(tree)]


def test_dtypes_and_weak_types_match_the_reference():
  f32, f32w = ("float32", False), ("float32", True)
  assert _types(jet(jnp.sin, (0.5,), ((1., 2.),))) == [f32w] * 3
  assert _types(jet(jnp.sin, (X3,), ((V3, W3),))) == [f32] * 3
  assert _types(jet(jnp.sin, (np.float32(0.5),), ((np.float32(1.), 2.),))) == [f32] * 3
  # a weak constant's zero terms are strong (JAX instantiates them with result_type)
  assert _types(jet(lambda x: x * 2., (0.5,), ((1.,),))) == [f32w, f32]
  assert _types(jet(lambda x: jnp.sin(x) * 2. + 1., (0.5,), ((1., 2.),))) == [f32w, f32, f32]
  assert _types(jet(lax.erf, (0.5,), ((1., 2.),))) == [f32w, f32w, f32]
  assert _types(jet(lax.atan2, (0.5, 2.), ((1., 2.), (0.5, 1.)))) == [f32w, f32w, f32]
  half = X3.astype(np.float16)
  assert _types(jet(jnp.sin, (half,), ((half, half),))) == [("float16", False)] * 3
  # an output independent of the inputs: the value as returned, zero (weak) terms
  p, terms = jet(lambda x: 3., (0.5,), ((1., 2.),))
  assert p == 3. and type(p) is float and _types(terms) == [f32w] * 2
  np.testing.assert_array_equal(terms, [0., 0.])
  # an input returned as it is keeps its Python type, as in JAX
  out, terms = jet(lambda x: {"a": x, "b": (jnp.sin(x),)}, (0.5,), ((1., 2.),))
  assert out["a"] == 0.5 and type(out["a"]) is float
  assert xjax.tree_util.tree_structure(terms) == xjax.tree_util.tree_structure(
      {"a": [0, 0], "b": ([0, 0],)})


# ---------------------------------------------------------------------------------------
# Symbolic zeros and user rules

def test_zero_series_of_piecewise_constant_primitives():
  p, terms = jet(lambda x: jnp.floor(x) + jnp.sign(x) + jnp.round(x)
                 + lax.stop_gradient(x), (X3,), ((V3, W3),))
  np.testing.assert_allclose(p, np.floor(X3) + np.sign(X3) + np.round(X3) + X3)
  for t in terms:
    np.testing.assert_array_equal(t, 0.)
  # comparisons give zero terms too; jet of an integer output
  p, terms = jet(lambda x: (x > 0.5).astype(jnp.float32) * x, (X3,), ((V3,),))
  np.testing.assert_allclose(terms[0], np.where(X3 > 0.5, V3, 0.))


def test_series_with_zero_terms_and_order_zero():
  p, terms = jet(jnp.exp, (X3,), ((),))
  np.testing.assert_allclose(p, np.exp(X3), rtol=1e-6)
  assert terms == []
  p, terms = jet(jnp.exp, (X3,), ((np.zeros(3, np.float32),) * 3,))
  for t in terms:
    np.testing.assert_array_equal(t, 0.)


@pytest.fixture
def restore_rules():
  saved = dict(jet_rules)
  yield
  jet_rules.clear()
  jet_rules.update(saved)


def test_user_rules_extend_jet_rules(restore_rules):
  series = ((V3, W3, V3),)
  want = taylor_by_jvp(jnp.tan, (X3 / 2,), series)
  with pytest.raises(KeyError, match="tan"):
    jet(jnp.tan, (X3 / 2,), series)
  jet_module.def_comp(lax.tan_p, lambda x: lax.sin(x) / lax.cos(x))
  assert_series(jet(jnp.tan, (X3 / 2,), series), want, rtol=1e-4, atol=1e-4)
  jet_module.def_deriv(lax.tan_p, lambda x: 1 / lax.cos(x) ** 2)
  assert jet_rules[lax.tan_p].func is jet_module.deriv_prop
  assert_series(jet(jnp.tan, (X3 / 2,), series), want, rtol=1e-4, atol=1e-4)
  jet_module.defzero(lax.tan_p)
  _, terms = jet(jnp.tan, (X3 / 2,), series)
  np.testing.assert_array_equal(terms, 0.)
  jet_module.deflinear(lax.tan_p)   # (wrong, but linear_prop applies tan to each term)
  _, terms = jet(jnp.tan, (X3 / 2,), series)
  np.testing.assert_allclose(terms[0], np.tan(V3), rtol=1e-6)


# ---------------------------------------------------------------------------------------
# Composition with jit and the other transformations

def test_jet_of_jit_and_jit_of_jet():
  f = lambda x: jnp.exp(jnp.sin(x)) * x
  want = jet(f, (X3,), ((V3, W3, V3),))
  assert_series(jet(xjax.jit(f), (X3,), ((V3, W3, V3),)), want, rtol=1e-5, atol=1e-6)
  assert_series(xjax.jit(lambda x, v: jet(f, (x,), ((v, W3, v),)))(X3, V3), want,
                rtol=1e-5, atol=1e-6)
  # outputs independent of the inputs, and an input without terms, through the jit rule
  g = xjax.jit(lambda x, c: (jnp.float32(3.), x * c))
  p, terms = jet(lambda x: g(x, X3), (X3,), ((V3, W3),))
  np.testing.assert_array_equal(terms[0], 0.)
  np.testing.assert_allclose(terms[1], [V3 * X3, W3 * X3], rtol=1e-6)
  jaxpr = xjax.make_jaxpr(lambda x: jet(xjax.jit(f), (x,), ((V3, W3),)))(X3)
  assert [e.primitive.name for e in jaxpr.jaxpr.eqns].count("jit") == 1
  # JAX 0.10.2: jit(lambda x: jet(sin, (x,), ((1., 2.),)))(0.5)
  p, terms = xjax.jit(lambda x: jet(jnp.sin, (x,), ((1., 2.),)))(0.5)
  assert _types((p, terms)) == [("float32", True)] * 3
  np.testing.assert_allclose(terms, [0.87758255, 1.2757398], rtol=1e-6)


def test_jet_under_vmap_grad_and_nested_jet():
  got = xjax.vmap(lambda x, v: jet(jnp.exp, (x,), ((v, v),)))(X3, V3)
  for i in range(3):
    assert_series((got[0][i], [t[i] for t in got[1]]), jet(jnp.exp, (X3[i],), ((V3[i], V3[i]),)))
  # d/dx of the second derivative of sin is -cos
  g = xjax.grad(lambda x: jet(jnp.sin, (x,), ((1., 0., 0.),))[1][1])(0.3)
  np.testing.assert_allclose(g, -np.cos(0.3), rtol=1e-6)
  # jet of a function using jet: d/dx cos(x) along 1 is -sin(x)
  inner = lambda x: jet(jnp.sin, (x,), ((1.,),))[1][0]
  p, (t,) = jet(inner, (0.3,), ((1.,),))
  np.testing.assert_allclose([p, t], [np.cos(0.3), -np.sin(0.3)], rtol=1e-6)


def test_custom_derivative_functions_run_their_function():
  # JAX 0.10.2 means to (it ignores the rules) but raises UnexpectedTracerError here
  p, (t1, t2) = jet(xjax.nn.relu, (np.float32([-1., 2.]),), ((V3[:2], W3[:2]),))
  np.testing.assert_allclose(p, [0., 2.])
  np.testing.assert_allclose(t1, [0., -0.5])
  np.testing.assert_allclose(t2, [0., 0.1])

  @xjax.custom_vjp
  def cube(x):
    return x ** 3
  cube.defvjp(lambda x: (x ** 3, x), lambda x, g: (0. * g,))
  assert_series(jet(cube, (X3,), ((V3, W3),)), jet(lambda x: x ** 3, (X3,), ((V3, W3),)))


def test_rem_value_is_rems():
  # (JAX 0.10.2 returns x - y floor(x / y) = 2 here)
  p, terms = jet(lambda x: lax.rem(x, 3.), (-1.,), ((1., 2.),))
  np.testing.assert_allclose([p] + terms, [-1., 1., 2.])


# ---------------------------------------------------------------------------------------
# Errors, as JAX's

@pytest.mark.parametrize("f,name", [
    (lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x), "cond"),
    (lambda x: lax.scan(lambda c, _: (c * 2., None), x, None, length=3)[0], "scan"),
    (lambda x: lax.while_loop(lambda c: c < 3, lambda c: c * 2., x), "while"),
    (lambda x: xjax.checkpoint(jnp.sin)(x), "remat2"),
    (lax.lgamma, "lgamma"),
], ids=["cond", "scan", "while", "checkpoint", "lgamma"])
def test_primitives_without_rules_raise_keyerror(f, name):
  # JAX 0.10.2 has no jet rules for control flow: KeyError naming the primitive
  with pytest.raises(KeyError) as info:
    jet(f, (0.5,), ((1., 2.),))
  assert str(info.value) == name


def test_bad_inputs():
  with pytest.raises(ValueError, match="jet terms have inconsistent lengths"):
    jet(jnp.sin, (0.5, 1.), ((1., 2.), (1.,)))
  with pytest.raises(ValueError, match="jet terms have inconsistent lengths"):
    jet(lambda: 1., (), ())
  with pytest.raises(ValueError, match="primal value at position 0 is not an array"):
    jet(jnp.sin, ((0.5,),), ((1., 2.),))
  with pytest.raises(ValueError, match="term 0 for argument 0 is not an array"):
    jet(jnp.sin, (0.5,), (((1.,), 2.),))
  with pytest.raises(TypeError, match=r"term 0 for argument 0 has shape \(2,\).*\(3,\)"):
    jet(jnp.sin, (jnp.ones(3),), ((jnp.ones(2), jnp.ones(3)),))
  with pytest.raises(TypeError):
    jet(jnp.sin, 0.5, ((1., 2.),))
  # an integer primal with (factorial-scaled, float) terms: lax.mul's dtype error, as JAX
  with pytest.raises(TypeError, match="same dtypes"):
    jet(lambda x: x * 2, (3,), ((1, 2),))
  # a scalar term broadcasts against its primal, as in JAX
  p, terms = jet(jnp.exp, (jnp.ones(3),), ((1., 2.),))
  np.testing.assert_allclose(terms[1], np.full(3, 8.154846), rtol=1e-6)
