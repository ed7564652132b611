"""The philox2x32, philox4x32 and threefry4x32 PRNGs: the hashes against Random123's
known-answer vectors, and keys, splits, folds and draws bit for bit with JAX 0.10.2 (numbers
taken from the reference on CPU)."""
import pickle

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import random
from xjax._src.libraries.random.philox import philox2x32_p, philox4x32_p
from xjax._src.libraries.random.threefry4x32 import threefry4x32_p

IMPLS = ("philox2x32", "philox4x32", "threefry4x32")

# Random123's kat_vectors: (key words, counter words) -> hash words, for zeros, all ones
# and digits of pi.
_PI_KEY = (0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89)
_PI_CTR = (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344)
_ONES = 0xffffffff
KNOWN_ANSWERS = [
    (philox2x32_p, (0, 0, 0), (0xff1dae59, 0x6cd10df2)),
    (philox2x32_p, (_ONES,) * 3, (0x2c3f628b, 0xab4fd7ad)),
    (philox2x32_p, (0x13198a2e, *_PI_CTR[:2]), (0xdd7ce038, 0xf62a4c12)),
    (philox4x32_p, (0,) * 6, (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    (philox4x32_p, (_ONES,) * 6, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    (philox4x32_p, (*_PI_KEY[:2], *_PI_CTR), (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
    (threefry4x32_p, (0,) * 8, (0x9c6ca96a, 0xe17eae66, 0xfc10ecd4, 0x5256a7d8)),
    (threefry4x32_p, (_ONES,) * 8, (0x2a881696, 0x57012287, 0xf6c7446e, 0xa16a6732)),
    (threefry4x32_p, (*_PI_KEY, *_PI_CTR), (0x59cd1dbb, 0xb8879579, 0x86b5d00c, 0xac8b6d84)),
]


@pytest.mark.parametrize("prim, words, want", KNOWN_ANSWERS)
def test_hashes_give_random123_known_answers(prim, words, want):
  out = prim.bind(*(np.uint32(w) for w in words))
  np.testing.assert_array_equal([int(o) for o in out], want)


def test_hash_primitives_broadcast_batch_and_check_their_operands():
  k = jnp.array([[1], [2]], jnp.uint32)  # (2, 1) broadcasts against (1, 3) and scalars
  x = jnp.array([[5, 6, 7]], jnp.uint32)
  outs = philox4x32_p.bind(k, np.uint32(3), x, x, np.uint32(0), x)
  assert [o.shape for o in outs] == [(2, 3)] * 4
  loop = [philox4x32_p.bind(np.uint32(a), np.uint32(3), np.uint32(b), np.uint32(b),
                            np.uint32(0), np.uint32(b)) for a in (1, 2) for b in (5, 6, 7)]
  np.testing.assert_array_equal(np.stack(outs, -1).reshape(6, 4), np.array(loop))
  batched = xjax.vmap(lambda a, b: threefry4x32_p.bind(a, b, a, b, b, a, b, a),
                      in_axes=(0, None))(jnp.arange(3, dtype=jnp.uint32), np.uint32(9))
  for i in range(3):
    want = threefry4x32_p.bind(*(np.uint32(v) for v in (i, 9, i, 9, 9, i, 9, i)))
    np.testing.assert_array_equal([b[i] for b in batched], want)
  with pytest.raises(TypeError, match="philox2x32 expects 3 arguments"):
    philox2x32_p.bind(np.uint32(0), np.uint32(0))
  with pytest.raises(TypeError, match="uint32"):
    philox2x32_p.bind(np.uint32(0), np.uint32(0), np.int32(0))


EXPECTED = {
    "philox2x32": dict(
        tag="phx2", seeds={0: [4280135257], 42: [3991259024], -1: [2246910722]},
        split=[[2171499443], [413155073]], split23_last=[2857895752],
        fold=[[684560128], [520718382]],
        bits={"uint8": [75, 107, 150, 87, 76], "uint16": [65355, 8299, 37782, 25431, 2124],
              "uint32": [944504651, 856563819, 3743454102, 2331796311, 1668286540]},
        bits23=[[944504651, 856563819, 3743454102], [2331796311, 1668286540, 2308034990]],
        uniform=[0.09170997142791748, 0.730746865272522, 0.46144962310791016],
        normal=[0.2511848509311676, 1.8169825077056885, 1.0259160995483398],
        randint=[84, 10, 62, 0, 62, 37], permutation=[3, 4, 0, 6, 5, 7, 2, 1],
        jit=[4241080375],
        vmap_bits=[[393891712, 3138534060], [2573391632, 4146319350], [2476773982, 4162476595]],
        vmap_fold=[[2171499443], [413155073], [2864015503]],
        vmap_key=[[1133621287], [3594909439]],
        default_normal=[-0.43284377455711365, -0.5900662541389465],
        seeds_x64={-1: [1428173101], 2**40: [635875753], -2**40: [3120441426]},
        bits64=[9326519094073462008, 1774487527444324202, 12300852922594753305],
        uniform64=[0.3491289395152348, 0.4271477304485376]),
    "philox4x32": dict(
        tag="phx4", seeds={0: [1713891541, 3781805453], 42: [3717705800, 533567081],
                           -1: [4130576541, 252180694]},
        split=[[2181901948, 3341115038], [969239790, 3857553174]],
        split23_last=[3409024172, 4233117600],
        fold=[[41828760, 81464021], [3417616313, 4023900599]],
        bits={"uint8": [5, 207, 255, 79, 90], "uint16": [12805, 58575, 44543, 35151, 8794],
              "uint32": [1373712901, 3223971023, 2207559167, 2345961807, 3130401370]},
        bits23=[[1373712901, 3223971023, 2207559167], [2345961807, 3130401370, 789166233]],
        uniform=[0.9899202585220337, 0.9619936943054199, 0.9075016975402832],
        normal=[0.7141879200935364, 1.2872854471206665, -1.1262900829315186],
        randint=[61, 44, 58, 0, 10, 68], permutation=[2, 5, 4, 6, 3, 0, 7, 1],
        jit=[1414690606, 3733758258],
        vmap_bits=[[4251675414, 4131731806], [3274674317, 3869776868], [2092069704, 169959884]],
        vmap_fold=[[2181901948, 3341115038], [969239790, 3857553174], [3980413867, 158073360]],
        vmap_key=[[1792067052, 3928187465], [1493069011, 109046716]],
        default_normal=[-0.7632137537002563, -1.792298436164856],
        seeds_x64={-1: [4090393677, 3753482255], 2**40: [3264686682, 921952877],
                   -2**40: [560580102, 4231608342]},
        bits64=[9371197513079807646, 6039109255449763556, 10865517904694927394],
        uniform64=[0.8509346642219862, 0.13015480821936865]),
    "threefry4x32": dict(
        tag="fry4", seeds={0: [2624366954, 3783175782, 4228967636, 1381410776],
                           42: [1605953687, 3689221460, 1722219033, 3178796034],
                           -1: [2535856969, 757880446, 1703251539, 2659320]},
        split=[[3188509147, 2083947553, 1469629592, 921930771],
               [361144456, 1418825268, 1547191614, 2559243763]],
        split23_last=[1343101123, 2154651901, 3978454141, 3911347768],
        fold=[[2445197787, 3874293641, 4221169969, 2984886860],
              [3437258500, 3066825455, 3830011590, 3481965363]],
        bits={"uint8": [113, 145, 86, 2, 176], "uint16": [1393, 31377, 61782, 47106, 61104],
              "uint32": [2739996017, 3649338001, 3087855958, 731494402, 64614064]},
        bits23=[[2739996017, 3649338001, 3087855958], [731494402, 64614064, 2425576255]],
        uniform=[0.8369193077087402, 0.1182410717010498, 0.7059639692306519],
        normal=[0.5904462933540344, -0.5527218580245972, 0.45131054520606995],
        randint=[19, 22, 51, 31, 77, 75], permutation=[6, 5, 1, 4, 2, 0, 7, 3],
        jit=[354466000, 2417073077, 2635247744, 4051453840],
        vmap_bits=[[3594541058, 507841744], [3103346851, 1246515598], [1681531653, 328518545]],
        vmap_fold=[[3188509147, 2083947553, 1469629592, 921930771],
                   [361144456, 1418825268, 1547191614, 2559243763],
                   [1650616655, 2909718409, 1895971994, 1205228181]],
        vmap_key=[[2120643104, 326518214, 373257695, 1143382629],
                  [135995395, 1674433403, 1886296426, 3198885756]],
        default_normal=[-0.10098075121641159, -0.39067068696022034],
        seeds_x64={-1: [892984893, 2998605019, 1655112252, 2597012397],
                   2**40: [2741741974, 1347718631, 3557504011, 2730552147],
                   -2**40: [1531085594, 2034159556, 3407293101, 3435523949]},
        bits64=[16831092290058782770, 15459856458627681051, 2723202120932536496],
        uniform64=[0.636017819972559, 0.8192088107607085]),
}

_data = random.key_data


@pytest.mark.parametrize("impl", IMPLS)
def test_keys_splits_folds_and_draws_match_jax(impl):
  want = EXPECTED[impl]
  for seed, data in want["seeds"].items():
    key = random.key(seed, impl=impl)
    assert str(key.dtype) == f"key<{want['tag']}>" and key.shape == ()
    np.testing.assert_array_equal(_data(key), data)
    np.testing.assert_array_equal(random.PRNGKey(seed, impl=impl), data)
  key = random.key(42, impl=impl)
  a, b = random.split(key)
  np.testing.assert_array_equal(_data(random.split(key)), want["split"])
  keys23 = random.split(key, (2, 3))
  assert keys23.shape == (2, 3) and _data(keys23).shape == (2, 3, len(want["seeds"][0]))
  np.testing.assert_array_equal(_data(keys23[1, 2]), want["split23_last"])
  np.testing.assert_array_equal(_data(random.split(key, ())), want["split"][0])
  np.testing.assert_array_equal(
      [_data(random.fold_in(key, m)) for m in (7, 2**32 - 1)], want["fold"])
  for dtype, bits in want["bits"].items():
    drawn = random.bits(key, (5,), dtype=dtype)
    assert drawn.dtype == dtype
    np.testing.assert_array_equal(drawn, bits)
  np.testing.assert_array_equal(random.bits(key, (2, 3)), want["bits23"])
  np.testing.assert_array_equal(random.uniform(a, (3,)), np.float32(want["uniform"]))
  np.testing.assert_array_equal(random.normal(b, (3,)), np.float32(want["normal"]))
  np.testing.assert_array_equal(random.randint(key, (6,), 0, 100), want["randint"])
  np.testing.assert_array_equal(random.permutation(key, 8), want["permutation"])
  np.testing.assert_array_equal(_data(pickle.loads(pickle.dumps(keys23))), _data(keys23))


@pytest.mark.parametrize("impl", IMPLS)
def test_jit_and_vmap_match_jax_and_eager(impl):
  want = EXPECTED[impl]
  key = random.key(42, impl=impl)
  split_fold = lambda k, m: random.fold_in(random.split(k, 3)[1], m)
  np.testing.assert_array_equal(_data(xjax.jit(split_fold)(key, 5)), want["jit"])
  np.testing.assert_array_equal(_data(split_fold(key, 5)), want["jit"])
  keys = random.split(key, 3)
  draw = lambda k: random.bits(k, (2,))
  np.testing.assert_array_equal(xjax.vmap(draw)(keys), want["vmap_bits"])
  np.testing.assert_array_equal(want["vmap_bits"], [draw(k) for k in keys])
  np.testing.assert_array_equal(
      _data(xjax.vmap(lambda m: random.fold_in(key, m))(jnp.arange(3))), want["vmap_fold"])
  np.testing.assert_array_equal(
      _data(xjax.vmap(lambda s: random.key(s, impl=impl))(jnp.array([1, 2]))), want["vmap_key"])
  # Keys batched at any axis, under jit, nested vmap: the same as drawing key by key.
  grid = random.split(key, (2, 2))
  uniform = lambda k: random.uniform(k, (2,))
  nested = xjax.jit(xjax.vmap(xjax.vmap(uniform), in_axes=1, out_axes=1))(grid)
  np.testing.assert_array_equal(nested, [[uniform(grid[i, j]) for j in range(2)]
                                         for i in range(2)])


@pytest.mark.parametrize("impl", IMPLS)
def test_64_bit_seeds_and_draws_match_jax(impl, x64):
  want = EXPECTED[impl]
  for seed, data in want["seeds_x64"].items():
    np.testing.assert_array_equal(_data(random.key(seed, impl=impl)), data)
  key = random.key(42, impl=impl)
  np.testing.assert_array_equal(random.bits(key, (3,), dtype="uint64"),
                                np.uint64(want["bits64"]))
  np.testing.assert_array_equal(random.uniform(random.split(key)[0], (2,), dtype=jnp.float64),
                                want["uniform64"])


@pytest.mark.parametrize("impl", IMPLS)
def test_default_impl_config(impl):
  with xjax.default_prng_impl(impl):
    key = random.PRNGKey(1)
    assert key.shape == (len(EXPECTED[impl]["seeds"][0]),) and key.dtype == np.uint32
    np.testing.assert_array_equal(random.normal(key, (2,)),
                                  np.float32(EXPECTED[impl]["default_normal"]))
    assert random.key_impl(random.key(1)) == impl
  assert random.PRNGKey(1).shape == (2,)


def test_bad_names_and_poisson_outside_threefry2x32():
  with pytest.raises(ValueError, match=r"^new enum value must be in \[.threefry2x32., "):
    xjax.config.update("jax_default_prng_impl", "philox")
  with pytest.raises(ValueError, match='unrecognized PRNG implementation "philox"'):
    random.key(0, impl="philox")
  for impl in ("philox4x32", "rbg"):  # as JAX: its algorithm is threefry's own
    with pytest.raises(NotImplementedError, match="only implemented for the threefry2x32"):
      random.poisson(random.key(0, impl=impl), 3.0)
