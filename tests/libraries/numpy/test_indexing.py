"""NumPy indexing, .at[] updates, take/put, and the gather/scatter primitives: values
against NumPy, gradients against finite differences, vmap against loops, jit against eager."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import errors, lax

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
X = jnp.asarray(A)

GETITEM_CASES = [
    1, -1, (slice(None), 2), (-1, slice(None, None, -2)), (Ellipsis, None, 2),
    (slice(3, 0, -1), slice(None), slice(1, 4, 2)), np.array([0, 2]), ([0, 2],),
    (slice(None), [1, -1], [0, 4]),            # adjacent advanced: stay in place
    ([0, 1], slice(None), [1, 2]),              # separated: block moves to front
    (0, slice(None), [1, 2]),                   # int + array count as separated
    (slice(None), 0, [1, 2]),                   # adjacent int + array
    (np.array([[0], [2]]), None, [1, 2]),
    (None, [[1]], Ellipsis, [2, 3]),
    (A[:, 0, 0] > 10,), (A > 30,), (slice(1, None), np.array([True, False, True, True])),
    (np.array([], np.int32),), (True,), (1, None, Ellipsis, None),
]


@pytest.mark.parametrize("idx", GETITEM_CASES, ids=repr)
def test_getitem_matches_numpy(idx):
  out = X[idx]
  expected = A[idx]
  assert out.shape == expected.shape
  assert out.dtype == np.float32
  np.testing.assert_array_equal(np.asarray(out), expected)


def test_getitem_int_dtype_and_array_indices():
  a = np.arange(10, dtype=np.int32)
  x = jnp.asarray(a)
  i = np.array([3, -1, 0], np.int64)
  out = x[jnp.asarray(i)]
  assert out.dtype == np.int32
  np.testing.assert_array_equal(np.asarray(out), a[i])
  np.testing.assert_array_equal(np.asarray(x[np.uint8(4)]), a[4])


def test_out_of_bounds_array_indices_clamp():
  x = jnp.arange(5.0)
  np.testing.assert_array_equal(np.asarray(x[jnp.array([10, -7])]), [4.0, 0.0])
  assert np.isnan(np.asarray(x.at[jnp.array([10])].get(mode="fill"))).all()
  assert int(jnp.arange(5).at[7].get(mode="fill")) == np.iinfo(np.int32).min
  assert float(x.at[7].get(mode="fill", fill_value=-1.0)) == -1.0


def test_jit_matches_eager_with_traced_indices():
  f = lambda x, i, j: (x[i], x[:, j], x[i, 1:, j], x[j, None], x.at[j].get(mode="fill"))
  i, j = jnp.asarray(-1), jnp.asarray(np.array([0, -2, 3]))
  jitted, eager = xjax.jit(f)(X, i, j), f(X, i, j)
  for got, want, ref in zip(jitted, eager, (A[-1], A[:, [0, -2, 3]], A[-1, 1:, [0, -2, 3]],
                                            A[[0, -2, 2], None],  # 3 clamps to 2
                                            np.concatenate([A[[0, -2]], np.full_like(A[:1],
                                                                                   np.nan)]))):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    np.testing.assert_array_equal(np.asarray(got), ref)
  g = xjax.jit(lambda x, i: x[i, ::2])
  np.testing.assert_array_equal(np.asarray(g(X, 2)), A[2, ::2])


def test_index_errors():
  x = jnp.arange(5.0)
  with pytest.raises(errors.NonConcreteBooleanIndexError):
    xjax.jit(lambda x: x[x < 0])(x)
  with pytest.raises(IndexError, match="dynamic_slice"):
    xjax.jit(lambda x, i: x[i:i + 2])(x, 1)
  with pytest.raises(TypeError, match="integer or boolean"):
    x[1.0]
  with pytest.raises(TypeError, match="integer or boolean"):
    x[jnp.array([1.0])]
  with pytest.raises(IndexError, match="Too many indices"):
    x[0, 0]
  with pytest.raises(IndexError):
    x[..., ...]
  with pytest.raises(IndexError):
    jnp.zeros((0,))[0]
  with pytest.raises(TypeError, match="non-tuple sequence"):
    x[[0, 1]]
  with pytest.raises(IndexError, match="boolean index did not match"):
    x[np.array([True, False])]


def test_out_of_bounds_static_ints_clamp():
  x = jnp.arange(12).reshape(3, 4)
  np.testing.assert_array_equal(np.asarray(x[3]), [8, 9, 10, 11])
  np.testing.assert_array_equal(np.asarray(x[-4]), [0, 1, 2, 3])
  np.testing.assert_array_equal(np.asarray(x[:, 7]), [3, 7, 11])
  assert int(x[1, -9]) == 4 and int(x.at[10, 0].get()) == 8
  assert int(xjax.jit(lambda v: v[5])(jnp.arange(3))) == 2
  assert x[False].shape == (0, 3, 4) and x[(),].shape == (0, 4)


@pytest.mark.parametrize("idx", [1, (slice(None), [1, 1, 3]), (0, [0, 0], slice(None, None, -2)),
                                 (Ellipsis, -1), (A[..., 0] > 20,), ([0, 2], None, 1)],
                         ids=repr)
def test_at_updates_match_numpy(idx):
  shape = A[idx].shape
  vals = np.random.RandomState(0).uniform(1, 2, shape).astype(np.float32)
  exp = A.copy()
  exp[idx] = vals
  np.testing.assert_allclose(np.asarray(X.at[idx].set(vals)), exp)
  for method, ufunc in [("add", np.add), ("multiply", np.multiply), ("min", np.minimum),
                        ("max", np.maximum)]:
    exp = A.copy()
    flat = np.arange(A.size).reshape(A.shape)[idx]
    ufunc.at(exp.reshape(-1), flat.reshape(-1), vals.reshape(-1))
    np.testing.assert_allclose(np.asarray(getattr(X.at[idx], method)(vals)), exp, rtol=1e-6)
  exp = A.copy()
  np.subtract.at(exp.reshape(-1), np.arange(A.size).reshape(A.shape)[idx].reshape(-1),
                 vals.reshape(-1))
  np.testing.assert_allclose(np.asarray(X.at[idx].subtract(vals)), exp)


def test_at_misc():
  x = jnp.arange(5.0)
  np.testing.assert_allclose(np.asarray(x.at[jnp.array([1, 1])].divide(2.0)),
                             [0, 0.25, 2, 3, 4])
  np.testing.assert_allclose(np.asarray(x.at[2:].power(2)), [0, 1, 4, 9, 16])
  np.testing.assert_allclose(np.asarray(x.at[::2].apply(lambda v: -v)), [0, 1, -2, 3, -4])
  xi = jnp.arange(5)
  with pytest.warns(FutureWarning, match="cannot safely cast value from dtype=float32 to "
                                        "dtype=int32"):
    out = xi.at[jnp.array([1, 1])].add(2.7)   # added in float32, then cast (JAX 0.10.2)
  assert out.dtype == np.int32
  np.testing.assert_array_equal(np.asarray(out), [0, 6, 2, 3, 4])
  np.testing.assert_array_equal(np.asarray(x.at[jnp.array([7, -1])].set(9.0)), [0, 1, 2, 3, 9])
  np.testing.assert_array_equal(np.asarray(x.at[7].set(9.0, mode="clip")), [0, 1, 2, 3, 9])
  np.testing.assert_array_equal(np.asarray(x.at[:2].set(jnp.array([7.0]))), [7, 7, 2, 3, 4])
  with pytest.raises(ValueError):
    x.at[:2].set(jnp.ones(3))
  b = jnp.zeros(3, bool).at[1].set(True)
  np.testing.assert_array_equal(np.asarray(b), [False, True, False])
  f = xjax.jit(lambda x, i, v: x.at[i].add(v))
  np.testing.assert_array_equal(np.asarray(f(x, jnp.array([0, 0, 4]), 1.0)), [2, 1, 2, 3, 5])


def test_take_take_along_axis_put_place():
  a = np.arange(12.0, dtype=np.float32).reshape(3, 4)
  x = jnp.asarray(a)
  i = np.array([[0, -1], [2, 1]])
  for axis in (None, 0, 1, -1):
    np.testing.assert_array_equal(np.asarray(jnp.take(x, i, axis=axis)), np.take(a, i, axis))
  np.testing.assert_array_equal(np.asarray(jnp.take(x, [5, -9], axis=1, mode="clip")),
                                np.take(a, [5, -9], axis=1, mode="clip"))
  np.testing.assert_array_equal(np.asarray(jnp.take(x, [5, -9], axis=1, mode="wrap")),
                                np.take(a, [5, -9], axis=1, mode="wrap"))
  assert np.isnan(np.asarray(jnp.take(x, [7], axis=0))).all()
  assert float(jnp.take(x, [7], fill_value=-3.0, axis=None)[0]) == 7.0
  # boolean indices are positions 0 and 1 (as JAX), float ones JAX's ValueError
  np.testing.assert_array_equal(np.asarray(jnp.take(x, np.array([True, False]), axis=1)),
                                a[:, [1, 0]])
  with pytest.raises(ValueError, match="indices must have an integer type"):
    jnp.take(x, np.array([1.0]))
  idx = np.argsort(-a, axis=1)
  np.testing.assert_array_equal(np.asarray(jnp.take_along_axis(x, idx, axis=1)),
                                np.take_along_axis(a, idx, axis=1))
  idx0 = np.array([[2, 0, 1, 1]])
  np.testing.assert_array_equal(np.asarray(jnp.take_along_axis(x, idx0, axis=0)),
                                np.take_along_axis(a, idx0, axis=0))
  exp = a.copy()
  np.put(exp, [0, 5, -1], [9.0, 8.0])
  np.testing.assert_array_equal(np.asarray(jnp.put(x, [0, 5, -1], [9.0, 8.0], inplace=False)),
                                exp)
  exp = a.copy()
  np.put(exp, [40, -30], [1.0, 2.0], mode="clip")
  np.testing.assert_array_equal(np.asarray(jnp.put(x, [40, -30], [1.0, 2.0], mode="clip",
                                                   inplace=False)), exp)
  with pytest.raises(ValueError, match="inplace"):
    jnp.put(x, 0, 1.0)
  exp = a.copy()
  np.place(exp, a > 6, [-1.0, -2.0])
  np.testing.assert_array_equal(np.asarray(jnp.place(x, a > 6, jnp.array([-1.0, -2.0]),
                                                     inplace=False)), exp)


# ----------------------------------------------------------------------------- lax level

DN = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                start_index_map=(0,))
SDN = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                  scatter_dims_to_operand_dims=(0,))
M = np.arange(12.0, dtype=np.float32).reshape(3, 4)
IDX = np.array([[2], [0], [5]], np.int32)


def test_lax_gather_modes():
  x = jnp.asarray(M)
  out = lax.gather(x, IDX, DN, (1, 4), mode="clip")
  np.testing.assert_array_equal(np.asarray(out), M[[2, 0, 2]])
  out = lax.gather(x, IDX, DN, (1, 4), mode=lax.GatherScatterMode.FILL_OR_DROP)
  np.testing.assert_array_equal(np.asarray(out[:2]), M[[2, 0]])
  assert np.isnan(np.asarray(out[2])).all()
  # a window gather: 2x2 blocks at (row, col) starts
  dn2 = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(),
                                   start_index_map=(0, 1))
  starts = np.array([[0, 0], [1, 2]], np.int32)
  out = lax.gather(x, starts, dn2, (2, 2), mode="clip")
  np.testing.assert_array_equal(np.asarray(out), np.stack([M[0:2, 0:2], M[1:3, 2:4]]))


def test_lax_scatters():
  x = jnp.asarray(M)
  u = np.full((3, 4), 5.0, np.float32)
  np.testing.assert_array_equal(np.asarray(lax.scatter_add(x, IDX, u, SDN)),
                                M + np.array([[5], [0], [5]]))  # index 5 dropped
  np.testing.assert_array_equal(np.asarray(lax.scatter(x, IDX, u, SDN, mode="clip")),
                                np.where(np.array([[1], [0], [1]]), 5.0, M))
  for fn, op in [(lax.scatter_mul, np.multiply), (lax.scatter_min, np.minimum),
                 (lax.scatter_max, np.maximum)]:
    exp = M.copy()
    exp[[2, 0]] = op(M[[2, 0]], 5.0)
    np.testing.assert_array_equal(np.asarray(fn(x, IDX, u, SDN)), exp)


def _fd_grad(f, x, eps=1e-3):
  x = np.asarray(x, np.float64)
  g = np.zeros_like(x)
  for k in range(x.size):
    d = np.zeros_like(x)
    d.flat[k] = eps
    g.flat[k] = (f(x + d) - f(x - d)) / (2 * eps)
  return g


def _check_grad(f, x):
  got = np.asarray(xjax.grad(lambda v: f(v))(jnp.asarray(x, np.float32)))
  fd = _fd_grad(lambda v: float(f(jnp.asarray(v, np.float32))), x)
  np.testing.assert_allclose(got, fd, rtol=2e-2, atol=2e-2)


def test_gradients_against_finite_differences():
  rng = np.random.RandomState(1)
  m = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
  u = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32)
  idx = np.array([[2], [0], [2]], np.int32)
  uniq = np.array([[2], [0], [1]], np.int32)
  _check_grad(lambda v: (lax.gather(v, idx, DN, (1, 4), mode="clip") ** 2).sum(), m)
  _check_grad(lambda v: (jnp.sin(v[[0, 2, 2], 1:]) * 3).sum(), m)
  _check_grad(lambda v: (lax.scatter_add(v, idx, v * 2, SDN) ** 2).sum(), m)
  _check_grad(lambda v: (lax.scatter(v, uniq, u * v, SDN) ** 2).sum(), m)
  _check_grad(lambda v: (lax.scatter_mul(v, idx, u, SDN) ** 2).sum(), m)
  _check_grad(lambda w: (lax.scatter_mul(jnp.asarray(m), uniq, w, SDN, unique_indices=True) ** 2).sum(), u)
  _check_grad(lambda v: (lax.scatter_max(v, idx, u - 0.7, SDN) ** 2).sum(), m)
  _check_grad(lambda w: (lax.scatter_min(jnp.asarray(m), idx, w - 1.2, SDN) ** 2).sum(), u)
  _check_grad(lambda v: (v.at[1:, [0, 0, 3]].add(v[0, :3]) ** 2).sum(), m)


def test_vmap_against_loops():
  rng = np.random.RandomState(2)
  xs = rng.normal(size=(4, 3, 4)).astype(np.float32)
  ids = rng.randint(0, 3, (4, 3, 1)).astype(np.int32)
  us = rng.normal(size=(4, 3, 4)).astype(np.float32)
  g = lambda x, i: lax.gather(x, i, DN, (1, 4), mode="clip")
  s = lambda x, i, u: lax.scatter_add(x, i, u, SDN)
  for in_axes in [(0, 0), (0, None), (None, 0)]:
    args = [xs if in_axes[0] == 0 else xs[0], ids if in_axes[1] == 0 else ids[0]]
    out = xjax.vmap(g, in_axes)(*args)
    loop = [g(*(a[k] if ax == 0 else a for a, ax in zip(args, in_axes))) for k in range(4)]
    np.testing.assert_allclose(np.asarray(out), np.stack([np.asarray(o) for o in loop]))
  for in_axes in [(0, 0, 0), (None, 0, 0), (0, None, None), (1, None, 0)]:
    args = [xs, ids, us]
    args = [(np.moveaxis(a, 0, ax) if ax is not None else a[0]) for a, ax in zip(args, in_axes)]
    out = xjax.vmap(s, in_axes)(*args)
    loop = [s(*(np.moveaxis(a, ax, 0)[k] if ax is not None else a
                for a, ax in zip(args, in_axes))) for k in range(4)]
    np.testing.assert_allclose(np.asarray(out), np.stack([np.asarray(o) for o in loop]),
                               rtol=1e-6)
  v = np.arange(5.0, dtype=np.float32)
  ks = jnp.array([0, 3, 4])
  out = xjax.vmap(lambda x, k: lax.dynamic_slice(x, (k,), (2,)), (None, 0))(v, ks)
  np.testing.assert_array_equal(np.asarray(out), [[0, 1], [3, 4], [3, 4]])
  out = xjax.vmap(lambda x, k: lax.dynamic_update_slice(x, jnp.ones(2), (k,)))(
      jnp.zeros((3, 5)), ks)
  np.testing.assert_array_equal(np.asarray(out), [[1, 1, 0, 0, 0], [0, 0, 0, 1, 1],
                                                  [0, 0, 0, 1, 1]])
  out = xjax.vmap(lambda x, i: x[i, ::-1])(jnp.asarray(xs), jnp.array([0, 2, -1, 1]))
  np.testing.assert_array_equal(np.asarray(out),
                                np.stack([xs[k, i, ::-1] for k, i in enumerate([0, 2, -1, 1])]))
  out = xjax.vmap(lambda x, i: x.at[i].set(0.0))(jnp.asarray(xs), jnp.array([0, 2, -1, 1]))
  exp = xs.copy()
  for k, i in enumerate([0, 2, -1, 1]):
    exp[k, i] = 0.0
  np.testing.assert_array_equal(np.asarray(out), exp)


def test_jit_gather_scatter_matches_eager():
  x = jnp.asarray(M)
  f = lambda x, i: (lax.gather(x, i, DN, (1, 4)), lax.scatter_max(x, i, x * 2, SDN))
  for got, want in zip(xjax.jit(f)(x, IDX), f(x, IDX)):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_dynamic_slicing_without_negative_index_wrapping():
  # JAX 0.10.2's values: a negative traced start wraps by default, and clamps to 0 when the
  # caller says it cannot be negative (scan's own indexing; no select in the program)
  x = jnp.arange(5.0)
  f = xjax.jit(lambda i: (
      lax.dynamic_slice(x, (i,), (2,)),
      lax.dynamic_slice(x, (i,), (2,), allow_negative_indices=False),
      lax.dynamic_index_in_dim(x, i, keepdims=False, allow_negative_indices=False),
      lax.dynamic_update_index_in_dim(x, 9.0, i, 0, allow_negative_indices=False)))
  wrapped, clamped, item, updated = f(-2)
  np.testing.assert_array_equal(wrapped, [3.0, 4.0])
  np.testing.assert_array_equal(clamped, [0.0, 1.0])
  assert float(item) == 0.0
  np.testing.assert_array_equal(updated, [9.0, 1.0, 2.0, 3.0, 4.0])
  scan = xjax.jit(lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs))
  assert "stablehlo.select" not in scan.lower(jnp.ones(8)).as_text()


def test_whole_array_slices_are_not_staged():
  """``x[:]``, ``x[...]``, ``x[()]`` and ``x[None]`` slice nothing, as JAX: no ``slice``
  equation, so the cotangent of a weakly typed scalar stays weak."""
  x = jnp.ones((2, 3))
  for f in (lambda x: x[0:2], lambda x: x[:], lambda x: x[::1], lambda x: x[-2:],
            lambda x: x[...]):
    assert not xjax.make_jaxpr(f)(x).eqns
  assert [e.primitive.name for e in xjax.make_jaxpr(lambda x: x[:, None])(x).eqns] == [
      "broadcast_in_dim"]
  f = lambda s: jnp.sum(jnp.asarray(s)[None] + np.arange(3, dtype=np.float32))
  assert xjax.grad(f)(0.7).weak_type and xjax.jit(xjax.grad(f))(0.7).weak_type
  np.testing.assert_array_equal(X[:, 1:][..., ::2], A[:, 1:][..., ::2])


def test_strided_slices_of_a_whole_dimension_keep_their_step():
  """A slice over a whole dimension with a step is no whole-array selection."""
  x = np.arange(10.0).reshape(2, 5)
  for index in (np.s_[::2], np.s_[:, ::2], np.s_[:, ::-2], np.s_[::-1, ::3], np.s_[:, 1::2]):
    device = xjax.device_put(x, xjax.devices()[0])  # the general path, not host shortcuts
    np.testing.assert_array_equal(device[index], x[index])
    np.testing.assert_array_equal(xjax.jit(lambda a: a[index])(x), x[index])


def test_grad_of_an_array_index_drops_out_of_bounds_indices_as_jax():
  """x[i] promises in-bounds indices: its transpose drops the out-of-bounds ones (where
  mode='clip' clamps them); values recorded from JAX 0.10.2."""
  x = jnp.arange(4.)
  i = jnp.array([1, -1, 7, -9, 0])
  w = jnp.arange(1., 6.)
  np.testing.assert_array_equal(xjax.grad(lambda y: (y[i] * w).sum())(x), [5., 1., 0., 2.])
  np.testing.assert_array_equal(
      xjax.grad(lambda y: (y.at[i].get(mode="clip") * w).sum())(x), [9., 1., 0., 5.])


def test_update_with_strided_and_reversed_slices():
  x = jnp.arange(12.).reshape(3, 4)
  want = np.arange(12.).reshape(3, 4)
  want[::2, ::-3] *= 2
  np.testing.assert_array_equal(x.at[::2, ::-3].multiply(2.), want)
  np.testing.assert_array_equal(xjax.jit(lambda y: y.at[::2, ::-3].multiply(2.))(x), want)


def test_slice_bounds_go_through_operator_index_as_jax():
  # tfp's batch slicing (reached from distrax's DistributionFromTFP) slices with 0-d NumPy
  # integer arrays; JAX 0.10.2 takes any bound with __index__ and raises its TypeError else
  x = jnp.arange(10.)
  assert x[np.array(-1):].shape == (1,)
  assert x[:np.array(-1):np.int32(1)].shape == (9,)
  assert x[1:8:jnp.array(-2, jnp.int8)].shape == (0,)
  assert x[np.uint8(3):].shape == (7,)
  np.testing.assert_array_equal(x.at[np.array(1):np.array(3)].set(5.)[:4], [0., 5., 5., 3.])
  for bad, message in ((np.array([2]), "only integer scalar arrays"),
                       (np.array(2.), "only integer scalar arrays"),
                       (jnp.array(2.), "Only integer scalar arrays"),
                       (2.0, "'float' object cannot be interpreted as an integer")):
    with pytest.raises(TypeError, match=message):
      x[bad:]
  with pytest.raises(IndexError, match="Slice entries must be static integers"):
    xjax.jit(lambda i: x[i:])(3)


# (slice, the equations JAX 0.10.2's jaxpr of ``a[slice]`` holds for a (7, 3) array)
STRIDED_SLICE_EQUATIONS = [
    (slice(1, 5, 2), [("slice", ((1, 0), (5, 3), (2, 1)))]),
    (slice(5, 1, -2), [("slice", ((3, 0), (6, 3), (2, 1))), ("rev", (0,))]),
    (slice(3, 5, -1), [("slice", ((6, 0), (6, 3), None)), ("rev", (0,))]),
    (slice(6, None, -4), [("slice", ((2, 0), (7, 3), (4, 1))), ("rev", (0,))]),
    (slice(-100, 100, 2), [("slice", ((0, 0), (7, 3), (2, 1)))]),
]


@pytest.mark.parametrize("sl,expected", STRIDED_SLICE_EQUATIONS, ids=str)
def test_strided_slices_stage_jaxs_bounds(sl, expected):
  """A strided or reversed slice records the bounds JAX's does (the stop as given, not the
  last element selected), and selects NumPy's elements."""
  x = np.arange(21, dtype=np.float32).reshape(7, 3)
  eqns = xjax.make_jaxpr(lambda a: a[sl])(x).jaxpr.eqns
  got = [(e.primitive.name, (e.params["start_indices"], e.params["limit_indices"],
                             e.params["strides"]) if e.primitive.name == "slice"
          else e.params["dimensions"]) for e in eqns]
  assert got == expected
  np.testing.assert_array_equal(jnp.asarray(x)[sl], x[sl])
  np.testing.assert_array_equal(xjax.jit(lambda a: a[sl])(x), x[sl])
