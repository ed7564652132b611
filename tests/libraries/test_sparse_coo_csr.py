"""`jax.experimental.sparse`'s COO, CSR and CSC formats and their primitives, against values
recorded from JAX 0.10.2, dense NumPy, finite differences and loops."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.experimental import sparse
from xjax.experimental.sparse import coo, csr
from xjax.test_util import check_grads

M = np.array([[7, 1., 0, 2], [3, 0, 0, 0], [0, 0, 4, 5]], np.float32)
V = np.array([2., 1, 3, 4], np.float32)
FORMATS = [sparse.COO, sparse.CSR, sparse.CSC]


def _bufs(m):
  return [np.asarray(x).tolist() for x in xjax.tree_util.tree_leaves(m)]


def _with_data(m, d):
  leaves, tree = xjax.tree_util.tree_flatten(m)
  return xjax.tree_util.tree_unflatten(tree, [d] + leaves[1:])


def test_layouts_as_jax():
  assert _bufs(sparse.COO.fromdense(M, nse=8)) == [
      [7., 1., 2., 3., 4., 5., 0., 0.], [0, 0, 0, 1, 2, 2, 0, 0], [0, 1, 3, 0, 2, 3, 0, 0]]
  assert _bufs(sparse.CSR.fromdense(M, nse=8)) == [
      [7., 1., 2., 3., 4., 5., 0., 0.], [0, 1, 3, 0, 2, 3, 0, 0], [0, 3, 4, 6]]
  assert _bufs(sparse.CSC.fromdense(M, nse=8)) == [
      [7., 3., 1., 4., 2., 5., 0., 0.], [0, 1, 0, 2, 0, 2, 0, 0], [0, 2, 3, 4, 6]]
  m = sparse.COO.fromdense(M)
  assert repr(m) == "COO(float32[3, 4], nse=6)" and m._info == coo.COOInfo((3, 4), True, False)
  assert str(xjax.tree_util.tree_structure(sparse.CSR.fromdense(M))) == (
      "PyTreeDef(CustomNode(CSR[{'shape': (3, 4)}], [*, *, *]))")
  assert m.T._info == coo.COOInfo((4, 3), False, True)
  assert type(sparse.CSR.fromdense(M).T) is sparse.CSC
  assert type(sparse.CSC.fromdense(M).T) is sparse.CSR
  assert _bufs(sparse.CSR._empty((3, 4))) == [[], [], [0, 0, 0, 0]]
  assert _bufs(sparse.CSC._empty((3, 4))) == [[], [], [0, 0, 0, 0, 0]]
  assert _bufs(sparse.COO._eye(3, 4, 1)) == [[1., 1., 1.], [0, 1, 2], [1, 2, 3]]
  assert _bufs(sparse.CSR._eye(3, 4, 1)) == [[1., 1., 1.], [1, 2, 3], [0, 1, 2, 3]]
  assert _bufs(sparse.CSC._eye(3, 4, 1)) == [[1., 1., 1.], [0, 1, 2], [0, 0, 1, 2, 3]]
  assert repr(sparse.empty((3, 4), sparse_format="csc")) == "CSC(float32[3, 4], nse=0)"


@pytest.mark.parametrize("fmt", FORMATS)
def test_values_products_and_jit(fmt):
  m = fmt.fromdense(M)
  np.testing.assert_array_equal(m.todense(), M)
  np.testing.assert_array_equal(m.T.todense(), M.T)
  np.testing.assert_array_equal(fmt._eye(3, 4, -1).todense(), np.eye(3, 4, -1))
  np.testing.assert_allclose(m @ V, M @ V)
  np.testing.assert_allclose(m.T @ np.arange(3.), M.T @ np.arange(3.))
  B = np.arange(8.).reshape(4, 2)
  np.testing.assert_allclose(m @ B, M @ B)
  out = xjax.jit(lambda M, v: fmt.fromdense(M, nse=8) @ v)(M, V)
  np.testing.assert_allclose(out, [23., 6., 32.])
  np.testing.assert_array_equal(xjax.jit(lambda m: m.todense())(m), M)
  mi = fmt.fromdense(M.astype(np.int32))
  assert (mi @ jnp.ones(4)).dtype == np.float32 and (mi @ jnp.ones(4, np.int8)).dtype == np.int32
  assert m.block_until_ready() is m


@pytest.mark.parametrize("fmt", FORMATS)
def test_errors_as_jax(fmt):
  m = fmt.fromdense(M)
  with pytest.raises(AssertionError):
    fmt.fromdense(np.ones((2, 2, 2)))
  with pytest.raises(AssertionError):
    m @ jnp.ones(3)
  with pytest.raises(NotImplementedError, match=r"matmul with object of shape \(4, 2, 2\)"):
    m @ jnp.ones((4, 2, 2))
  with pytest.raises(NotImplementedError, match=r"\.__mul__"):
    m * 2
  with pytest.raises(NotImplementedError, match=r"\.__rmatmul__"):
    jnp.ones(3) @ m
  with pytest.raises(NotImplementedError, match="matmul between two sparse objects"):
    m @ m
  with pytest.raises(xjax.errors.ConcretizationTypeError):
    xjax.jit(lambda M: fmt.fromdense(M))(M)


@pytest.mark.parametrize("fmt", [sparse.COO, sparse.CSR])
def test_grads_recorded_from_jax(fmt):
  m8 = fmt.fromdense(M, nse=8)
  grad_data = xjax.grad(lambda d: (_with_data(m8, d) @ V).sum())(m8.data)
  np.testing.assert_array_equal(grad_data, [2., 1., 4., 2., 3., 4., 2., 2.])
  grad_v = xjax.grad(lambda v: (m8 @ v * jnp.arange(3.)).sum())(V)
  np.testing.assert_array_equal(grad_v, [3., 0., 8., 10.])
  grad_mat = xjax.grad(lambda M: (fmt.fromdense(M, nse=8).data * jnp.arange(8.)).sum())(M)
  expected = {sparse.COO: 13., sparse.CSR: 0.}[fmt]  # COO pads at (0, 0), CSR past indptr
  np.testing.assert_array_equal(grad_mat, [[expected, 1, 0, 2], [3, 0, 0, 0], [0, 0, 4, 5]])
  grad_dense = xjax.grad(lambda d: (_with_data(m8, d).todense() ** 2).sum())(m8.data)
  pad = {sparse.COO: 14., sparse.CSR: 0.}[fmt]
  np.testing.assert_array_equal(grad_dense, [14., 2., 4., 6., 8., 10., pad, pad])


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("transpose", [False, True])
def test_grads_against_finite_differences(fmt, transpose):
  m = fmt.fromdense(M)
  x = np.linspace(-1., 1., 3 if transpose else 4).astype(np.float32)
  X = np.stack([x, 2 * x], 1)
  mat = (lambda m: m.T) if transpose else (lambda m: m)
  check_grads(lambda d, v: mat(_with_data(m, d)) @ v, (m.data, x), order=2,
              modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)
  check_grads(lambda d, B: mat(_with_data(m, d)) @ B, (m.data, X), order=1,
              modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)
  check_grads(lambda d: _with_data(m, d).todense(), (m.data,), order=1, modes=["fwd", "rev"],
              atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("fmt", FORMATS)
def test_vmap_against_loops(fmt):
  m = fmt.fromdense(M)
  datas = np.stack([m.data, 2 * m.data, -m.data])
  vs = np.stack([V, V + 1, V * 3])
  out = xjax.vmap(lambda d, v: _with_data(m, d) @ v)(datas, vs)
  np.testing.assert_allclose(out, [_with_data(m, d) @ v for d, v in zip(datas, vs)])
  dense = xjax.vmap(lambda d: _with_data(m, d).todense())(datas)
  np.testing.assert_array_equal(dense, [M, 2 * M, -M])
  mats = np.stack([M, M.T.reshape(3, 4), 2 * M])
  built = xjax.vmap(lambda A: fmt.fromdense(A, nse=7).todense())(mats)
  np.testing.assert_array_equal(built, mats)


def test_primitives_in_jaxprs():
  text = str(xjax.make_jaxpr(lambda M, v: coo.coo_fromdense(M, nse=4) @ v)(M, V))
  assert "coo_fromdense[" in text and "coo_matvec[" in text
  text = str(xjax.make_jaxpr(lambda M, B: csr.csr_fromdense(M, nse=4) @ B)(M, np.ones((4, 2))))
  assert "csr_fromdense[" in text and "csr_matmat[" in text and "transpose=False" in text
  np.testing.assert_allclose(coo.coo_matvec(sparse.COO.fromdense(M), np.ones(3), transpose=True),
                             [10., 1., 4., 7.])
  np.testing.assert_allclose(csr.csr_matmat(sparse.CSR.fromdense(M), np.ones((3, 2)),
                                            transpose=True), [[10., 10.], [1., 1.], [4., 4.],
                                                              [7., 7.]])
