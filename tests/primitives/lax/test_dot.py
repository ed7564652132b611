"""lax's dot conveniences: Precision and dimension-number names, batch_matmul, and jnp.matmul
lowered to one dot_general (batch broadcasting and mixed precisions without copies)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax


def test_precision_and_dimension_numbers():
  assert [p.name for p in lax.Precision] == ["DEFAULT", "HIGH", "HIGHEST"]
  assert lax.Precision("highest") is lax.Precision.HIGHEST
  assert lax.Precision("bfloat16") is lax.Precision.DEFAULT
  assert str(lax.Precision.HIGH) == "HIGH"
  with pytest.raises(ValueError):
    lax.Precision("foo")
  a = jnp.array([[1., 2.], [3., 4.]])
  for p in [lax.Precision.HIGHEST, (lax.Precision.HIGH, lax.Precision.DEFAULT)]:
    np.testing.assert_allclose(lax.dot(a, a, precision=p), np.array(a) @ np.array(a))
  assert lax.ConvGeneralDilatedDimensionNumbers is lax.ConvDimensionNumbers


def test_batch_matmul():
  a, b = np.random.RandomState(1).randn(2, 2, 3, 4).astype(np.float32)[:, :, :, :]
  b = np.swapaxes(b, 1, 2)
  np.testing.assert_allclose(lax.batch_matmul(jnp.asarray(a), jnp.asarray(b)), a @ b,
                             rtol=1e-5)
  with pytest.raises(ValueError):
    lax.batch_matmul(jnp.ones(3), jnp.ones(3))


@pytest.mark.parametrize("sa,sb", [((3,), (3, 4)), ((4,), (3, 4, 2)), ((5, 2, 3), (3,)),
                                   ((5, 2, 3), (3, 4)), ((1, 2, 3), (5, 3, 4)),
                                   ((2, 1, 2, 3), (4, 3, 2)), ((3,), (3,))])
def test_matmul_broadcasts_batches_without_copies(sa, sb):
  # Vectors and size-1 or missing batch dimensions become free dimensions of dot_general
  # (as JAX): no broadcast_in_dim materializes a batch.
  rng = np.random.RandomState(0)
  a, b = rng.randn(*sa).astype(np.float32), rng.randn(*sb).astype(np.float32)
  np.testing.assert_allclose(jnp.matmul(a, b), np.matmul(a, b), rtol=1e-5, atol=1e-6)
  text = str(xjax.make_jaxpr(jnp.matmul)(a, b))
  assert "broadcast_in_dim" not in text and text.count("dot_general") == 1


def test_matmul_of_mixed_precisions_contracts_without_converting():
  a, b = np.ones((2, 3), np.float16), np.ones(3, np.float32)
  text = str(xjax.make_jaxpr(jnp.matmul)(a, b))
  assert "convert_element_type" not in text and "preferred_element_type=float32" in text
  out = jnp.matmul(a, b)
  assert out.dtype == np.float32 and not out.weak_type
  np.testing.assert_array_equal(out, [3.0, 3.0])


@pytest.mark.parametrize("permutation", [(0, 2, 1), (2, 0, 1), (1, 2, 0)])
def test_a_transposed_outer_product_is_made_in_its_final_layout(permutation):
  """vmap(grad) of a matmul ends in a batched outer product and a transpose (as JAX's
  jaxpr): lowering makes the product transposed (no transpose of the result, which made
  per-example gradients 4x slower), with the same bits."""
  rng = np.random.RandomState(0)
  a = rng.randn(4, 5).astype(np.float32)
  b = rng.randn(4, 6).astype(np.float32)
  dims = (((), ()), ((0,), (0,)))
  f = xjax.jit(lambda a, b: lax.transpose(lax.dot_general(a, b, dims), permutation))
  want = np.einsum("bi,bj->bij", a, b).transpose(permutation)
  np.testing.assert_array_equal(np.asarray(f(a, b)), want)
  text = f.lower(a, b).as_text()
  out_type = "tensor<" + "x".join(str(n) for n in want.shape) + "xf32>"
  assert not [line for line in text.splitlines()
              if "stablehlo.transpose" in line and line.rstrip().endswith(out_type)]
  # a product used elsewhere too is lowered as it is, then transposed
  g = xjax.jit(lambda a, b: (lax.transpose(lax.dot_general(a, b, dims), permutation),
                             lax.dot_general(a, b, dims)))
  np.testing.assert_array_equal(np.asarray(g(a, b)[0]), want)

