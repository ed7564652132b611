"""`jax.experimental.sparse.BCOO` basics, against values from JAX 0.10.2 and dense NumPy."""
import numpy as np
import pytest
import scipy.sparse

import xjax
import xjax.numpy as jnp
from xjax.experimental import sparse

M = np.array([[0., 1., 0.], [2., 0., 3.], [0., 0., 4.]], np.float32)


def test_fromdense_layout_and_repr():
  s = sparse.BCOO.fromdense(M)
  assert repr(s) == "BCOO(float32[3, 3], nse=4)"
  np.testing.assert_array_equal(s.data, [1., 2., 3., 4.])
  np.testing.assert_array_equal(s.indices, [[0, 1], [1, 0], [1, 2], [2, 2]])
  assert (s.nse, s.dtype, s.indices.dtype, s.n_batch, s.n_dense, s.n_sparse) == (
      4, np.float32, np.int32, 0, 0, 2)
  assert s.indices_sorted and s.unique_indices
  np.testing.assert_array_equal(s.todense(), M)
  np.testing.assert_array_equal(sparse.todense(s), M)


def test_padding_entries_are_out_of_range_and_dropped():
  s = sparse.BCOO.fromdense(M, nse=5)
  np.testing.assert_array_equal(s.indices[-1], [3, 3])
  np.testing.assert_array_equal(s.data, [1., 2., 3., 4., 0.])
  np.testing.assert_array_equal(s.todense(), M)
  np.testing.assert_array_equal(s @ np.ones(3, np.float32), M.sum(1))


def test_from_scipy_sparse():
  t = sparse.BCOO.from_scipy_sparse(scipy.sparse.csr_matrix(M))
  np.testing.assert_array_equal(t.indices, [[0, 1], [1, 0], [1, 2], [2, 2]])
  assert not t.unique_indices and not t.indices_sorted
  np.testing.assert_array_equal(t.todense(), M)


def test_products_sums_and_transpose():
  s = sparse.BCOO.fromdense(M)
  v = np.array([1., 2., 3.], np.float32)
  np.testing.assert_array_equal(s @ v, [2., 11., 12.])
  np.testing.assert_array_equal(s @ np.ones((3, 2), np.float32), M @ np.ones((3, 2)))
  np.testing.assert_array_equal(jnp.asarray(v) @ s, v @ M)
  assert repr(jnp.ones((3, 3)) * s) == "BCOO(float32[3, 3], nse=4)"
  np.testing.assert_array_equal((s * 2).todense(), 2 * M)
  np.testing.assert_array_equal((-s).todense(), -M)
  np.testing.assert_array_equal((s * np.arange(9.).reshape(3, 3)).todense(),
                                M * np.arange(9.).reshape(3, 3))
  np.testing.assert_array_equal(s.T.todense(), M.T)
  assert float(s.sum()) == 10.0
  np.testing.assert_array_equal(s.sum(axis=-1).todense(), [1., 5., 4.])


def test_pytree_under_jit_and_grad():
  s = sparse.BCOO.fromdense(M)
  assert str(xjax.tree_util.tree_structure(s)) == (
      "PyTreeDef(CustomNode(BCOO[{'shape': (3, 3), 'indices_sorted': True, "
      "'unique_indices': True}], [*, *]))")
  np.testing.assert_array_equal(xjax.jit(lambda s, v: s @ v)(s, jnp.ones(3)), [1., 5., 4.])
  g = xjax.grad(lambda d: (sparse.BCOO((d, s.indices), shape=(3, 3)) @ jnp.arange(3.)).sum())
  np.testing.assert_array_equal(g(s.data), [1., 0., 2., 2.])


def test_unsupported_operations_say_so():
  s = sparse.BCOO.fromdense(M)
  with pytest.raises(NotImplementedError, match="BCOO"):
    s @ s
  with pytest.raises(TypeError, match="do not align"):
    s @ np.ones(4, np.float32)
  with pytest.raises(xjax.errors.ConcretizationTypeError):
    xjax.jit(lambda m: sparse.BCOO.fromdense(m))(M)
