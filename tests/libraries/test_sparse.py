"""`jax.experimental.sparse`: BCOO/BCSR layouts, operations, rules and sparsify, against
values recorded from JAX 0.10.2, dense NumPy, finite differences, loops and eager runs."""
import numpy as np
import pytest
import scipy.sparse

import xjax
import xjax.numpy as jnp
from xjax.test_util import check_grads
from xjax.experimental import sparse

M = np.array([[0., 1., 0.], [2., 0., 3.], [0., 0., 4.]], np.float32)


def test_fromdense_layout_and_repr():
  s = sparse.BCOO.fromdense(M, nse=5)
  assert repr(s) == "BCOO(float32[3, 3], nse=5)"
  np.testing.assert_array_equal(s.data, [1., 2., 3., 4., 0.])
  np.testing.assert_array_equal(s.indices, [[0, 1], [1, 0], [1, 2], [2, 2], [3, 3]])
  assert (s.n_batch, s.n_dense, s.n_sparse, s.indices_sorted, s.unique_indices) == (
      0, 0, 2, True, True)
  np.testing.assert_array_equal(sparse.todense(s), M)


def test_batched_and_dense_layouts():
  b = sparse.BCOO.fromdense(np.arange(12.).reshape(2, 3, 2), n_batch=1, n_dense=1)
  assert repr(b) == "BCOO(float32[2, 3, 2], nse=3, n_batch=1, n_dense=1)"
  assert b.data.shape == (2, 3, 2) and b.indices.shape == (2, 3, 1)
  np.testing.assert_array_equal(b.todense(), np.arange(12.).reshape(2, 3, 2))
  c = sparse.BCOO.fromdense(np.array([[0, 1.], [0, 0]]), n_batch=1)
  np.testing.assert_array_equal(c.data, [[1.], [0.]])
  np.testing.assert_array_equal(c.indices, [[[1]], [[2]]])


def test_from_scipy_sparse_and_bcsr():
  t = sparse.BCOO.from_scipy_sparse(scipy.sparse.csr_matrix(M))
  np.testing.assert_array_equal(t.todense(), M)
  b = sparse.BCSR.fromdense(M)
  np.testing.assert_array_equal(b.indptr, [0, 1, 3, 4])
  np.testing.assert_array_equal(b.indices, [1, 0, 2, 2])
  np.testing.assert_array_equal(b.todense(), M)
  np.testing.assert_array_equal(b @ np.ones(3, np.float32), M.sum(1))


def test_products_and_structure_match_jax():
  s = sparse.BCOO.fromdense(M, nse=5)
  v = np.array([1., 2., 3.], np.float32)
  np.testing.assert_array_equal(s @ v, M @ v)
  np.testing.assert_array_equal(jnp.ones(3) @ s, [2., 1., 7.])
  c = s @ s.T   # JAX: nse=9, one entry per position
  assert c.nse == 9
  np.testing.assert_array_equal(c.data, [1., 0., 0., 0., 13., 12., 0., 12., 16.])
  np.testing.assert_array_equal(c.todense(), M @ M.T)
  np.testing.assert_array_equal(s.T.indices.T, [[1, 0, 2, 2, 3], [0, 1, 1, 2, 3]])
  r = s.reshape(9)
  np.testing.assert_array_equal(r.indices.T, [[1, 3, 5, 8, 9]])
  r = s[1]
  assert r.nse == 3
  np.testing.assert_array_equal(r.data, [2., 3., 0.])
  np.testing.assert_array_equal(r.indices.T, [[0, 2, 3]])
  r = s[1:3]
  np.testing.assert_array_equal(r.data, [0., 2., 3., 4., 0.])
  np.testing.assert_array_equal(r.indices.T, [[2, 0, 0, 1, 2], [3, 0, 2, 2, 3]])
  np.testing.assert_array_equal(s.sum(0).indices.T, [[1, 0, 2, 2, 3]])
  assert float(s.sum()) == 10.0
  m = sparse.bcoo_multiply_sparse(s, s)
  assert m.nse == 25
  np.testing.assert_array_equal(m.data[:6], [1., 4., 9., 16., 0., 0.])
  np.testing.assert_array_equal((s * jnp.arange(3.)).data, [1., 0., 6., 8., 0.])
  cat = sparse.bcoo_concatenate([s, s], dimension=0)
  np.testing.assert_array_equal(cat.todense(), np.concatenate([M, M]))
  np.testing.assert_array_equal(sparse.bcoo_rev(s, (0,)).indices.T,
                                [[2, 1, 1, 0, 3], [1, 0, 2, 2, 3]])
  u = sparse.bcoo_update_layout(s, n_batch=1, on_inefficient=None)
  np.testing.assert_array_equal(u.data, [[1, 0, 0, 0, 0], [0, 2, 3, 0, 0], [0, 0, 0, 4, 0]])
  np.testing.assert_array_equal(u.todense(), M)
  with pytest.raises(sparse.SparseEfficiencyError, match="increasing n_batch from 0 to 1"):
    sparse.bcoo_update_layout(s, n_batch=1)
  np.testing.assert_array_equal(
      sparse.bcoo_dynamic_slice(s, [1, 0], [2, 2]).todense(), M[1:3, 0:2])


def test_sum_duplicates_and_extract():
  d = sparse.BCOO((jnp.array([1., 2., 3., 5.]), jnp.array([[0, 1], [0, 1], [2, 2], [9, 9]])),
                  shape=(3, 3))
  e = d.sum_duplicates()
  np.testing.assert_array_equal(e.data, [3., 3.])
  np.testing.assert_array_equal(e.indices, [[0, 1], [2, 2]])
  e = d.sum_duplicates(nse=4)
  np.testing.assert_array_equal(e.data, [3., 3., 5., 0.])
  np.testing.assert_array_equal(e.indices, [[0, 1], [2, 2], [3, 3], [3, 3]])
  idx = jnp.array([[0, 1], [0, 1], [5, 5]])
  pattern = sparse.BCOO((jnp.ones(3), idx), shape=(3, 3))
  np.testing.assert_array_equal(sparse.bcoo_extract(pattern, M).data, [1., 0., 0.])
  np.testing.assert_array_equal(sparse.bcoo_extract(pattern, M, assume_unique=True).data,
                                [1., 1., 0.])


def test_grad_jit_vmap():
  s = sparse.BCOO.fromdense(M, nse=5)
  f = lambda d, v: sparse.BCOO((d, s.indices), shape=(3, 3)) @ v
  v = jnp.arange(3.)
  np.testing.assert_array_equal(xjax.grad(lambda d: f(d, v).sum())(s.data), [1, 0, 2, 2, 0])
  np.testing.assert_array_equal(xjax.grad(lambda v: f(s.data, v).sum())(v), M.sum(0))
  check_grads(f, (s.data, v), order=2, modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)
  np.testing.assert_array_equal(xjax.jit(f)(s.data, v), f(s.data, v))
  ds = jnp.stack([s.data, 2 * s.data])
  vs = jnp.stack([v, v + 1])
  np.testing.assert_array_equal(xjax.vmap(f)(ds, vs), np.stack([f(d, w) for d, w in
                                                                zip(ds, vs)]))
  np.testing.assert_array_equal(xjax.vmap(f, (0, None))(ds, v),
                                np.stack([f(d, v) for d in ds]))
  to_dense = lambda m: sparse.BCOO.fromdense(m, nse=4).todense()
  mats = jnp.stack([M, M.T])
  np.testing.assert_array_equal(xjax.vmap(to_dense)(mats), mats)
  np.testing.assert_array_equal(xjax.jit(to_dense)(M), M)
  np.testing.assert_array_equal(xjax.grad(lambda m: to_dense(m).sum())(M), M != 0)
  g = sparse.grad(lambda x: (x @ v).sum())(s)
  assert isinstance(g, sparse.BCOO)
  np.testing.assert_array_equal(g.data, [1., 0., 2., 2., 0.])
  np.testing.assert_array_equal(g.indices, s.indices)


def test_sparsify():
  s = sparse.BCOO.fromdense(M, nse=5)
  assert float(sparse.sparsify(lambda x, v: (x @ v).sum() * 2)(s, jnp.ones(3))) == 20.0
  np.testing.assert_array_equal(sparse.sparsify(lambda x: x * 3.)(s).data,
                                [3., 6., 9., 12., 0.])
  np.testing.assert_allclose(sparse.sparsify(lambda x: jnp.sin(x) * x)(s).todense(),
                             np.sin(M) * M, rtol=1e-6)
  assert sparse.sparsify(lambda x, y: x + y)(s, s).nse == 10
  total = sparse.sparsify(jnp.sum)(s)    # a total is a dense scalar, as JAX's
  assert isinstance(total, xjax.Array) and float(total) == 10.0
  np.testing.assert_array_equal(sparse.sparsify(lambda x, y: x + y)(s, jnp.ones((3, 3))),
                                M + 1)
  np.testing.assert_array_equal(sparse.sparsify(xjax.jit(lambda x, v: x @ v))(s, jnp.ones(3)),
                                M.sum(1))
  with pytest.raises(NotImplementedError, match="sparse rule for exp is not implemented "
                     "because it would result in dense output"):
    sparse.sparsify(jnp.exp)(s)
  with pytest.raises(NotImplementedError, match=r"^sparse rule for cumsum is not implemented"):
    sparse.sparsify(jnp.cumsum)(s)
  with pytest.raises(NotImplementedError, match="Subtraction between sparse and dense array."):
    sparse.sparsify(lambda x, y: x - y)(s, jnp.ones((3, 3)))


def test_constructors():
  assert repr(sparse.empty((3, 3))) == "BCOO(float32[3, 3], nse=0)"
  e = sparse.eye(3)
  np.testing.assert_array_equal(e.indices.T, [[0, 1, 2], [0, 1, 2]])
  np.testing.assert_array_equal(e.todense(), np.eye(3))
  r = sparse.random_bcoo(xjax.random.key(0), (3, 4), nse=0.5)
  assert r.nse == 6 and np.count_nonzero(np.asarray(r.todense())) == 6
  # JAX 0.10.2's draws: the first of (batch size + 1) keys for the values, a fraction of
  # positions rounded up, sort_indices for sorted ones.
  r = sparse.random_bcoo(xjax.random.key(3), (2, 5, 4), nse=3, n_batch=1)
  np.testing.assert_array_equal(r.indices, [[[2, 2], [4, 0], [1, 2]], [[4, 1], [2, 3], [3, 3]]])
  np.testing.assert_allclose(r.data, [[0.008695, 0.043988, 0.311573],
                                      [0.167742, 0.575428, 0.867339]], atol=1e-6)
  assert not r.unique_indices and not r.indices_sorted
  assert sparse.random_bcoo(xjax.random.key(3), (5, 4), nse=0.33).nse == 7
  r = sparse.random_bcoo(xjax.random.key(3), (5, 4), nse=5, sorted_indices=True)
  assert r.indices_sorted
  np.testing.assert_array_equal(r.indices, [[0, 2], [1, 2], [2, 2], [2, 3], [4, 0]])
  with pytest.raises(ValueError, match="got nse=20, expected to be between 0 and 20"):
    sparse.random_bcoo(xjax.random.key(3), (5, 4), nse=20)
  with pytest.raises(xjax.errors.ConcretizationTypeError):
    xjax.jit(lambda m: sparse.BCOO.fromdense(m))(M)


def test_vmap_over_bcoo_arguments_and_results():
  mats = np.stack([M, 2 * M, -M])
  b = sparse.BCOO.fromdense(mats, n_batch=1)
  v = np.arange(3.)
  out = xjax.vmap(lambda m: m @ v, in_axes=0)(b)
  np.testing.assert_allclose(out, [m @ v for m in mats])
  np.testing.assert_allclose(xjax.jit(xjax.vmap(lambda m, w: m @ w))(b, np.ones((3, 3))),
                             mats.sum(-1))
  same = xjax.vmap(lambda m: m)(b)
  assert same.data.shape == (3, 4) and same.indices.shape == (3, 4, 2) and same.n_batch == 1
  g = xjax.grad(lambda d: xjax.vmap(lambda m: (m @ v).sum())(
      sparse.BCOO((d, b.indices), shape=b.shape)).sum())(b.data)
  np.testing.assert_allclose(g, np.take_along_axis(np.broadcast_to(v, (3, 3)),
                                                   np.asarray(b.indices[..., 1]), 1))
  with pytest.raises(ValueError, match="Cannot map in_axis=1 for BCOO array with n_batch=1"):
    xjax.vmap(lambda m: m @ v, in_axes=1)(b)
  with pytest.raises(ValueError, match="Cannot map in_axis=0 for BCOO array with n_batch=0"):
    xjax.vmap(lambda m: m @ v)(sparse.BCOO.fromdense(mats))
  with pytest.raises(ValueError, match="cannot add out_axis=1 for BCOO array with n_batch=0"):
    xjax.vmap(lambda m: m, out_axes=1)(b)


def test_vmap_of_a_function_making_a_bcoo_batches_it_by_its_rule():
  """tensorcircuit's PauliStringSum2COO: the containers made inside the mapped function come
  out batched (n_batch 1), beside ordinary outputs, as a loop would stack them."""
  idx = np.array([[0, 0], [1, 2]])

  def f(w):
    return {"m": sparse.BCOO((jnp.stack([w, 2 * w]), idx), shape=(4, 4)), "s": 3 * w,
            "t": (w, None)}
  ws = np.arange(1.0, 4.0, dtype=np.float32)
  for g in (xjax.vmap(f), xjax.jit(xjax.vmap(f))):
    out = g(ws)
    assert out["m"].shape == (3, 4, 4) and out["m"].n_batch == 1
    np.testing.assert_array_equal(out["m"].todense(), [f(w)["m"].todense() for w in ws])
    np.testing.assert_array_equal(out["s"], 3 * ws)
    assert out["t"][1] is None
  with pytest.raises(ValueError, match="cannot add out_axis=1 for BCOO array with n_batch=0"):
    xjax.vmap(f, out_axes={"m": 1, "s": 0, "t": 0})(ws)


def test_matmul_with_one_batched_operand_is_numpys():
  # numpyro's sparse CAR distribution: `adj_matrix @ phi[..., None]`, a 2-D BCOO times a
  # batch of column vectors; NumPy's matmul broadcasting is the oracle
  s, s3 = sparse.BCOO.fromdense(M), sparse.BCOO.fromdense(np.stack([M, 2 * M]))
  x = np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 7
  d = jnp.asarray(x[..., :3])  # (a NumPy lhs would make NumPy loop over objects, in JAX too)
  cases = [(s, x[:, :3, :, None], M), (s, x[:, :3, :2], M), (d, s, M),
           (s3, x[0, :3, :2], np.stack([M, 2 * M])), (s3, x[0, 0], np.stack([M, 2 * M])),
           (sparse.BCOO.fromdense(M[0]), x[:, :3], M[0]), (d, sparse.BCOO.fromdense(M[1]), M[1])]
  for lhs, rhs, dense in cases:
    want = (dense @ rhs) if isinstance(lhs, sparse.BCOO) else (np.asarray(lhs) @ dense)
    np.testing.assert_allclose(lhs @ rhs, want, rtol=1e-6)
  phi = x[:, :3, 0]
  g = xjax.jit(xjax.grad(lambda p: jnp.sum((s @ p[..., None]) ** 2)))(phi)
  np.testing.assert_allclose(g, 2 * (M.T @ (M @ phi[..., None]))[..., 0], rtol=1e-5)
  with pytest.raises(NotImplementedError, match="both operands"):
    s3 @ np.ones((2, 3, 1), np.float32)


def test_add_and_subtract_as_jaxs():
  # JAX defines BCOO's + and - through sparsify: sparse +/- sparse concatenates the entries
  # (nse adds up), sparse + dense is dense when the dense operand has the result's shape
  s, t = sparse.BCOO.fromdense(M), sparse.BCOO.fromdense(M.T)
  for out, want, nse in [(s + t, M + M.T, 8), (s - t, M - M.T, 8),
                         (xjax.jit(lambda a, b: a + b)(s, t), M + M.T, 8)]:
    assert isinstance(out, sparse.BCOO) and out.nse == nse
    np.testing.assert_array_equal(out.todense(), want)
  np.testing.assert_array_equal(s + np.ones((3, 3), np.float32), M + 1)
  np.testing.assert_array_equal(jnp.ones((3, 3)) + s, M + 1)
  b = sparse.BCOO.fromdense(np.stack([M, M.T]), n_batch=1)
  np.testing.assert_array_equal((b + b).todense(), 2 * np.stack([M, M.T]))
  g = xjax.grad(lambda d: (sparse.BCOO((d, s.indices), shape=s.shape) + t).todense().sum())
  np.testing.assert_array_equal(g(s.data), np.ones(4))
  with pytest.raises(NotImplementedError, match="silent densification"):
    s + 1.
  with pytest.raises(NotImplementedError, match="Subtraction between sparse and dense"):
    s - np.ones((3, 3), np.float32)
  # a 0-d BCOO (numpy's object loops make them: `np_array @ bcoo`) scales and adds
  z = sparse.BCOO.fromdense(np.float32(3.))
  assert float((z * 2.).todense()) == 6. and float((z + z).todense()) == 6.
  with pytest.raises(TypeError, match="First argument to bcoo_extract should be a BCOO"):
    sparse.bcoo_extract(z.indices, np.float32(1.))


def test_multiply_dense_returns_data_and_broadcast_in_dim_lays_out_as_jax():
  # Layouts recorded from JAX 0.10.2 (Keras's sparse ops rely on both).
  from xjax.experimental import sparse as jsp
  d = np.array([[1., 0, 2], [0, 3, 0]], np.float32)
  x = jsp.BCOO.fromdense(d)
  out = jsp.bcoo_multiply_dense(x, np.arange(6, dtype=np.float32).reshape(2, 3))
  assert isinstance(out, xjax.Array)
  np.testing.assert_array_equal(out, [0., 4., 12.])
  assert isinstance(x * 2.0, jsp.BCOO)

  def layout(m):
    return m.shape, m.n_batch, m.n_dense, np.asarray(m.indices).tolist()
  assert layout(jsp.bcoo_broadcast_in_dim(x, shape=(2, 1, 3), broadcast_dimensions=(0, 2))) == (
      (2, 1, 3), 0, 0, [[0, 0, 0], [0, 0, 2], [1, 0, 1]])
  assert layout(jsp.bcoo_broadcast_in_dim(x, shape=(2, 3, 1), broadcast_dimensions=(0, 1))) == (
      (2, 3, 1), 0, 0, [[0, 0, 0], [0, 2, 0], [1, 1, 0]])
  assert layout(jsp.bcoo_broadcast_in_dim(x, shape=(1, 2, 3), broadcast_dimensions=(1, 2)))[:3] \
      == ((1, 2, 3), 1, 0)
  summed = jsp.sparsify(lambda x: jnp.sum(x, axis=1, keepdims=True))(x)
  assert layout(summed) == ((2, 1), 0, 0, [[0, 0], [0, 0], [1, 0]])
  np.testing.assert_array_equal(summed.todense(), [[3.], [3.]])
  expanded = jsp.sparsify(lambda x: jnp.expand_dims(x, -2))(x)
  np.testing.assert_array_equal(expanded.todense(), d[:, None])
  with pytest.raises(NotImplementedError, match="Adding sparse dimensions with lengths != 1"):
    jsp.bcoo_broadcast_in_dim(x, shape=(2, 4, 3), broadcast_dimensions=(0, 2))


def test_batch_dimensions_shared_across_their_size():
  # A BCOO's data and indices may hold size 1 for a batch dimension (one set of entries
  # shared by every batch element), as Keras builds them; sums and products see every
  # element (JAX 0.10.2: sum 6.0, the product and slice below; its concatenate raises).
  from xjax.experimental import sparse as jsp
  x = jsp.BCOO((jnp.array([[1.0, 2.0]]), jnp.array([[[0], [2]]])), shape=(2, 3))
  np.testing.assert_array_equal(x.todense(), [[1, 0, 2], [1, 0, 2]])
  assert float(jsp.sparsify(jnp.sum)(x)) == 6.0
  np.testing.assert_array_equal(jsp.bcoo_reduce_sum(x, axes=(0,)).todense(), [2, 0, 4])
  dense = np.arange(6.).reshape(2, 3).astype(np.float32)
  np.testing.assert_array_equal(jsp.sparsify(jnp.matmul)(x, dense.T), [[4, 13], [4, 13]])
  np.testing.assert_array_equal(jsp.bcoo_slice(x, start_indices=(1, 0), limit_indices=(2, 3))
                                .todense(), [[1, 0, 2]])
  np.testing.assert_array_equal(
      jsp.bcoo_concatenate([x, x], dimension=0).todense(), np.tile([[1, 0, 2]], (4, 1)))


def test_spsolve_solves_a_csr_system_and_differentiates():
  """``sparse.linalg.spsolve`` (SciPy on the host, as JAX's CPU path) against a dense solve;
  its derivatives in ``b`` and in the matrix's values against finite differences."""
  from xjax.experimental.sparse.linalg import spsolve
  rng = np.random.RandomState(0)
  a = (rng.randn(5, 5) * (rng.rand(5, 5) < 0.5) + 4 * np.eye(5)).astype(np.float32)
  mat = sparse.CSR.fromdense(a)
  b = rng.randn(5).astype(np.float32)
  x = spsolve(mat.data, mat.indices, mat.indptr, b)
  assert x.dtype == np.float32 and x.shape == (5,)
  np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(xjax.jit(spsolve)(mat.data, mat.indices, mat.indptr, b), x)
  g = xjax.grad(lambda b: spsolve(mat.data, mat.indices, mat.indptr, b).sum())(b)
  np.testing.assert_allclose(g, np.linalg.solve(a.T, np.ones(5)), rtol=1e-4, atol=1e-6)
  loss = lambda d: (spsolve(d, mat.indices, mat.indptr, b) ** 2).sum()
  gd = xjax.grad(loss)(mat.data)
  eps, d0 = 1e-3, np.asarray(mat.data, np.float64)
  dense = lambda d: np.asarray(sparse.CSR((d, mat.indices, mat.indptr), shape=(5, 5)).todense(),
                               np.float64)
  fd = [((np.linalg.solve(dense(d0 + eps * e), b) ** 2).sum()
         - (np.linalg.solve(dense(d0 - eps * e), b) ** 2).sum()) / (2 * eps)
        for e in np.eye(d0.size)]
  np.testing.assert_allclose(gd, fd, rtol=2e-2, atol=1e-4)
  with pytest.raises(ValueError, match="data types do not match"):
    spsolve(mat.data, mat.indices, mat.indptr, b.astype(np.int32))
  with pytest.raises(ValueError, match="Invalid CSR buffer sizes"):
    spsolve(mat.data, mat.indices, mat.indptr, b[:3])
  with pytest.raises(NotImplementedError, match="Batching rule for 'spsolve'"):
    xjax.vmap(lambda b: spsolve(mat.data, mat.indices, mat.indptr, b))(np.stack([b, b]))
