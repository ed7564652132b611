"""lax.rng_bit_generator and lax.rng_uniform: XLA's own generators, bits as JAX 0.10.2's
on CPU (numbers taken from the reference)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax

KEY = np.array([1, 2, 3, 4], np.uint32)
PHILOX_U32 = [[512747620, 1298009047, 1267190206], [761827841, 1383286907, 1639995030]]
THREEFRY_U32 = [[1576285164, 740599976, 2436392515], [2249660814, 2425682526, 1497962777]]


def test_random_algorithm_enum():
  assert [(a.name, int(a)) for a in lax.RandomAlgorithm] == [
      ("RNG_DEFAULT", 0), ("RNG_THREE_FRY", 1), ("RNG_PHILOX", 2)]
  assert str(lax.RandomAlgorithm.RNG_PHILOX) == "RNG_PHILOX"


@pytest.mark.parametrize("alg,bits,new_key", [
    (lax.RandomAlgorithm.RNG_DEFAULT, PHILOX_U32, [1, 2, 5, 4]),
    (lax.RandomAlgorithm.RNG_PHILOX, PHILOX_U32, [1, 2, 5, 4]),
    (lax.RandomAlgorithm.RNG_THREE_FRY, THREEFRY_U32, [1, 2, 6, 4])])
def test_bits_match_reference(alg, bits, new_key):
  k, b = lax.rng_bit_generator(jnp.asarray(KEY), (2, 3), algorithm=alg)
  assert k.dtype == np.uint32 and b.dtype == np.uint32
  assert k.tolist() == new_key and b.tolist() == bits
  k2, b2 = xjax.jit(lambda k: lax.rng_bit_generator(k, (2, 3), algorithm=alg))(KEY)
  assert k2.tolist() == new_key and b2.tolist() == bits


def test_narrow_dtypes():
  _, b8 = lax.rng_bit_generator(KEY, (2, 3), np.uint8)
  _, b16 = lax.rng_bit_generator(KEY, (2, 3), np.uint16,
                                 lax.RandomAlgorithm.RNG_THREE_FRY)
  assert b8.dtype == np.uint8 and b8.tolist() == [[100, 215, 190], [1, 123, 150]]
  assert b16.dtype == np.uint16 and b16.tolist() == [[13292, 43176, 26179],
                                                     [6542, 64094, 6425]]


def test_uint64_with_x64():
  with xjax.enable_x64(True):
    _, b = lax.rng_bit_generator(KEY, (3,), np.uint64, lax.RandomAlgorithm.RNG_THREE_FRY)
    assert b.dtype == np.uint64
    assert b.tolist() == [9662219624799024108, 10418227120389269672, 6433701140276733507]
    k, b = lax.rng_bit_generator(jnp.array([7, 9], np.uint64), (3,))
    assert k.dtype == np.uint64 and k.tolist() == [7, 10]
    assert b.tolist() == [2624491802, 3865826212, 2369117307]


def test_uint64_without_x64_truncates_with_warning():
  with pytest.warns(UserWarning, match="uint64"):
    _, b = lax.rng_bit_generator(KEY, (2, 3), np.uint64)
  assert b.dtype == np.uint32 and b.tolist() == PHILOX_U32


def test_jaxpr_and_lowering():
  jaxpr = xjax.make_jaxpr(lambda k: lax.rng_bit_generator(
      k, (3,), algorithm=lax.RandomAlgorithm.RNG_PHILOX))(KEY)
  assert str(jaxpr) == """{ lambda ; a:u32[4]. let
    b:u32[4] c:u32[3] = rng_bit_generator[
      algorithm=RNG_PHILOX
      dtype=uint32
      out_sharding=None
      shape=(3,)
    ] a
  in (b, c) }"""
  text = xjax.jit(lambda k: lax.rng_bit_generator(k, (3,))).lower(KEY).as_text()
  assert "stablehlo.rng_bit_generator" in text and "rng_algorithm DEFAULT" in text
  from xjax.extend.core import Primitive
  assert isinstance(lax.rng_bit_generator_p, Primitive)


def test_vmap_draws_from_the_first_key_as_jax():
  keys = np.stack([KEY, KEY + 1], axis=1)
  new_keys, bits = xjax.vmap(lambda k: lax.rng_bit_generator(k, (2,)), in_axes=1)(keys)
  assert new_keys.tolist() == [[1, 2, 4, 4], [2, 3, 4, 5]]
  assert bits.tolist() == [[512747620, 1298009047], [1267190206, 761827841]]


def test_zero_derivative_through_bits():
  f = lambda x: lax.rng_bit_generator(KEY, (2,))[1].sum().astype(np.float32) * x
  np.testing.assert_allclose(xjax.grad(f)(1.), 1.8107566e9, rtol=1e-6)
  key_in = lambda k, x: lax.rng_bit_generator(k, (2,))[1].astype(np.float32).sum() * x
  assert xjax.grad(key_in, argnums=1)(KEY, 2.) > 0


@pytest.mark.parametrize("key,dtype,match", [
    (np.array([1, 2, 3], np.uint32), np.uint32, "uint32\\[4\\]"),
    (np.array([1, 2, 3, 4], np.int32), np.uint32, "uint32\\[4\\]"),
    (KEY, np.int32, "unsupported dtype int32"),
    (KEY, np.float32, "unsupported dtype float32")])
def test_bad_input(key, dtype, match):
  with pytest.raises(TypeError, match=match):
    lax.rng_bit_generator(key, (2,), dtype)


def test_rng_uniform():
  r = lax.rng_uniform(0., 1., (500,))
  assert r.shape == (500,) and r.dtype == np.float32 and r.weak_type
  assert 0 <= float(r.min()) and float(r.max()) < 1 and 0.35 < float(r.mean()) < 0.65
  r = lax.rng_uniform(jnp.float32(2), jnp.float32(3), [2, 2])
  assert r.shape == (2, 2) and not r.weak_type and (2 <= r).all() and (r < 3).all()
  i = lax.rng_uniform(jnp.int32(2), jnp.int32(10), (200,))
  assert i.dtype == np.int32 and 2 <= int(i.min()) and int(i.max()) < 10
  h = xjax.jit(lambda a: lax.rng_uniform(a, jnp.bfloat16(3), (4,)))(jnp.bfloat16(1))
  assert h.dtype == jnp.bfloat16 and (h >= 1).all() and (h < 3).all()
  assert str(xjax.make_jaxpr(lambda: lax.rng_uniform(0., 1., [3]))()) == (
      "{ lambda ; . let\n    a:f32[3] = rng_uniform[shape=(3,)] 0.0:f32[] 1.0:f32[]\n"
      "  in (a,) }")


def test_rng_uniform_bad_input():
  with pytest.raises(ValueError, match="identical dtypes, got float32 and int32"):
    lax.rng_uniform(0., jnp.int32(1), (3,))
  with pytest.raises(ValueError, match="must be scalars"):
    lax.rng_uniform(jnp.zeros(2), jnp.ones(2), (3,))
  with pytest.raises(TypeError, match="uint8"):  # XLA's CPU compiler would abort
    lax.rng_uniform(jnp.uint8(0), jnp.uint8(5), (3,))
  with pytest.raises(NotImplementedError, match="rng_uniform"):
    xjax.grad(lambda a: lax.rng_uniform(a, 2., (3,)).sum())(1.)
  with pytest.raises(NotImplementedError, match="rng_uniform"):
    xjax.vmap(lambda a: lax.rng_uniform(a, 2., (3,)))(jnp.ones(2))
