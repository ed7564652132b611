"""lax elementwise primitives against NumPy/SciPy, eagerly and under jit."""
import re

import numpy as np
import pytest
import scipy.special

import xjax as jax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads

rng = np.random.RandomState(0)
F32 = rng.uniform(-2, 2, size=(3, 4)).astype(np.float32)
POS = rng.uniform(0.1, 3, size=(3, 4)).astype(np.float32)
UNIT = rng.uniform(-0.9, 0.9, size=(3, 4)).astype(np.float32)
I32 = rng.randint(-50, 50, size=(3, 4)).astype(np.int32)
NONZERO_I32 = np.where(I32 == 0, 7, I32).astype(np.int32)

UNARY = [
    ("neg", lax.neg, np.negative, F32), ("sign", lax.sign, np.sign, F32),
    ("floor", lax.floor, np.floor, F32), ("ceil", lax.ceil, np.ceil, F32),
    ("exp", lax.exp, np.exp, F32), ("exp2", lax.exp2, np.exp2, F32),
    ("log", lax.log, np.log, POS), ("expm1", lax.expm1, np.expm1, F32),
    ("log1p", lax.log1p, np.log1p, POS), ("tanh", lax.tanh, np.tanh, F32),
    ("logistic", lax.logistic, scipy.special.expit, F32), ("sin", lax.sin, np.sin, F32),
    ("cos", lax.cos, np.cos, F32), ("tan", lax.tan, np.tan, UNIT),
    ("asin", lax.asin, np.arcsin, UNIT), ("acos", lax.acos, np.arccos, UNIT),
    ("atan", lax.atan, np.arctan, F32), ("sinh", lax.sinh, np.sinh, F32),
    ("cosh", lax.cosh, np.cosh, F32), ("asinh", lax.asinh, np.arcsinh, F32),
    ("acosh", lax.acosh, np.arccosh, POS + 1), ("atanh", lax.atanh, np.arctanh, UNIT),
    ("sqrt", lax.sqrt, np.sqrt, POS), ("rsqrt", lax.rsqrt, lambda x: 1 / np.sqrt(x), POS),
    ("cbrt", lax.cbrt, np.cbrt, F32), ("erf", lax.erf, scipy.special.erf, F32),
    ("erfc", lax.erfc, scipy.special.erfc, F32),
    ("erf_inv", lax.erf_inv, scipy.special.erfinv, UNIT),
    ("lgamma", lax.lgamma, scipy.special.gammaln, POS),
    ("digamma", lax.digamma, scipy.special.digamma, POS),
    ("bessel_i0e", lax.bessel_i0e, scipy.special.i0e, F32),
    ("bessel_i1e", lax.bessel_i1e, scipy.special.i1e, F32),
    ("abs_f", lax.abs, np.abs, F32), ("abs_i", lax.abs, np.abs, I32),
    ("is_finite", lax.is_finite, np.isfinite, np.array([1.0, np.inf, np.nan], np.float32)),
    ("not", lax.bitwise_not, np.invert, I32),
    ("population_count", lax.population_count,
     lambda x: np.array([bin(int(v) & 0xFFFFFFFF).count("1") for v in x.ravel()],
                        np.int32).reshape(x.shape), I32),
]


@pytest.mark.parametrize("name,fn,ref,x", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, fn, ref, x):
  expected = ref(x)
  np.testing.assert_allclose(fn(x), expected, rtol=2e-5, atol=2e-6)
  np.testing.assert_allclose(jax.jit(fn)(x), expected, rtol=2e-5, atol=2e-6)
  assert fn(x).dtype == np.asarray(expected).dtype or name in ("abs_i",)


BINARY = [
    ("add", lax.add, np.add, F32, POS), ("sub", lax.sub, np.subtract, F32, POS),
    ("mul", lax.mul, np.multiply, F32, POS), ("div", lax.div, np.divide, F32, POS),
    ("max", lax.max, np.maximum, F32, UNIT), ("min", lax.min, np.minimum, F32, UNIT),
    ("pow", lax.pow, np.power, POS, F32), ("atan2", lax.atan2, np.arctan2, F32, UNIT),
    ("rem", lax.rem, np.fmod, F32, POS), ("nextafter", lax.nextafter, np.nextafter, F32, POS),
    ("and", lax.bitwise_and, np.bitwise_and, I32, NONZERO_I32),
    ("or", lax.bitwise_or, np.bitwise_or, I32, NONZERO_I32),
    ("xor", lax.bitwise_xor, np.bitwise_xor, I32, NONZERO_I32),
    ("eq", lax.eq, np.equal, I32, NONZERO_I32), ("lt", lax.lt, np.less, F32, UNIT),
    ("ge", lax.ge, np.greater_equal, F32, UNIT),
]


@pytest.mark.parametrize("name,fn,ref,x,y", BINARY, ids=[b[0] for b in BINARY])
def test_binary(name, fn, ref, x, y):
  np.testing.assert_allclose(fn(x, y), ref(x, y), rtol=2e-5, atol=2e-6)
  np.testing.assert_allclose(jax.jit(fn)(x, y), ref(x, y), rtol=2e-5, atol=2e-6)


def test_integer_division_has_c_semantics():
  x = np.array([7, -7, 7, -7], np.int32)
  y = np.array([2, 2, -2, -2], np.int32)
  np.testing.assert_array_equal(lax.div(x, y), [3, -3, -3, 3])
  np.testing.assert_array_equal(lax.rem(x, y), [1, -1, 1, -1])


def test_integer_overflow_wraps():
  x = np.array([2**31 - 1], np.int32)
  np.testing.assert_array_equal(lax.add(x, np.int32(1)), [-2**31])


def test_shifts():
  x = np.array([1, -8, 16], np.int32)
  s = np.array([1, 1, 2], np.int32)
  np.testing.assert_array_equal(lax.shift_left(x, s), [2, -16, 64])
  np.testing.assert_array_equal(lax.shift_right_arithmetic(x, s), [0, -4, 4])
  np.testing.assert_array_equal(lax.shift_right_logical(x, s),
                                (x.view(np.uint32) >> s.view(np.uint32)).view(np.int32))


def test_scalar_and_size_one_broadcasting():
  np.testing.assert_allclose(lax.add(F32, np.float32(1)), F32 + 1)
  np.testing.assert_allclose(lax.mul(F32, F32[:1]), F32 * F32[:1])
  with pytest.raises(TypeError, match="same number of dimensions"):
    lax.add(F32, F32[0])


def test_select_n():
  which = F32 > 0
  np.testing.assert_array_equal(lax.select_n(which, F32, POS), np.where(which, POS, F32))
  idx = (np.arange(12).reshape(3, 4) % 3).astype(np.int32)
  out = lax.select_n(idx, F32, POS, UNIT)
  np.testing.assert_array_equal(out, np.choose(idx, [F32, POS, UNIT]))
  np.testing.assert_array_equal(lax.select_n(np.bool_(True), F32, POS), POS)


def test_convert_element_type():
  x = np.array([1.7, -1.7, np.nan, 300.0], np.float32)
  np.testing.assert_array_equal(lax.convert_element_type(x, jnp.int32)[:2], [1, -1])
  np.testing.assert_array_equal(lax.convert_element_type(x, jnp.bool_), [True, True, True, True])
  np.testing.assert_array_equal(lax.convert_element_type(np.array([1 + 2j], np.complex64),
                                                         jnp.float32), [1.0])
  assert lax.convert_element_type(1, jnp.float32).dtype == np.float32


def test_integer_pow_and_clamp():
  np.testing.assert_allclose(lax.integer_pow(F32, 3), F32 ** 3, rtol=1e-6)
  np.testing.assert_allclose(lax.integer_pow(POS, -2), POS ** -2.0, rtol=1e-5)
  np.testing.assert_array_equal(lax.clamp(np.float32(-0.5), F32, np.float32(0.5)),
                                np.clip(F32, -0.5, 0.5))
  with pytest.raises(TypeError, match=re.escape(  # JAX's message
      "clamp requires max.shape == operand.shape or max.shape == (), got max.shape=(3,), "
      "operand.shape=(2,).")):
    lax.clamp(np.float32(0), np.ones(2, np.float32), np.ones(3, np.float32))


def test_complex_parts():
  z = (F32 + 1j * POS).astype(np.complex64)
  np.testing.assert_allclose(lax.real(z), F32)
  np.testing.assert_allclose(lax.imag(z), POS)
  np.testing.assert_allclose(lax.conj(z), np.conj(z))
  np.testing.assert_allclose(lax.abs(z), np.abs(z), rtol=1e-6)
  np.testing.assert_allclose(lax.complex(F32, POS), z)
  assert lax.abs(z).dtype == np.float32


def test_dtype_rules_reject_bad_input():
  with pytest.raises(TypeError):
    lax.sin(I32)
  with pytest.raises(TypeError):
    lax.bitwise_and(F32, F32)
  with pytest.raises(TypeError, match="same dtypes"):
    lax.add(F32, I32)


def test_round():
  x = np.array([0.5, 1.5, 2.5, -0.5, -1.5], np.float32)
  np.testing.assert_array_equal(lax.round(x), [1, 2, 3, -1, -2])
  np.testing.assert_array_equal(lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
                                np.round(x))


def test_square_reciprocal_select():
  x = jnp.array([1., -2., 3.])
  np.testing.assert_array_equal(lax.square(x), [1., 4., 9.])
  np.testing.assert_array_equal(lax.square(jnp.arange(3)), [0, 1, 4])
  assert "square" in str(jax.make_jaxpr(lax.square)(1.))
  check_grads(lax.square, (x,), 2, atol=2e-2, rtol=2e-2)
  np.testing.assert_allclose(lax.reciprocal(jnp.float32(4)), 0.25)
  with pytest.raises(TypeError):
    lax.reciprocal(jnp.int32(4))
  np.testing.assert_array_equal(lax.select(jnp.array([True, False]), jnp.ones(2),
                                           jnp.zeros(2)), [1., 0.])
  np.testing.assert_array_equal(jax.vmap(lax.square)(x), np.square(np.array(x)))


def test_mulhi():
  rng = np.random.RandomState(0)
  for dt, wide in [(np.uint32, np.uint64), (np.int32, np.int64)]:
    info = np.iinfo(dt)
    a = rng.randint(info.min, info.max, size=20, dtype=np.int64).astype(dt)
    b = rng.randint(info.min, info.max, size=20, dtype=np.int64).astype(dt)
    a[:2], b[:2] = info.max, [info.min, info.max]
    expect = ((a.astype(wide) * b.astype(wide)) >> 32).astype(dt)
    np.testing.assert_array_equal(lax.mulhi(jnp.asarray(a), jnp.asarray(b)), expect)
  with pytest.raises(TypeError):
    lax.mulhi(1.0, 2.0)


def test_nextafter_has_no_derivative_as_in_jax():
  for transform in (lambda f: jax.grad(f)(1.0), lambda f: jax.jvp(f, (1.0,), (1.0,))):
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'nextafter' not "
                                                  "implemented"):
      transform(lambda x: jnp.nextafter(x, 2.0))
  assert float(jnp.nextafter(np.float32(1), np.float32(2))) == float(
      np.nextafter(np.float32(1), np.float32(2)))


def test_complex_sin_cos_signs_of_zero_as_jax():
  """Complex sin/cos are built from the real functions, as JAX lowers them: cos(-2.5+0j)
  has a +0 imaginary part and cos(1-0j) a -0 one; sin(-0j) is (0, -0) (JAX 0.10.2's
  values; XLA's complex ops gave the opposite signs)."""
  z = np.array([-2.5 + 0j, 1 - 0j, 0j], np.complex64)
  for f in (lax.cos, jax.jit(lax.cos)):
    c = np.asarray(f(z))
    np.testing.assert_array_equal(np.signbit(c.imag), [False, True, False])
  s = np.asarray(lax.sin(np.array([-0j], np.complex64)))
  assert not np.signbit(s.real[0]) and np.signbit(s.imag[0])
  np.testing.assert_allclose(lax.sin(np.array([1 + 2j], np.complex64)), np.sin(1 + 2j),
                             rtol=1e-6)
  np.testing.assert_allclose(lax.cos(np.array([1 + 2j], np.complex64)), np.cos(1 + 2j),
                             rtol=1e-6)


def test_logistic_lowers_as_jax_in_every_dtype():
  """logistic is 1 / (1 + exp(-x)) as JAX lowers it: in bfloat16, sigmoid(4.5) is
  0.992188 (JAX 0.10.2), where XLA's logistic gave 0.988281."""
  x = jnp.asarray([4.5, 5.0, -3.0], jnp.bfloat16)
  for f in (lax.logistic, jax.jit(jax.nn.sigmoid)):
    np.testing.assert_array_equal(np.asarray(f(x)),
                                  np.array([0.992188, 0.992188, 0.0473633], jnp.bfloat16))


def test_complex_operands_as_jax():
  """JAX 0.10.2's classes, messages and values: a complex dot with a real
  preferred_element_type keeps the complex product's real part (2.75, not 5); top_k,
  argmax and argmin refuse complex operands; bitcast refuses complex and bool unless the
  types match (it reached XLA before)."""
  c = jnp.asarray([1 + 1j, 2 - 1j, 0.5j], jnp.complex64)
  assert float(lax.dot(c, c, preferred_element_type=jnp.float32)) == 2.75
  assert int(jax.jit(lambda a: lax.dot(a, a, preferred_element_type=jnp.int32))(c)) == 2
  with pytest.raises(ValueError, match="top_k is not compatible with complex inputs"):
    lax.top_k(c, 2)
  for f, op in ((lax.argmax, "gt"), (lax.argmin, "lt")):
    with pytest.raises(TypeError, match=f"{op} does not accept dtype complex64 at position 0"):
      f(c, 0, jnp.int32)
  with pytest.raises(TypeError, match="does not support bool or complex values unless the "
                                      "operand and destination types match"):
    lax.bitcast_convert_type(c, jnp.int32)
  with pytest.raises(TypeError, match="Got operand dtype=bool, new_dtype=dtype\\('int8'\\)"):
    lax.bitcast_convert_type(jnp.ones(2, bool), jnp.int8)


def test_bessel_i0e_uses_cephes_float32_expansion_as_jax():
  """float32 (and float16/bfloat16, computed in float32) take Cephes' float32 Chebyshev
  series, as JAX: i0e(0) and jnp.i0(0) are 1.0000001 (bits recorded from JAX 0.10.2; the
  float64 series gave 0.99999994), float64 keeps the float64 series; jnp.i0's gradient is
  its expansion's, zero at 0."""
  x = np.array([0.0, 8.0, 30.0], np.float32)
  np.testing.assert_array_equal(np.asarray(lax.bessel_i0e(x)).view(np.uint32),
                                np.array([0x3F800001, 0x3E12DFC9, 0x3D95CD8A], np.uint32))
  assert np.asarray(jnp.i0(np.float32(0))).view(np.uint32) == 0x3F800001
  assert float(jax.grad(jnp.i0)(0.0)) == 0.0
  np.testing.assert_allclose(jax.grad(jnp.i0)(1.5), scipy.special.i1(1.5), rtol=1e-6)


def test_complex_cummax_cummin_order_as_jax():
  """cummax/cummin of complex values order by real then imaginary part, NaN carried on
  (values recorded from JAX 0.10.2)."""
  c = jnp.asarray([1 + 1j, 2 - 1j, 0.5j, 2 + 3j, np.nan + 0j], jnp.complex64)
  np.testing.assert_array_equal(lax.cummax(c), [1 + 1j, 2 - 1j, 2 - 1j, 2 + 3j, np.nan])
  np.testing.assert_array_equal(jax.jit(lax.cummin)(c), [1 + 1j, 1 + 1j, 0.5j, 0.5j, np.nan])
  np.testing.assert_array_equal(jax.vmap(lax.cummax)(c[None, :4]), [[1 + 1j, 2 - 1j, 2 - 1j,
                                                                      2 + 3j]])


def test_complex_cumlogsumexp_as_jax():
  """cumlogsumexp of complex values is JAX's (values recorded from JAX 0.10.2): the
  log-add of the larger operand, imaginary parts wrapped into (-pi, pi]."""
  c = jnp.asarray([1 + 1j, 2 - 1j, 0.5j, 2 + 3j], jnp.complex64)
  want = np.array([1 + 1.000000238418579j, 1.906323790550232 - 0.623828649520874j,
                   1.976453185081482 - 0.4985532760620117j,
                   0.9549762010574341 - 1.9560368061065674j], np.complex64)
  np.testing.assert_allclose(lax.cumlogsumexp(c), want, rtol=1e-6)
  np.testing.assert_allclose(jax.jit(lax.cumlogsumexp)(c), want, rtol=1e-6)


def test_mul_out_dtype_multiplies_in_the_given_dtype():
  """JAX 0.10.2's ``lax.mul(x, y, out_dtype=)``: operands of any numeric dtypes, cast and
  multiplied in ``out_dtype`` (canonical), weak only if both are; cotangents come back in
  each operand's dtype (values from JAX)."""
  a, b = jnp.arange(3, dtype=jnp.int8), jnp.arange(3, dtype=jnp.int8) + 100
  for f in (lax.mul, jax.jit(lax.mul, static_argnames="out_dtype")):
    out = f(a, b, out_dtype=jnp.int32)
    assert out.dtype == np.int32 and out.tolist() == [0, 101, 204]  # (int8 would wrap)
  jaxpr = jax.make_jaxpr(lambda u, v: lax.mul(u, v, out_dtype=jnp.int32))(a, b)
  assert jaxpr.eqns[0].params == {"out_dtype": jnp.int32}
  assert jaxpr.jaxpr.outvars[0].aval.dtype == np.int32
  assert jax.make_jaxpr(lax.mul)(a, b).eqns[0].params == {}
  weak = lax.mul(2.0, 3.0, out_dtype=jnp.float16)
  assert weak.dtype == np.float16 and weak.weak_type and float(weak) == 6.0
  assert lax.mul(jnp.float32(2), jnp.float32(3), out_dtype=np.float64).dtype == np.float32
  g = jax.grad(lambda u: lax.mul(u, jnp.float32(3.0), out_dtype=jnp.float32))(jnp.bfloat16(2.0))
  assert g.dtype == jnp.bfloat16 and float(g) == 3.0
  h = jax.hessian(lambda u: lax.mul(u, u, out_dtype=jnp.float32))(jnp.bfloat16(2.0))
  assert h.dtype == jnp.bfloat16 and float(h) == 2.0
  v = jax.vmap(lambda u: lax.mul(u, jnp.float32(2), out_dtype=jnp.float32))(
      jnp.arange(3, dtype=jnp.bfloat16))
  assert v.dtype == np.float32 and v.tolist() == [0.0, 2.0, 4.0]
  with pytest.raises(TypeError, match="mul does not accept dtype bool at position 0"):
    lax.mul(jnp.ones(2, bool), jnp.ones(2), out_dtype=jnp.float32)
