"""The rest of the lax layer: exported primitives, conveniences, new elementwise
primitives, special functions, custom_linear_solve / custom_root."""
import numpy as np
import pytest
import scipy.special as sp

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads


def test_primitive_objects_exported():
  from xjax._src.core.trace import Primitive
  for name in ["argmax_p", "broadcast_in_dim_p", "concatenate_p", "cond_p", "cumsum_p",
               "conv_general_dilated_p", "dynamic_slice_p", "gather_p", "scatter_add_p",
               "iota_p", "pad_p", "reduce_sum_p", "reshape_p", "rev_p", "round_p", "sort_p",
               "transpose_p", "while_p", "scan_p", "top_k_p", "psum_p", "square_p",
               "mulhi_p", "scatter_sub_p", "optimization_barrier_p", "igamma_p", "zeta_p",
               "linear_solve_p", "regularized_incomplete_beta_p"]:
    assert isinstance(getattr(lax, name), Primitive), name
  assert "reduce_sum" in str(xjax.make_jaxpr(lambda x: lax.reduce_sum_p.bind(x, axes=(0,)))(
      jnp.ones(3)))


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


def test_square_reciprocal_select():
  x = jnp.array([1., -2., 3.])
  np.testing.assert_array_equal(lax.square(x), [1., 4., 9.])
  np.testing.assert_array_equal(lax.square(jnp.arange(3)), [0, 1, 4])
  assert "square" in str(xjax.make_jaxpr(lax.square)(1.))
  check_grads(lax.square, (x,), 2)
  np.testing.assert_allclose(lax.reciprocal(jnp.float32(4)), 0.25)
  with pytest.raises(TypeError):
    lax.reciprocal(jnp.int32(4))
  np.testing.assert_array_equal(lax.select(jnp.array([True, False]), jnp.ones(2),
                                           jnp.zeros(2)), [1., 0.])
  np.testing.assert_array_equal(xjax.vmap(lax.square)(x), np.square(np.array(x)))


def test_mulhi():
  rng = np.random.RandomState(0)
  for dt, wide in [(np.uint32, np.uint64), (np.int32, np.int64)]:
    info = np.iinfo(dt)
    a = rng.randint(info.min, info.max, size=20, dtype=np.int64).astype(dt)
    b = rng.randint(info.min, info.max, size=20, dtype=np.int64).astype(dt)
    a[:2], b[:2] = info.max, [info.min, info.max]
    expect = ((a.astype(wide) * b.astype(wide)) >> 32).astype(dt)
    np.testing.assert_array_equal(lax.mulhi(jnp.asarray(a), jnp.asarray(b)), expect)
  with pytest.raises(TypeError):
    lax.mulhi(1.0, 2.0)


def test_optimization_barrier():
  x = jnp.arange(3.)
  out = lax.optimization_barrier((x, 2.))
  np.testing.assert_array_equal(out[0], x)
  assert "optimization_barrier" in str(xjax.make_jaxpr(lax.optimization_barrier)(x))
  np.testing.assert_allclose(xjax.jit(xjax.grad(
      lambda y: lax.optimization_barrier(y * y)))(3.), 6.)
  np.testing.assert_array_equal(xjax.vmap(lax.optimization_barrier)(x), x)


def test_scatter_sub_and_apply():
  dn = lax.ScatterDimensionNumbers((), (0,), (0,))
  idx = jnp.array([[1], [3], [1]])
  upd = jnp.array([1., 2., 3.])
  np.testing.assert_array_equal(lax.scatter_sub(jnp.ones(4), idx, upd, dn), [1., -3., 1., -1.])
  check_grads(lambda o, u: lax.scatter_sub(o, idx, u, dn), (jnp.ones(4), upd), 1)
  out = lax.scatter_apply(jnp.arange(4.), idx, lambda v: v * 10, dn, update_shape=(3,))
  np.testing.assert_array_equal(out, [0., 100., 2., 30.])  # once per hit, as in JAX


def test_shape_helpers():
  assert lax.broadcast_shapes((1, 3), (2, 1), (3,)) == (2, 3)
  with pytest.raises(ValueError):
    lax.broadcast_shapes((2, 3), (4, 3))
  assert lax.broadcast_to_rank(jnp.ones(3), 3).shape == (1, 1, 3)
  assert lax.broadcast_like(jnp.float32(2), jnp.ones((2, 3))).shape == (2, 3)
  x = np.arange(6.).reshape(2, 3)
  np.testing.assert_array_equal(lax.tile(jnp.asarray(x), (2, 2)), np.tile(x, (2, 2)))
  with pytest.raises(TypeError):
    lax.tile(jnp.ones(3), (2, 2))
  parts = lax.split(jnp.arange(6), [1, 2, 3])
  assert [p.tolist() for p in parts] == [[0], [1, 2], [3, 4, 5]]
  with pytest.raises(ValueError):
    lax.split(jnp.arange(6), [1, 2])
  y = jnp.arange(24.).reshape(2, 3, 4)
  assert lax.collapse(y, 1).shape == (2, 12) and lax.collapse(y, 0, 2).shape == (6, 4)
  taken = lax.index_take(y, (jnp.array([1, 0]), jnp.array([2, 1])), (0, 2))
  np.testing.assert_array_equal(taken, np.array(y)[[1, 0], :, [2, 1]])
  np.testing.assert_array_equal(lax.stack([jnp.ones(2), jnp.zeros(2)], 1), [[1, 0], [1, 0]])
  assert [u.shape for u in lax.unstack(jnp.ones((2, 3)), 1)] == [(2,)] * 3
  assert lax.empty((2,), np.int32).dtype == np.int32
  assert lax.dtype(1.0) == np.float32 and lax.dtype(3) == np.int32
  np.testing.assert_array_equal(lax.shape_as_value((2, 3)), [2, 3])


def test_batch_matmul_and_top_k():
  a, b = np.random.RandomState(1).randn(2, 2, 3, 4).astype(np.float32)[:, :, :, :]
  b = np.swapaxes(b, 1, 2)
  np.testing.assert_allclose(lax.batch_matmul(jnp.asarray(a), jnp.asarray(b)), a @ b,
                             rtol=1e-5)
  with pytest.raises(ValueError):
    lax.batch_matmul(jnp.ones(3), jnp.ones(3))
  v, i = lax.approx_max_k(jnp.array([3., 1., 4., 1., 5.]), 2)
  assert v.tolist() == [5., 4.] and i.tolist() == [4, 2]
  v, i = lax.approx_min_k(jnp.array([[3., 1., 4.], [1., 5., 0.]]), 1, reduction_dimension=0)
  assert v.tolist() == [[1., 1., 0.]] and i.tolist() == [[1, 0, 1]]


def test_conv_shapes_and_patches():
  assert lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 2), [(1, 1), (0, 0)]) == \
      (2, 4, 10, 4)
  assert lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 2), "SAME") == (2, 4, 10, 5)
  dn = ("NHWC", "HWIO", "NHWC")
  assert lax.conv_general_shape_tuple((2, 10, 10, 3), (3, 3, 3, 4), (1, 2), "SAME", dn) == \
      (2, 10, 5, 4)
  assert lax.conv_transpose_shape_tuple((2, 10, 10, 3), (3, 3, 3, 4), (1, 2),
                                        [(1, 1), (0, 2)], dn) == (2, 10, 19, 4)
  assert lax.reduce_window_shape_tuple((10, 9), (3, 2), (2, 1), [(1, 1), (0, 0)], (2, 1),
                                       (1, 2)) == (10, 7)
  x = np.arange(2 * 3 * 5 * 4.).reshape(2, 3, 5, 4).astype(np.float32)
  p = lax.conv_general_dilated_patches(jnp.asarray(x), (2, 3), (1, 1), "VALID")
  assert p.shape == (2, 18, 4, 2)
  np.testing.assert_array_equal(p[1, :, 2, 1], x[1, :, 2:4, 1:4].reshape(-1))
  out = lax.conv_with_general_padding(jnp.ones((1, 2, 5, 5)), jnp.ones((3, 2, 2, 2)), (1, 1),
                                      [(0, 0), (0, 0)], (1, 1), (2, 1))
  assert out.shape == (1, 3, 3, 4) and float(out[0, 0, 0, 0]) == 8.0


def test_single_device_identities():
  assert xjax.vmap(lambda x: x * lax.axis_size("i"), axis_name="i")(jnp.ones(5)).tolist() == \
      [5.] * 5
  with pytest.raises(NameError):
    lax.axis_size("i")
  x = jnp.ones(2)
  assert lax.with_sharding_constraint(x, None) is x
  assert float(lax.platform_dependent(1., cpu=lambda v: v + 1, default=lambda v: v - 1)) == 2.
  assert float(lax.platform_dependent(1., default=lambda v: v - 1)) == 0.
  comp = lax.composite(lambda v, *, k: v * k, name="my.op")
  assert float(comp(2., k=3)) == 6.


A = np.array([0.5, 1., 3., 10., 100., 0.1], np.float32)
X = np.array([0.3, 2., 3., 12., 90., 5.], np.float32)


def test_igamma_values_and_edges():
  np.testing.assert_allclose(lax.igamma(A, X), sp.gammainc(A, X), rtol=2e-5)
  np.testing.assert_allclose(lax.igammac(A, X), sp.gammaincc(A, X), rtol=2e-5)
  h = 1e-6
  a64 = A.astype(np.float64)
  fd = (sp.gammainc(a64 + h, X) - sp.gammainc(a64 - h, X)) / (2 * h)
  np.testing.assert_allclose(lax.igamma_grad_a(A, X), fd, rtol=1e-4)
  pdf = np.exp(-X + (A - 1) * np.log(X) - sp.gammaln(A))
  np.testing.assert_allclose(lax.random_gamma_grad(A, X), -fd / pdf, rtol=1e-4)
  edges_a = jnp.array([0., -1., 1., 1., np.inf, 1.])
  edges_x = jnp.array([1., 1., 0., -1., 1., np.inf])
  np.testing.assert_array_equal(lax.igamma(edges_a, edges_x), [1, np.nan, 0, np.nan, np.nan, 1])
  np.testing.assert_array_equal(lax.igammac(edges_a, edges_x),
                                [0, np.nan, 1, np.nan, np.nan, 0])
  with pytest.raises(TypeError):
    lax.igamma(1, 2)
  with pytest.raises(TypeError):
    lax.igamma(1., jnp.float16(2))
  assert lax.igamma(jnp.float16(1), jnp.float16(2)).dtype == np.float16


def test_igamma_grads_and_vmap():
  a, x = jnp.array([0.7, 2.5]), jnp.array([0.4, 4.0])
  check_grads(lax.igamma, (a, x), 1, atol=2e-2, rtol=2e-2)
  check_grads(lax.igammac, (a, x), 1, atol=2e-2, rtol=2e-2)
  out = xjax.vmap(lax.igamma)(jnp.asarray(A), jnp.asarray(X))
  np.testing.assert_allclose(out, [float(lax.igamma(a_, x_)) for a_, x_ in zip(A, X)],
                             rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(lax.igamma)(A, X), lax.igamma(A, X), rtol=1e-6)


def test_betainc():
  a = np.array([.5, 2., 5., 1.3], np.float32)
  b = np.array([.5, 3., 1., 7.], np.float32)
  x = np.array([.2, .5, .9, .05], np.float32)
  np.testing.assert_allclose(lax.betainc(a, b, x), sp.betainc(a, b, x), rtol=1e-5)
  edges = lax.betainc(jnp.array([0., 1., 1., 1., -1.]), jnp.array([1., 0., 1., 1., 1.]),
                      jnp.array([.5, .5, 0., 1., .5]))
  np.testing.assert_array_equal(edges, [1., 0., 0., 1., np.nan])
  check_grads(lambda x_: lax.betainc(jnp.asarray(a), jnp.asarray(b), x_), (x,), 1,
              atol=2e-2, rtol=2e-2)
  with pytest.raises(ValueError, match="a and b"):
    xjax.grad(lax.betainc)(1., 2., .3)
  np.testing.assert_allclose(xjax.vmap(lax.betainc, (0, 0, None))(a, b, np.float32(.4)),
                             sp.betainc(a, b, .4), rtol=1e-5)


def test_zeta():
  x = np.array([2., 3., 1.5, 4.], np.float32)
  q = np.array([1., 2., .5, 3.], np.float32)
  np.testing.assert_allclose(lax.zeta(x, q), sp.zeta(x, q), rtol=1e-5)
  assert np.isinf(float(lax.zeta(1., 1.)))


def _inv2(m):
  a, b, c, d = m[0, 0], m[0, 1], m[1, 0], m[1, 1]
  return jnp.stack([jnp.stack([d, -b]), jnp.stack([-c, a])]) / (a * d - b * c)


def _solve(m, b):
  return lax.custom_linear_solve(lambda v: m @ v, b, lambda mv, y: _inv2(m) @ y,
                                 lambda vm, y: _inv2(m.T) @ y)


def test_custom_linear_solve():
  m = jnp.array([[2., 1.], [0.5, 3.]])
  b = jnp.array([1., 2.])
  np.testing.assert_allclose(_solve(m, b), np.linalg.solve(m, b), rtol=1e-6)
  inv = np.linalg.inv(m)
  np.testing.assert_allclose(xjax.jacfwd(_solve, 1)(m, b), inv, rtol=1e-5)
  np.testing.assert_allclose(xjax.jacrev(_solve, 1)(m, b), inv, rtol=1e-5)
  check_grads(_solve, (m, b), 1, atol=1e-2, rtol=1e-2)
  np.testing.assert_allclose(xjax.vmap(_solve, (None, 0))(m, jnp.stack([b, 2 * b])),
                             [np.linalg.solve(m, b), np.linalg.solve(m, 2 * b)], rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(_solve)(m, b), np.linalg.solve(m, b), rtol=1e-6)
  sym = lax.custom_linear_solve(lambda v: 4. * v, b, lambda mv, y: y / 4., symmetric=True)
  np.testing.assert_allclose(sym, b / 4.)
  x, aux = lax.custom_linear_solve(lambda v: 2. * v, b, lambda mv, y: (y / 2., 7),
                                   symmetric=True, has_aux=True)
  assert aux == 7 and x.tolist() == [0.5, 1.]


def _sqrt(a):
  def solve(g, x0):
    return lax.fori_loop(0, 30, lambda i, x: x - g(x) / (2 * x), x0)
  return lax.custom_root(lambda x: x * x - a, 1., solve, lambda g, y: y / g(1.))


def test_custom_root():
  np.testing.assert_allclose(_sqrt(2.), np.sqrt(2.), rtol=1e-6)
  np.testing.assert_allclose(xjax.grad(_sqrt)(2.), 0.5 / np.sqrt(2.), rtol=1e-5)
  np.testing.assert_allclose(xjax.jvp(_sqrt, (2.,), (1.,))[1], 0.5 / np.sqrt(2.), rtol=1e-5)
  np.testing.assert_allclose(xjax.vmap(_sqrt)(jnp.array([4., 9.])), [2., 3.], rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(xjax.grad(_sqrt))(4.), 0.25, rtol=1e-5)


def test_squeeze_is_its_own_primitive():
  x = np.arange(3, dtype=np.float32).reshape(1, 3, 1)
  assert "squeeze[dimensions=(0, 2)]" in str(xjax.make_jaxpr(jnp.squeeze)(x))
  np.testing.assert_array_equal(lax.squeeze(x, (-1, 0)), x.reshape(3))
  assert lax.squeeze(x, ()) is x
  with pytest.raises(ValueError, match="size not equal to one"):
    lax.squeeze(np.ones((2, 3)), (0,))
  xs = np.random.RandomState(0).randn(3, 4, 1).astype(np.float32)
  np.testing.assert_allclose(xjax.vmap(lambda v: lax.squeeze(v, (1,)), in_axes=1)(xs),
                             np.stack([xs[:, i, 0] for i in range(4)]))
  check_grads(lambda v: lax.squeeze(v, (0, 2)) ** 2, (x + 1,), order=2)


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
