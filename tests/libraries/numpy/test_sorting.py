"""xjax.numpy's sorting and searching against NumPy: sort/argsort/lexsort, searchsorted,
partition, nonzero/argwhere/unique with and without size= under jit."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax._src.foundations.errors import ConcretizationTypeError

from tests.checking import check
from tests.libraries.numpy.operands import A, I, N, V

RNG = np.random.default_rng(0)


def test_sort_and_search():
  check(jnp.sort(V), np.sort(V))
  check(jnp.sort(N), np.sort(N))
  check(jnp.sort(A, axis=0), np.sort(A, axis=0))
  check(jnp.sort(I, axis=None), np.sort(I, axis=None))
  check(jnp.sort(V, descending=True), np.sort(V)[::-1])
  check(jnp.argsort(V), np.argsort(V).astype(np.int32))
  ties = np.array([1, 1, 0, 1])
  check(jnp.argsort(ties), np.argsort(ties, kind="stable").astype(np.int32))
  check(jnp.argsort(A, axis=-2), np.argsort(A, axis=-2).astype(np.int32))
  check(jnp.argsort(V, descending=True), np.argsort(-V).astype(np.int32))
  keys = (np.array([1, 2, 1]), np.array([0, 0, 1]))
  check(jnp.lexsort(keys), np.lexsort(keys).astype(np.int32))
  check(jnp.lexsort(np.ones(3)), np.lexsort(np.ones(3)))  # three 0-d keys
  with pytest.raises(ValueError, match="all keys need to be the same shape"):
    jnp.lexsort([np.ones(3), np.ones(4)])
  a = np.array([1., 2., 2., 3.], np.float32)
  v = np.array([2., 0., 5., np.nan], np.float32)
  for side in ("left", "right"):
    check(jnp.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side).astype(np.int32))
  check(jnp.searchsorted(V, 2.5, sorter=np.argsort(V)),
        np.int32(np.searchsorted(V, 2.5, sorter=np.argsort(V))))
  with pytest.raises(ValueError):
    jnp.sort(A, axis=-3)


def test_partition():
  a = RNG.permutation(12).reshape(3, 4).astype(np.float32)
  for axis, k in ((-1, 1), (0, 2), (-1, -1)):
    p = np.asarray(jnp.partition(a, k, axis=axis))
    check(np.take(p, k, axis), np.take(np.partition(a, k, axis=axis), k, axis))
    i = jnp.argpartition(a, k, axis=axis)
    check(np.take(np.take_along_axis(a, np.asarray(i), axis), k, axis),
          np.take(np.sort(a, axis), k, axis))
  with pytest.raises(ValueError):
    jnp.partition(a, 4)


def test_nonzero_family_and_size():
  check(jnp.nonzero(I > 5), [i.astype(np.int32) for i in np.nonzero(I > 5)])
  check(jnp.argwhere(I % 5 == 0), np.argwhere(I % 5 == 0).astype(np.int32))
  check(jnp.flatnonzero(I % 3), np.flatnonzero(I % 3).astype(np.int32))
  check(jnp.count_nonzero(I), np.int32(np.count_nonzero(I)))
  check(jnp.count_nonzero(I, axis=-1), np.count_nonzero(I, axis=-1).astype(np.int32))
  check(jnp.unique(np.array([3, 1, 3, 2])), np.array([1, 2, 3], np.int32))
  vals, counts = jnp.unique(np.array([3, 1, 3]), return_counts=True)
  check(counts, np.array([1, 2], np.int32))
  f = xjax.jit(lambda x: jnp.nonzero(x > 5, size=8, fill_value=-1))
  ref = np.full((2, 8), -1, np.int32)
  nz = np.nonzero(I > 5)
  ref[:, :6] = nz
  check(f(I), list(ref))
  check(xjax.jit(lambda x: jnp.where(x > 8, size=2))(I),
        [np.array([2, 2], np.int32), np.array([1, 2], np.int32)])
  check(xjax.jit(lambda x: jnp.unique(x, size=5))(np.array([3, 1, 3, 2])),
        np.array([1, 2, 3, 1, 1], np.int32))
  check(xjax.jit(lambda x: jnp.unique(x, size=5, fill_value=0))(np.array([3., 1, 3, 2])),
        np.array([1, 2, 3, 0, 0], np.float64 if xjax.config.read("jax_enable_x64")
                 else np.float32))
  with pytest.raises(ConcretizationTypeError, match="size"):
    xjax.jit(lambda x: jnp.nonzero(x))(I)
  with pytest.raises(ValueError):
    jnp.nonzero(np.float32(1))


def test_nonzero_padding_takes_the_fill_values_type():
  """JAX pads with ``where(pad, fill_value, index)``: a Python float makes weak float32
  indices (pgx's backgammon pads with NaN), a tuple gives one fill per dimension."""
  b = np.array([0, 3, 0, 1, 2, 0], np.int32)
  (out,) = jnp.where(b > 1, size=4, fill_value=np.nan)
  assert out.dtype == np.float32 and out.aval.weak_type
  np.testing.assert_array_equal(out, [1, 4, np.nan, np.nan])
  (out,) = jnp.nonzero(b, size=5, fill_value=np.int8(-1))
  assert out.dtype == np.int32 and not out.aval.weak_type
  np.testing.assert_array_equal(out, [1, 3, 4, -1, -1])
  rows, cols = jnp.nonzero(np.array([[0, 1], [2, 0]]), size=3, fill_value=(1.5, -1))
  assert rows.dtype == np.float32 and cols.dtype == np.int32
  np.testing.assert_array_equal(rows, [0, 1, 1.5])
  np.testing.assert_array_equal(cols, [1, 0, -1])
  (out,) = jnp.nonzero(b, size=0, fill_value=7.0)   # nothing to pad: indices stay integers
  assert out.dtype == np.int32 and out.shape == (0,)
  arg = jnp.argwhere(3, size=2, fill_value=1.0)
  assert arg.shape == (2, 0) and arg.dtype == np.float32 and arg.aval.weak_type
  with pytest.raises(ValueError, match="fill_value must be a scalar or a tuple"):
    jnp.nonzero(np.array([[0, 1], [2, 0]]), size=3, fill_value=[1, 2])


def test_unique_axis_and_outputs():
  a = np.array([[1, 2], [1, 2], [0, 3]], np.int32)
  for k, (r, e) in enumerate(zip(jnp.unique(a, axis=0, return_index=True, return_inverse=True,
                                            return_counts=True),
                                 np.unique(a, axis=0, return_index=True, return_inverse=True,
                                           return_counts=True))):
    check(r, e, np.int32)
  v, i, inv, c = jnp.unique(np.array([3, 1, 3, 2]), size=5, return_index=True,
                            return_inverse=True, return_counts=True)
  check(v, [1, 2, 3, 1, 1])
  check(i, [1, 3, 0, 1, 1])
  check(inv, [2, 0, 2, 1])
  check(c, [1, 1, 2, 0, 0])
  check(jnp.unique(a, axis=0, size=4, fill_value=9), [[0, 3], [1, 2], [9, 9], [9, 9]])


def test_gather_based_helpers_under_jit():
  a = np.arange(5.0, dtype=np.float32)
  rep = xjax.jit(lambda a, r: jnp.repeat(a, r, total_repeat_length=9))(a, np.array([2, 0, 3, 1, 3]))
  check(rep, np.repeat(a, [2, 0, 3, 1, 3]))
  m = np.array([0, 3, 0, 1, 0, 2], np.float32)
  (nz,) = xjax.jit(lambda m: jnp.nonzero(m, size=4, fill_value=-1))(m)
  check(nz, [1, 3, 5, -1], np.int32)
  u = xjax.jit(lambda x: jnp.unique(x, size=4))(np.array([3, 1, 3, 2, 1], np.int32))
  check(u, [1, 2, 3, 1])
  check(jnp.searchsorted(np.array([3., 1, 2]), np.array([1.5, 2.5]), sorter=np.array([1, 2, 0])),
        [1, 2])
  check(jnp.median(np.array([[3., 1, 2, 7], [0, 5, 4, 4]]), axis=1), [2.5, 4.0])
  check(jnp.interp(np.array([0.5, 2.5]), np.array([0., 1, 3]), np.array([0., 2, 6])), [1, 5])


def test_searchsorted_orders_complex_values_as_sort_does():
  """Complex values are compared by real part, then imaginary part, NaNs last (as JAX's
  sort), so searchsorted, digitize and histogram take them; method=None is JAX's
  ValueError. Values recorded from JAX 0.10.2."""
  c = jnp.asarray([1+1j, 2-1j, 0.5j, 1+0j, np.nan+0j, 1+np.nan*1j], jnp.complex64)
  s = jnp.sort(c)
  for method in ("compare_all", "scan", "sort"):
    np.testing.assert_array_equal(jnp.searchsorted(s, c, method=method), [2, 3, 0, 1, 4, 5])
    np.testing.assert_array_equal(jnp.searchsorted(s, c, side="right", method=method),
                                  [3, 4, 1, 2, 5, 6])
  np.testing.assert_array_equal(jnp.digitize(c, s[:4]), [3, 4, 1, 2, 4, 4])
  with pytest.raises(ValueError, match="invalid argument method=None"):
    jnp.searchsorted(s, c, method=None)
