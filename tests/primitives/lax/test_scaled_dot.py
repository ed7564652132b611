"""lax.scaled_dot: block-scaled float8 products, values as JAX 0.10.2's on CPU (numbers
from the reference) and against NumPy with float32 accumulation."""
import ml_dtypes
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax

r = np.random.RandomState(0)
A = r.randn(2, 8).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
B = r.randn(8, 3).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
SA = (2.0 ** r.randint(-2, 3, (2, 2))).astype(ml_dtypes.float8_e8m0fnu)
SB = (2.0 ** r.randint(-2, 3, (2, 3))).astype(ml_dtypes.float8_e8m0fnu)


def test_values():
  out = lax.scaled_dot(A, B, lhs_scale=SA, rhs_scale=SB)
  assert out.dtype == jnp.bfloat16
  assert out.tolist() == [[28.875, 54.25, 49.25], [0.53515625, 2.796875, 1.125]]
  f32 = lax.scaled_dot(A, B, lhs_scale=SA, rhs_scale=SB, preferred_element_type=np.float32)
  want = ((A.astype(np.float32) * np.repeat(SA.astype(np.float32), 4, axis=1))
          @ (B.astype(np.float32) * np.repeat(SB.astype(np.float32), 4, axis=0)))
  np.testing.assert_allclose(f32, want, rtol=1e-6)
  assert lax.scaled_dot(A, B).tolist() == [[1.6875, 1.875, 6.15625],
                                           [-1.1875, -0.0751953125, 0.5625]]
  assert xjax.jit(lambda a, b: lax.scaled_dot(a, b, lhs_scale=SA, rhs_scale=SB))(
      A, B).tolist() == out.tolist()


def test_jaxpr_and_vmap():
  text = str(xjax.make_jaxpr(lambda a, b: lax.scaled_dot(a, b, lhs_scale=SA, rhs_scale=SB))(A, B))
  assert ("scaled_dot[\n      dimension_numbers=(((1,), (0,)), ((), ()))\n"
          "      preferred_element_type=bfloat16\n    ] c d a b") in text
  batched = xjax.vmap(lambda a: lax.scaled_dot(a, B, lhs_scale=SA, rhs_scale=SB))(
      np.stack([A, A[::-1]]))
  assert batched.shape == (2, 2, 3)
  np.testing.assert_array_equal(batched[1], lax.scaled_dot(A[::-1], B, lhs_scale=SA,
                                                           rhs_scale=SB))


def test_errors_as_reference():
  x = np.ones((2, 8), np.float32)
  with pytest.raises(TypeError, match="does not support 0-rank and 1-rank operands"):
    lax.scaled_dot(x[0], x[0])
  with pytest.raises(TypeError, match=r"ratio of LHS contracting dim 1 to its scale's dim size \(1\)"):
    lax.scaled_dot(A, B, lhs_scale=np.ones((2, 8), ml_dtypes.float8_e8m0fnu))
  with pytest.raises(NotImplementedError, match="Differentiation rule for 'scaled_dot'"):
    xjax.grad(lambda a: lax.scaled_dot(a, x.T).astype(np.float32).sum())(x)
