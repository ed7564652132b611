"""`jax.experimental.sparse`'s BCSR with batch and dense dimensions, its `bcsr_*`
primitives and structural functions, against values recorded from JAX 0.10.2, dense NumPy,
finite differences and loops."""
import numpy as np
import pytest
import scipy.sparse

import xjax
import xjax.numpy as jnp
from xjax.experimental import sparse
from xjax.test_util import check_grads

M = np.array([[0, 1., 0, 2], [3, 0, 0, 0], [0, 0, 4, 5]], np.float32)
V = np.array([2., 1, 3, 4], np.float32)


def _bufs(m):
  return [np.asarray(x).tolist() for x in (m.data, m.indices, m.indptr)]


def test_batched_and_dense_layouts_as_jax():
  b = sparse.BCSR.fromdense(np.stack([M, 2 * M[::-1]]), n_batch=1, nse=7)
  assert repr(b) == "BCSR(float32[2, 3, 4], nse=7, n_batch=1)"
  assert _bufs(b) == [[[1., 2., 3., 4., 5., 0., 0.], [8., 10., 6., 2., 4., 0., 0.]],
                      [[1, 3, 0, 2, 3, 4, 4], [2, 3, 0, 1, 3, 4, 4]],
                      [[0, 2, 3, 5], [0, 2, 3, 5]]]
  assert b._info == sparse.util.SparseInfo((2, 3, 4), False, False)
  np.testing.assert_array_equal(b.todense(), np.stack([M, 2 * M[::-1]]))
  dense = np.arange(12.).reshape(3, 2, 2) * (np.arange(12).reshape(3, 2, 2) % 5 > 0)
  d = sparse.BCSR.fromdense(dense, n_dense=1)
  assert repr(d) == "BCSR(float32[3, 2, 2], nse=6, n_dense=1)"
  assert _bufs(d)[1:] == [[0, 1, 0, 1, 0, 1], [0, 2, 4, 6]]
  np.testing.assert_array_equal(d.todense(), dense)
  assert b.to_bcoo().indices.tolist()[1] == [[0, 2], [0, 3], [1, 0], [2, 1], [2, 3], [3, 4],
                                            [3, 4]]
  e = sparse.empty((2, 3, 4), sparse_format="bcsr", n_batch=1)
  assert repr(e) == "BCSR(float32[2, 3, 4], nse=0, n_batch=1)" and e.indptr.shape == (2, 4)


def test_conversions_and_structure():
  m = sparse.BCSR.fromdense(M)
  two = sparse.BCSR.from_bcoo(sparse.BCOO.fromdense(np.stack([M, M]), n_batch=1))
  assert _bufs(two)[2] == [[0, 2, 3, 5], [0, 2, 3, 5]]
  np.testing.assert_array_equal(two.todense(), np.stack([M, M]))
  np.testing.assert_array_equal(
      sparse.BCSR.from_scipy_sparse(scipy.sparse.csr_matrix(M)).todense(), M)
  assert sparse.BCSR.from_scipy_sparse(scipy.sparse.csr_matrix(M),
                                       index_dtype=np.int16).indptr.dtype == np.int16
  np.testing.assert_array_equal(sparse.bcsr_extract(m.indices, m.indptr, 2 * M),
                                [2., 4., 6., 8., 10.])
  dup = sparse.BCSR((jnp.array([1., 2, 3]), jnp.array([1, 1, 0]), jnp.array([0, 2, 3, 3])),
                    shape=(3, 4))
  assert _bufs(sparse.bcsr_sum_duplicates(dup)) == [[3., 3.], [1, 0], [0, 1, 2, 2]]
  bc = sparse.bcsr_broadcast_in_dim(m, shape=(2, 3, 4), broadcast_dimensions=(1, 2))
  assert _bufs(bc)[2] == [[0, 2, 3, 5], [0, 2, 3, 5]] and bc.n_batch == 1
  cat = sparse.bcsr_concatenate([m, m], dimension=0)
  assert _bufs(cat)[1:] == [[1, 3, 0, 2, 3, 1, 3, 0, 2, 3], [0, 2, 3, 5, 7, 8, 10]]
  np.testing.assert_array_equal(sparse.bcsr_concatenate([m, m], dimension=1).todense(),
                                np.concatenate([M, M], 1))


def test_products_grads_jit_and_vmap():
  b = sparse.BCSR.fromdense(np.stack([M, 2 * M[::-1]]), n_batch=1, nse=7)
  dense = np.stack([M, 2 * M[::-1]])
  np.testing.assert_allclose(b @ V, dense @ V)
  np.testing.assert_allclose(b @ np.ones((4, 2)), dense @ np.ones((4, 2)))
  with_data = lambda d: sparse.BCSR((d, b.indices, b.indptr), shape=b.shape)  # noqa: E731
  g = xjax.grad(lambda d: (with_data(d) @ V).sum())(b.data)
  np.testing.assert_array_equal(g, [[1., 4., 2., 3., 4., 0., 0.], [3., 4., 2., 1., 4., 0., 0.]])
  np.testing.assert_array_equal(xjax.grad(lambda v: (b @ v).sum())(V), [9., 3., 12., 21.])
  gm = xjax.grad(lambda A: (sparse.BCSR.fromdense(A, nse=7).data * jnp.arange(7.)).sum())(M)
  np.testing.assert_array_equal(gm, [[0., 0., 0., 1.], [2., 0., 0., 0.], [0., 0., 3., 4.]])
  check_grads(lambda d, v: with_data(d) @ v, (b.data, V), order=2, modes=["fwd", "rev"])
  check_grads(lambda d: with_data(d).todense(), (b.data,), order=1, modes=["fwd", "rev"])
  out = xjax.jit(lambda A: sparse.BCSR.fromdense(A, nse=6, n_batch=1) @ V)(np.stack([M, 2 * M]))
  np.testing.assert_allclose(out, [[9., 6., 32.], [18., 12., 64.]])
  np.testing.assert_allclose(xjax.vmap(lambda m: m @ V)(b), [m @ V for m in dense])
  built = xjax.vmap(lambda A: sparse.BCSR.fromdense(A, nse=6).todense())(np.stack([M, 2 * M]))
  np.testing.assert_array_equal(built, np.stack([M, 2 * M]))
  m = sparse.BCSR.fromdense(M)
  datas = np.stack([m.data, 3 * m.data])
  out = xjax.vmap(lambda d: sparse.BCSR((d, m.indices, m.indptr), shape=m.shape) @ V)(datas)
  np.testing.assert_allclose(out, [M @ V, 3 * M @ V])
  text = str(xjax.make_jaxpr(lambda m, v: m @ v)(m, V))
  assert "bcsr_dot_general[" in text and "dimension_numbers=(((1,), (0,)), ((), ()))" in text


def test_errors_as_jax():
  m = sparse.BCSR.fromdense(M)
  with pytest.raises(NotImplementedError, match="nonzero n_dense/n_batch"):
    sparse.BCSR.from_scipy_sparse(scipy.sparse.csr_matrix(M), n_batch=1)
  with pytest.raises(ValueError, match="must have 2 sparse dimensions"):
    sparse.BCSR.fromdense(jnp.ones(3))
  with pytest.raises(NotImplementedError, match="requires n_sparse=2; got arr.n_sparse=3"):
    sparse.BCSR.from_bcoo(sparse.BCOO.fromdense(jnp.ones((2, 2, 2))))
  with pytest.raises(NotImplementedError, match="Transpose is not implemented"):
    m.T
  with pytest.raises(NotImplementedError, match="BCSR lhs and ndarray rhs"):
    sparse.bcsr_dot_general(jnp.ones((2, 3)), m, dimension_numbers=(([1], [0]), ([], [])))
  with pytest.raises(ValueError, match="cannot add out_axis=1 for BCSR array with n_batch=0"):
    xjax.vmap(lambda x: x, out_axes=1)(sparse.BCSR.fromdense(np.stack([M, M]), n_batch=1))
