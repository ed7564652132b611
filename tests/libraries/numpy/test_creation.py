"""xjax.numpy's array creation against NumPy: the linspace family, eye/identity/tri,
triangles, diagonals, trace and meshgrid (values and dtypes)."""
import numpy as np
import pytest

import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A, I


def test_linspace_family():
  check(jnp.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
  check(jnp.linspace(0, 10, 5, dtype=int), np.linspace(0, 10, 5, dtype=np.int32))
  out, step = jnp.linspace(0, 1, 4, endpoint=False, retstep=True)
  ref, rstep = np.linspace(0, 1, 4, endpoint=False, retstep=True)
  check(out, ref.astype(np.float32))
  np.testing.assert_allclose(step, rstep)
  check(jnp.linspace(np.array([0., 1.]), np.array([1., 3.]), 3, axis=-1),
        np.linspace(np.array([0., 1.]), np.array([1., 3.]), 3, axis=-1).astype(np.float32))
  check(jnp.linspace(2, 3, 1), np.linspace(2, 3, 1).astype(np.float32))
  check(jnp.linspace(2, 3, 0), np.linspace(2, 3, 0).astype(np.float32))
  check(jnp.logspace(0, 2, 3), np.logspace(0, 2, 3).astype(np.float32), rtol=1e-5)
  check(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4).astype(np.float32), rtol=1e-5)
  check(jnp.geomspace(-1, -100, 3), np.geomspace(-1, -100, 3).astype(np.float32), rtol=1e-5)


def test_matrices():
  check(jnp.eye(3), np.eye(3, dtype=np.float32))
  check(jnp.eye(2, 3, k=-1, dtype=int), np.eye(2, 3, k=-1, dtype=np.int32))
  check(jnp.identity(2, dtype=bool), np.identity(2, dtype=bool))
  check(jnp.tri(3, 4, k=1), np.tri(3, 4, k=1, dtype=np.float32))
  check(jnp.tril(A), np.tril(A))
  check(jnp.triu(I, -1), np.triu(I, -1))
  for k in (-2, 0, 1):
    check(jnp.diag(np.arange(3), k), np.diag(np.arange(3), k).astype(np.int32))
    check(jnp.diag(A, k), np.diag(A, k))
  check(jnp.diagonal(np.arange(24.).reshape(2, 3, 4), 1, -1, 0),
        np.diagonal(np.arange(24.).reshape(2, 3, 4), 1, -1, 0).astype(np.float32))
  check(jnp.diagflat(np.arange(2.)), np.diagflat(np.arange(2.)).astype(np.float32))
  check(jnp.trace(I), np.trace(I).astype(np.int32))
  check(jnp.trace(A, -1), np.trace(A, -1))
  for kw in ({}, {"indexing": "ij"}, {"sparse": True}):
    check(jnp.meshgrid(np.arange(3), np.arange(2.), np.arange(4), **kw),
          [x.astype(np.float32 if x.dtype == np.float64 else np.int32)
           for x in np.meshgrid(np.arange(3), np.arange(2.), np.arange(4), **kw)])


def test_only_the_keep_memory_order_is_accepted():
  x = jnp.ones((2, 2))
  for make in (lambda: jnp.array(x, order="F"), lambda: jnp.asarray(x, order="C"),
               lambda: jnp.copy(x, order="F")):
    with pytest.raises(NotImplementedError, match="Only implemented for order='K'"):
      make()
  assert jnp.array([1, 2], order="K").tolist() == [1, 2]
  with pytest.raises(TypeError):   # Array.copy takes no order, as JAX's
    x.copy(order="F")


def test_logical_ufunc_reduce_takes_a_dtype():
  out = jnp.logical_and.reduce(jnp.array([True, False]), dtype=jnp.int32)
  assert out.dtype == np.int32 and int(out) == 0


def test_reshape_and_ravel_orders_as_jax():
  x = jnp.arange(6).reshape(2, 3)
  assert jnp.reshape(x, (3, 2), order="F").tolist() == [[0, 4], [3, 2], [1, 5]]
  assert x.ravel(order="F").tolist() == [0, 3, 1, 4, 2, 5]
  with pytest.raises(NotImplementedError, match="np.reshape order=A is not implemented."):
    x.reshape((3, 2), order="A")
  with pytest.raises(NotImplementedError, match="Ravel not implemented for order='K'."):
    jnp.ravel(x, order="K")
  with pytest.raises(ValueError, match="Unexpected value for 'order' argument: Z."):
    jnp.reshape(x, (3, 2), order="Z")
