"""``jax.ds`` slices (traced start, static size) indexing arrays, ``.at[]`` updates and refs,
against values and jaxprs taken from JAX 0.10.2."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

ds = xjax.ds
X = jnp.arange(10.)
M = jnp.arange(12.).reshape(3, 4)


def test_constructor_as_jax():
  assert repr(ds(4, 2)) == "Slice(start=4, size=2, stride=1)"
  assert ds(None) == slice(None)
  assert (ds(3).start, ds(3).size) == (0, 3)
  assert repr(ds(1, 3, 2)) == "Slice(start=1, size=3, stride=2)"
  with pytest.raises(ValueError, match="`stride` must be >= 0"):
    ds(1, 2, -1)
  with pytest.raises(ValueError, match="Non-static stride in `dslice`"):
    ds(1, 2, jnp.int32(1))
  leaves, tree = xjax.tree_util.tree_flatten(ds(4, 2))
  assert leaves == [] and xjax.tree_util.tree_unflatten(tree, []) == ds(4, 2)
  traced = xjax.jit(lambda i: xjax.tree_util.tree_leaves(ds(i, 2))[0] + 1)(3)
  assert int(traced) == 4


@pytest.mark.parametrize("index, expected", [
    (ds(4, 2), [4., 5.]), (ds(1, 3, 2), [1., 3., 5.]), (ds(3), [0., 1., 2.]),
    (ds(-4, 2), [6., 7.]), (ds(9, 3), [7., 8., 9.]), (ds(-1, 3), [7., 8., 9.]),
    (ds(0, 12, 2), [0., 2., 4., 6., 8., 9., 9., 9., 9., 9., 9., 9.]), (ds(2, 0), []),
    (ds(2, 3, 0), [2., 2., 2.]), (ds(jnp.int32(2), 3), [2., 3., 4.]),
    (ds(jnp.uint8(2), 3), [2., 3., 4.]),
])
def test_getitem_values(index, expected):
  np.testing.assert_array_equal(X[index], np.array(expected, np.float32))


def test_getitem_traced_start_jit_vmap_grad():
  f = xjax.jit(lambda x, i: x[ds(i, 3)])
  np.testing.assert_array_equal(f(X, 4), [4., 5., 6.])
  np.testing.assert_array_equal(f(X, 9), [7., 8., 9.])   # the window is clamped in
  np.testing.assert_array_equal(f(X, -2), [7., 8., 9.])  # negative starts wrap first
  np.testing.assert_array_equal(xjax.jit(lambda x, i: x[ds(i, 3, 2)])(X, 6), [6., 8., 9.])
  np.testing.assert_array_equal(xjax.vmap(lambda i: X[ds(i, 2)])(jnp.array([0, 3, 9])),
                                [[0., 1.], [3., 4.], [8., 9.]])
  np.testing.assert_array_equal(xjax.grad(lambda x, i: x[ds(i, 2)].sum())(X, 3),
                                [0., 0., 0., 1., 1., 0., 0., 0., 0., 0.])


def test_getitem_jaxpr_as_jax():
  # JAX: negative starts wrapped (lt, add, select_n), then one dynamic_slice
  jaxpr = str(xjax.make_jaxpr(lambda x, i: x[ds(i, 3)])(X, 4))
  assert "dynamic_slice[slice_sizes=(3,)] a f" in jaxpr
  assert [e.primitive.name for e in xjax.make_jaxpr(lambda x, i: x[ds(i, 3)])(X, 4).eqns] \
      == ["lt", "convert_element_type", "add", "select_n", "dynamic_slice"]


def test_getitem_with_other_indices():
  np.testing.assert_array_equal(M[ds(1, 2), ds(1, 2)], [[5., 6.], [9., 10.]])
  np.testing.assert_array_equal(M[..., ds(2, 2)], [[2., 3.], [6., 7.], [10., 11.]])
  np.testing.assert_array_equal(M[ds(1, 2), None], [[[4., 5., 6., 7.]], [[8., 9., 10., 11.]]])
  np.testing.assert_array_equal(M[jnp.array([True, False, True]), ds(1, 2)],
                                [[1., 2.], [9., 10.]])
  np.testing.assert_array_equal(M[ds(1, 2), jnp.array([0, 2])], [[4., 6.], [8., 10.]])
  np.testing.assert_array_equal(M[jnp.array([0, 2]), ds(1, 2)], [[1., 2.], [9., 10.]])
  np.testing.assert_array_equal(M[None, ds(1, 2), ..., 2], [[6., 10.]])
  f = xjax.jit(lambda m, i: m[ds(i, 2), 1])
  np.testing.assert_array_equal(f(M, 1), [5., 9.])


@pytest.mark.parametrize("index, set_, add", [
    (ds(8, 4), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    (ds(-2, 2), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    (ds(3, 2), [0, 1, 2, -1, -1, 5, 6, 7, 8, 9], [0, 1, 2, 103, 104, 5, 6, 7, 8, 9]),
    (ds(7, 3), [0, 1, 2, 3, 4, 5, 6, -1, -1, -1], [0, 1, 2, 3, 4, 5, 6, 107, 108, 109]),
    (ds(8, 2, 2), [0, 1, 2, 3, 4, 5, 6, 7, -1, 9], [0, 1, 2, 3, 4, 5, 6, 7, 108, 9]),
    (ds(2, 4, 3), [0, 1, -1, 3, 4, -1, 6, 7, -1, 9], [0, 1, 102, 3, 4, 105, 6, 7, 108, 9]),
])
def test_at_updates_drop_out_of_bounds_as_jax(index, set_, add):
  np.testing.assert_array_equal(X.at[index].set(-1.), np.array(set_, np.float32))
  np.testing.assert_array_equal(X.at[index].add(100.), np.array(add, np.float32))


def test_at_updates_2d_get_grad_vmap():
  np.testing.assert_array_equal(M.at[ds(1, 2), 1:3].set(-1.),
                                [[0, 1, 2, 3], [4, -1, -1, 7], [8, -1, -1, 11]])
  np.testing.assert_array_equal(M.at[ds(2, 2), 1:3].set(-1.), M)
  np.testing.assert_array_equal(M.at[1, ds(1, 2)].set(jnp.array([-1., -2.])),
                                [[0, 1, 2, 3], [4, -1, -2, 7], [8, 9, 10, 11]])
  np.testing.assert_array_equal(M.at[ds(1, 2), jnp.array([0, 3])].set(-1.),
                                [[0, 1, 2, 3], [-1, 5, 6, -1], [-1, 9, 10, -1]])
  np.testing.assert_array_equal(M.at[ds(1, 2)].get(), M[1:])
  np.testing.assert_array_equal(M.at[ds(2, 2)].get(mode="fill", fill_value=-7),
                                np.full((2, 4), -7.))
  np.testing.assert_array_equal(xjax.grad(lambda x: x.at[ds(1, 2)].set(0.).sum())(X),
                                [1, 0, 0, 1, 1, 1, 1, 1, 1, 1])
  np.testing.assert_array_equal(
      xjax.vmap(lambda i: X.at[ds(i, 2)].set(0.))(jnp.array([0, 8, 9])),
      [[0, 0, 2, 3, 4, 5, 6, 7, 8, 9], [0, 1, 2, 3, 4, 5, 6, 7, 0, 0], np.arange(10)])


def test_errors_as_jax():
  with pytest.raises(TypeError, match="static size"):
    xjax.jit(lambda x, n: x[ds(0, n)])(X, 2)
  with pytest.raises(TypeError, match=r"slice_sizes must be less than or equal to operand "
                                      r"shape, got slice_sizes \(12,\)"):
    X[ds(0, 12)]
  with pytest.raises(TypeError, match="index arguments to dynamic_slice must be integers"):
    X[ds(2.5, 3)]
  with pytest.raises(TypeError, match="index arguments to dynamic_slice must be integers"):
    xjax.jit(lambda x, i: x[ds(i, 3)])(X, 2.0)


def _ref_program(i):
  r = xjax.new_ref(jnp.arange(10.))
  a = r[ds(2, 3)]
  b = r[ds(i, 3, 2)]
  c = r[ds(1, 3, 2)]
  r[ds(i, 2)] = jnp.array([-1., -2.])
  r[ds(-3, 2)] = jnp.array([-5., -6.])
  return a, b, c, r[...]


def test_refs_jaxpr_as_jax():
  assert str(xjax.make_jaxpr(_ref_program)(2)) == """\
{ lambda a:f32[2] b:f32[2]; c:i32[]. let
    d:f32[10] = iota[dimension=0 dtype=float32 shape=(10,) sharding=None] 
    e:Ref{f32[10]} = new_ref[kind=None memory_space=None] d
    f:f32[3] <- e[2:5]
    g:f32[3] <- e[c:c+3]
    h:f32[3] <- e[1:4]
    e[c:c+2] <- a
    e[-3:-1] <- b
    i:f32[10] <- e[...]
  in (f, g, h, i) }"""


@pytest.mark.parametrize("i, b, final", [
    (2, [2., 4., 6.], [0., 1., -1., -2., 4., 5., 6., -5., -6., 9.]),
    (7, [7., 9., 9.], [0., 1., 2., 3., 4., 5., 6., -5., -6., 9.]),
])
def test_refs_values_as_jax(i, b, final):
  fns = (_ref_program, xjax.jit(_ref_program)) if i == 2 else (xjax.jit(_ref_program),)
  for fn in fns:
    a, b_, c, r = fn(i)
    np.testing.assert_array_equal(a, [2., 3., 4.])
    np.testing.assert_array_equal(b_, b)
    np.testing.assert_array_equal(c, [1., 3., 5.])
    np.testing.assert_array_equal(r, final)


def test_refs_static_bounds_checked_as_jax():
  r = xjax.new_ref(jnp.arange(10.))
  with pytest.raises(ValueError, match=r"Out of bound slice: start=7, size=3, stride=2, "
                                       r"dim=10\."):
    r[ds(7, 3, 2)]
  with pytest.raises(ValueError, match=r"Out of bound slice: start=10, dim=10\."):
    r[ds(10, 1)]
  with pytest.raises(ValueError, match="Out of bound slice"):
    _ref_program(7)  # a static start is checked


def test_refs_2d_update_and_vmap():
  def h(i):
    r = xjax.new_ref(jnp.arange(12.).reshape(3, 4))
    a = r[1, ds(i, 2)]
    r[ds(i, 2), 1:3] += 1.
    return a, r[...]
  a, m = xjax.jit(h)(1)
  np.testing.assert_array_equal(a, [5., 6.])
  np.testing.assert_array_equal(m, [[0, 1, 2, 3], [4, 6, 7, 7], [8, 10, 11, 11]])
  assert "d[a:a+2,1:3] <- g" in str(xjax.make_jaxpr(h)(1))
  # JAX 0.10.2 raises NotImplementedError here (no vmap of traced ds starts into refs)
  np.testing.assert_array_equal(xjax.vmap(lambda i: h(i)[0])(jnp.array([0, 1, 2])),
                                [[4., 5.], [5., 6.], [6., 7.]])
  r = xjax.new_ref(jnp.arange(5.))
  r[ds(3, 2)] = jnp.zeros(2)
  np.testing.assert_array_equal(r[...], [0., 1., 2., 0., 0.])
  np.testing.assert_array_equal(r[ds(1, 2)], [1., 2.])
