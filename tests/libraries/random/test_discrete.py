"""xjax.random's discrete samplers: integers identical to the reference JAX for the same
keys, distributions against SciPy's, vmap/jit compositions, and bad input."""
import contextlib

import numpy as np
import pytest
import scipy.stats

import xjax
import xjax.numpy as jnp
from xjax import random as R

from tests.libraries.random.discrete_reference_values import CASES, ERRORS, EXPECTED
from tests.foundations.test_dtypes import flags


# Each case compiles its own program (about 1 s for the loops of poisson/binomial): these
# repeat what a faster case already covers, with 64-bit types or another shape.
SLOW_CASES = {"x64_poisson", "x64_binomial", "x64_multinomial", "x64_multinomial_f32",
              "x64_randint_uint64", "multinomial_shape", "multinomial_zeros_unroll",
              "poisson_broadcast", "binomial_p_f16", "randint_uint32_bounds",
              "permutation_independent_neg"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_CASES
                                  else n for n in sorted(CASES)])
def test_same_values_as_reference(name):
  with flags(x64=True) if name.startswith("x64_") else contextlib.nullcontext():
    dtype, shape, values = EXPECTED[name]
    got = np.asarray(eval(CASES[name]))
    assert str(got.dtype) == dtype
    assert got.shape == shape
    np.testing.assert_array_equal(got, np.asarray(values, dtype=got.dtype))


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_input_raises_as_reference(name):
  expr, error = ERRORS[name]
  with pytest.raises(Exception) as info:
    eval(expr)
  assert type(info.value).__name__ == error, info.value


@pytest.mark.parametrize("expr,shapes", [
    ("R.randint(R.key(0), (3,), np.zeros(2, int), 5)", ["(3,)", "(2,)"]),
    ("R.bernoulli(R.key(0), np.ones(3) * 0.5, (2, 2))", ["(2, 2)", "(3,)"]),
    ("R.categorical(R.key(0), jnp.zeros((2, 4)), shape=(3, 4))", ["(3, 4)", "(2,)"]),
    ("R.poisson(R.key(0), np.ones(2), (3,))", ["(3,)", "(2,)"]),
    ("R.binomial(R.key(0), np.ones(2), np.ones(3))", ["(2,)", "(3,)"]),
    ("R.geometric(R.key(0), np.ones(2) * .5, (3,))", ["(3,)", "(2,)"]),
    ("R.multinomial(R.key(0), 10, jnp.ones(3) / 3, shape=(2,))", ["(2,)", "(3,)"]),
    ("R.multinomial(R.key(0), jnp.ones(2), jnp.ones(3) / 3)", ["(2,)", "()"]),
])
def test_shape_mismatch_names_both_shapes(expr, shapes):
  with pytest.raises(ValueError) as info:
    eval(expr)
  assert all(s in str(info.value) for s in shapes), info.value


def test_legacy_and_typed_keys_agree():
  for f in (lambda k: R.randint(k, (6,), 0, 10), lambda k: R.permutation(k, 5)):
    np.testing.assert_array_equal(f(R.key(5)), f(R.PRNGKey(5)))


# ---------------------------------------------------------------------------------------
# Distributions against SciPy

def assert_follows(samples, dist, lo=None, hi=None):
  """Chi-square test of integer samples against a frozen SciPy distribution, with values
  below ``lo`` / above ``hi`` (default: the 0.5% quantiles) lumped into the end bins."""
  s = np.asarray(samples).ravel()
  assert np.all(s == np.round(s)), "samples are not integers"
  lo = int(dist.ppf(0.005)) if lo is None else lo
  hi = int(dist.ppf(0.995)) if hi is None else hi
  ks = np.arange(lo, hi + 1)
  expected = dist.pmf(ks)
  expected[0], expected[-1] = dist.cdf(lo), dist.sf(hi - 1)
  observed = np.bincount(np.clip(s, lo, hi).astype(np.int64) - lo, minlength=len(ks))
  stat = scipy.stats.chisquare(observed, expected / expected.sum() * s.size)
  assert stat.pvalue > 1e-4, (observed, expected * s.size)


N = 4000


@pytest.mark.parametrize("lo,hi,dtype", [(-3, 7, None), (0, 256, "uint8"), (-128, 128, "int8"),
                                         (0, 5, "int16")])
def test_randint_uniform(lo, hi, dtype):
  x = R.randint(R.key(1), (N,), lo, hi, dtype)
  assert x.dtype == np.dtype(dtype or np.int32)
  assert_follows(np.asarray(x).astype(np.int64), scipy.stats.randint(lo, hi), lo, hi - 1)


def test_randint_array_bounds_and_empty_ranges():
  lo, hi = np.array([0, -10, 100]), np.array([[1], [5]])
  x = np.asarray(R.randint(R.key(2), (200, 2, 3), lo, hi))
  assert (x[:, 0, 0] == 0).all() and (x[..., 2] == 100).all()  # maxval <= minval: minval
  for row, top in ((0, 1), (1, 5)):
    for col in (0, 1):
      np.testing.assert_array_equal(np.unique(x[:, row, col]), np.arange(lo[col], top))


@pytest.mark.parametrize("p", [0.3, np.float16(0.9)])
def test_bernoulli_frequency(p):
  for mode in ("low", "high"):
    x = np.asarray(R.bernoulli(R.key(3), p, (N,), mode=mode))
    assert x.dtype == np.bool_
    assert scipy.stats.binomtest(int(x.sum()), N, float(p)).pvalue > 1e-4


def test_bernoulli_high_mode_resolves_tiny_p():
  p = np.float32(2 ** -30)  # below float32's uniform resolution: "low" never samples True
  assert not R.bernoulli(R.key(0), p, (N,)).any()
  # "high" reaches p down to ~2**-46; with p = 2**-12 both modes agree in distribution
  x = np.asarray(R.bernoulli(R.key(4), np.float32(2 ** -12), (50_000,), mode="high"))
  assert scipy.stats.binomtest(int(x.sum()), x.size, 2 ** -12).pvalue > 1e-4


def test_rademacher_signs():
  x = np.asarray(R.rademacher(R.key(5), (N,)))
  assert set(np.unique(x)) == {-1, 1}
  assert scipy.stats.binomtest(int((x == 1).sum()), N, 0.5).pvalue > 1e-4


PROBS = np.array([0.1, 0.2, 0.3, 0.4])
CATEGORIES = scipy.stats.rv_discrete(values=(np.arange(4), PROBS))


def test_categorical_frequencies():
  assert_follows(R.categorical(R.key(6), jnp.log(PROBS), shape=(N,)), CATEGORIES, 0, 3)
  # along axis 0 of a batch of distributions, and the unnormalised logits of mode="high"
  logits = jnp.log(jnp.stack([PROBS, PROBS[::-1]], axis=1)) + 5.
  x = np.asarray(R.categorical(R.key(7), logits, axis=0, shape=(N, 2), mode="high"))
  assert_follows(x[:, 0], CATEGORIES, 0, 3)
  assert_follows(3 - x[:, 1], CATEGORIES, 0, 3)


def test_categorical_without_replacement():
  x = np.asarray(R.categorical(R.key(8), jnp.zeros((5, 6)), shape=(6, 5), replace=False))
  for column in x.T:  # each batch member's draws are a permutation of the 6 categories
    np.testing.assert_array_equal(np.sort(column), np.arange(6))
  firsts = xjax.vmap(lambda k: R.categorical(k, jnp.log(PROBS), shape=(2,), replace=False))(
      R.split(R.key(9), N))
  assert_follows(firsts[:, 0], CATEGORIES, 0, 3)
  assert (firsts[:, 0] != firsts[:, 1]).all()


def test_choice_distributions():
  assert_follows(R.choice(R.key(10), 7, (N,)), scipy.stats.randint(0, 7), 0, 6)
  assert_follows(R.choice(R.key(11), 4, (N,), p=jnp.asarray(PROBS)), CATEGORIES, 0, 3)
  for p in (None, jnp.asarray(PROBS)):
    x = np.asarray(R.choice(R.key(13), 4, (4,), replace=False, p=p))
    np.testing.assert_array_equal(np.sort(x), np.arange(4))
  firsts = xjax.vmap(lambda k: R.choice(k, 4, (2,), replace=False, p=jnp.asarray(PROBS)))(
      R.split(R.key(14), N))
  assert_follows(firsts[:, 0], CATEGORIES, 0, 3)


def test_permutation_is_uniform():
  perms = np.asarray(xjax.vmap(lambda k: R.permutation(k, 5))(R.split(R.key(15), N)))
  np.testing.assert_array_equal(np.sort(perms, axis=1), np.tile(np.arange(5), (N, 1)))
  for position in (0, 4):
    assert_follows(perms[:, position], scipy.stats.randint(0, 5), 0, 4)
  x = np.arange(24.).reshape(4, 6)
  rows = np.asarray(R.permutation(R.key(16), x, axis=0))
  assert {tuple(r) for r in rows} == {tuple(r) for r in x}
  each = np.asarray(R.permutation(R.key(16), x, axis=1, independent=True))
  np.testing.assert_array_equal(np.sort(each, axis=1), x)
  assert len({tuple(np.argsort(r)) for r in each}) > 1  # rows shuffled differently


@pytest.mark.parametrize("lam", [0.7, 4., 25., 400.])  # Knuth below 10, rejection above
def test_poisson_distribution(lam):
  x = R.poisson(R.key(17), lam, (N,))
  assert x.dtype == np.int32
  assert_follows(x, scipy.stats.poisson(lam))


@pytest.mark.parametrize("n,p", [(20, 0.3), (200, 0.4), (60, 0.8), (15, 0.95)])
def test_binomial_distribution(n, p):  # inversion / BTRS, p < 1/2 and flipped
  x = R.binomial(R.key(19), n, p, (N,))
  assert x.dtype == np.float32
  assert_follows(x, scipy.stats.binom(n, p))


def test_multinomial_counts():
  p = jnp.array([0.2, 0.3, 0.5])
  x = np.asarray(R.multinomial(R.key(20), 30, p, shape=(N, 3)))
  assert (x.sum(1) == 30).all()
  for j in range(3):
    assert_follows(x[:, j], scipy.stats.binom(30, float(p[j])))
  cov = np.cov(x.T)
  np.testing.assert_allclose(cov[0, 1], -30 * 0.2 * 0.3, rtol=0.15)


@pytest.mark.parametrize("p", [0.3, 0.9])
def test_geometric_distribution(p):
  assert_follows(R.geometric(R.key(21), p, (N,)), scipy.stats.geom(p))


# ---------------------------------------------------------------------------------------
# Transformations

SAMPLERS = {
    "randint": lambda k: R.randint(k, (6,), -4, 9),
    "randint_uint8": lambda k: R.randint(k, (6,), 0, 256, "uint8"),
    "bernoulli": lambda k: R.bernoulli(k, jnp.array([0.2, 0.7]), mode="high"),
    "rademacher": lambda k: R.rademacher(k, (3,)),
    "categorical": lambda k: R.categorical(k, jnp.log(jnp.asarray(PROBS)), shape=(3,)),
    "categorical_no_replace": lambda k: R.categorical(k, jnp.zeros(5), shape=(3,),
                                                      replace=False),
    "choice": lambda k: R.choice(k, jnp.arange(10.), (3,), replace=False),
    "choice_p": lambda k: R.choice(k, 4, (3,), p=jnp.asarray(PROBS)),
    "permutation": lambda k: R.permutation(k, jnp.arange(8).reshape(2, 4), 1, True),
    "poisson": lambda k: R.poisson(k, jnp.array([3., 40.]).repeat(4)),
    "binomial": lambda k: R.binomial(k, jnp.array([5., 300.]).repeat(3), 0.3),
    "multinomial": lambda k: R.multinomial(k, 20., jnp.array([0.5, 0.25, 0.25])),
    "geometric": lambda k: R.geometric(k, 0.4, (3,)),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_jit_of_vmap_over_keys_equals_eager_loop(name):
  f = SAMPLERS[name]
  ks = R.split(R.key(22), 3)
  loop = np.stack([np.asarray(f(k)) for k in ks])
  np.testing.assert_array_equal(xjax.jit(xjax.vmap(f))(ks), loop)


@pytest.mark.slow
def test_vmap_over_parameters():
  lam = jnp.array([1., 20., 0.])
  batched = xjax.vmap(lambda l: R.poisson(R.key(23), l, (4,)))(lam)
  np.testing.assert_array_equal(batched, np.stack([R.poisson(R.key(23), l, (4,)) for l in lam]))
  p = jnp.array([0.1, 0.6])
  batched = xjax.vmap(lambda q: R.binomial(R.key(24), 50., q, (3,)))(p)
  np.testing.assert_array_equal(batched, np.stack([R.binomial(R.key(24), 50., q, (3,))
                                                   for q in p]))


def test_samplers_in_scan_body():
  def step(key, _):
    key, sub = R.split(key)
    return key, R.randint(sub, (6,), 0, 100)
  _, scanned = xjax.lax.scan(step, R.key(25), None, length=4)
  key, expected = R.key(25), []
  for _ in range(4):
    key, sub = R.split(key)
    expected.append(R.randint(sub, (6,), 0, 100))
  np.testing.assert_array_equal(scanned, expected)
