"""The rbg and unsafe_rbg PRNG implementations: keys, splits, folds and draws bit for bit
with JAX 0.10.2 (numbers taken from the reference on CPU)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import random
from xjax.extend import random as extend_random

EXPECTED = {
    "rbg": dict(
        split=[1832780943, 270669613, 1832780943, 270669613],
        fold=[2547012911, 1371500959, 2547012911, 1371500959],
        uniform=[0.4252859354019165, 0.9507490396499634, 0.47966551780700684],
        normal=[1.5464750528335571, -0.9903302192687988, -1.0165395736694336],
        vmapped_bits=[[1826589366, 4083436224], [2060148117, 898661685],
                      [3775815125, 3662903343]],
        jit=[-0.18838873505592346, 1.6521602869033813],
        vmapped_fold=[[1820970612, 3729538270, 1820970612, 3729538270],
                      [1383271662, 289976367, 1383271662, 289976367],
                      [1844025098, 928543246, 1844025098, 928543246]]),
    "unsafe_rbg": dict(
        split=[2620864722, 2991908441, 282133475, 2589630650],
        fold=[2104303640, 250182049, 1106406590, 1983638428],
        uniform=[0.6102668046951294, 0.2586473226547241, 0.3331958055496216],
        normal=[-0.7756378054618835, -0.1642315536737442, -0.30328455567359924],
        vmapped_bits=[[2621076060, 1110882205], [1431065575, 3391764957],
                      [429002668, 3594548429]],
        jit=[0.28001460433006287, -0.6475211381912231],
        vmapped_fold=[[2674520210, 3736499804, 2196555229, 257966543],
                      [4159169791, 2099582995, 2713262844, 2237301773],
                      [3217734091, 539590485, 962003260, 1662371714]]),
}


@pytest.mark.parametrize("impl", sorted(EXPECTED))
def test_keys_and_draws_match_jax(impl):
  want = EXPECTED[impl]
  key = random.key(42, impl=impl)
  assert str(key.dtype) == f"key<{'rbg' if impl == 'rbg' else 'urbg'}>"
  np.testing.assert_array_equal(random.key_data(key), [0, 42, 0, 42])
  a, b = random.split(key)
  np.testing.assert_array_equal(random.key_data(a), want["split"])
  assert random.key_data(random.split(key, (2, 3))).shape == (2, 3, 4)
  np.testing.assert_array_equal(random.key_data(random.fold_in(key, 7)), want["fold"])
  np.testing.assert_array_equal(random.bits(key, (4,)),
                                [2620864722, 2991908441, 282133475, 2589630650])
  np.testing.assert_array_equal(random.bits(key, (2,), dtype="uint8"), [210, 89])
  np.testing.assert_array_equal(random.uniform(a, (3,)), np.float32(want["uniform"]))
  np.testing.assert_array_equal(random.normal(b, (3,)), np.float32(want["normal"]))
  keys = random.split(key, 3)
  np.testing.assert_array_equal(xjax.vmap(lambda k: random.bits(k, (2,)))(keys),
                                want["vmapped_bits"])
  np.testing.assert_array_equal(xjax.jit(lambda k: random.normal(k, (2,)))(a),
                                np.float32(want["jit"]))
  folded = xjax.vmap(lambda k: random.fold_in(k, 3))(keys)
  np.testing.assert_array_equal(random.key_data(folded), want["vmapped_fold"])


def test_default_impl_config_and_extend_names():
  assert extend_random.rbg_prng_impl.name == "rbg"
  assert extend_random.unsafe_rbg_prng_impl.name == "unsafe_rbg"
  with xjax.default_prng_impl("rbg"):
    key = random.PRNGKey(1)
    np.testing.assert_array_equal(key, [0, 1, 0, 1])
    np.testing.assert_array_equal(random.normal(key, (2,)),
                                  np.float32([0.014162209816277027, -1.4438526630401611]))
  assert random.PRNGKey(1).shape == (2,)


def test_user_defined_impl_maps_over_key_arrays():
  # define_prng_impl takes per-key functions; arrays of keys are mapped over.
  impl = extend_random.define_prng_impl(
      key_shape=(1,), seed=lambda s: jnp.reshape(s.astype(jnp.uint32), (1,)),
      split=lambda k, shape: jnp.broadcast_to(k + 1, (*shape, 1)),
      random_bits=lambda k, width, shape: jnp.full(shape, k[0], jnp.uint32),
      fold_in=lambda k, m: k ^ m, name="counter", tag="cnt")
  keys = random.split(random.key(5, impl=impl), 3)
  np.testing.assert_array_equal(random.key_data(keys), [[6], [6], [6]])
  np.testing.assert_array_equal(random.key_data(random.fold_in(random.key(5, impl=impl), 3)),
                                [6])


GAMMA_FAMILY = {   # JAX 0.10.2 on CPU: lax.map over the per-element keys, not vmap
    "rbg": ([0.17552947998046875, 0.47717294096946716, 0.0022567114792764187,
             0.27171409130096436], [0.4268583357334137, 0.5066204071044922, 0.11621583253145218]),
    "unsafe_rbg": ([0.23160088062286377, 0.3820924758911133, 0.17027097940444946,
                    0.16523388028144836],
                   [0.07542606443166733, 0.5312023758888245, 0.43159306049346924]),
}


@pytest.mark.parametrize("impl", sorted(GAMMA_FAMILY))
def test_gamma_family_draws_each_element_from_its_own_key(impl):
  gamma, beta = GAMMA_FAMILY[impl]
  key = random.key(7, impl=impl)
  np.testing.assert_array_equal(random.gamma(key, 0.5, (4,)), np.float32(gamma))
  np.testing.assert_array_equal(random.beta(key, 2., 3., (3,)), np.float32(beta))
