"""Automatic differentiation: grad/jvp/vjp composition, Jacobians, custom rules, remat."""
import functools
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads

from tests.checking import check_ulps

X = np.array([0.3, 0.7, 1.2], np.float32)
Y = np.array([1.1, 0.4, 0.9], np.float32)
M = np.array([[0.5, -0.2, 0.8], [0.1, 0.9, -0.4]], np.float32)


# ---------------------------------------------------------------------------------------
# Composition

def test_grad_of_grad_of_grad():
  assert np.isclose(xjax.grad(xjax.grad(xjax.grad(jnp.sin)))(1.0), -np.cos(1.0), atol=1e-6)


def test_jvp_of_grad():
  p, t = xjax.jvp(xjax.grad(jnp.sin), (1.0,), (2.0,))
  np.testing.assert_allclose([p, t], [np.cos(1.0), -2 * np.sin(1.0)], rtol=1e-6)


def test_grad_jit_and_jit_grad():
  f = lambda x: x * jnp.sin(x)
  want = np.sin(1.0) + np.cos(1.0)
  assert np.isclose(xjax.grad(xjax.jit(f))(1.0), want)
  assert np.isclose(xjax.jit(xjax.grad(f))(1.0), want)
  assert np.isclose(xjax.jit(xjax.grad(xjax.jit(xjax.grad(f))))(1.0),
                    2 * np.cos(1.0) - np.sin(1.0))


def test_pytrees_and_argnums():
  f = lambda d, y: d["a"] * d["b"][0] * y
  g = xjax.grad(f)({"a": 2.0, "b": [3.0]}, 5.0)
  assert g["a"] == 15.0 and g["b"][0] == 10.0
  g0, g1 = xjax.grad(f, argnums=(0, 1))({"a": 2.0, "b": [3.0]}, 5.0)
  assert g0["a"] == 15.0 and g1 == 6.0
  assert xjax.grad(f, argnums=1)({"a": 2.0, "b": [3.0]}, 5.0) == 6.0
  out, vjp_fun = xjax.vjp(lambda x: {"s": jnp.sin(x), "c": [jnp.cos(x)]}, X)
  (ct,) = vjp_fun({"s": np.ones(3, np.float32), "c": [np.ones(3, np.float32)]})
  np.testing.assert_allclose(ct, np.cos(X) - np.sin(X), rtol=1e-6)


def test_has_aux_returns_plain_values():
  g, aux = xjax.grad(lambda x: (x * x, {"y": x + 1}), has_aux=True)(2.0)
  assert g == 4.0 and aux["y"] == 3.0
  (v, aux), g = xjax.value_and_grad(lambda x: (x * x, x * 3), has_aux=True)(2.0)
  assert (v, aux, g) == (4.0, 6.0, 4.0)
  p, t, aux = xjax.jvp(lambda x: (x * x, x), (2.0,), (1.0,), has_aux=True)
  assert (p, t, aux) == (4.0, 4.0, 2.0)
  assert xjax.jit(xjax.grad(lambda x: (x * x, x), has_aux=True))(2.0) == (4.0, 2.0)


def test_allow_int_gives_float0():
  gx, gi = xjax.grad(lambda x, i: x * i, argnums=(0, 1), allow_int=True)(1.0, 2)
  assert gx == 2.0
  assert gi.dtype == xjax.dtypes.float0 and gi.shape == ()


def test_holomorphic():
  g = xjax.grad(lambda z: z * z, holomorphic=True)(1.0 + 2.0j)
  assert np.isclose(g, 2 + 4j)
  with pytest.raises(TypeError):
    xjax.grad(lambda z: z * z, holomorphic=True)(1.0)


def test_python_control_flow():
  f = lambda x, y: x / y if y >= 1. else 0.
  assert xjax.grad(f)(3., 2.) == 0.5
  with pytest.raises(xjax.errors.ConcretizationTypeError):
    xjax.jit(xjax.grad(f))(3., 2.)


# ---------------------------------------------------------------------------------------
# JAX conventions at non-smooth points

def test_nonsmooth_conventions():
  assert xjax.grad(abs)(0.) == 1.0
  assert xjax.grad(lambda x: jnp.maximum(x, x))(1.0) == 1.0
  np.testing.assert_allclose(xjax.grad(lambda x: jnp.maximum(x, 1.0))(1.0), 0.5)
  nan = xjax.grad(lambda x: jnp.where(x > 0., jnp.log(x), 0.))(0.)
  assert np.isnan(nan)
  safe = xjax.grad(lambda x: jnp.where(x > 0., jnp.log(jnp.where(x > 0., x, 1.)), 0.))(0.)
  assert safe == 0.0
  step = xjax.grad(lambda x: (x > 0).astype(float).sum())(X)
  np.testing.assert_array_equal(step, np.zeros(3))
  np.testing.assert_array_equal(xjax.grad(lambda x: jnp.argmax(x).astype(jnp.float32))(X),
                                np.zeros(3))


# ---------------------------------------------------------------------------------------
# Errors

def test_errors():
  with pytest.raises(TypeError, match="jacrev"):
    xjax.grad(lambda x: x)(X)
  with pytest.raises(TypeError, match="allow_int"):
    xjax.grad(lambda i: i * 1.0)(2)
  _, pullback = xjax.vjp(jnp.sin, X)
  with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
    pullback(np.ones(2, np.float32))


# ---------------------------------------------------------------------------------------
# Jacobians

def _fd_jac(f, x, eps=1e-3):
  x = np.asarray(x, np.float64)
  cols = []
  for i in range(x.size):
    e = np.zeros_like(x).ravel(); e[i] = eps; e = e.reshape(x.shape)
    cols.append((np.asarray(f((x + e).astype(np.float32)), np.float64)
                 - np.asarray(f((x - e).astype(np.float32)))) / (2 * eps))
  return np.stack(cols, -1).reshape(np.shape(f(x.astype(np.float32))) + x.shape)


def test_jacobians_and_hessian():
  f = lambda x: jnp.sin(M @ x) * x[:2]
  want = _fd_jac(f, X)
  np.testing.assert_allclose(xjax.jacfwd(f)(X), want, atol=2e-3)
  np.testing.assert_allclose(xjax.jacrev(f)(X), want, atol=2e-3)
  np.testing.assert_allclose(xjax.jacobian(f)(X), want, atol=2e-3)
  h = xjax.hessian(lambda x: jnp.sum(x ** 3))(X)
  np.testing.assert_allclose(h, np.diag(6 * X), rtol=1e-5)
  ja, jb = xjax.jacrev(lambda a, b: a * b, argnums=(0, 1))(X, Y)
  np.testing.assert_allclose(ja, np.diag(Y)); np.testing.assert_allclose(jb, np.diag(X))
  jt = xjax.jacfwd(lambda d: {"o": d["x"] * 2})({"x": X})
  np.testing.assert_allclose(jt["o"]["x"], 2 * np.eye(3))
  j, aux = xjax.jacfwd(lambda x: (x * 2, 7.0), has_aux=True)(X)
  np.testing.assert_allclose(j, 2 * np.eye(3)); assert aux == 7.0
  np.testing.assert_allclose(xjax.jit(xjax.jacrev(f))(X), want, atol=2e-3)


def test_linear_transpose():
  f_t = xjax.linear_transpose(lambda x: M @ x, X)
  (ct,) = f_t(np.ones(2, np.float32))
  np.testing.assert_allclose(ct, M.sum(0), rtol=1e-6)
  # as JAX's: a Partial over the constants (returned from jit); a cotangent that went
  # through an operation comes back an array, one passed straight through as given
  f_t = xjax.linear_transpose(lambda a, c: (a + 2 * c, a), 1., 1.)
  assert isinstance(f_t, xjax.tree_util.Partial)
  ca, cc = f_t((1., 0.5))
  assert isinstance(ca, xjax.Array) and ca.weak_type and float(ca) == 1.5
  assert isinstance(cc, xjax.Array) and float(cc) == 2.0
  assert xjax.linear_transpose(lambda a: a, 1.)(1.) == (1.0,)
  assert type(xjax.linear_transpose(lambda a: a, 1.)(1.)[0]) is float
  g = xjax.jit(lambda: xjax.linear_transpose(lambda a: a * jnp.float32(3.), 1.))()
  assert float(g(1.)[0]) == 3.0


# ---------------------------------------------------------------------------------------
# custom_jvp / custom_vjp

def test_custom_jvp():
  @xjax.custom_jvp
  def f(x, y):
    return jnp.sin(x) * y

  @f.defjvp
  def f_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    return f(x, y), 10 * jnp.cos(x) * y * tx + jnp.sin(x) * ty

  assert np.isclose(xjax.grad(f)(1.0, 2.0), 20 * np.cos(1.0))
  assert np.isclose(xjax.jit(xjax.grad(f))(1.0, 2.0), 20 * np.cos(1.0))
  assert np.isclose(xjax.grad(xjax.jit(f))(1.0, 2.0), 20 * np.cos(1.0))
  np.testing.assert_allclose(xjax.vmap(xjax.grad(f))(X, Y), 10 * np.cos(X) * Y, rtol=1e-5)
  np.testing.assert_allclose(xjax.grad(lambda x: xjax.vmap(f)(x, Y).sum())(X),
                             10 * np.cos(X) * Y, rtol=1e-5)
  assert np.isclose(f(1.0, 2.0), np.sin(1.0) * 2)
  # second order through the rule
  assert np.isclose(xjax.grad(xjax.grad(f))(1.0, 2.0), -20 * np.sin(1.0))


def test_custom_jvp_defjvps_and_nondiff():
  g = xjax.custom_jvp(lambda x: jnp.exp(x))
  g.defjvps(lambda t, ans, x: 3 * t)
  assert xjax.grad(g)(0.5) == 3.0

  clip_grad = xjax.custom_jvp(lambda scale, x: x, nondiff_argnums=(0,))
  clip_grad.defjvp(lambda scale, p, t: (p[0], scale * t[0]))
  assert xjax.grad(lambda x: clip_grad(4.0, x))(1.0) == 4.0


def test_custom_jvp_records_its_rule_as_jax():
  # (JAX 0.10.2: class defaults None and False; defjvp sets both and returns the rule;
  # defjvps sets a rule built from the per-argument ones, without symbolic zeros)
  assert xjax.custom_jvp.jvp is None and xjax.custom_jvp.symbolic_zeros is False
  f = xjax.custom_jvp(lambda x: x)
  assert f.jvp is None and f.symbolic_zeros is False
  rule = lambda p, t: (p[0], t[0])
  assert f.defjvp(rule) is rule and f.jvp is rule and f.symbolic_zeros is False
  f.defjvp(rule, symbolic_zeros=True)
  assert f.jvp is rule and f.symbolic_zeros is True
  g = xjax.custom_jvp(lambda x, y: x * y)
  g.defjvps(lambda t, ans, x, y: t * y, None)
  assert callable(g.jvp) and g.symbolic_zeros is False
  assert xjax.grad(g)(2.0, 3.0) == 3.0


def test_custom_vjp():
  @xjax.custom_vjp
  def f(x, y):
    return x * y

  def fwd(x, y):
    return f(x, y), (x, y)

  def bwd(res, g):
    x, y = res
    return 10 * y * g, None

  f.defvjp(fwd, bwd)
  assert f(2.0, 3.0) == 6.0
  assert xjax.grad(f)(2.0, 3.0) == 30.0
  assert xjax.grad(f, 1)(2.0, 3.0) == 0.0
  assert xjax.jit(xjax.grad(f))(2.0, 3.0) == 30.0
  assert xjax.grad(xjax.jit(f))(2.0, 3.0) == 30.0
  np.testing.assert_allclose(xjax.vmap(xjax.grad(f))(X, Y), 10 * Y, rtol=1e-6)
  np.testing.assert_allclose(xjax.grad(lambda x: xjax.vmap(f)(x, Y).sum())(X), 10 * Y,
                             rtol=1e-6)
  with pytest.raises(TypeError, match="forward-mode"):
    xjax.jvp(f, (1.0, 2.0), (1.0, 1.0))


def test_custom_vjp_nondiff_and_clip_gradient():
  f = xjax.custom_vjp(lambda lo, x: x, nondiff_argnums=(0,))
  f.defvjp(lambda lo, x: (x, None), lambda lo, _, g: (jnp.maximum(g, lo),))
  assert xjax.grad(lambda x: 0.5 * f(1.0, x))(3.0) == 1.0
  assert xjax.grad(lambda x: 2.0 * f(1.0, x))(3.0) == 2.0


def test_nondiff_argnames_and_sorted_nondiff_argnums():
  """JAX 0.10.2: ``nondiff_argnames`` name positional-or-keyword parameters; with
  ``nondiff_argnums`` they reach the rules in positional order (values from JAX)."""
  f = xjax.custom_jvp(lambda x, n: x ** n, nondiff_argnames=("n",))
  f.defjvp(lambda n, p, t: (f(p[0], n), n * p[0] ** (n - 1) * t[0] * 10))
  assert f.nondiff_argnums == (1,)
  assert f(2.0, 3) == f(2.0, n=3) == 8.0
  assert xjax.grad(f)(2.0, 3) == xjax.grad(lambda x: f(x, n=3))(2.0) == 120.0
  assert xjax.jit(xjax.grad(f), static_argnums=1)(2.0, 3) == 120.0
  assert xjax.vmap(xjax.grad(f), in_axes=(0, None))(jnp.arange(3.0), 2).tolist() == [
      0.0, 20.0, 40.0]
  with pytest.raises(TypeError, match="Can't use ``defjvps`` with ``nondiff_argnums``"):
    f.defjvps(lambda t, ans, x, n: t)

  def h(m, x, n):
    return x * n * m
  h = xjax.custom_vjp(h, nondiff_argnums=(0,), nondiff_argnames="n")
  h.defvjp(lambda m, x, n: (h(m, x, n), x), lambda m, n, res, ct: (ct * n * m + m,))
  assert h.nondiff_argnums == (0, 2)
  assert xjax.grad(h, 1)(2.0, 3.0, 4.0) == 10.0
  k = xjax.custom_vjp(lambda m, x, n: x * n * m, nondiff_argnums=(2, 0))
  k.defvjp(lambda m, x, n: (k(m, x, n), x), lambda m, n, res, ct: (ct * n * m + m,))
  assert k.nondiff_argnums == (0, 2) and xjax.grad(k, 1)(2.0, 3.0, 4.0) == 10.0


# ---------------------------------------------------------------------------------------
# checkpoint / remat

def test_checkpoint_recomputes_in_backward_pass():
  f = xjax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
  want = np.cos(np.sin(1.0)) * np.cos(1.0)
  assert np.isclose(xjax.grad(f)(1.0), want)
  assert np.isclose(xjax.jit(xjax.grad(f))(1.0), want)
  np.testing.assert_allclose(xjax.vmap(xjax.grad(f))(X), np.cos(np.sin(X)) * np.cos(X),
                             rtol=1e-6)
  assert xjax.remat is xjax.checkpoint
  jaxpr = xjax.make_jaxpr(xjax.grad(f))(1.0)
  remats = [e for e in jaxpr.jaxpr.eqns if e.primitive.name == "remat2"]
  backward = remats[-1].params["jaxpr"].jaxpr
  # the backward (unknown) jaxpr takes only the input and a cotangent and recomputes sin
  # (once: the primal output is not recomputed, as in JAX)
  assert len(remats[-1].invars) == 2
  assert sum(e.primitive.name == "sin" for e in backward.eqns) == 1
  check_grads(f, (X,), 2)


# ---------------------------------------------------------------------------------------
# check_grads over primitives

UNARY = {
    "sin": lax.sin, "cos": lax.cos, "tanh": lax.tanh, "exp": lax.exp, "log": lax.log,
    "sqrt": lax.sqrt, "logistic": lax.logistic, "erf": lax.erf,
    "convert": lambda x: lax.convert_element_type(x, np.float32) * 2,
    "reshape": lambda x: lax.reshape(x, (3, 1)) * x,
    "broadcast": lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)) * x,
    "reduce_sum": lambda x: lax.reduce_sum(x * x, (0,)),
    "reduce_max": lambda x: lax.reduce_max(x * x, (0,)),
    "reduce_prod": lambda x: lax.reduce_prod(x, (0,)),
    "slice": lambda x: lax.slice(x * x, (1,), (3,)),
    "pad": lambda x: lax.pad(x * x, np.float32(0), [(1, 2, 1)]),
    "pad_value": lambda x: lax.pad(np.arange(3, dtype=np.float32), (x * x).sum(),
                                   [(-1, 2, 1)]),
    "pad_both": lambda x: lax.pad(x * x, x.sum(), [(1, 2, 1)]),
    "concatenate": lambda x: lax.concatenate([x * x, jnp.sin(x)], 0),
    "dynamic_slice": lambda x: lax.dynamic_slice(x * x, (1,), (2,)),
    "dynamic_update_slice": lambda x: lax.dynamic_update_slice(x * x, jnp.sin(x[:2]), (1,)),
    "transpose": lambda x: lax.transpose(lax.reshape(x, (1, 3)) * x, (1, 0)),
    "where": lambda x: jnp.where(x > 0.5, jnp.sin(x), x * x),
}

BINARY = {
    "pow": lax.pow, "div": lax.div, "atan2": lax.atan2, "max": lax.max, "min": lax.min,
    "mul": lax.mul,
    "dot_general": lambda x, y: lax.dot_general(lax.reshape(x, (3, 1)) * y,
                                                lax.reshape(y, (3, 1)) * x,
                                                (((0,), (0,)), ((), ()))),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_check_grads_unary(name):
  check_grads(UNARY[name], (X,), 2, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_check_grads_binary(name):
  check_grads(BINARY[name], (X, Y), 2, atol=2e-2, rtol=2e-2)


def test_check_grads_detects_wrong_rule():
  f = xjax.custom_jvp(jnp.sin)
  f.defjvps(lambda t, ans, x: 2 * t)
  with pytest.raises(AssertionError):
    check_grads(f, (X,), 1, modes=("fwd",))


def test_abs_vector_and_pow_zero_base():
  np.testing.assert_allclose(xjax.grad(lambda x: jnp.sum(jnp.abs(x)))(np.array([-1., 0., 2.],
                                                                            np.float32)),
                             [-1., 1., 1.])
  np.testing.assert_allclose(xjax.grad(lambda y: lax.pow(np.zeros(3, np.float32), y).sum())(Y),
                             np.zeros(3))


def test_grad_of_abs_of_complex_array():
  z = jnp.array([1. + 2j, 0j, -3. + 0.5j], jnp.complex64)
  expected = np.conj(np.asarray(z)) / np.maximum(np.abs(np.asarray(z)), 1e-30)
  expected[1] = 0          # JAX 0.10.2: the derivative at 0 is 0
  g = xjax.grad(lambda z: jnp.abs(z).sum())(z)
  np.testing.assert_allclose(np.asarray(g), expected, rtol=1e-6)
  np.testing.assert_allclose(np.asarray(xjax.jit(xjax.grad(lambda z: jnp.abs(z).sum()))(z)),
                             expected, rtol=1e-6)


def test_argnums_past_the_arguments_raise_the_reference_classes():
  f = lambda x, y: x * y
  with pytest.raises(TypeError, match="requires at least 3 positional arguments"):
    xjax.grad(f, argnums=2)(1.0, 2.0)
  for jac in (xjax.jacfwd, xjax.jacrev):
    with pytest.raises(ValueError, match="got value 2 for len\\(args\\) == 2"):
      jac(f, argnums=2)(1.0, 2.0)
  np.testing.assert_allclose(xjax.jacrev(f, argnums=-1)(2.0, 3.0), 2.0)
  # a negative index before the first argument is the ValueError for grad too
  for g in (xjax.grad, xjax.value_and_grad, xjax.jacfwd):
    with pytest.raises(ValueError, match=r"greater than or equal to -len\(args\) and less than "
                                         r"len\(args\), but got value -3 for len\(args\) == 2"):
      g(f, argnums=(0, -3))(1.0, 2.0)
  np.testing.assert_allclose(xjax.grad(f, argnums=-1)(2.0, 3.0), 2.0)


# Tangents of elementwise primitives, bit for bit as JAX 0.10.2 computes them (the same
# formula in the same order of operations): a sampler's trajectory depends on every bit.
_JVP_X = np.linspace(0.05, 0.95, 7).astype(np.float32)
_JVP_Y = np.linspace(1.3, 3.1, 7).astype(np.float32)
_JVP_T = np.linspace(-1.7, 2.3, 7).astype(np.float32)
_JVP_REFERENCE = {
    'tanh': [-1.6957571506500244, -0.9930776953697205, -0.3251788914203644, 0.235934317111969, 0.6507536768913269, 0.9131232500076294, 1.041258454322815],
    'sqrt': [-3.8013157844543457, -1.155301809310913, -0.30988988280296326, 0.2121320366859436, 0.5995011925697327, 0.9130610823631287, 1.1798750162124634],
    'cbrt': [-4.175235748291016, -1.0071614980697632, -0.2460961788892746, 0.1587401032447815, 0.4294176697731018, 0.6317718029022217, 0.7933366298675537],
    'atanh': [-1.7042608261108398, -1.0763888359069824, -0.4178537428379059, 0.40000003576278687, 1.6738815307617188, 4.537037372589111, 23.589736938476562],
    'erf': [-1.9134551286697388, -1.1202726364135742, -0.36603739857673645, 0.2636348009109497, 0.7148952484130859, 0.9718100428581238, 1.0525243282318115],
    'erfc': [1.9134551286697388, 1.1202726364135742, 0.36603739857673645, -0.2636348009109497, -0.7148952484130859, -0.9718100428581238, -1.0525243282318115],
    'erf_inv': [-1.5095508098602295, -0.9456336498260498, -0.3601861894130707, 0.33377549052238464, 1.3258378505706787, 3.2904624938964844, 13.913451194763184],
    'exp2': [-1.2199047803878784, -0.8227575421333313, -0.3239346444606781, 0.29407745599746704, 1.0514088869094849, 1.9711710214614868, 3.0798656940460205],
    'acosh': [-2.0465598106384277, -0.8273286819458008, -0.22696097195148468, 0.1530931144952774, 0.42188790440559387, 0.6245205998420715, 0.7838379144668579],
    'div': [-1.2573965787887573, -0.5651041269302368, -0.15743306279182434, 0.10537190735340118, 0.286133348941803, 0.4166666269302368, 0.5145681500434875],
    'igamma': [-0.7335082292556763, -0.3604936897754669, -0.10443837195634842, 0.07188425213098526, 0.19893860816955566, 0.29295432567596436, 0.36342501640319824],
}
_JVP_CASES = {name: (lambda f: lambda: xjax.jvp(f, (_JVP_X,), (_JVP_T,))[1])(getattr(lax, name))
              for name in ["tanh", "sqrt", "cbrt", "atanh", "erf", "erfc", "erf_inv", "exp2"]}
_JVP_CASES["acosh"] = lambda: xjax.jvp(lax.acosh, (_JVP_Y,), (_JVP_T,))[1]
_JVP_CASES["div"] = lambda: xjax.jvp(lax.div, (_JVP_X, _JVP_Y), (_JVP_T, _JVP_T))[1]
_JVP_CASES["igamma"] = lambda: xjax.jvp(lambda b: lax.igamma(_JVP_Y, b), (_JVP_X,), (_JVP_T,))[1]


# XLA's rsqrt differs by an ulp between CPU generations (JAX's own tangent of acosh does):
# the values above were recorded on one of them.
_CROSS_CPU_ULPS = {"acosh": 1}


@pytest.mark.parametrize("name", sorted(_JVP_REFERENCE))
def test_elementwise_tangents_are_bit_identical_to_the_reference(name):
  got = np.asarray(_JVP_CASES[name]())
  want = np.asarray(_JVP_REFERENCE[name], np.float32)
  if name in _CROSS_CPU_ULPS:
    check_ulps(got, want, ulps=_CROSS_CPU_ULPS[name])
  else:
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------------------
# Custom rules with symbolic zeros, and what rules receive (equinox's filter_custom_jvp/vjp
# and diffrax's checkpointed loops rely on these); expectations as JAX 0.10.2 shows them.

def _symbolic_vjp(seen):
  @xjax.custom_vjp
  def f(x, y):
    return x * y

  def fwd(x, y):
    seen.append(("fwd", type(x).__name__, x.perturbed, y.perturbed))
    return x.value * y.value, (x.value, y.value)

  def bwd(res, g):
    seen.append(("bwd", type(g).__name__))
    return (g * res[1], None)
  f.defvjp(fwd, bwd, symbolic_zeros=True)
  return f


def test_custom_vjp_symbolic_zeros_tell_fwd_what_is_perturbed():
  seen = []
  f = _symbolic_vjp(seen)
  assert float(xjax.grad(f)(2., 3.)) == 3.0
  assert seen == [("fwd", "CustomVJPPrimal", True, False), ("bwd", "Array")]
  seen.clear()
  assert float(xjax.grad(lambda x: f(x, x))(2.)) == 2.0   # bwd's None: a zero
  assert seen[0][2:] == (True, True)
  assert float(xjax.jit(xjax.grad(lambda x: f(x, 3.)))(2.)) == 3.0
  np.testing.assert_array_equal(xjax.vmap(xjax.grad(f))(jnp.ones(2), jnp.full(2, 3.)), [3, 3])


def test_custom_vjp_symbolic_zero_cotangents_and_outputs():
  seen = []

  @xjax.custom_vjp
  def h(x):
    return x, 2 * x

  def hb(res, g):
    seen.append([type(c).__name__ for c in g])
    return (xjax.custom_derivatives.SymbolicZero(xjax.core.ShapedArray((), np.float32)),)
  h.defvjp(lambda x: ((x.value, 2 * x.value), None), hb, symbolic_zeros=True)
  assert float(xjax.grad(lambda x: h(x)[0])(2.)) == 0.0
  assert seen == [["Array", "SymbolicZero"]]


def test_custom_vjp_bwd_under_vmap_gets_symbolic_zero_cotangents():
  # grad of vmap (and vmap of vmap of grad): bwd sees the unused output's cotangent as a
  # SymbolicZero of one example's aval, as in JAX 0.10.2 (not batched zeros).
  seen = []

  @xjax.custom_vjp
  def f(x, y):
    return x * y, x + y

  def bwd(res, g):
    seen.append([(type(c).__name__, str(c.aval)) if type(c).__name__ == "SymbolicZero"
                 else "value" for c in g])
    return (g[0] * res[1], g[0] * res[0])
  f.defvjp(lambda x, y: (f(x.value, y.value), (x.value, y.value)), bwd, symbolic_zeros=True)
  xs, ys = jnp.arange(3.), jnp.ones(3)
  g = xjax.grad(lambda x: xjax.vmap(lambda a, b: f(a, b)[0])(x, ys).sum())(xs)
  np.testing.assert_array_equal(g, [1., 1., 1.])
  g = xjax.jit(xjax.grad(lambda x: xjax.vmap(lambda a: f(a, 2.)[0])(x).sum()))(xs)
  np.testing.assert_array_equal(g, [2., 2., 2.])
  g = xjax.vmap(xjax.vmap(xjax.grad(lambda x, y: f(x, y)[0])))(xs[None], ys[None])
  np.testing.assert_array_equal(g, [[1., 1., 1.]])
  assert seen == [["value", ("SymbolicZero", "float32[]")]] * 3


def test_custom_jvp_symbolic_zeros_reach_the_rule_and_may_be_returned():
  seen = []

  @xjax.custom_jvp
  def k(x, y):
    return x * y

  def rule(p, t):
    seen.append(tuple(type(x).__name__ == "SymbolicZero" for x in t))
    zero = isinstance(t[0], xjax.custom_derivatives.SymbolicZero)
    return k(*p), t[0] if zero else t[0] * p[1]
  k.defjvp(rule, symbolic_zeros=True)
  assert float(xjax.grad(k)(2., 3.)) == 3.0
  assert float(xjax.grad(k, argnums=1)(2., 3.)) == 0.0
  assert float(xjax.jit(xjax.grad(k, argnums=1))(2., 3.)) == 0.0
  np.testing.assert_array_equal(xjax.vmap(xjax.grad(k))(jnp.ones(2), jnp.ones(2)), [1, 1])
  assert seen[:2] == [(False, True), (True, False)] and seen[-1] == (False, True)
  # explicit tangents are values, not symbolic zeros
  assert xjax.jvp(k, (2., 3.), (1., 0.))[1] == 3.0 and seen[-1] == (False, False)


def test_custom_rules_see_closed_over_scalars_as_arrays_and_python_residuals_as_given():
  seen = []

  @xjax.custom_vjp
  def f(x, n, b):
    return x * n

  def fwd(x, n, b):
    seen.append((type(n).__name__, n.shape, n.dtype, b.dtype))
    return x * n, (x, True, 3, None, 2.5)

  def bwd(res, g):
    seen.append(tuple(type(r).__name__ for r in res[1:]))
    return (g, None, None)
  f.defvjp(fwd, bwd)
  n0, b0 = jnp.array(3), jnp.array(True)
  # grad of a jit: the jaxpr's scalar literals are evaluated again under the JVP
  assert float(xjax.grad(xjax.jit(lambda x: f(x, n0, b0)))(2.)) == 1.0
  assert seen[0] == ("Array", (), np.int32, np.bool_)
  assert seen[-1] == ("bool", "int", "NoneType", "float")


def test_custom_rules_on_python_numbers_give_python_numbers_as_jax():
  """JAX 0.10.2 differentiates Python numbers as they are: a custom rule's arithmetic on
  them gives Python numbers, which jvp, linearize, vjp and value_and_grad return."""
  seen = []

  @xjax.custom_jvp
  def g(x, c):
    return x * c
  @g.defjvp
  def g_jvp(p, t):
    seen.append(tuple(type(v).__name__ for v in p))
    return g(*p), t[0] * p[1]

  @xjax.custom_vjp
  def h(x):
    return x * 3.
  h.defvjp(lambda x: (seen.append(type(x).__name__) or x * 3., None), lambda r, ct: (ct * 3,))

  def kinds(tree):
    return [("Array" if isinstance(v, xjax.Array) else type(v).__name__,
             getattr(v, "weak_type", None)) for v in xjax.tree_util.tree_leaves(tree)]
  out = xjax.jvp(g, (2., 3.), (1., 1.))
  assert out == (6.0, 3.0) and kinds(out) == [("float", None)] * 2
  assert seen.pop() == ("float", "float")
  # a Python number passed to the call (not differentiated) reaches the rule typed
  assert kinds(xjax.jvp(lambda x: g(x, 3.), (2.,), (1.,))) == [("float", None)] * 2
  assert seen.pop() == ("float", "TypedFloat")
  assert kinds(xjax.linearize(lambda x: g(x, 3.), 2.)[0]) == [("float", None)]
  assert seen.pop() == ("float", "TypedFloat")
  value, grad = xjax.value_and_grad(g)(2., 3.)
  assert (value, float(grad)) == (6.0, 3.0) and kinds((value, grad)) == [
      ("float", None), ("Array", True)]
  assert seen.pop() == ("TypedFloat", "TypedFloat")
  assert kinds(xjax.vjp(h, 2.)[0]) == [("float", None)] and seen.pop() == "TypedFloat"
  assert kinds(xjax.value_and_grad(h)(2.)) == [("float", None), ("Array", True)]
  # arrays stay arrays; under jit the rule sees tracers, and the outputs are arrays
  assert kinds(xjax.jvp(g, (jnp.float32(2.), 3.), (jnp.float32(1.), 1.))) == [
      ("Array", False)] * 2
  assert kinds(xjax.jit(lambda x: xjax.jvp(g, (x, 3.), (1., 1.)))(2.)) == [
      ("Array", True)] * 2


def test_eager_jvp_types_a_promoted_operands_tangent_from_its_primal():
  # JAX converts a concrete JVP tracer to its own (weak) type: the tangent becomes weak
  primal, tangent = xjax.jvp(lambda a: a ** 2, (2.,), (jnp.float32(1.),))
  assert float(tangent) == 4.0 and tangent.weak_type and primal.weak_type


def test_custom_call_with_only_zero_tangents_runs_below_the_jvp():
  @xjax.custom_jvp
  def probe(x):
    return 2 * x
  probe.defjvp(lambda p, t: (probe(p[0]), 2 * t[0]))
  c = jnp.float32(2.)

  def f(x):   # the cond output carries a symbolic zero tangent into the custom call
    return probe(lax.cond(x > 0, lambda x: (x, c), lambda x: (x, c), x)[1]) + x
  y, lin = xjax.linearize(f, 1.0)
  assert (float(y), float(lin(1.0))) == (5.0, 1.0)


def test_custom_vjp_bwd_may_give_none_for_a_whole_argument_subtree():
  @xjax.custom_vjp
  def f(x, aux):
    return x * aux["a"] + aux["b"][0]
  f.defvjp(lambda x, aux: (f(x, aux), aux["a"]), lambda a, g: (g * a, None))
  aux = {"a": jnp.float32(3.), "b": [jnp.float32(1.), None]}
  assert float(xjax.grad(f)(2., aux)) == 3.0


def test_custom_vjp_bwd_output_is_a_prefix_whose_leaves_cover_subtrees():
  # (as JAX 0.10.2: a leaf of the bwd output stands for every leaf of the argument subtree
  # at its place; flax's custom_vjp returns arrays where its Variables are)
  @xjax.custom_vjp
  def f(p):
    return p["a"] * p["b"][0] + p["b"][1]
  f.defvjp(lambda p: (f(p), p), lambda p, g: ({"a": g * p["b"][0], "b": g},))
  p = {"a": jnp.float32(2.0), "b": (jnp.float32(3.0), jnp.float32(4.0))}
  g = xjax.grad(f)(p)
  assert [float(v) for v in xjax.tree.leaves(g)] == [3.0, 1.0, 1.0]
  f.defvjp(lambda p: (f(p), p), lambda p, g: ([g, g],))   # (a list where a dict is)
  with pytest.raises(TypeError, match="same pytree structure"):
    xjax.grad(f)(p)


def test_custom_vjp_fwd_runs_where_its_known_primals_live_under_grad():
  # (as JAX 0.10.2, whose linearize trace runs the rule on its parent: what the rule makes,
  # such as flax's Variables, belongs to the trace the function was called in)
  from xjax.extend import core
  seen, outer = [], []

  @xjax.custom_vjp
  def f(x):
    return jnp.sin(x)

  def fwd(x):
    seen.append(core.get_opaque_trace_state() == outer[0])
    return jnp.sin(x), jnp.cos(x)
  f.defvjp(fwd, lambda c, g: (g * c,))
  outer.append(core.get_opaque_trace_state())
  assert float(xjax.grad(lambda x: f(x) * 2)(1.0)) == pytest.approx(2 * np.cos(1.0))
  assert seen == [True]


def test_jit_closing_over_a_float0_array():
  # float0 values (integer tangents) have no data; XLA receives them as booleans
  z = np.zeros((3,), xjax.dtypes.float0)
  out = xjax.jit(lambda x: (x * 2, z))(1.)
  assert out[1].dtype == xjax.dtypes.float0 and out[1].shape == (3,)


# ---------------------------------------------------------------------------------------
# Integer inputs: float0 tangents and cotangents (values recorded from JAX 0.10.2)

def _is_float0(x, shape=()):
  return isinstance(x, np.ndarray) and x.dtype == xjax.dtypes.float0 and x.shape == shape


def test_vjp_of_integer_inputs_gives_float0_cotangents():
  ct_x, ct_n = xjax.vjp(lambda x, n: x * n, 2., 3)[1](1.)
  assert float(ct_x) == 3.0 and ct_x.dtype == np.float32 and ct_x.weak_type
  assert _is_float0(ct_n)
  ct_x, ct_n = xjax.vjp(lambda x, n: x * n, jnp.ones(3), jnp.arange(3))[1](jnp.ones(3))
  np.testing.assert_array_equal(ct_x, [0., 1., 2.])
  assert _is_float0(ct_n, (3,))
  # an integer function of integer inputs: its integer cotangent is not propagated
  ct_n, = xjax.vjp(lambda n: n * 2, 3)[1](4)
  assert _is_float0(ct_n)
  # through a jit, the float0 cotangent still comes back as a host array
  assert _is_float0(xjax.vjp(xjax.jit(lambda x, n: x * n), 2., 3)[1](1.)[1])
  g = xjax.grad(lambda x, n: (x * n).sum(), argnums=1, allow_int=True)(jnp.ones(3),
                                                                      jnp.arange(3))
  assert _is_float0(g, (3,))


def test_float0_results_are_host_arrays():
  tangent = lambda x: xjax.jvp(lambda y: y > 0, (x,), (x,))[1]
  assert _is_float0(xjax.jit(tangent)(jnp.ones(3)), (3,))
  assert _is_float0(xjax.vmap(tangent)(jnp.ones(3)), (3,))
  assert _is_float0(xjax.vmap(lambda z: z)(np.zeros(3, xjax.dtypes.float0)), (3,))
  p, t = xjax.vmap(lambda x: xjax.jvp(lambda y: (y > 0).astype(int), (x,), (x,)))(jnp.ones(3))
  np.testing.assert_array_equal(p, [1, 1, 1])
  assert p.dtype == np.int32 and _is_float0(t, (3,))
  j = xjax.jacfwd(lambda x: x.astype(int))(jnp.ones(3))
  np.testing.assert_array_equal(j, np.zeros((3, 3)))
  assert j.dtype == np.int32


def test_float0_to_bool_and_jacfwd_of_comparisons_fail_as_in_jax():
  # JAX compares the float0 operand with a float0 zero, which NumPy cannot make
  msg = "a bytes-like object is required, not 'int'"
  z = np.zeros(3, xjax.dtypes.float0)
  with pytest.raises(TypeError, match=msg):
    lax.convert_element_type(z, bool)
  with pytest.raises(TypeError, match=msg):
    xjax.jit(lambda z: lax.convert_element_type(z, bool))(z)
  np.testing.assert_array_equal(lax.convert_element_type(z, jnp.float32), [0., 0., 0.])
  for x in (jnp.ones(3), 1.):
    with pytest.raises(TypeError, match=msg):
      xjax.jacfwd(lambda x: x > 0)(x)


def test_jacobian_input_dtype_errors_are_jaxs():
  with pytest.raises(TypeError, match=r"jacfwd requires real-valued inputs \(input dtype "
                     r"that is a sub-dtype of np.floating\), but got int32. For holomorphic "
                     r"differentiation, pass holomorphic=True. For differentiation of "
                     r"non-holomorphic functions involving complex inputs or integer inputs, "
                     r"use jax.jvp directly.\n"):
    xjax.jacfwd(lambda x: x * 2)(jnp.arange(3))
  with pytest.raises(TypeError, match=r"jacrev requires real- or complex-valued inputs "
                     r"\(input dtype that is a sub-dtype of np.inexact\), but got int32. If "
                     r"you want to use Boolean- or integer-valued inputs, use vjp or set "
                     r"allow_int to True.\n"):
    xjax.jacrev(lambda x: x * 2.)(jnp.arange(3))
  # complex inputs pass jacrev's input check; its output check refuses them
  with pytest.raises(TypeError, match="jacrev requires real-valued outputs"):
    xjax.jacrev(lambda x: x * 2.)(jnp.ones(3, jnp.complex64))


def test_linear_transpose_of_integer_functions():
  ct, = xjax.linear_transpose(lambda n: n * 2, 3)(4)
  assert int(ct) == 8 and ct.dtype == np.int32 and ct.weak_type
  ct, = xjax.linear_transpose(lambda n: -n, jnp.arange(3))(jnp.arange(3))
  np.testing.assert_array_equal(ct, [0, -1, -2])
  assert ct.dtype == np.int32 and not ct.weak_type
  for f, args, types in [
      (lambda x, n: x * 2., (1., 3), "[dtype('float32'), dtype('int32')] -> "
                                     "[dtype('float32')]"),
      (lambda x: x.astype(int), (1.,), "[dtype('float32')] -> [dtype('int32')]"),
      (lambda x: x, (True,), "[dtype('bool')] -> [dtype('bool')]")]:
    with pytest.raises(TypeError) as e:
      xjax.linear_transpose(f, *args)
    assert str(e.value) == ("linear_transpose only supports [float or complex] -> [float or "
                            f"complex], and integer -> integer functions, but got {types}.")


def test_linearized_function_gives_arrays_for_zero_tangents():
  """The linear map linearize returns gives an array for a constant (zero) tangent, typed
  as its primal, and an input passed straight through as given (recorded from JAX 0.10.2)."""
  def at_ones(f, *primals):
    _, f_jvp = xjax.linearize(f, *primals)
    return f_jvp(*[1.0 for _ in primals])
  for f, x in [(jnp.floor, 0.7), (lax.floor, 0.7), (lax.stop_gradient, 0.7),
               (jnp.floor, jnp.asarray(0.7))]:
    t = at_ones(f, x)
    assert isinstance(t, xjax.Array) and t.weak_type and t.dtype == np.float32
    assert t == 0
  t = at_ones(jnp.floor, jnp.asarray(0.7, np.float32))
  assert isinstance(t, xjax.Array) and not t.weak_type
  ts = at_ones(lambda x: xjax.jit(lambda a: (a * 2., 3.))(x), 0.7)
  assert all(isinstance(t, xjax.Array) for t in ts) and ts[1].weak_type
  np.testing.assert_array_equal(ts, [2.0, 0.0])
  assert type(at_ones(lambda x: x, 0.7)) is float


def test_check_grads_has_jaxs_semantics():
  """One direction from RandomState(0), eps 1e-4 and JAX's per-dtype tolerances: on JAX 0.10.2
  the second-order check of exp at X fails in float32 ("VJP of VJP cotangent projection")
  and passes with atol=rtol=2e-2; sin passes with the defaults."""
  with pytest.raises(AssertionError, match="VJP of VJP cotangent projection"):
    check_grads(lax.exp, (X,), 2)
  check_grads(lax.exp, (X,), 2, atol=2e-2, rtol=2e-2)
  check_grads(lax.sin, (X,), 2)
  check_grads(lax.sin, (X,), 2, modes=("lin",))


def test_custom_vjp_bwd_runs_when_its_outputs_are_live_without_cotangents():
  """flax's fp8 ``in_q``: its outputs feed other custom_vjp functions whose bwd returns None
  for them, and its bwd returns new state as the gradient: JAX transposes every live linear
  equation, so bwd runs; where its outputs are dead (stop_gradient) it does not. Values
  recorded from JAX 0.10.2."""
  @functools.partial(xjax.custom_vjp, nondiff_argnums=(0,))
  def in_q(c, inp, scale, hist):
    return inp * scale[0], scale * 2

  def fwd(c, inp, scale, hist):
    new_hist = jnp.roll(hist, -1).at[0].set(jnp.max(jnp.abs(inp)))
    return (inp * scale[0], scale * 2), (scale * 2, new_hist)
  in_q.defvjp(fwd, lambda c, res, g: (None, *res))

  @xjax.custom_vjp
  def consume(q, s):
    return q * s[0]
  consume.defvjp(lambda q, s: (q * s[0], None), lambda r, g: (None, None))

  x, p = jnp.array([1., -3., 2.]), {"scale": jnp.ones(1), "hist": jnp.zeros(4)}
  loss = lambda p: jnp.sum(consume(*in_q(0, x, p["scale"], p["hist"])))
  for grad in (xjax.grad(loss), xjax.jit(xjax.grad(loss))):
    g = grad(p)
    assert g["hist"].tolist() == [3., 0., 0., 0.] and g["scale"].tolist() == [2.]
  dead = xjax.grad(lambda p: jnp.sum(lax.stop_gradient(in_q(0, x, p["scale"], p["hist"])[0])))
  assert dead(p)["hist"].tolist() == [0.] * 4 and dead(p)["scale"].tolist() == [0.]


def test_custom_jvp_float0_tangent_of_an_integer_output_is_a_zero():
  """A rule's float0 tangent for an integer output counts as zero, as JAX takes it (quadax's
  adaptive quadrature multiplies such an output by an integer under grad); 12.0 is JAX's."""
  @xjax.custom_jvp
  def f(x):
    return x * 2, jnp.int32(3)

  @f.defjvp
  def f_jvp(primals, tangents):
    (x,), (tx,) = primals, tangents
    return f(x), (tx * 2, np.zeros((), dtype=xjax.dtypes.float0))

  def g(x):
    y, n = f(x)
    return y * (n * 2)
  assert float(xjax.grad(g)(1.0)) == 12.0 == float(xjax.jit(xjax.grad(g))(1.0))
  assert float(xjax.jvp(g, (1.0,), (1.0,))[1]) == 12.0
  assert float(xjax.grad(lambda x: xjax.jit(g)(x))(1.0)) == 12.0


def test_float0_operands_are_refused_with_jaxs_type_errors():
  """An integer's float0 tangent supports no arithmetic: jnp functions and lax primitives
  raise JAX's TypeError naming the operation; type promotion its ValueError."""
  z = np.zeros((), xjax.dtypes.float0)
  for f, text in ((lambda: jnp.multiply(z, 2.), "Called multiply with a float0 array. "),
                  (lambda: jnp.sin(z), "Called sin with a float0 array. "),
                  (lambda: jnp.add(z, z), "Called add with a float0 array. "),
                  (lambda: lax.mul(z, z), "Called mul with a float0 at position 0. "),
                  (lambda: lax.sin(z), "Called sin with a float0 array. ")):
    with pytest.raises(TypeError) as info:
      f()
    assert str(info.value).startswith(text + "float0s do not support any operations by design")
    assert str(info.value).endswith("taken a gradient with respect to an integer argument.")
  with pytest.raises(ValueError, match=r"^dtype=dtype\(\[\('float0', 'V'\)\]\) is not a valid "
                     "dtype for JAX type promotion."):
    jnp.where(True, z, 1.)


def test_values_without_tangents_stay_host_values_as_jax():
  """JAX 0.10.2: an input whose tangent is float0 enters the function as it is (no tracer);
  stop_gradient reaches through an eager JVP tracer to its primal, canonicalized;
  checkpoint_name canonicalizes host values (TypedFloat, TypedInt, TypedNdArray)."""
  from xjax.ad_checkpoint import checkpoint_name
  f0 = np.zeros((), xjax.dtypes.float0)
  primals, _ = xjax.jvp(lambda a, n: (a * n, n * 1), (2., 3), (1., f0))
  assert float(primals[0]) == 6.0 and type(primals[1]) is int and primals[1] == 3
  for run in (lambda f: xjax.jvp(f, (3.,), (1.,))[0], lambda f: xjax.linearize(f, 3.)[0],
              lambda f: xjax.vjp(f, 3.)[0]):
    out = run(lambda a: lax.stop_gradient(a) * 2)
    assert type(out) is float and out == 6.0
  out = xjax.jvp(lax.stop_gradient, (3.,), (1.,))[0]
  assert type(out).__name__ == "TypedFloat" and out == 3.0
  assert float(xjax.grad(lambda a: lax.stop_gradient(a) * a)(3.)) == 3.0
  assert float(xjax.hessian(lambda a: lax.stop_gradient(a) * a ** 2)(3.)) == 6.0
  kinds = [type(checkpoint_name(v, "n")).__name__ for v in (2., 2, np.float32(2), np.ones(2))]
  assert kinds == ["TypedFloat", "TypedInt", "TypedNdArray", "TypedNdArray"]
  assert type(xjax.jvp(lambda a: checkpoint_name(a, "n"), (2.,), (1.,))[0]).__name__ == (
      "TypedFloat")
  # a custom rule gets an integer argument whose tangent is float0 as a typed number
  seen = []

  @xjax.custom_jvp
  def g(a, n):
    return a * n
  g.defjvp(lambda p, t: (seen.append(type(p[1]).__name__) or g(*p), t[0] * p[1]))
  out = xjax.jvp(g, (2., 3), (1., f0))
  assert out == (6.0, 3.0) and seen == ["TypedInt"]


def test_jit_under_linearize_forwards_known_outputs_that_are_inputs_as_jax():
  """JAX's jit passes a known output that is one of its inputs on as it is (its known part
  does not return it): vjp of a jitted identity hands back the canonicalized input, and the
  staged known call returns only what it computes (JAX 0.10.2's jaxpr)."""
  out = xjax.vjp(xjax.jit(lambda y: y), 1.)[0]
  assert type(out).__name__ == "TypedFloat" and out == 1.0
  assert str(xjax.make_jaxpr(lambda x: xjax.vjp(xjax.jit(lambda y: (y, y * 2)), x)[0])(1.)) == (
      "{ lambda ; a:f32[]. let\n"
      "    b:f32[] = jit[\n"
      "      name=<lambda>\n"
      "      jaxpr={ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }\n"
      "    ] a\n"
      "  in (a, b) }")
  y, pullback = xjax.vjp(xjax.jit(lambda a: (a, jnp.sin(a))), jnp.float32(0.5))
  np.testing.assert_allclose(pullback((1., 1.))[0], 1 + np.cos(0.5), rtol=1e-6)


def test_linearize_passes_an_input_without_tangent_as_it_is():
  """An integer input of linearize/vjp (its tangent float0) enters the function as it is,
  as in JAX: expn's order, a nondiff argument of its custom JVP whose rule is compiled for
  each static order, leaked an eager JVP tracer before."""
  from xjax.scipy.special import expn
  for run in (lambda: xjax.linearize(expn, 1, 0.7)[0], lambda: xjax.vjp(expn, 1, 0.7)[0]):
    np.testing.assert_allclose(run(), 0.37376893, rtol=1e-6)   # scipy.special.expn(1, 0.7)
  seen = []
  xjax.linearize(lambda n, x: seen.append(type(n)) or x * n, 2, 1.5)
  assert seen == [int]
