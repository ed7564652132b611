"""lax.approx_max_k / approx_min_k through the approx_top_k primitive (XLA's ApproxTopK
custom call, as JAX): results as JAX 0.10.2's on CPU (numbers from the reference)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax

X = np.array([[3., 1., np.nan, 2., -0., 0.], [5., 5., 1., -np.inf, 2., 7.]], np.float32)


def test_values_as_reference():
  v, i = lax.approx_max_k(X, 3)
  np.testing.assert_array_equal(v, [[np.nan, 3, 2], [7, 5, 5]])
  assert i.dtype == np.int32 and i.tolist() == [[2, 0, 3], [5, 0, 1]]
  v, i = lax.approx_min_k(X, 3)  # XLA's sort with a NaN among the keys, as JAX gets it
  np.testing.assert_array_equal(v, [[-0., 1, 3], [-np.inf, 1, 2]])
  assert i.tolist() == [[4, 1, 0], [3, 2, 4]]
  v, i = lax.approx_max_k(X, 2, reduction_dimension=0)
  assert i.tolist() == [[1, 1, 0, 0, 1, 1], [0, 0, 1, 1, 0, 0]]
  v, i = lax.approx_max_k(X, 3, aggregate_to_topk=False)
  assert v.shape == (2, 6) and i.tolist() == [[0, 1, 2, 3, 4, 5], [5, 0, 1, 4, 2, 3]]
  assert lax.approx_max_k(np.ones((1, 1000), np.float32), 3,
                          aggregate_to_topk=False)[0].shape == (1, 256)
  r = np.random.RandomState(0).randn(4, 50).astype(np.float32)
  v, i = lax.approx_max_k(r, 5)
  np.testing.assert_array_equal(v, -np.sort(-r, axis=1)[:, :5])
  np.testing.assert_array_equal(np.take_along_axis(r, np.asarray(i), 1), v)


def test_primitive_jaxpr_and_lowering():
  out = lax.approx_top_k_p.bind(jnp.asarray(X), k=2, reduction_dimension=-1, recall_target=0.9,
                                is_max_k=False, reduction_input_size_override=-1,
                                aggregate_to_topk=True)
  assert isinstance(out, list) and out[1].tolist() == [[4, 1], [3, 2]]
  text = str(xjax.make_jaxpr(lambda x: lax.approx_max_k(x, 2))(X))
  assert "approx_top_k[\n      aggregate_to_topk=True\n      is_max_k=True\n      k=2" in text
  hlo = xjax.jit(lambda x: lax.approx_max_k(x, 2)).lower(X).as_text()
  assert '"ApproxTopK"' in hlo and "is_fallback = true" in hlo


def test_derivative_and_vmap():
  x = np.array([[3., 1., 9., 2., -1., 0.], [5., 4., 1., -3., 2., 7.]], np.float32)
  g = xjax.grad(lambda x: lax.approx_max_k(x, 2)[0].sum())(x)
  assert g.tolist() == [[1, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 1]]
  g = xjax.grad(lambda x: (lax.approx_min_k(x, 2)[0] * np.array([1., 2.])).sum())(x)
  assert g.tolist() == [[0, 0, 0, 0, 1, 2], [0, 0, 2, 1, 0, 0]]
  vs, idx = xjax.vmap(lambda x: lax.approx_max_k(x, 2), in_axes=1)(x.T)
  for b in range(2):
    assert idx[b].tolist() == lax.approx_max_k(x[b], 2)[1].tolist()


def test_bad_input():
  with pytest.raises(ValueError, match="k must be smaller than the size of reduction_dim 6"):
    lax.approx_max_k(X, 7)
  with pytest.raises(ValueError, match="operand must be a floating type"):
    lax.approx_max_k(np.ones((2, 6), np.int32), 2)
  with pytest.raises(ValueError, match="k must be positive"):
    lax.approx_min_k(X, 0)
  with pytest.raises(ValueError, match="recall_target"):
    lax.approx_max_k(X, 2, recall_target=1.5)


def test_max_k_and_min_k_along_a_reduction_dimension():
  v, i = lax.approx_max_k(jnp.array([3., 1., 4., 1., 5.]), 2)
  assert v.tolist() == [5., 4.] and i.tolist() == [4, 2]
  v, i = lax.approx_min_k(jnp.array([[3., 1., 4.], [1., 5., 0.]]), 1, reduction_dimension=0)
  assert v.tolist() == [[1., 1., 0.]] and i.tolist() == [[1, 0, 1]]
