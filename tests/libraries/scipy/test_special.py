"""xjax.scipy.special: values against SciPy (float32 and float64), edge values and
weak types as JAX, custom derivatives (finite differences), vmap and jit compositions."""
import numpy as np
import pytest
import scipy.special as ss

import xjax as jax
import xjax.numpy as jnp
import xjax.scipy.special as xs
from xjax.test_util import check_grads


X = np.array([-30, -5.5, -1.5, -0.1, 1e-3, 0.3, 1.0, 2.0, 3.9, 4.5, 10.0, 45.0], np.float32)
POS = np.array([1e-3, 0.1, 0.5, 1.0, 1.5, 2.5, 4.0, 7.5, 20.0, 45.0], np.float32)
PROB = np.array([1e-6, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999], np.float32)

UNARY = [  # (name, inputs, rtol in float32)
    ("gammaln", POS, 1e-5), ("digamma", POS, 2e-5), ("erf", X, 1e-6), ("erfc", X[3:], 2e-5),
    ("erfinv", 2 * PROB - 1, 2e-5), ("erfcx", X, 2e-6), ("ndtr", X, 1e-5),
    ("ndtri", PROB, 2e-5), ("log_ndtr", X, 2e-5), ("i0", X[1:-1], 2e-6), ("i0e", X, 2e-6),
    ("i1", X[1:-1], 2e-6), ("i1e", X, 2e-6), ("expit", X, 1e-6), ("logit", PROB, 1e-5),
    ("entr", POS, 2e-6), ("expi", X[:-1], 2e-5), ("exp1", POS, 2e-6), ("spence", POS, 1e-5),
    ("dawsn", X, 2e-6), ("gamma", np.array([-2.5, -0.5, 0.3, 1.0, 4.5, 10.0], np.float32), 2e-5),
    ("gammasgn", np.array([-2.5, -1.5, -0.5, 0.3, 1.0], np.float32), 0),
    ("loggamma", POS, 1e-5), ("factorial", np.array([0, 1, 3.5, 10], np.float32), 1e-5),
]


@pytest.mark.parametrize("name,x,rtol", UNARY, ids=[u[0] for u in UNARY])
def test_unary_against_scipy(name, x, rtol):
  np.testing.assert_allclose(getattr(xs, name)(x), getattr(ss, name)(x), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("name", ["erfcx", "dawsn", "ndtri", "log_ndtr", "expi", "exp1",
                                  "spence", "gammaln", "i1e"])
def test_unary_float64_precision(name, x64):
  x = {"ndtri": PROB, "spence": POS, "exp1": POS, "gammaln": POS}.get(name, X).astype(np.float64)
  # (log_ndtr is JAX's log(ndtr(x)) below x = 8: 2.5e-12 from SciPy at 4.5, in JAX too)
  rtol = 5e-12 if name == "log_ndtr" else 1e-12
  np.testing.assert_allclose(getattr(xs, name)(x), getattr(ss, name)(x), rtol=rtol)


def test_pairs_and_tuples_against_scipy():
  s, c = xs.sici(X)
  s2, c2 = ss.sici(X)
  np.testing.assert_allclose(s, s2, rtol=2e-6)
  np.testing.assert_allclose(c, c2, rtol=2e-6, atol=1e-7)
  s, c = xs.fresnel(X[:-1])
  s2, c2 = ss.fresnel(X[:-1])
  np.testing.assert_allclose(s, s2, atol=1e-6)
  np.testing.assert_allclose(c, c2, atol=1e-6)
  z = np.array([1 + 1j, -2 + 0.5j, 0.1 - 3j, 10 + 10j, 5, -1e-3j, 3j], np.complex64)
  w = xs.wofz(z)
  assert w.dtype == np.complex64
  np.testing.assert_allclose(w, ss.wofz(z), rtol=1e-6)
  assert xs.wofz(np.float32(1.0)).dtype == np.complex64


A = np.array([0.5, 1.0, 2.0, 3.3, 10.0, 0.1], np.float32)
B = np.array([0.2, 1.5, 2.0, 0.7, 3.0, 5.0], np.float32)
BINARY = [
    ("xlogy", A, B, 1e-6), ("xlog1py", A, B, 1e-6), ("rel_entr", A, B, 1e-6),
    ("kl_div", A, B, 1e-6), ("beta", A, B, 2e-5), ("betaln", A, B, 2e-5),
    ("gammainc", A, B, 2e-5), ("gammaincc", A, B, 2e-5), ("poch", A, B, 2e-5),
    ("comb", B * 3, A, 2e-5), ("zeta", A + 1.5, B, 2e-5), ("boxcox", B, A - 1, 2e-5),
    ("boxcox1p", B, A - 1, 2e-5), ("owens_t", A - 1, B * 2, 2e-5),
    ("expn", np.array([0, 1, 2, 3, 5, 10], np.float32), B, 2e-5),
]


@pytest.mark.parametrize("name,a,b,rtol", BINARY, ids=[u[0] for u in BINARY])
def test_binary_against_scipy(name, a, b, rtol):
  np.testing.assert_allclose(getattr(xs, name)(a, b), getattr(ss, name)(a, b), rtol=rtol,
                             atol=1e-7)


def test_ternary_and_integer_order_functions():
  a, b, x = A, B + 0.5, np.array([0.1, 0.3, 0.5, 0.7, 0.9, 0.99], np.float32)
  np.testing.assert_allclose(xs.betainc(a, b, x), ss.betainc(a, b, x), rtol=2e-5)
  xx = np.array([0.5, -3.0, 10.0, 2.0, -2.0, 70.0], np.float32)
  np.testing.assert_allclose(xs.hyp1f1(a, b, xx), ss.hyp1f1(a, b, xx), rtol=5e-5)
  # as JAX's, the series cancels catastrophically at large negative x (SciPy: 3.96e-8)
  np.testing.assert_allclose(xs.hyp1f1(np.float32(10), np.float32(3.5), np.float32(-20)),
                             -4752.08, rtol=1e-5)
  c = a + b + 0.5
  zz = np.array([0.5, -3.0, 0.95, 0.2, -0.9, 0.99], np.float32)
  # JAX 0.10.2's values: its power series diverges below x = -1 (inf at -3, where SciPy has
  # 0.399) and is cut off early near 1 (1.32452 at 0.99, SciPy 1.32492)
  np.testing.assert_allclose(xs.hyp2f1(a, b, c, zz), [1.1387515, np.inf, 7.1375895, 1.1882112,
                                                      0.18215726, 1.3245237], rtol=1e-6)
  n = np.array([0, 1, 2, 3])
  np.testing.assert_allclose(xs.polygamma(n, A[:4]), ss.polygamma(n, A[:4]), rtol=2e-5)
  np.testing.assert_allclose(xs.multigammaln(A + 2, 3), ss.multigammaln(A + 2, 3), rtol=2e-5)
  np.testing.assert_allclose(xs.bernoulli(12), ss.bernoulli(12), rtol=1e-6, atol=1e-7)
  z = np.array([0.5, 2.0, 8.0], np.float32)
  out = xs.bessel_jn(z, v=3, n_iter=20)  # from order 50, float32 overflows here (as JAX)
  assert out.shape == (4, 3)
  np.testing.assert_allclose(out, np.stack([ss.jv(k, z) for k in range(4)]), atol=1e-6)
  n, m = np.array([0, 1, 2, 3, 5]), np.array([0, -1, 2, -2, 3])
  th, ph = np.linspace(0.1, 3.0, 5), np.linspace(0.0, 6.0, 5)
  # SciPy 1.15 and newer name it sph_harm_y; before, sph_harm(m, n, azimuth, polar)
  want = (ss.sph_harm_y(n, m, th, ph) if hasattr(ss, "sph_harm_y")
          else ss.sph_harm(m, n, ph, th))
  np.testing.assert_allclose(xs.sph_harm_y(n, m, th, ph), want, atol=1e-6)


def test_edge_values_as_jax():
  # literals taken from the reference JAX 0.10.2
  inf, nan = np.inf, np.nan
  np.testing.assert_array_equal(xs.gammasgn(np.array([-0.0, 0.0, -1.0, -inf, inf, nan])),
                                [-1, 1, nan, nan, 1, nan])
  np.testing.assert_array_equal(xs.xlogy(np.array([0.0, 0.0, 1.0]), np.array([0.0, nan, 0.0])),
                                [0, nan, -inf])
  np.testing.assert_array_equal(xs.xlog1py(0.0, -1.0), 0.0)
  np.testing.assert_array_equal(xs.entr(np.array([-1.0, 0.0, inf])), [-inf, 0, -inf])
  np.testing.assert_array_equal(xs.rel_entr(np.array([0.0, 1.0, 1.0]), np.array([0.0, 0.0, -1])),
                                [0, inf, inf])
  np.testing.assert_array_equal(xs.ndtri(np.array([0.0, 1.0, -0.5, 2.0])), [-inf, inf, nan, nan])
  np.testing.assert_array_equal(xs.log_ndtr(np.array([-inf, inf])), [-inf, 0])
  np.testing.assert_array_equal(xs.loggamma(np.array([-1.5, 0.0])), [nan, nan])
  np.testing.assert_allclose(xs.factorial(np.array([-1.0, 0.0])), [0, 1], rtol=1e-6)
  np.testing.assert_array_equal(xs.comb(np.array([3.0, 3.0]), np.array([4.0, -1.0])), [0, 0])
  np.testing.assert_array_equal(xs.hyp1f1(0.0, 1.0, 5.0), 1.0)
  np.testing.assert_allclose(xs.hyp1f1(2.0, 2.0, 1.5), np.exp(1.5), rtol=1e-6)
  # expi/exp1: NaN (not SciPy's -inf/inf/0) at 0 and +-inf
  np.testing.assert_array_equal(xs.expi(np.array([0.0, -0.0, inf, -inf, nan, -100.0])),
                                [nan, nan, nan, nan, nan, -0.0])
  np.testing.assert_array_equal(xs.exp1(np.array([0.0, -0.0, inf, -inf, -1.0, 1e4])),
                                [inf, inf, nan, nan, nan, 0.0])
  # betaln/beta with one huge argument: lgamma(a) + Stirling's lgamma(b) - lgamma(a + b)
  np.testing.assert_allclose(xs.betaln(np.array([1e-30, 1e30, 0.5, 2.5], np.float32),
                                       np.array([1e30, -2.5, 1e30, 1e30], np.float32)),
                             [69.07755279541016, 172.63763427734375, -33.96641159057617,
                              -172.40919494628906], rtol=1e-6)
  np.testing.assert_allclose(xs.beta(np.float32(1e30), np.float32(0.5)), 1.7724536e-15, rtol=1e-5)
  # betainc limits: x at 0/1 first, then a or b at 0, then a or b infinite
  np.testing.assert_array_equal(
      xs.betainc(np.array([0.0, inf, inf, inf, 0.5, 0.0]), np.array([0.5, inf, inf, 0.5, inf, inf]),
                 np.array([0.0, 0.0, 1.0, 0.5, 0.5, 0.0])), [0, nan, nan, 0, 1, 0])
  assert float(xs.spence(0.0)) == pytest.approx(np.pi ** 2 / 6)
  assert np.isnan(xs.spence(-1.0))


def test_dtypes_and_weak_types():
  assert xs.gammaln(2.0).dtype == np.float32 and xs.gammaln(2.0).aval.weak_type
  for f, args in ((xs.entr, (2,)), (xs.betaln, (1.5, 1.5)), (xs.betainc, (1.5, 2, 0.5))):
    assert f(*args).aval.weak_type, f
  assert xs.erf(3).dtype == np.float32
  assert xs.xlogy(np.float16(1), 2.0).dtype == np.float16
  assert not xs.expit(np.float32(1)).aval.weak_type
  with pytest.raises(TypeError, match="not supported"):
    xs.ndtr(np.arange(3))
  with pytest.raises(TypeError, match="series_order"):
    xs.log_ndtr(1.0, series_order=1.5)
  with pytest.raises(ValueError, match="series_order"):
    xs.log_ndtr(1.0, series_order=31)
  with pytest.raises(NotImplementedError, match="exact=True"):
    xs.factorial(3, exact=True)
  with pytest.raises(NotImplementedError, match="Riemann"):
    xs.zeta(2.0)
  with pytest.raises(ValueError, match="integer type. Got dtype float32"):  # as JAX
    xs.polygamma(1.5, 2.0)
  with pytest.raises(ValueError, match="complex"):
    xs.gammasgn(1j)
  with pytest.raises(NotImplementedError, match="diff_n"):
    xs.sph_harm_y(1, 0, 0.5, 0.5, diff_n=1)


def test_logsumexp():
  rng = np.random.RandomState(0)
  a = rng.randn(3, 4).astype(np.float32)
  b = np.array([1.0, -1.0, 2.0, 0.5], np.float32)
  np.testing.assert_allclose(xs.logsumexp(a), ss.logsumexp(a), rtol=1e-6)
  np.testing.assert_allclose(xs.logsumexp(a, axis=1, keepdims=True),
                             ss.logsumexp(a, axis=1, keepdims=True), rtol=1e-6)
  out, sign = xs.logsumexp(a, axis=1, b=b, return_sign=True)
  out2, sign2 = ss.logsumexp(a, axis=1, b=b, return_sign=True)
  np.testing.assert_allclose(out, out2, rtol=1e-5)
  np.testing.assert_array_equal(sign, sign2)
  # a negative sum without return_sign is NaN (as JAX); where masks elements
  assert np.isnan(xs.logsumexp(np.array([0.0, 1.0]), b=np.array([1.0, -2.0])))
  np.testing.assert_allclose(xs.logsumexp(a, axis=1, where=a > 0),
                             [ss.logsumexp(r[r > 0]) for r in a], rtol=1e-6)
  assert xs.logsumexp(np.array([-np.inf, -np.inf])) == -np.inf
  big = np.array([1e30, 1e30], np.float32)
  np.testing.assert_allclose(xs.logsumexp(big), 1e30, rtol=1e-6)
  with pytest.raises(ValueError, match="`a` and `b`"):
    xs.logsumexp(a, b=np.ones(3))
  # the max is held constant under differentiation: gradient is softmax
  g = jax.grad(xs.logsumexp)(jnp.asarray(a[0]))
  np.testing.assert_allclose(g, ss.softmax(a[0]), rtol=1e-6)
  np.testing.assert_allclose(xs.softmax(a), ss.softmax(a), rtol=1e-6)
  np.testing.assert_allclose(xs.log_softmax(a, axis=1), ss.log_softmax(a, axis=1), rtol=1e-5)


def test_xlogy_family_differentiates_its_arguments_as_given_as_jax():
  """JAX 0.10.2's xlogy/xlog1py are custom_jvp functions of the arguments as given (their
  promotion is inside the call): differentiating through one with an integer argument hands
  its rule a float0 tangent, which the rule's arithmetic refuses -- so gumbel_r's logpdf
  (``xlogy(-1, scale)``) has no gradient in its scale, on JAX as here."""
  for f in (xs.xlogy, xs.xlog1py):
    with pytest.raises(TypeError, match="Called multiply with a float0 array"):
      jax.grad(lambda s: f(-1, s))(0.3)
    with pytest.raises(TypeError, match="float0"):
      jax.jvp(lambda s: f(2, s), (0.3,), (1.0,))
    np.testing.assert_allclose(jax.grad(lambda s: f(-1., s))(0.3),
                               -1 / (0.3 + (f is xs.xlog1py)), rtol=1e-6)
  with pytest.raises(TypeError, match="float0"):
    jax.grad(jax.scipy.stats.gumbel_r.logpdf, argnums=2)(0.3, 0.3, 0.3)
  z = 1 / 0.3   # d/dx of -log(scale) - z - exp(-z), z = (x - loc) / scale
  np.testing.assert_allclose(jax.grad(jax.scipy.stats.gumbel_r.logpdf)(1.3, 0.3, 0.3),
                             -(1 - np.exp(-z)) / 0.3, rtol=1e-6)
  text = str(jax.make_jaxpr(xs.xlogy)(1, 2.))   # one call, of the integer as given
  assert text.startswith("{ lambda ; a:i32[] b:f32[]. let\n    c:f32[] = custom_jvp_call[")
  assert "      name=xlogy\n" in text and "      jvp=_xlogy_jvp\n" in text


def test_custom_derivatives_at_special_points():
  # xlogy/xlog1py/entr: finite derivatives where x == 0
  np.testing.assert_allclose(jax.grad(xs.xlogy, (0, 1))(0.0, 2.0), (np.log(2.0), 0.0))
  np.testing.assert_allclose(jax.grad(xs.xlog1py, (0, 1))(0.0, 1.0), (np.log(2.0), 0.0))
  np.testing.assert_allclose(jax.grad(xs.entr)(1.0), -1.0)
  np.testing.assert_allclose(jax.grad(xs.logit)(0.25), 1 / (0.25 * 0.75), rtol=1e-6)
  np.testing.assert_allclose(jax.grad(xs.erfcx)(2.0),
                             2 * 2 * ss.erfcx(2.0) - 2 / np.sqrt(np.pi), rtol=1e-5)
  np.testing.assert_allclose(jax.grad(xs.ndtri)(0.975), np.sqrt(2 * np.pi) *
                             np.exp(0.5 * ss.ndtri(0.975) ** 2), rtol=1e-5)
  np.testing.assert_allclose(jax.grad(xs.log_ndtr)(-30.0), 30 + 1 / 30 - 2 / 30 ** 3, rtol=1e-4)
  dz = jax.grad(xs.zeta, (0, 1))(3.0, 2.0)
  eps = 1e-6
  np.testing.assert_allclose(dz, ((ss.zeta(3 + eps, 2) - ss.zeta(3 - eps, 2)) / (2 * eps),
                                  -3 * ss.zeta(4.0, 2.0)), rtol=1e-4)


GRADS = [
    ("gammaln", (2.5,)), ("erfcx", (1.5,)), ("dawsn", (0.7,)), ("expi", (-1.3,)),
    ("exp1", (0.8,)), ("spence", (0.8,)), ("i0", (1.2,)), ("i1e", (0.9,)),
    ("xlogy", (1.5, 2.5)), ("betaln", (1.5, 2.5)), ("poch", (1.5, 0.7)),
    ("owens_t", (0.7, 0.4)), ("hyp1f1", (0.5, 1.5, 0.8)), ("log_ndtr", (-3.0,)),
    ("gammainc", (1.5, 2.0)), ("kl_div", (0.5, 0.8)),
]


@pytest.mark.parametrize("name,args", GRADS, ids=[g[0] for g in GRADS])
def test_check_grads(name, args, x64):
  check_grads(getattr(xs, name), tuple(np.float64(a) for a in args), order=1, rtol=1e-5)


def test_sici_fresnel_grads():
  # the derivatives are elementary: Si' = sin x / x, Ci' = cos x / x, S' = sin(pi x^2 / 2), ...
  x = np.float32(1.3)
  g = jax.grad(lambda x: xs.sici(x)[0] + 2 * xs.sici(x)[1])(x)
  np.testing.assert_allclose(g, (np.sin(x) + 2 * np.cos(x)) / x, rtol=1e-5)
  g = jax.grad(lambda x: xs.fresnel(x)[0] - xs.fresnel(x)[1])(x)
  np.testing.assert_allclose(g, np.sin(np.pi * x * x / 2) - np.cos(np.pi * x * x / 2), rtol=1e-5)


def test_sici_bits_are_jaxs():
  # JAX 0.10.2's bits: Cephes's rational approximations (series to 4, auxiliary functions
  # to 1e9, the large-x forms beyond), eagerly and under jit.
  x = jnp.array([0.1, 1., 5., 30., -2., 4., 8.5, 2e9], jnp.float32)
  for f in (xs.sici, jax.jit(xs.sici)):
    si, ci = f(x)
    np.testing.assert_array_equal(np.asarray(si).view(np.uint32), [
        1036824495, 1064448640, 1069966374, 1070107515, 3217915436, 1071713485, 1070634660,
        1070141403])
    np.testing.assert_array_equal(np.asarray(ci).view(np.uint32), [
        3218942667, 1051508790, 3192035113, 3171372288, 1054380274, 3188743552, 1036755627,
        805007111])
  assert jax.make_jaxpr(xs.sici)(1.).jaxpr.eqns[0].primitive.name == "custom_jvp_call"


def test_vmap_and_jit_compositions():
  a, b = jnp.asarray(A), jnp.asarray(B)
  loop = np.stack([xs.owens_t(x, y) for x, y in zip(A[:3], B[:3])])
  np.testing.assert_allclose(jax.vmap(xs.owens_t)(a[:3], b[:3]), loop, rtol=1e-5)
  for f in (xs.gammainc, xs.poch):  # elementwise: vmap and jit agree with the eager call
    np.testing.assert_allclose(jax.vmap(f)(a, b), f(a, b), rtol=1e-5)
    np.testing.assert_allclose(jax.jit(f)(a, b), f(a, b), rtol=1e-6)
  rows = np.random.RandomState(1).randn(5, 7).astype(np.float32)
  np.testing.assert_allclose(jax.vmap(xs.logsumexp)(rows), ss.logsumexp(rows, axis=1), rtol=1e-6)
  np.testing.assert_allclose(jax.jit(xs.erfcx)(X), ss.erfcx(X), rtol=2e-6)
  jn = lambda z: xs.bessel_jn(z, v=2, n_iter=20)  # noqa: E731
  np.testing.assert_array_equal(jax.jit(jn)(A[:3]), jn(A[:3]))
  np.testing.assert_array_equal(jax.vmap(jn, out_axes=1)(A[:3]), jn(A[:3]))


def test_hypergeometric_functions_broadcast_mixed_array_and_scalar_arguments():
  a = jnp.array([0.5, 1.], jnp.float32)
  np.testing.assert_allclose(xs.hyp1f1(a, 2., 0.3), ss.hyp1f1([0.5, 1.], 2., 0.3),
                             rtol=1e-5)
  np.testing.assert_allclose(xs.hyp2f1(a, 2., 3., 0.3),
                             ss.hyp2f1([0.5, 1.], 2., 3., 0.3), rtol=1e-5)


def test_sweep_fixes_against_the_reference():
  # Values, weak types and error classes recorded from JAX 0.10.2 (the reference).
  p = np.array([np.inf, np.inf, 0.0, 0.0, 0.5], np.float32)
  q = np.array([1e30, np.nan, -np.inf, np.nan, 2.0], np.float32)
  np.testing.assert_allclose(xs.rel_entr(p, q), [np.nan, np.inf, np.inf, np.inf, -0.6931472],
                             rtol=1e-6)
  np.testing.assert_allclose(xs.kl_div(p, q), [np.nan, np.nan, np.nan, np.nan, 0.8068528],
                             rtol=1e-6)
  for f in (xs.rel_entr, xs.kl_div):
    assert f(0.5, 2.0).weak_type
  for f in (xs.spence, xs.ndtri, lambda x: jax.scipy.stats.norm.isf(x)):
    with pytest.raises(TypeError, match="x.dtype=int32 is not supported"):
      f(np.int32(1))
  np.testing.assert_allclose(xs.multigammaln(3.0, 2.0), 1.5501953, rtol=1e-6)
  np.testing.assert_allclose(xs.multigammaln(3.0, 2.5), 1.5501953, rtol=1e-6)
  z = np.array([0.0, 0.5, 2.5], np.float32)
  out = xs.bessel_jn(z, v=1)
  assert not out.weak_type and not xs.bessel_jn(1.0, v=1).weak_type
  assert out.shape == (2, 3) and np.isnan(out).all()  # JAX's recurrence overflows float32


def _bits(x):
  x = np.asarray(x)
  return x.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]).tolist()


NAN32 = 0xFFC00000  # the NaN XLA makes of inf - inf


def test_bessel_jn_bits_match_the_reference():
  # JAX 0.10.2's bits: its unscaled reverse recurrence overflows float32 (NaN) unless |z| is
  # large next to n_iter.
  assert _bits(xs.bessel_jn(jnp.array([0.5, 1.0, 3.0, 10.0]), v=3)) == [
      [NAN32, NAN32, NAN32, 3195786899], [NAN32, NAN32, NAN32, 1026691178],
      [NAN32, NAN32, NAN32, 1048731366], [NAN32, NAN32, NAN32, 1030692673]]
  assert _bits(xs.bessel_jn(jnp.array([0.5, 2.0, 8.0]), v=3, n_iter=20)) == [
      [1064320911, 1046823841, 1043318072], [1048057144, 1058251837, 1047544961],
      [1023063368, 1052026538, 3186059312], [992478272, 1040452019, 3197439815]]
  assert _bits(xs.bessel_jn(5.0, v=2)) == [3191200746, 3198662771, 1027521284]
  assert _bits(xs.bessel_jn(0.0, v=1)) == [NAN32, NAN32]
  z = jnp.array([[1.0, 5.0, 12.0], [-7.0, 0.5, 30.0]])
  want = [[[NAN32, 3191200753, 1027823074], [1050256381, NAN32, 3182488139]],
          [[NAN32, 3198662771, 3194277715], [999911922, NAN32, 3186835332]],
          [[NAN32, 1027521311, 3182293005], [3197784923, NAN32, 1033941724]]]
  jn = lambda z: xs.bessel_jn(z, v=2, n_iter=40)  # noqa: E731
  for f in (jn, jax.jit(jn), jax.vmap(jn, out_axes=1)):
    assert _bits(f(z)) == want
  assert _bits(jax.grad(lambda z: xs.bessel_jn(z, v=2, n_iter=20)[1])(5.0)) == 3185937043
  assert _bits(jax.grad(lambda z: xs.bessel_jn(z, v=2)[1])(1.0)) == NAN32
  g = jax.grad(lambda z: xs.bessel_jn(z, v=2, n_iter=25).sum())(jnp.array([4.0, -9.0]))
  assert _bits(g) == [3205500238, 3182356307]
  assert _bits(xs.bessel_jn(jnp.array([1.0, 2.0], jnp.float16), v=1)) == [[0xFE00] * 2] * 2


def test_bessel_jn_orders_slice_as_the_reference():
  # The n_iter + 1 orders sliced [:v + 1]: v = -1 is empty, v past n_iter keeps them all.
  assert xs.bessel_jn(jnp.array([1.0, 2.0]), v=-1).shape == (0, 2)
  assert xs.bessel_jn(jnp.array([1.0, 2.0]), v=-3, n_iter=10).shape == (9, 2)
  assert xs.bessel_jn(3.0, v=9, n_iter=4).shape == (5,)
  assert xs.bessel_jn([5.0, 6.0], v=2).shape == (3, 2)
  with pytest.raises(TypeError):
    xs.bessel_jn(1.0, v=2.0)
  with pytest.raises(ValueError, match="Non-hashable static"):
    xs.bessel_jn(1.0, v=np.array(2))


def test_bessel_jn_float64_bits_match_the_reference(x64):
  assert _bits(xs.bessel_jn(jnp.array([1e-3, 1.0, 5.0, 20.0]), v=2)) == [
      [4607182416548217734, 4605067507577370864, 13818938655170218887, 4595185718019222886],
      [4557750908713538115, 4601598866533846125, 13822944797900646812, 4589480254793314760],
      [4503818393832464621, 4592944089333930983, 4586871561525936781, 13818316963167491202]]
  assert _bits(jax.grad(lambda z: xs.bessel_jn(z, v=2)[2])(1.0)) == 4596742844851649773


def test_incomplete_gamma_edges_follow_the_reference():
  # Taken from JAX 0.10.2 (XLA's igamma): far tails are exact, a = 0 / inf as XLA has them.
  a = np.array([0.5, 2.5, 0.0, 0.0, np.inf, np.inf, np.inf, np.inf], np.float32)
  x = np.array([1e30, 1e30, 0.5, 2.5, 0.5, 1.0, 10.0, np.inf], np.float32)
  np.testing.assert_array_equal(xs.gammainc(a, x), [1, 1, np.nan, 1, 0, np.nan, np.nan, 1])
  np.testing.assert_array_equal(xs.gammaincc(a, x), [0, 0, 0, 0, 1, np.nan, np.nan, 0])


def test_complex_gamma_against_scipy():
  z = np.array([1 + 1j, 2.5, 0.5 + 3j, -0.5 + 0.5j, -2.3 - 1.7j, 10 + 5j, 20 + 1j, 35,
                -30.5 + 0.1j, 1e-3 + 1e-3j], np.complex64)
  got = xs.gamma(z)
  assert got.dtype == np.complex64
  # (JAX's log-space Lanczos form: 5.9e-6 relative error at 35)
  np.testing.assert_allclose(got, ss.gamma(z.astype(np.complex128)), rtol=1e-5)
  # JAX 0.10.2's bits
  np.testing.assert_array_equal(
      np.asarray(xs.gamma(np.array([3 + 1j, -2.5 + 0.5j, 0.2 - 4j], np.complex64))).view(
          np.uint32), [1064730205, 1068197778, 3198874038, 3193137535, 985749686, 3140611641])
  # the poles and non-finite parts are NaN in both parts, as SciPy
  bad = np.array([0, -1, -2, np.nan, complex(1, np.nan), np.inf], np.complex64)
  out = np.asarray(xs.gamma(bad))
  assert np.isnan(out.real).all() and np.isnan(out.imag).all()
  np.testing.assert_allclose(jax.jit(jax.vmap(xs.gamma))(z), got, rtol=1e-6)
  # Gamma'(z) = Gamma(z) digamma(z) (SciPy's psi takes complex arguments)
  d = jax.grad(xs.gamma, holomorphic=True)(np.complex64(1 + 1j))
  np.testing.assert_allclose(d, ss.gamma(1 + 1j) * ss.psi(1 + 1j), rtol=1e-5)


def test_complex_gamma_float64(x64):
  z = np.array([1 + 1j, 0.5 + 3j, -2.3 - 1.7j, 60 + 2j, 150], np.complex128)
  np.testing.assert_allclose(xs.gamma(z), ss.gamma(z), rtol=1e-12)


def test_spence_takes_only_real_floats():
  with pytest.raises(TypeError, match=r"x\.dtype=complex64 is not supported, see docstring"):
    xs.spence(np.ones(2, np.complex64))


def _lpmv_table(n, z):
  """SciPy's lpmv laid out as lpmn's (order, degree, point), zero above the diagonal."""
  return np.array([[ss.lpmv(k, l, z) if k <= l else 0 * z for l in range(n + 1)]
                   for k in range(n + 1)])


def test_lpmn_against_scipy():
  import math
  z = np.linspace(-0.95, 0.95, 7)
  with pytest.warns(DeprecationWarning, match="lpmn is deprecated"):
    lpmn = xs.lpmn
  with pytest.warns(DeprecationWarning, match="lpmn_values is deprecated"):
    lpmn_values = xs.lpmn_values
  p, d = lpmn(4, 4, z.astype(np.float32))
  assert p.shape == d.shape == (5, 5, 7) and p.dtype == np.float32
  np.testing.assert_allclose(p, _lpmv_table(4, z), rtol=2e-5, atol=1e-5)
  h = 1e-6  # central differences of SciPy's values
  want_d = (_lpmv_table(4, z + h) - _lpmv_table(4, z - h)) / (2 * h)
  np.testing.assert_allclose(d, want_d, rtol=1e-4, atol=1e-3)
  norm = np.array([[math.sqrt((2 * l + 1) / (4 * math.pi) * math.factorial(l - k)
                              / math.factorial(l + k)) if k <= l else 0.0
                    for l in range(5)] for k in range(5)])
  np.testing.assert_allclose(lpmn_values(4, 4, z.astype(np.float32), True),
                             norm[..., None] * _lpmv_table(4, z), rtol=2e-5, atol=1e-6)
  # at z = +-1 the derivatives take SciPy's limits (values recorded from JAX 0.10.2)
  _, d = lpmn(3, 3, np.array([-1.0, 1.0], np.float32))
  np.testing.assert_array_equal(d[0, :, 0], [0, 1, -3, 6])
  np.testing.assert_array_equal(d[1, 1:, :], [[-np.inf, np.inf], [np.inf, np.inf],
                                              [-np.inf, np.inf]])
  np.testing.assert_array_equal(d[2, :, 1], [0, 0, -6, -30])
  # jit, vmap and grad compose
  f = jax.jit(lambda x: lpmn_values(2, 2, x, True).sum())
  x = np.array([0.3, -0.6], np.float32)
  x64 = x.astype(np.float64)
  want = norm[:3, :3, None] * (_lpmv_table(2, x64 + 1e-6) - _lpmv_table(2, x64 - 1e-6)) / 2e-6
  np.testing.assert_allclose(jax.grad(f)(x), want.sum((0, 1)), rtol=1e-4)
  v = jax.vmap(lambda x: lpmn_values(2, 2, x, False), in_axes=1, out_axes=2)(
      np.full((2, 3), 0.3, np.float32))
  assert v.shape == (3, 3, 3, 2)  # (order, degree, batch, point)
  np.testing.assert_allclose(v[:, :, 0], _lpmv_table(2, np.full(2, 0.3)), rtol=1e-5, atol=1e-7)


def test_lpmn_argument_errors():
  import warnings
  with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    lpmn = xs.lpmn
  z = np.zeros(3, np.float32)
  with pytest.raises(NotImplementedError, match="Computations for m!=n are not yet supported"):
    lpmn(3, 2, z)
  with pytest.raises(ValueError, match="z must be a 1D array"):
    lpmn(2, 2, np.zeros((2, 2), np.float32))
  with pytest.raises(TypeError, match=r"z\.dtype=int32 is not supported"):
    lpmn(2, 2, np.arange(3))
  with pytest.raises(jax.errors.ConcretizationTypeError):
    jax.jit(lambda n: lpmn(n, n, z))(2)


def test_traced_sizes_are_concretization_errors():
  for f in (xs.bernoulli, lambda d: xs.multigammaln(3.0, d),
            lambda n: xs.sph_harm_y(np.arange(3), np.arange(3), 0.5, 0.5, n_max=n)):
    with pytest.raises(jax.errors.ConcretizationTypeError, match="Abstract tracer value"):
      jax.jit(f)(3)


def test_complex_loggamma_against_scipy():
  rng = np.random.default_rng(1)
  z = np.concatenate([rng.uniform(-30, 30, 300) + 1j * rng.uniform(-30, 30, 300),
                      # both sides of the branch cut on the negative real axis, and on it
                      np.array([-2.5 + 1e-3j, -2.5 - 1e-3j, -2.5, -0.7 - 0.4j, 1e-3j, 1.0001,
                                2 + 1e-4j])]).astype(np.complex64)
  got = xs.loggamma(z)
  assert got.dtype == np.complex64
  want = ss.loggamma(z.astype(np.complex128))
  np.testing.assert_allclose(got, want, rtol=2e-6, atol=3e-6)
  out = np.asarray(xs.loggamma(np.array([0, -3, np.nan], np.complex64)))
  assert np.isnan(out.real).all() and np.isnan(out.imag).all()
  np.testing.assert_allclose(jax.jit(jax.vmap(xs.loggamma))(z[:5]), got[:5], rtol=1e-6)
  # d/dz log Gamma(z) = digamma(z), also through grad (JAX 0.10.2's while loop refuses it)
  d = jax.grad(xs.loggamma, holomorphic=True)(np.complex64(1 + 1j))
  np.testing.assert_allclose(d, ss.psi(1 + 1j), rtol=1e-5)


def test_complex_loggamma_float64(x64):
  rng = np.random.default_rng(2)
  z = rng.uniform(-40, 40, 500) + 1j * rng.uniform(-40, 40, 500)
  np.testing.assert_allclose(xs.loggamma(z), ss.loggamma(z), rtol=1e-11, atol=1e-11)


# Derivatives' values and weak types recorded from JAX 0.10.2: its rules use lax's arithmetic
# (a weak operand meets a strong one unconverted, so cotangents stay strong) or cast the term.
_W = jnp.asarray(0.7)
DERIVATIVE_WEAK_TYPES = {
    "logsumexp_grad": (lambda: jax.grad(lambda x, y: xs.logsumexp(jnp.stack([x, y])),
                                        argnums=(0, 1))(0.7, 0.5),
                       [0.5498339533805847, 0.4501659870147705], [False, False]),
    "log_ndtr_grad": (lambda: jax.grad(xs.log_ndtr)(0.7), [0.4119247496128082], [False]),
    "log_ndtr_grad_grad": (lambda: jax.grad(jax.grad(xs.log_ndtr))(_W),
                           [-0.4580293297767639], [False]),
    "xlogy_jvp": (lambda: jax.jvp(xs.xlogy, (0.7, 0.5), (1.0, 1.0)),
                  [-0.4852030277252197, 0.7068527936935425], [True, False]),
    "xlog1py_jvp": (lambda: jax.jvp(xs.xlog1py, (0.7, 0.5), (1.0, 1.0)),
                    [0.2838255763053894, 0.8721317648887634], [True, False]),
    "exp1_jvp": (lambda: jax.jvp(xs.exp1, (0.7,), (1.0,)),
                 [0.3737689256668091, -0.7094075679779053], [False, False]),
}


@pytest.mark.parametrize("name", DERIVATIVE_WEAK_TYPES)
def test_derivative_weak_types_as_jax(name):
  fun, values, weak = DERIVATIVE_WEAK_TYPES[name]
  leaves = jax.tree_util.tree_leaves(fun())
  np.testing.assert_allclose(np.concatenate([np.ravel(x) for x in leaves]), values, rtol=1e-5)
  assert [jax.typeof(x).dtype for x in leaves] == [np.float32] * len(leaves)
  assert [jax.typeof(x).weak_type for x in leaves] == weak


def test_zeta_differentiated_value_and_weak_types_as_jax():
  """Under differentiation zeta's value is its expansion's (strongly typed) and the
  derivatives of weakly typed arguments are weak (numbers recorded from JAX 0.10.2)."""
  w = jnp.asarray(0.7)
  value, grads = jax.value_and_grad(xs.zeta, (0, 1))(2.0, 1.0)
  assert not value.weak_type and all(g.weak_type for g in grads)
  np.testing.assert_allclose(value, 1.6449342, rtol=1e-6)
  np.testing.assert_allclose(grads, (-0.9375482, -2.404114), rtol=1e-6)
  primal, tangent = jax.jvp(xs.zeta, (w, w), (w, w))
  assert (primal.weak_type, tangent.weak_type) == (False, False)
  assert all(g.weak_type for g in jax.grad(xs.zeta, (0, 1))(w, 0.7))
  assert all(g.weak_type for g in jax.jit(jax.grad(xs.zeta, (0, 1)))(0.7, 0.7))
  np.testing.assert_allclose(jax.vmap(jax.grad(xs.zeta))(jnp.array([2., 3.]), jnp.array([1., 2.])),
                             [-0.9375482, -0.19812626], rtol=1e-6)
  np.testing.assert_allclose(jax.hessian(xs.zeta)(2.5, 1.5), 0.6006957, rtol=1e-5)


def test_lpmn_values_of_a_weak_array_are_strong():
  # recorded from JAX 0.10.2: a weak z (a bool array over 10) gives strong tables
  z = jnp.asarray(np.array([0, 1, 1, 0], bool)) / 10
  assert z.weak_type
  for normalized, col in ((False, [[1.0, 0.1, -0.485], [0.0, -0.994987428, -0.298496246],
                                   [0.0, 0.0, 2.97]]),
                          (True, [[0.282094777, 0.048860248, -0.305929780],
                                  [0.0, -0.343762308, -0.076867595], [0.0, 0.0, 0.382411450]])):
    for f in (xs.lpmn_values, jax.jit(xs.lpmn_values, static_argnums=(0, 1, 3))):
      out = f(2, 2, z, normalized)
      assert out.dtype == np.float32 and not out.weak_type
      np.testing.assert_allclose(np.asarray(out)[:, :, 1], col, rtol=2e-6, atol=1e-7)
  p, d = xs.lpmn(2, 2, z)
  assert not p.weak_type and not d.weak_type


@pytest.mark.parametrize("name,f", [
    ("exp1", lambda c: xs.exp1(c)), ("expn", lambda c: xs.expn(1, c)),
    ("rel_entr", lambda c: xs.rel_entr(c, c)), ("kl_div", lambda c: xs.kl_div(c, c)),
    ("polygamma", lambda c: xs.polygamma(1, c)), ("expi", lambda c: xs.expi(c)),
    ("entr", lambda c: xs.entr(c))])
def test_complex_inputs_raise_value_error_as_jax(name, f):
  c = jnp.asarray(np.array([0.5 + 1j, 2 - 1j], np.complex64))
  for g in (f, jax.jit(f)):
    with pytest.raises(ValueError) as info:
      g(c)
    assert str(info.value) == f"{name} does not support complex-valued inputs."


def test_hyp1f1_gradients_are_finite_as_jax():
  # recorded from JAX 0.10.2: grad of sum(hyp1f1(x, x[::-1], x / 10)); lanes off the
  # asymptotic branch used to overflow there and turn every gradient into NaN
  x = jnp.asarray(np.array([0.3, 1, 2, 3, 5, 7], np.float32) - 2.5)
  f = lambda v: jnp.sum(xs.hyp1f1(v, v[::-1], v / 10))
  expected = [-64.87159729003906, 0.7490882873535156, -0.2982838749885559,
              -0.32486701011657715, 0.9460076093673706, -18.457172393798828]
  for g in (jax.grad(f), jax.jit(jax.grad(f))):
    np.testing.assert_allclose(g(x), expected, rtol=2e-5)
  # d/da alone, batched
  da = jax.vmap(jax.grad(xs.hyp1f1))(x, x[::-1], x / 10)
  np.testing.assert_allclose(da, [-0.05224984139204025, -0.06256786733865738,
                                  -0.09999725967645645, -0.1103256344795227,
                                  0.41109439730644226, -8.046610832214355], rtol=2e-5)


def test_exp1_gradient_is_nan_below_zero_as_jax():
  x = jnp.asarray(np.array([-2.0, -0.5, 0.5, 2.0, 100.0], np.float32))
  expected = [np.nan, np.nan, -1.2130613327026367, -0.0676676407456398, -0.0]
  for g in (jax.vmap(jax.grad(xs.exp1)), jax.jit(jax.vmap(jax.grad(xs.exp1)))):
    np.testing.assert_allclose(g(x), expected, rtol=1e-6)
  np.testing.assert_allclose(jax.jvp(xs.exp1, (x,), (jnp.ones_like(x),))[1], expected, rtol=1e-6)
