"""``jax_threefry_partitionable=False``: threefry2x32's original counter scheme, bit for bit
with JAX 0.10.2 (numbers taken from the reference on CPU, key ``PRNGKey(42)`` unless named)."""
import contextlib

import numpy as np
import pytest

import xjax
from xjax import random as R
from xjax._src.foundations.config import config

EXPECTED = {
    'split2': [[2465931498, 3679230171], [255383827, 267815257]],
    'split3': [[3134548294, 3733159049], [3746501087, 894150801], [801545058, 2363201431]],
    'split23': [[[2768684296, 515161807], [1303553849, 4184444755], [416959680, 1163211924]], [[3055579793, 2323374536], [871308580, 1523113029], [1252189920, 1179259758]]],
    'key_split': [[276534068, 861967409], [1905761346, 1641862660], [2900896126, 1402713516]],
    'bits8_()': 143,
    'bits8_(3,)': [143, 4, 62],
    'bits8_(2, 3)': [[45, 179, 215], [3, 244, 131]],
    'bits8_(5,)': [45, 179, 215, 3, 244],
    'bits16_()': 1167,
    'bits16_(3,)': [45869, 983, 33780],
    'bits16_(2, 3)': [[8426, 37627, 63599], [6563, 55571, 3896]],
    'bits16_(5,)': [8426, 37627, 63599, 6563, 55571],
    'bits32_()': 1832780943,
    'bits32_(3,)': [2465931498, 430176367, 255383827],
    'bits32_(2, 3)': [[3134548294, 3733159049, 3746501087], [894150801, 801545058, 2363201431]],
    'bits32_(5,)': [3134548294, 3733159049, 843694964, 894150801, 801545058],
    'uniform': [0.7298188209533691, 0.8691937923431396, 0.19643795490264893, 0.20818567276000977, 0.1866241693496704],
    'normal': [[0.18693546950817108, 1.0653334856033325], [-1.559313178062439, -1.5352962017059326]],
    'randint': [12, 43, 69, 29, 84, 26],
    'fold_in': [2547012911, 1371500959],
    'permutation': [9, 0, 2, 6, 1, 4, 5, 8, 3, 7],
    'rbg_split': [[1024511538, 47757680, 1024511538, 47757680], [2603795180, 1437962712, 2603795180, 1437962712]],
    'vmap_bits': [[14336, 7935, 10617], [52759, 27126, 55450], [1026, 37401, 34244]],
    'jit_bits': [143, 4, 62],
    'bits64_()': 276886910877598708,
    'bits64_(3,)': [13462782411356743825, 16033796027023006562, 16091099645456652183],
    'bits64_(2, 3)': [[11891408507324363409, 2212603115536638408, 5598721150901230884], [17972053376166845509, 1790828190602815200, 4995957173076497262]],
    'uniform64': [0.7298188969046309, 0.8691938242843895, 0.8723002596642415],
}


@contextlib.contextmanager
def flags(**values):
  old = {name: getattr(config, name) for name in values}
  for name, value in values.items():
    config.update(name, value)
  try:
    yield
  finally:
    for name, value in old.items():
      config.update(name, value)


def original(x64=False):
  return flags(jax_threefry_partitionable=False, jax_enable_x64=x64)


KEY = lambda: R.PRNGKey(42)


def check(name, value):
  expected = EXPECTED[name]
  value = np.asarray(value)
  if value.dtype.kind == "f":
    np.testing.assert_allclose(value, expected, rtol=1e-6)
  else:
    np.testing.assert_array_equal(value, np.asarray(expected, value.dtype))


def test_split():
  with original():
    check("split2", R.split(KEY()))
    check("split3", R.split(KEY(), 3))
    check("split23", R.split(KEY(), (2, 3)))
    check("key_split", R.key_data(R.split(R.key(7), 3)))
    check("rbg_split", R.key_data(R.split(R.key(3, impl="rbg"), 2)))


@pytest.mark.parametrize("bit_width", [8, 16, 32])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (5,)])
def test_bits(bit_width, shape):
  with original():
    bits = R.bits(KEY(), shape, f"uint{bit_width}")
    assert bits.dtype == np.dtype(f"uint{bit_width}") and bits.shape == shape
    check(f"bits{bit_width}_{shape}", bits)
    jitted = xjax.jit(lambda k: R.bits(k, shape, f"uint{bit_width}"))(KEY())
    check(f"bits{bit_width}_{shape}", jitted)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_bits_64(shape):
  with original(x64=True):
    check(f"bits64_{shape}", R.bits(KEY(), shape, "uint64"))


def test_samplers():
  with original():
    check("uniform", R.uniform(KEY(), (5,)))
    check("normal", R.normal(KEY(), (2, 2)))
    check("randint", R.randint(KEY(), (6,), 0, 100))
    check("fold_in", R.fold_in(KEY(), 7))  # the same in both schemes
    check("permutation", R.permutation(KEY(), 10))
    check("jit_bits", xjax.jit(lambda k: R.bits(k, (3,), "uint8"))(KEY()))
  with original(x64=True):
    check("uniform64", R.uniform(KEY(), (3,), dtype="float64"))


@pytest.mark.parametrize("partitionable", [True, False])
def test_vmap_over_keys_is_a_loop(partitionable):
  with flags(jax_threefry_partitionable=partitionable):
    keys = R.split(KEY(), 3)
    for dtype, shape in (("uint16", (3,)), ("uint8", (5,)), ("uint32", (2, 3))):
      draw = lambda k: R.bits(k, shape, dtype)
      vmapped = xjax.vmap(draw)(keys)
      np.testing.assert_array_equal(vmapped, np.stack([draw(k) for k in keys]))
      np.testing.assert_array_equal(xjax.jit(xjax.vmap(draw))(keys), vmapped)
    splits = xjax.vmap(lambda k: R.split(k, 3))(keys)
    np.testing.assert_array_equal(splits, np.stack([R.split(k, 3) for k in keys]))
    if not partitionable:
      check("vmap_bits", xjax.vmap(lambda k: R.bits(k, (3,), "uint16"))(keys))


@pytest.mark.parametrize("jitted", [True, False])
def test_flag_is_part_of_the_trace(jitted):
  draw = lambda k: R.bits(k, (3,))
  draw = xjax.jit(draw) if jitted else draw
  partitionable = np.asarray(draw(KEY()))
  with original():
    check("bits32_(3,)", draw(KEY()))
  np.testing.assert_array_equal(draw(KEY()), partitionable)
  assert not np.array_equal(partitionable, EXPECTED["bits32_(3,)"])
