"""xjax.scipy.stats: every distribution's functions against scipy.stats, JAX's edge
conventions, mode/rankdata/sem, and jit/vmap/grad compositions."""
import numpy as np
import pytest
import scipy.stats as ss

import xjax as jax
import xjax.scipy.stats as xs

X = np.array([-2.0, -0.5, 0.0, 0.3, 0.7, 1.0, 1.5, 3.0, 10.0], np.float32)
Q = np.array([0.01, 0.3, 0.5, 0.9, 0.999], np.float32)
CONTINUOUS = [  # (name, shape parameters, x)
    ("norm", (0.5, 2.0), X), ("cauchy", (0.5, 2.0), X), ("logistic", (0.5, 2.0), X),
    ("laplace", (0.5, 2.0), X), ("uniform", (0.5, 2.0), X), ("expon", (0.5, 2.0), X),
    ("gumbel_l", (0.5, 2.0), X), ("gumbel_r", (0.5, 2.0), X), ("beta", (2.0, 3.0), X / 10),
    ("gamma", (2.5,), X), ("chi2", (3.0,), X), ("t", (4.0,), X), ("pareto", (2.0,), X),
    ("gennorm", (1.5,), X), ("truncnorm", (-1.0, 2.0), X),
]


@pytest.mark.parametrize("name,params,x", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_against_scipy(name, params, x):
  mod, ref = getattr(xs, name), getattr(ss, name)
  for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"):
    if hasattr(mod, fn):
      arg = Q if fn in ("ppf", "isf") else x
      np.testing.assert_allclose(getattr(mod, fn)(arg, *params), getattr(ref, fn)(arg, *params),
                                 rtol=5e-5, atol=1e-6, err_msg=f"{name}.{fn}")


def test_discrete_against_scipy():
  k = np.array([0, 1, 2, 3, 5, 10, -1], np.float32)
  cases = [("poisson", "logpmf", (3.0,)), ("poisson", "cdf", (3.0,)),
           ("binom", "logpmf", (10, 0.3)), ("betabinom", "logpmf", (10, 2.0, 3.0)),
           ("nbinom", "logpmf", (5, 0.3)), ("geom", "logpmf", (0.3,)),
           ("bernoulli", "logpmf", (0.3,)), ("bernoulli", "cdf", (0.3,)),
           ("bernoulli", "ppf", (0.3,))]
  for name, fn, params in cases:
    arg = np.array([0.1, 0.7, 0.8], np.float32) if fn == "ppf" else k
    np.testing.assert_allclose(getattr(getattr(xs, name), fn)(arg, *params),
                               getattr(getattr(ss, name), fn)(arg, *params), rtol=2e-5,
                               atol=1e-6, err_msg=f"{name}.{fn}")
  mu = np.array([0.5, 5.0, 50.0, 500.0], np.float32)
  np.testing.assert_allclose(xs.poisson.entropy(mu), ss.poisson.entropy(mu), rtol=1e-5)


def test_circular_and_multivariate():
  th = np.array([0.1, 1.0, 3.0, 6.0], np.float32)
  np.testing.assert_allclose(xs.vonmises.logpdf(th, 2.0), ss.vonmises.logpdf(th, 2.0), rtol=1e-5)
  np.testing.assert_allclose(xs.wrapcauchy.logpdf(th, 0.3), ss.wrapcauchy.logpdf(th, 0.3),
                             rtol=1e-5)
  alpha = np.array([1.0, 2.0, 3.0], np.float32)
  x = np.array([[0.2, 0.3], [0.5, 0.1], [0.3, 0.6]], np.float32)
  np.testing.assert_allclose(xs.dirichlet.logpdf(x, alpha), ss.dirichlet.logpdf(x, alpha),
                             rtol=1e-5)
  p = np.array([0.2, 0.3, 0.5], np.float32)
  np.testing.assert_allclose(xs.multinomial.logpmf(np.array([1, 1, 3]), 5, p),
                             ss.multinomial.logpmf([1, 1, 3], 5, p), rtol=1e-5)
  cov = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)
  mean = np.array([0.1, -0.2], np.float32)
  pts = np.random.RandomState(0).randn(5, 2).astype(np.float32)
  np.testing.assert_allclose(xs.multivariate_normal.logpdf(pts, mean, cov),
                             ss.multivariate_normal.logpdf(pts, mean, cov), rtol=1e-5)
  np.testing.assert_allclose(xs.multivariate_normal.pdf(pts, mean, cov),
                             ss.multivariate_normal.pdf(pts, mean, cov), rtol=1e-5)


def test_bad_input_and_edges():
  # a covariance that is not positive definite gives NaN, not an exception (as JAX)
  bad = np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)
  assert np.isnan(xs.multivariate_normal.logpdf(np.zeros((3, 2)), np.zeros(2), bad)).all()
  with pytest.raises(ValueError, match="incompatible shapes"):
    xs.multivariate_normal.logpdf(np.zeros(3), np.zeros(3), np.eye(2))
  # mean against cov is checked first: a ValueError even when x is the odd one out
  with pytest.raises(ValueError, match="multivariate_normal.logpdf got incompatible shapes"):
    xs.multivariate_normal.pdf(np.zeros(3), np.zeros(4), np.eye(3))
  with pytest.raises(NotImplementedError, match="allow_singular"):
    xs.multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(2), allow_singular=True)
  with pytest.raises(ValueError, match="one-dimensional"):
    xs.dirichlet.logpdf(np.ones((2, 2)), np.ones((2, 2)))
  with pytest.raises(ValueError, match="integer type"):
    xs.multinomial.logpmf(np.array([1.0, 2.0]), 3, np.array([0.5, 0.5]))
  with pytest.raises(ValueError, match="unknown method"):
    xs.rankdata(np.arange(3), method="median")
  with pytest.raises(ValueError, match="nan_policy"):
    xs.mode(np.arange(3), nan_policy="skip")
  # JAX's conventions outside the support and for invalid parameters
  assert xs.beta.logpdf(1.5, 2.0, 3.0) == -np.inf
  assert np.isnan(xs.beta.logpdf(0.5, -1.0, 3.0))
  assert xs.poisson.logpmf(1.5, 2.0) == -np.inf
  assert np.isnan(xs.gumbel_r.logpdf(0.0, 0.0, -1.0))
  assert np.isnan(xs.expon.ppf(1.5))
  assert xs.norm.logpdf(1.0).aval.weak_type


def test_summaries():
  d = np.array([[1, 2, 2, 3], [3, 3, 1, 1], [5, 4, 4, 4]], np.float32)
  m = xs.mode(d, axis=1)
  ref = ss.mode(d, axis=1)
  np.testing.assert_array_equal(m.mode, ref.mode)
  np.testing.assert_array_equal(m.count, ref.count)
  np.testing.assert_array_equal(xs.mode(d, axis=None).mode, ss.mode(d, axis=None).mode)
  for method in ("average", "min", "max", "dense", "ordinal"):
    np.testing.assert_array_equal(xs.rankdata(d[0], method), ss.rankdata(d[0], method))
  np.testing.assert_array_equal(xs.rankdata(d, axis=1), ss.rankdata(d, axis=1))
  assert np.isnan(xs.rankdata(np.array([1.0, np.nan]))).all()
  np.testing.assert_allclose(xs.sem(d, axis=1), ss.sem(d, axis=1), rtol=1e-6)
  np.testing.assert_allclose(xs.sem(d, axis=None, ddof=0), ss.sem(d, axis=None, ddof=0),
                             rtol=1e-6)


def test_transformations():
  x = jax.numpy.asarray(X)
  loop = np.stack([xs.t.logpdf(v, 3.0) for v in X])
  np.testing.assert_allclose(jax.vmap(lambda v: xs.t.logpdf(v, 3.0))(x), loop, rtol=1e-6)
  np.testing.assert_allclose(jax.jit(xs.norm.logcdf)(x), xs.norm.logcdf(x), rtol=1e-6)
  g = jax.vmap(jax.grad(xs.norm.logpdf))(x)
  np.testing.assert_allclose(g, -X, rtol=1e-6)
  g = jax.grad(xs.gamma.logpdf, 1)(2.0, 3.0)
  np.testing.assert_allclose(g, np.log(2.0) - 0.9227843, rtol=1e-5)  # log x - digamma(a)


def test_python_scalar_arguments_keep_weak_types_as_the_reference():
  for value in (xs.bernoulli.cdf(0.5, 0.3), xs.bernoulli.ppf(0.5, 0.3),
                xs.pareto.cdf(2.0, 1.5), xs.pareto.sf(2.0, 1.5), xs.pareto.logsf(2.0, 1.5),
                xs.poisson.cdf(2.0, 1.5), xs.chi2.pdf(2.0, 3.0), xs.chi2.logpdf(2.0, 3.0),
                xs.wrapcauchy.pdf(1.0, 0.5), xs.wrapcauchy.logpdf(1.0, 0.5)):
    assert value.dtype == np.float32 and value.weak_type
  q = np.array([0.2, 0.9], np.float32)
  out = xs.bernoulli.ppf(q, 0.3)
  assert not out.weak_type
  np.testing.assert_array_equal(out, [0.0, 1.0])
  np.testing.assert_allclose(xs.chi2.pdf(2.0, 3.0), ss.chi2.pdf(2.0, 3.0), rtol=1e-6)


# Gradients' values and weak types recorded from JAX 0.10.2 (log_ndtr's rule in lax's
# arithmetic; truncnorm's functions are jitted calls, as JAX's).
GRAD_WEAK_TYPES = {
    "norm_logcdf": (lambda: jax.grad(xs.norm.logcdf, argnums=(0, 1, 2))(0.7, 0.1, 1.2),
                    [0.4243003726005554, -0.4243003726005554, -0.21215017139911652],
                    [False] * 3),
    "truncnorm_cdf": (lambda: jax.grad(xs.truncnorm.cdf, argnums=(0, 1, 2))(0.3, -1., 2.),
                      [0.46590566635131836, -0.1297563910484314, -0.037003129720687866],
                      [True] * 3),
    "truncnorm_logpdf": (lambda: jax.grad(xs.truncnorm.logpdf, argnums=(0, 1, 2, 3, 4))(
        0.3, -1., 2., 0.1, 1.2), [-0.1388888955116272, 0.29559287428855896,
                                  -0.06595568358898163, 0.1388888955116272,
                                  -0.8101851344108582], [False, True, True, False, False]),
}


@pytest.mark.parametrize("name", GRAD_WEAK_TYPES)
def test_grad_weak_types_as_jax(name):
  fun, values, weak = GRAD_WEAK_TYPES[name]
  leaves = jax.tree_util.tree_leaves(fun())
  np.testing.assert_allclose(np.concatenate([np.ravel(x) for x in leaves]), values, rtol=1e-5)
  assert [jax.typeof(x).weak_type for x in leaves] == weak


# Recorded from JAX 0.10.2: bool/int arrays promoted with Python-scalar parameters give
# strongly typed float32 results (the functions' constants are typed like x), except where
# no constant enters (expon.cdf of a bool array stays weak).
_B = np.array([0, 1, 1, 0], bool)
_I = np.array([0, 1, 2, 3], np.int32)
_WEAK_TYPE_CASES = [
    ("norm.logpdf", lambda v: xs.norm.logpdf(v), False,
     [-0.9189385175704956, -1.4189385175704956, -2.918938636779785, -5.418938636779785]),
    ("t.logpdf", lambda v: xs.t.logpdf(v, 3.0), False,
     [-1.0008891820907593, -1.5762534141540527, -2.6954851150512695, -3.7734780311584473]),
    ("gamma.logpdf", lambda v: xs.gamma.logpdf(v, 2.0), False,
     [-np.inf, -1.0, -1.3068528175354004, -1.9013876914978027]),
    ("chi2.logpdf", lambda v: xs.chi2.logpdf(v, 3), False,
     [-np.inf, -1.4189388751983643, -1.5723652839660645, -1.8696327209472656]),
    ("beta.cdf", lambda v: xs.beta.cdf(v / 4, 2.0, 3.0), False,
     [0.0, 0.26171886920928955, 0.6874998211860657, 0.9492186903953552]),
    ("bernoulli.logpmf", lambda v: xs.bernoulli.logpmf(v, 0.3), False,
     [-0.3566749691963196, -1.2039728164672852, -np.inf, -np.inf]),
    ("laplace.cdf", lambda v: xs.laplace.cdf(v), False,
     [0.5, 0.8160603046417236, 0.9323323369026184, 0.9751064777374268]),
    ("cauchy.logpdf", lambda v: xs.cauchy.logpdf(v), False,
     [-1.1447298526763916, -1.8378770351409912, -2.7541677951812744, -3.447314977645874]),
    ("expon.cdf", lambda v: xs.expon.cdf(v), True,
     [-0.0, 0.6321205496788025, 0.8646647334098816, 0.9502129554748535]),
]


@pytest.mark.parametrize("name,f,bool_weak,int_values", _WEAK_TYPE_CASES,
                         ids=[c[0] for c in _WEAK_TYPE_CASES])
def test_integer_and_bool_arguments_give_strong_results(name, f, bool_weak, int_values):
  for v, weak in ((_B, bool_weak), (_I, False)):
    for g in (f, jax.jit(f)):
      out = g(jax.numpy.asarray(v))
      assert out.dtype == np.float32 and out.weak_type == weak, (name, v.dtype)
  np.testing.assert_allclose(f(jax.numpy.asarray(_I)), int_values, rtol=1e-6)
  # a weakly typed scalar keeps its weak type (its constants are Python scalars)
  assert f(jax.numpy.asarray(1.0)).weak_type


_LT_MSG = ("lt does not accept dtype complex64 at position 0. Accepted dtypes at position 0 are "
           "subtypes of integer, floating, bool.")
_COMPLEX_ERRORS = [  # (function, message), recorded from JAX 0.10.2
    (lambda c: xs.bernoulli.logpmf(c, 0.3), _LT_MSG),
    (lambda c: xs.expon.cdf(c), _LT_MSG),
    (lambda c: xs.uniform.pdf(c), _LT_MSG.replace("lt ", "gt ")),
    (lambda c: xs.laplace.logpdf(c),
     "lax.div requires arguments to have the same dtypes, got float32, complex64."),
    (lambda c: xs.gamma.logpdf(c, 2.0), _LT_MSG.replace("lt ", "ge ")),
    (lambda c: xs.chi2.cdf(c, 3.0), "igamma does not accept dtype complex64 at position 0."),
    (lambda c: xs.beta.cdf(c, 2.0, 3.0), "betainc does not support complex-valued inputs."),
]


@pytest.mark.parametrize("case", range(len(_COMPLEX_ERRORS)))
def test_complex_arguments_raise_as_jax(case):
  f, msg = _COMPLEX_ERRORS[case]
  c = jax.numpy.asarray(np.array([0.5 + 1j, 2.0 - 1j], np.complex64))
  err = ValueError if "betainc" in msg else TypeError
  for g in (f, jax.jit(f)):
    with pytest.raises(err) as info:
      g(c)
    assert str(info.value).startswith(msg)


def test_norm_logcdf_message_as_jax():
  with pytest.raises(TypeError) as info:
    xs.norm.logcdf(np.ones(2, np.float16))
  assert str(info.value) == "x.dtype=float16 is not supported."


_MORE_STRONG_CASES = [  # integer k/x with Python-scalar parameters: strong, recorded from JAX
    (lambda v: xs.geom.logpmf(v, 0.3),
     [-1.2039728164672852, -1.56064772605896, -1.9173227548599243, -2.2739977836608887]),
    (lambda v: xs.pareto.logpdf(v, 2.0),
     [0.6931471824645996, -1.3862943649291992, -2.602689743041992, -3.465735912322998]),
    (lambda v: xs.nbinom.logpmf(v, 3.0, 0.4),
     [-2.1610846519470215, -1.9787631034851074, -1.9787640571594238, -2.0841236114501953]),
    (lambda v: xs.betabinom.logpmf(v, 5.0, 2.0, 3.0),
     [-1.435084581375122, -1.4350841045379639, -1.6582276821136475, -2.1282312870025635]),
    (lambda v: xs.poisson.cdf(v, 2.0),
     [0.406005859375, 0.6766765117645264, 0.8571235537528992, 0.9473470449447632]),
    (lambda v: xs.logistic.ppf(v / 5),
     [-1.3862943649291992, -0.40546515583992004, 0.40546518564224243, 1.3862944841384888]),
    (lambda v: xs.gumbel_r.sf(v),
     [0.30779939889907837, 0.1265769600868225, 0.048568010330200195, 0.01814889907836914]),
]


@pytest.mark.parametrize("case", range(len(_MORE_STRONG_CASES)))
def test_more_distributions_give_strong_results(case):
  f, want = _MORE_STRONG_CASES[case]
  i = jax.numpy.asarray(np.array([1, 2, 3, 4], np.int32))
  for g in (f, jax.jit(f)):
    out = g(i)
    assert out.dtype == np.float32 and not out.weak_type
    np.testing.assert_allclose(out, want, rtol=2e-6)


@pytest.mark.parametrize("f,msg", [  # which check fails first, as JAX
    (lambda c: xs.vonmises.logpdf(c, c), "gt does not accept dtype complex64"),
    (lambda c: xs.wrapcauchy.logpdf(c, c), "gt does not accept dtype complex64"),
    (lambda c: xs.poisson.cdf(c, c), "floor does not accept dtype complex64"),
    (lambda c: xs.pareto.cdf(c, 2.0), "lt does not accept dtype complex64")])
def test_complex_arguments_fail_at_jax_first_check(f, msg):
  c = jax.numpy.asarray(np.array([0.5 + 1j], np.complex64))
  with pytest.raises(TypeError) as info:
    f(c)
  assert str(info.value).startswith(msg)
