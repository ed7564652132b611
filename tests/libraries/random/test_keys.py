"""xjax.random keys and the continuous samplers: bits against the reference JAX, typed keys
through every transformation, errors, and distributions against SciPy."""
import contextlib
import pickle

import numpy as np
import pytest
import scipy.stats

import xjax
import xjax.numpy as jnp
from xjax import lax, random as R
from xjax._src.foundations.config import config

from tests.checking import check_ulps, skip_off_recording_cpu
from tests.libraries.random.reference_values import CASES, EXPECTED


@contextlib.contextmanager
def x64(enabled=True):
  old = config.read("jax_enable_x64")
  config.update("jax_enable_x64", enabled)
  try:
    yield
  finally:
    config.update("jax_enable_x64", old)


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_bits_as_reference(name):
  if name.startswith("orthogonal"):  # (a QR: LAPACK's bits depend on the CPU)
    skip_off_recording_cpu()
  ctx = x64() if name.startswith("x64_") else contextlib.nullcontext()
  with ctx:
    expected = EXPECTED[name]
    if expected[0] == "error":
      with pytest.raises(getattr(__builtins__, expected[1], None) or Exception) as info:
        np.asarray(eval(CASES[name]))
      assert type(info.value).__name__ == expected[1]
      return
    dtype, shape, values = expected
    got = eval(CASES[name])
    assert str(np.asarray(got).dtype) == dtype
    assert np.shape(got) == shape
    check_ulps(got, values)


def test_jit_matches_eager():
  key = R.key(3)
  for fn in (lambda k: R.key_data(R.split(k, 5)), lambda k: R.key_data(R.fold_in(k, 9)),
             lambda k: R.bits(k, (4, 3)), lambda k: R.uniform(k, (7,)),
             lambda k: R.normal(k, (2, 5)), lambda k: R.gumbel(k, (3,)),
             lambda k: R.truncated_normal(k, -0.5, 0.5, (4,))):
    np.testing.assert_array_equal(xjax.jit(fn)(key), fn(key))


# ---------------------------------------------------------------------------------------
# Typed keys

def test_typed_key_dtype_and_printing():
  key = R.key(0)
  assert key.shape == () and key.ndim == 0 and str(key.dtype) == "key<fry>"
  assert jnp.issubdtype(key.dtype, xjax.dtypes.prng_key)
  assert jnp.issubdtype(key.dtype, xjax.dtypes.extended)
  assert not jnp.issubdtype(key.dtype, jnp.floating)
  assert repr(key) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
  assert str(key) == repr(key)
  assert R.key_impl(key) == "threefry2x32"
  assert R.key_dtype() == key.dtype
  assert R.key_data(R.split(key, 3)).shape == (3, 2)


def test_typed_key_jaxprs_match_jax():
  text = str(xjax.make_jaxpr(lambda k: R.split(k))(R.key(0)))
  assert text == ("{ lambda ; a:key<fry>[]. let\n    b:key<fry>[2] = random_split[shape=(2,)] a\n"
                  "  in (b,) }")
  text = str(xjax.make_jaxpr(lambda k: R.split(k))(R.PRNGKey(0)))
  assert "random_wrap[impl=fry] a" in text and "d:u32[2,2] = random_unwrap c" in text
  text = str(xjax.make_jaxpr(lambda s: R.key(s))(1))
  assert "b:key<fry>[] = random_seed[impl=fry] a" in text


def test_jit_returns_closed_over_keys():
  # optax's inject_hyperparams keeps a key in its state: a key constant is a constvar (a
  # scalar key is no literal), returned as it is (values from JAX 0.10.2).
  k = R.key(17)
  ks = R.split(k, 3)
  out = xjax.jit(lambda x: (x, k, ks))(1.)
  assert _data(out[1]).tolist() == [0, 17]
  assert _data(out[2]).tolist() == [[1410583977, 344060510], [677216225, 3396477011],
                                    [853908896, 4142250837]]
  assert str(xjax.make_jaxpr(lambda: k)()) == "{ lambda a:key<fry>[]; . let  in (a,) }"


def _data(keys):
  return np.asarray(R.key_data(keys))


def test_typed_keys_survive_structural_operations():
  key = R.key(0)
  keys = R.split(key, 4)
  data = _data(keys)
  np.testing.assert_array_equal(_data(keys[2]), data[2])
  np.testing.assert_array_equal(_data(keys[1:3]), data[1:3])
  np.testing.assert_array_equal(_data(keys[::-1]), data[::-1])
  np.testing.assert_array_equal(_data(keys[jnp.array([0, 2])]), data[[0, 2]])
  np.testing.assert_array_equal(_data(jnp.stack([keys[1], keys[0]])), data[[1, 0]])
  np.testing.assert_array_equal(_data(jnp.concatenate([keys, keys])), np.concatenate([data, data]))
  np.testing.assert_array_equal(_data(keys.reshape(2, 2).T), data.reshape(2, 2, 2).transpose(1, 0, 2))
  mask = jnp.array([True, False, True, False])
  np.testing.assert_array_equal(_data(jnp.where(mask, keys, keys[::-1])),
                                np.where(mask[:, None], data, data[::-1]))
  np.testing.assert_array_equal(_data(lax.cond(False, lambda: keys[0], lambda: keys[3])), data[3])
  np.testing.assert_array_equal(_data(xjax.jit(lambda ks, i: ks[i])(keys, 2)), data[2])
  first, second = R.split(key)
  np.testing.assert_array_equal(_data(second), _data(R.split(key))[1])
  leaves = xjax.tree_util.tree_leaves({"k": key})
  assert len(leaves) == 1 and leaves[0] is key
  np.testing.assert_array_equal(_data(keys.at[1].set(key)), np.concatenate(
      [data[:1], _data(key)[None], data[2:]]))
  np.testing.assert_array_equal(_data(jnp.array([keys[3], keys[0]])), data[[3, 0]])
  np.testing.assert_array_equal(_data(jnp.take(keys, jnp.array([2, 0]), axis=0)), data[[2, 0]])
  np.testing.assert_array_equal(_data(pickle.loads(pickle.dumps(keys))), data)
  np.testing.assert_array_equal(_data(jnp.zeros_like(keys)), np.zeros_like(data))
  struct = xjax.eval_shape(lambda k: R.split(k), key)
  assert struct.shape == (2,) and struct.dtype == key.dtype
  with pytest.raises(ValueError, match="key<fry>"):
    lax.convert_element_type(key, jnp.float32)


def test_typed_keys_through_control_flow_and_vmap():
  keys = R.split(R.key(1), 4)
  total, outs = lax.scan(lambda c, k: (c + R.normal(k), R.split(k)[0]), 0., keys)
  expected = sum(float(R.normal(k)) for k in keys)
  np.testing.assert_allclose(total, expected, rtol=1e-6)
  np.testing.assert_array_equal(_data(outs), np.stack([_data(R.split(k)[0]) for k in keys]))
  final = lax.fori_loop(0, 3, lambda i, k: R.split(k)[0], keys[0])
  manual = keys[0]
  for _ in range(3):
    manual = R.split(manual)[0]
  np.testing.assert_array_equal(_data(final), _data(manual))
  k_while = lax.while_loop(lambda c: c[1] < 2, lambda c: (R.fold_in(c[0], c[1]), c[1] + 1),
                           (keys[0], 0))[0]
  np.testing.assert_array_equal(_data(k_while), _data(R.fold_in(R.fold_in(keys[0], 0), 1)))


def test_vmap_over_keys_equals_loop():
  keys = R.split(R.key(0), 8)
  batched = xjax.vmap(lambda k: R.normal(k, (3,)))(keys)
  looped = np.stack([np.asarray(R.normal(k, (3,))) for k in keys])
  np.testing.assert_array_equal(batched, looped)
  legacy = R.split(R.PRNGKey(0), 8)
  np.testing.assert_array_equal(xjax.vmap(lambda k: R.uniform(k))(legacy),
                                [R.uniform(k) for k in legacy])
  np.testing.assert_array_equal(_data(xjax.vmap(R.split)(keys)),
                                np.stack([_data(R.split(k)) for k in keys]))
  folded = xjax.vmap(R.fold_in, (None, 0))(keys[0], jnp.arange(3))
  np.testing.assert_array_equal(_data(folded), np.stack([_data(R.fold_in(keys[0], i))
                                                         for i in range(3)]))
  seeds = jnp.arange(3)
  np.testing.assert_array_equal(xjax.vmap(R.PRNGKey)(seeds), [R.PRNGKey(i) for i in range(3)])
  np.testing.assert_array_equal(_data(xjax.vmap(R.key)(seeds)),
                                np.stack([_data(R.key(i)) for i in range(3)]))
  bits = xjax.vmap(xjax.vmap(lambda k: R.bits(k, (2,))), in_axes=1)(keys.reshape(2, 4))
  assert bits.shape == (4, 2, 2)
  np.testing.assert_array_equal(bits[1, 1], R.bits(keys[5], (2,)))


def test_key_data_round_trip_and_wrap():
  keys = R.split(R.key(5), 3)
  again = R.wrap_key_data(R.key_data(keys))
  np.testing.assert_array_equal(_data(again), _data(keys))
  legacy = R.PRNGKey(5)
  np.testing.assert_array_equal(R.key_data(legacy), legacy)
  assert R.clone(keys) is keys


# ---------------------------------------------------------------------------------------
# Gradients of reparameterised samplers

def _finite_difference(f, x, eps=1e-3):
  return (f(x + eps) - f(x - eps)) / (2 * eps)


def test_grad_through_uniform_bounds_and_normal():
  key = R.key(2)
  f = lambda lo, hi: R.uniform(key, (5,), minval=lo, maxval=hi).sum()
  g_lo, g_hi = xjax.grad(f, argnums=(0, 1))(1., 3.)
  u = np.asarray(R.uniform(key, (5,)))
  np.testing.assert_allclose(g_hi, u.sum(), rtol=1e-5)
  np.testing.assert_allclose(g_lo, (1 - u).sum(), rtol=1e-5)
  loc_scale = lambda s: (2. + s * R.normal(key, (4,))).sum()
  np.testing.assert_allclose(xjax.grad(loc_scale)(1.5), np.asarray(R.normal(key, (4,))).sum(),
                             rtol=1e-5)


def test_grad_of_truncated_normal_bounds_matches_finite_differences():
  key = R.key(4)
  with x64():
    f = lambda lo: R.truncated_normal(key, lo, 1.5, (6,)).sum()
    np.testing.assert_allclose(xjax.grad(f)(-0.5), _finite_difference(f, -0.5, 1e-5), rtol=1e-5)


# ---------------------------------------------------------------------------------------
# Bad input

@pytest.mark.parametrize("bad_key, error", [
    (1.0, TypeError), (np.zeros(3, np.uint32), TypeError), (np.zeros(2, np.float32), TypeError),
    (np.zeros((2, 2), np.uint32), ValueError)])
def test_bad_keys(bad_key, error):
  with pytest.raises(error, match="key"):
    R.normal(bad_key)


def test_bad_seeds_and_arguments():
  with pytest.raises(OverflowError):
    R.PRNGKey(2**64)
  with pytest.raises(TypeError, match="integer"):
    R.PRNGKey(1.5)
  with pytest.raises(TypeError, match="scalar seed"):
    R.key(jnp.arange(2))
  with pytest.raises(TypeError, match="fold_in accepts a scalar"):
    R.fold_in(R.key(0), jnp.arange(2))
  with pytest.raises(ValueError, match="unsigned"):
    R.bits(R.key(0), dtype=jnp.int32)
  with pytest.raises(ValueError, match="float"):
    R.uniform(R.key(0), dtype=jnp.int32)
  with pytest.raises(TypeError, match=r"mul got incompatible shapes for broadcasting: "
                     r"\(3,\), \(4,\)"):
    R.uniform(R.key(0), (3,), minval=jnp.zeros(4))  # JAX's TypeError and message
  with pytest.raises(ValueError, match="broadcast"):
    R.pareto(R.key(0), jnp.ones(3), (2,))
  with pytest.raises(ValueError, match="mode"):
    R.gumbel(R.key(0), mode="fast")
  with pytest.raises(ValueError, match="unrecognized PRNG"):
    R.key(0, impl="nonsense")


def test_keys_are_not_numbers():
  key = R.key(0)
  with pytest.raises(TypeError, match="key<fry>"):
    key + 1
  with pytest.raises(TypeError, match="key_data"):
    np.asarray(key)
  # a concrete key array lacks the numeric methods (JAX's abstract methods); shape methods,
  # indexing and comparison remain
  keys = R.split(key, 4).reshape(2, 2)
  for attr in ("astype", "sum", "round", "view", "clip", "real", "mT"):
    with pytest.raises(NotImplementedError, match=f"Cannot call abstract method {attr}"):
      f = getattr(keys, attr)
      f(np.float32) if attr in ("astype", "view") else f(1) if attr == "clip" else f()
  assert keys.T.shape == (2, 2) and keys.ravel().shape == (4,)
  assert keys.swapaxes(0, 1).take(0, axis=0).dtype == key.dtype
  assert bool((keys == keys).all())


def test_nan_parameters_propagate():
  out = R.truncated_normal(R.key(0), jnp.nan, 1., (3,))
  assert np.isnan(np.asarray(out)).all()
  assert np.isnan(np.asarray(R.pareto(R.key(0), jnp.nan, (2,)))).all()


# ---------------------------------------------------------------------------------------
# Distributions (KS tests against SciPy)

N = 4000


class _DoubleSidedMaxwell:
  """A Maxwell (chi with 3 degrees of freedom) magnitude with a fair random sign."""

  def __init__(self, loc, scale):
    self.loc, self.scale = loc, scale

  def cdf(self, x):
    z = (np.asarray(x) - self.loc) / self.scale
    return 0.5 + np.sign(z) * 0.5 * scipy.stats.chi(3).cdf(np.abs(z))

DISTRIBUTIONS = [
    (lambda k: R.uniform(k, (N,)), scipy.stats.uniform()),
    (lambda k: R.uniform(k, (N,), minval=-2., maxval=3.), scipy.stats.uniform(-2., 5.)),
    (lambda k: R.normal(k, (N,)), scipy.stats.norm()),
    (lambda k: R.truncated_normal(k, -1., 2., (N,)), scipy.stats.truncnorm(-1., 2.)),
    (lambda k: R.exponential(k, (N,)), scipy.stats.expon()),
    (lambda k: R.laplace(k, (N,)), scipy.stats.laplace()),
    (lambda k: R.logistic(k, (N,)), scipy.stats.logistic()),
    (lambda k: R.cauchy(k, (N,)), scipy.stats.cauchy()),
    (lambda k: R.gumbel(k, (N,)), scipy.stats.gumbel_r()),
    (lambda k: R.gumbel(k, (N,), mode="highest"), scipy.stats.gumbel_r()),
    (lambda k: R.maxwell(k, (N,)), scipy.stats.maxwell()),
    (lambda k: R.double_sided_maxwell(k, 1., 2., (N,)), _DoubleSidedMaxwell(1., 2.)),
    (lambda k: R.pareto(k, 3., (N,)), scipy.stats.pareto(3.)),
    (lambda k: R.rayleigh(k, 2., (N,)), scipy.stats.rayleigh(scale=2.)),
    (lambda k: R.wald(k, 1.5, (N,)), scipy.stats.invgauss(1.5)),
    (lambda k: R.lognormal(k, 0.5, (N,)), scipy.stats.lognorm(0.5)),
    (lambda k: R.triangular(k, 0., 0.3, 1., (N,)), scipy.stats.triang(0.3)),
    (lambda k: R.weibull_min(k, 2., 1.5, (N,)), scipy.stats.weibull_min(1.5, scale=2.)),
]


@pytest.mark.parametrize("sample, dist", DISTRIBUTIONS)
def test_distribution_matches_scipy(sample, dist):
  x = np.asarray(sample(R.key(123)), np.float64)
  assert scipy.stats.kstest(x, dist.cdf).pvalue > 1e-3


def test_key_equality_compares_stored_words():
  key = R.key(0)
  keys = R.split(key, 4)
  assert bool(key == key) and not bool(key != key)
  np.testing.assert_array_equal(keys == keys[0], [True, False, False, False])
  np.testing.assert_array_equal(keys != keys[1], [True, False, True, True])
  assert bool(R.wrap_key_data(R.key_data(key)) == key)
  np.testing.assert_array_equal(xjax.jit(lambda a, b: a == b)(keys, keys[::-1]), [False] * 4)


@contextlib.contextmanager
def flag(name, value):
  old = getattr(config, name)
  config.update(name, value)
  try:
    yield
  finally:
    config.update(name, old)


def test_prng_configuration_flags():
  with flag("jax_random_seed_offset", 3):
    np.testing.assert_array_equal(R.PRNGKey(0), [0, 3])  # as JAX: the seed is offset
  with flag("jax_legacy_prng_key", "error"), pytest.raises(ValueError, match="Legacy"):
    R.split(R.PRNGKey(0))
  with flag("jax_legacy_prng_key", "warn"), pytest.warns(UserWarning, match="Legacy"):
    R.split(R.PRNGKey(0))
  with flag("jax_enable_custom_prng", True):
    assert str(R.PRNGKey(0).dtype) == "key<fry>"
  with flag("jax_high_dynamic_range_gumbel", True):
    np.testing.assert_array_equal(R.gumbel(R.key(42), (4,)),
                                  R.gumbel(R.key(42), (4,), mode="high"))
  with pytest.raises(NotImplementedError, match="jax_debug_key_reuse"):
    config.update("jax_debug_key_reuse", True)
  assert config.jax_debug_key_reuse is False


# ---------------------------------------------------------------------------------------
# Multivariate samplers

def test_multivariate_normal_moments_and_methods():
  mean = np.array([1., -2., 0.5])
  cov = np.array([[2., 0.6, 0.2], [0.6, 1., 0.3], [0.2, 0.3, 0.5]])
  for method in ("cholesky", "eigh", "svd"):
    x = np.asarray(R.multivariate_normal(R.key(8), mean, cov, (20000,), method=method))
    np.testing.assert_allclose(x.mean(0), mean, atol=0.05)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.08)
  with pytest.raises(ValueError, match="method"):
    R.multivariate_normal(R.key(0), mean, cov, method="lu")
  with pytest.raises(ValueError, match=r"cov.shape == \(..., n, n\)"):
    R.multivariate_normal(R.key(0), mean, np.eye(2))
  batched = xjax.vmap(lambda k: R.multivariate_normal(k, mean, cov))(R.split(R.key(1), 3))
  np.testing.assert_array_equal(batched[2], R.multivariate_normal(R.split(R.key(1), 3)[2],
                                                                  mean, cov))


def test_orthogonal_matrices():
  q = np.asarray(R.orthogonal(R.key(0), 4, (3,)), np.float64)
  np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(4), (3, 4, 4)),
                             atol=1e-5)
  wide = np.asarray(R.orthogonal(R.key(0), 2, m=5), np.float64)
  assert wide.shape == (2, 5)
  np.testing.assert_allclose(wide @ wide.T, np.eye(2), atol=1e-5)


def test_negative_shapes_are_type_errors():
  for make in (lambda: R.split(R.key(0), (-1,)), lambda: R.normal(R.key(0), (-2,)),
               lambda: R.bits(R.key(0), (3, -1))):
    with pytest.raises(TypeError, match="non-negative"):
      make()


def test_samplers_do_not_trigger_the_retrace_notice(caplog):
  import logging
  with caplog.at_level(logging.WARNING, logger="xjax"):  # xjax's own jitted helpers are exempt
    for n in range(1, 14):
      R.uniform(R.key(0), (n,))
  assert not [r for r in caplog.records if "has been traced" in r.getMessage()]


def test_keys_convert_only_to_their_own_dtype():
  # As JAX 0.10.2: astype to the key's own dtype is the identity (optax's accumulation does
  # it on key-holding states); any other conversion is a ValueError.
  k = R.key(0)
  w = jnp.where(True, k, k)
  assert jnp.astype(w, k.dtype).dtype == k.dtype
  assert xjax.jit(lambda k: k.astype(k.dtype))(k).dtype == k.dtype
  with pytest.raises(ValueError, match="Cannot convert_element_type from key<fry> to float32"):
    jnp.astype(w, "float32")
  with pytest.raises(ValueError, match="from float32 to key<fry>"):
    lax.convert_element_type(jnp.ones(2), k.dtype)
