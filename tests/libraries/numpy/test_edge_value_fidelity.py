"""Edge values found by the differential sweep ``tools/expressions/edge_values.txt``:
expected values and error classes are the reference JAX 0.10.2's."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax


def test_full_takes_ints_of_the_requested_unsigned_range():
  big = 4294967295
  assert jnp.full((2,), big, jnp.uint32).tolist() == [big, big]
  assert jnp.full_like(jnp.zeros(2, jnp.uint32), big).tolist() == [big, big]
  assert xjax.jit(lambda: jnp.full((2,), big, jnp.uint32))().tolist() == [big, big]
  assert xjax.jit(lambda a: jnp.full_like(a, big))(jnp.zeros(2, jnp.uint32)).tolist() == [big] * 2
  assert jnp.sum(jnp.full((3,), big, jnp.uint32)).tolist() == 4294967293   # wraps, as XLA
  assert jnp.full_like(jnp.zeros(2), 2**40).tolist() == [2.0**40] * 2
  out = jnp.full((2,), 2**32)              # JAX's weak int32, wrapped
  assert out.dtype == jnp.int32 and out.weak_type and out.tolist() == [0, 0]
  assert lax.full((2,), 2**32).tolist() == [0, 0]


@pytest.mark.parametrize("expr, error, message", [
    (lambda: jnp.array(1e10, jnp.int32), OverflowError, "10000000000 out of bounds for int32"),
    (lambda: jnp.asarray(-1., jnp.uint32), OverflowError, "-1 out of bounds for uint32"),
    (lambda: jnp.array(-1.5, jnp.uint8), OverflowError, "-1 out of bounds for uint8"),
    (lambda: jnp.int8(300.), OverflowError, "300 out of bounds for int8"),
    (lambda: jnp.int8(np.inf), OverflowError, "cannot convert float infinity to integer"),
    (lambda: jnp.int32(np.nan), ValueError, "cannot convert float NaN to integer"),
    (lambda: jnp.array(3 + 0j, jnp.int32), TypeError, "not 'complex'")])
def test_python_floats_convert_to_integers_as_python_ints(expr, error, message):
  with pytest.raises(error, match=message):
    expr()


def test_in_range_python_floats_truncate():
  assert jnp.array(2.7, jnp.int32).tolist() == 2 and jnp.array(-2.7, jnp.int32).tolist() == -2
  assert jnp.uint8(255.9).tolist() == 255 and jnp.array(-0.5, jnp.uint8).tolist() == 0
  assert jnp.array(2.5, bool).tolist() is True


def _bits(x):
  return np.asarray(x).view(np.uint32).tolist()


def test_python_nans_keep_their_sign():
  neg, pos = 0xFFC00000, 0x7FC00000
  assert _bits(jnp.full((2,), np.nan)) == [pos, pos]
  assert _bits(jnp.full((2,), -np.nan)) == [neg, neg]      # after a +NaN of the same type
  assert _bits(xjax.jit(lambda: jnp.full((2,), -np.nan))()) == [neg, neg]
  a = jnp.array([np.nan, 1.], jnp.float32)
  assert _bits(a + -np.nan) == [neg, neg]
  assert _bits(xjax.jit(lambda a: a + -np.nan)(a)) == [neg, neg]
  assert _bits(jnp.full((1,), complex(-np.nan, 0.)).real) == [neg]


def test_quantile_computes_in_q_dtype_and_returns_a_dtype():
  """JAX's dataflow: q keeps its dtype (positions and weights in it), the result is of a's
  dtype, strongly typed; the reference's bits."""
  a = jnp.array([3., 1., 4., 1.5, 9.])
  h = a.astype(jnp.float16)
  out = jnp.quantile(h, jnp.float32(0.3))
  assert out.dtype == jnp.float16 and _bits16(out) == 0x3F33
  out = jnp.quantile(a, jnp.float16(0.3))
  assert out.dtype == jnp.float32 and _bits(out) == 0x3FE66000
  assert jnp.quantile(jnp.array([3, 1, 4, 1, 9]), jnp.float16(0.3)).dtype == jnp.float32
  g = xjax.grad(lambda q: jnp.quantile(a, q))(0.3)
  assert float(g) == 6.0 and not g.weak_type
  assert not xjax.grad(lambda q: jnp.percentile(a, q))(30.).weak_type
  with pytest.raises(TypeError, match="floor does not accept dtype int32"):
    jnp.quantile(a, 1)


def _bits16(x):
  return int(np.asarray(x).view(np.uint16))


def test_float_constants_convert_to_integers_as_jax_eager_and_staged():
  """Eagerly XLA converts (saturating, NaN -> 0); staged by jit JAX folds the constant with
  NumPy's cast (the reference's values, on x86: INT_MIN for NaN and overflow)."""
  z = jnp.zeros(3, jnp.int32)
  assert (z + lax.convert_element_type(np.nan, jnp.int32)).tolist() == [0, 0, 0]
  assert (z + lax.convert_element_type(1e10, jnp.int32)).tolist() == [2147483647] * 3
  with np.errstate(invalid="ignore"):
    staged = xjax.jit(lambda a: a + lax.convert_element_type(np.nan, jnp.int32))(z)
    assert staged.tolist() == [-2147483648] * 3
    assert xjax.jit(lambda a: jnp.full_like(a, -1.))(jnp.zeros(3, jnp.uint32)).tolist() == [
        4294967295] * 3
  assert "add a -2147483648:i32[]" in str(xjax.make_jaxpr(
      lambda a: a + lax.convert_element_type(np.nan, jnp.int32))(z))
  assert xjax.jit(lambda a: a + lax.convert_element_type(2.5, jnp.int32))(z).tolist() == [2] * 3
