"""Cumulative ops, sort/top_k, conv, reduce_window, bitcast/reduce_precision/reduce."""
import numpy as np
import pytest
import scipy.signal

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax._src.libraries.test_util import check_grads

from tests.checking import check

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 5)).astype(np.float32)
TOL = dict(atol=2e-2, rtol=2e-2)


# ---------------------------------------------------------------------------------------
# cumulative

def _np_cum(name, x, axis, reverse):
  fn = {"cumsum": np.cumsum, "cumprod": np.cumprod, "cummax": np.maximum.accumulate,
        "cummin": np.minimum.accumulate, "cumlogsumexp": np.logaddexp.accumulate}[name]
  if reverse:
    return np.flip(fn(np.flip(x, axis), axis=axis), axis)
  return fn(x, axis=axis)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"])
@pytest.mark.parametrize("axis,reverse", [(0, False), (1, True)])
def test_cumulative_values_and_grads(name, axis, reverse):
  f = lambda x: getattr(lax, name)(x, axis=axis, reverse=reverse)
  np.testing.assert_allclose(f(X), _np_cum(name, X, axis, reverse), rtol=1e-5, atol=1e-5)
  check_grads(f, (X,), 1, **TOL)


def test_cumulative_ints_vmap_and_errors():
  a = np.array([[3, 1, 4], [1, 5, 9]], np.int32)
  np.testing.assert_array_equal(lax.cumsum(a, 1), np.cumsum(a, 1))
  np.testing.assert_array_equal(lax.cummax(a, 0, reverse=True), [[3, 5, 9], [1, 5, 9]])
  out = xjax.vmap(lambda r: lax.cumprod(r, axis=0), in_axes=1)(X)
  np.testing.assert_allclose(out, np.stack([np.cumprod(X[:, j]) for j in range(5)]), rtol=1e-5)
  with pytest.raises(ValueError):
    lax.cumsum(X, axis=2)
  with pytest.raises(TypeError):
    lax.cumlogsumexp(a, 0)


def test_cumprod_grad_with_zero():
  x = np.array([2., 0., 3., 4.], np.float32)
  g = xjax.grad(lambda x: lax.cumprod(x, axis=0)[-1])(x)
  np.testing.assert_allclose(g, [0., 24., 0., 0.])


# ---------------------------------------------------------------------------------------
# sort and top_k

def test_sort_values_nan_and_signed_zero():
  x = np.array([3., np.nan, -0., 1., 0., -2., -np.inf], np.float32)
  out = np.asarray(lax.sort(x))
  np.testing.assert_array_equal(out[:-1], [-np.inf, -2., 0., 0., 1., 3.])
  assert np.isnan(out[-1])
  np.testing.assert_array_equal(lax.sort(X, dimension=0), np.sort(X, 0))


def test_sort_multi_operand_stable_and_keys():
  k = np.array([2, 1, 2, 1, 0, 0], np.int32)
  v = np.arange(6, dtype=np.float32)
  sk, sv = lax.sort((k, v), num_keys=1)
  order = np.argsort(k, kind="stable")
  np.testing.assert_array_equal(sk, k[order])
  np.testing.assert_array_equal(sv, v[order])
  a = np.array([1, 0, 1, 0], np.int32)
  b = np.array([4., 3., 2., 1.], np.float32)
  sa, sb = lax.sort((a, b), num_keys=2)
  np.testing.assert_array_equal(sa, [0, 0, 1, 1])
  np.testing.assert_array_equal(sb, [1., 3., 2., 4.])


def test_sort_grad_and_vmap():
  f = lambda x: lax.sort(x, dimension=1)
  check_grads(f, (X,), 1, **TOL)
  w = np.arange(5, dtype=np.float32)
  g = xjax.grad(lambda x: (lax.sort(x) * w).sum())(X[0])
  np.testing.assert_allclose(g, w[np.argsort(np.argsort(X[0]))])
  out = xjax.vmap(lambda c: lax.sort(c), in_axes=1, out_axes=1)(X)
  np.testing.assert_array_equal(out, np.sort(X, 0))


def test_top_k():
  vals, idx = lax.top_k(X, 2)
  order = np.argsort(-X, axis=1)[:, :2]
  np.testing.assert_array_equal(idx, order)
  assert idx.dtype == np.int32
  np.testing.assert_allclose(vals, np.take_along_axis(X, order, 1))
  check_grads(lambda x: lax.top_k(x, 2)[0], (X,), 1, **TOL)
  out = xjax.vmap(lambda r: lax.top_k(r, 3)[0])(X)
  np.testing.assert_allclose(out, np.stack([np.sort(r)[::-1][:3] for r in X]))
  with pytest.raises(ValueError):
    lax.top_k(X, 6)


# ---------------------------------------------------------------------------------------
# convolution

def test_conv_seed_example():
  x, y = np.array([1, 2, 1]), np.ones(10)
  out = lax.conv_general_dilated(x.reshape(1, 1, 3).astype(float), y.reshape(1, 1, 10),
                                 window_strides=(1,), padding=[(9, 9)])[0, 0]
  np.testing.assert_allclose(out, [1, 3, 4, 4, 4, 4, 4, 4, 4, 4, 3, 1])
  np.testing.assert_allclose(out, np.convolve(x, y))


LHS = RNG.standard_normal((2, 4, 7, 6)).astype(np.float32)
RHS = RNG.standard_normal((6, 4, 3, 2)).astype(np.float32)


def _np_conv_nchw(lhs, rhs, stride=(1, 1), pads=((0, 0), (0, 0))):
  lhs = np.pad(lhs, ((0, 0), (0, 0)) + tuple(pads))
  out = np.stack([np.stack([sum(scipy.signal.correlate(lhs[n, c], rhs[o, c], mode="valid")
                                for c in range(lhs.shape[1]))
                            for o in range(rhs.shape[0])]) for n in range(lhs.shape[0])])
  return out[:, :, ::stride[0], ::stride[1]]


def test_conv_values_padding_strides_layouts():
  out = lax.conv_general_dilated(LHS, RHS, (2, 1), [(1, 2), (0, 1)])
  np.testing.assert_allclose(out, _np_conv_nchw(LHS, RHS, (2, 1), ((1, 2), (0, 1))),
                             rtol=1e-4, atol=1e-4)
  same = lax.conv_general_dilated(LHS, RHS, (1, 1), "SAME")
  assert same.shape == (2, 6, 7, 6)
  np.testing.assert_allclose(same, _np_conv_nchw(LHS, RHS, pads=((1, 1), (0, 1))),
                             rtol=1e-4, atol=1e-4)
  nhwc = lax.conv_general_dilated(LHS.transpose(0, 2, 3, 1), RHS.transpose(2, 3, 1, 0),
                                  (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
  np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), _np_conv_nchw(LHS, RHS),
                             rtol=1e-4, atol=1e-4)


def test_conv_dilation_and_groups():
  # rhs dilation equals a kernel with zeros inserted.
  dil = np.zeros((6, 4, 5, 2), np.float32)
  dil[:, :, ::2] = RHS
  out = lax.conv_general_dilated(LHS, RHS, (1, 1), "VALID", rhs_dilation=(2, 1))
  np.testing.assert_allclose(out, _np_conv_nchw(LHS, dil), rtol=1e-4, atol=1e-4)
  # lhs dilation equals an input with zeros inserted.
  up = np.zeros((2, 4, 13, 6), np.float32)
  up[:, :, ::2] = LHS
  out = lax.conv_general_dilated(LHS, RHS, (1, 1), ((0, 0), (0, 0)), lhs_dilation=(2, 1))
  np.testing.assert_allclose(out, _np_conv_nchw(up, RHS), rtol=1e-4, atol=1e-4)
  # feature groups: two independent halves.
  r = RNG.standard_normal((6, 2, 3, 2)).astype(np.float32)
  out = lax.conv_general_dilated(LHS, r, (1, 1), "VALID", feature_group_count=2)
  ref = np.concatenate([_np_conv_nchw(LHS[:, :2], r[:3]), _np_conv_nchw(LHS[:, 2:], r[3:])], 1)
  np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kw", [
    dict(window_strides=(2, 1), padding=[(1, 2), (0, 1)], lhs_dilation=(1, 2),
         rhs_dilation=(2, 1)),
    dict(window_strides=(1, 2), padding="SAME", feature_group_count=2),
    dict(window_strides=(1, 1), padding="VALID", batch_group_count=2),
])
def test_conv_grads(kw):
  l = LHS[:, :, :5, :4]
  r = RHS[:, :2] if kw.get("feature_group_count") else (
      RHS[:, :, :2] if kw.get("batch_group_count") else RHS)
  check_grads(lambda a, b: lax.conv_general_dilated(a, b, **kw), (l, r), 1, **TOL)


def test_conv_vmap():
  f = lambda a, b: lax.conv_general_dilated(a, b, (1, 2), "SAME", rhs_dilation=(1, 2))
  ls, rs = np.stack([LHS, 2 * LHS]), np.stack([RHS, RHS + 1])
  for in_axes, args in (((0, 0), (ls, rs)), ((0, None), (ls, RHS)), ((None, 0), (LHS, rs))):
    out = xjax.vmap(f, in_axes=in_axes)(*args)
    ref = np.stack([f(args[0][i] if in_axes[0] == 0 else args[0],
                      args[1][i] if in_axes[1] == 0 else args[1]) for i in range(2)])
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_conv_errors_and_dimension_numbers():
  dn = lax.conv_dimension_numbers((1, 2, 3, 4), (5, 2, 1, 1), ("NHWC", "OIHW", "NCHW"))
  assert dn == lax.ConvDimensionNumbers((0, 3, 1, 2), (0, 1, 2, 3), (0, 1, 2, 3))
  with pytest.raises(ValueError):
    lax.conv_general_dilated(LHS, RHS[:, :3], (1, 1), "VALID")
  # JAX 0.10.2 raises RuntimeError for an unknown padding name
  with pytest.raises(RuntimeError, match="Unrecognized padding type: expected 'VALID', "
                     "'SAME', or 'SAME_LOWER', got FULL."):
    lax.conv_general_dilated(LHS, RHS, (1, 1), "FULL")


def test_conv_transpose_is_gradient_of_conv():
  # With transpose_kernel, conv_transpose equals the lhs-gradient of a strided conv.
  x = RNG.standard_normal((1, 8, 8, 2)).astype(np.float32)
  k = RNG.standard_normal((3, 3, 2, 4)).astype(np.float32)
  dn = ("NHWC", "HWIO", "NHWC")
  fwd = lambda x: lax.conv_general_dilated(x, k, (2, 2), "SAME", dimension_numbers=dn)
  y, pullback = xjax.vjp(fwd, x)
  ct = RNG.standard_normal(y.shape).astype(np.float32)
  expected = pullback(ct)[0]
  out = lax.conv_transpose(ct, k, (2, 2), "SAME", dimension_numbers=dn, transpose_kernel=True)
  np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_conv_shapes_and_patches():
  assert lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 2), [(1, 1), (0, 0)]) == \
      (2, 4, 10, 4)
  # (spatial sizes, and every size of the general form, are NumPy integers, as JAX's)
  assert [type(d) for d in lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 2),
                                                "SAME")] == [int, int, np.int64, np.int64]
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


# ---------------------------------------------------------------------------------------
# reduce_window

IMG = np.arange(20, dtype=np.float32).reshape(4, 5) * 0.37 % 3


def _np_windows(x, op, w, s, pads, fill):
  xp = np.pad(x, pads, constant_values=fill)
  rows = range(0, xp.shape[0] - w[0] + 1, s[0])
  cols = range(0, xp.shape[1] - w[1] + 1, s[1])
  return np.array([[op(xp[i:i + w[0], j:j + w[1]]) for j in cols] for i in rows])


def test_reduce_window_values():
  out = lax.reduce_window(IMG, 0., lax.add, (2, 2), (1, 2), "SAME")
  np.testing.assert_allclose(out, _np_windows(IMG, np.sum, (2, 2), (1, 2),
                                              ((0, 1), (0, 1)), 0), rtol=1e-5)
  out = lax.reduce_window(IMG, -np.inf, lax.max, (2, 3), (2, 1), [(1, 0), (1, 1)])
  np.testing.assert_allclose(out, _np_windows(IMG, np.max, (2, 3), (2, 1),
                                              ((1, 0), (1, 1)), -np.inf))
  out = lax.reduce_window(IMG, np.inf, lax.min, (3, 1), (1, 1), "VALID")
  np.testing.assert_allclose(out, _np_windows(IMG, np.min, (3, 1), (1, 1), ((0, 0),) * 2, 0))
  # strides of 1 and VALID padding by default (JAX 0.10.2's signature)
  np.testing.assert_array_equal(lax.reduce_window(IMG, np.inf, lax.min, (3, 1)), out)
  prod = lax.reduce_window(IMG, np.float32(1), lambda a, b: a * b + 0, (3, 1))
  np.testing.assert_allclose(prod, _np_windows(IMG, np.prod, (3, 1), (1, 1), ((0, 0),) * 2, 1),
                             rtol=1e-5)


def test_reduce_window_dilations():
  out = lax.reduce_window(IMG, 0., lax.add, (2, 2), (1, 1), "VALID", window_dilation=(2, 1))
  ref = IMG[:-2, :-1] + IMG[2:, :-1] + IMG[:-2, 1:] + IMG[2:, 1:]
  np.testing.assert_allclose(out, ref, rtol=1e-5)
  up = np.zeros((7, 5), np.float32)
  up[::2] = IMG
  out = lax.reduce_window(IMG, 0., lax.add, (2, 1), (1, 1), "VALID", base_dilation=(2, 1))
  np.testing.assert_allclose(out, up[:-1] + up[1:], rtol=1e-5)


def test_reduce_window_grads_and_vmap():
  x = RNG.standard_normal((4, 5)).astype(np.float32)
  ssum = lambda x: lax.reduce_window(x, 0., lax.add, (2, 3), (2, 1), [(1, 0), (1, 1)],
                                     (1, 2), (2, 1))
  check_grads(ssum, (x,), 1, **TOL)
  pool = lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 2), "SAME")
  check_grads(pool, (x,), 1, **TOL)
  mpool = lambda x: lax.reduce_window(x, np.inf, lax.min, (3, 2), (1, 1), "VALID")
  check_grads(mpool, (x,), 1, **TOL)
  xs = np.stack([x, -x])
  np.testing.assert_allclose(xjax.vmap(pool)(xs), np.stack([pool(x), pool(-x)]))


# ---------------------------------------------------------------------------------------
# reduce_window with an arbitrary computation

GRID = np.arange(12., dtype=np.float32).reshape(3, 4)


def _f(a, b):
  return a * b + 1.


def _loop_reduce_window(x, init, f, win):
  out = np.empty((x.shape[0] - win[0] + 1, x.shape[1] - win[1] + 1), np.float32)
  for i, j in np.ndindex(*out.shape):
    acc = init
    for v in x[i:i + win[0], j:j + win[1]].ravel():
      acc = f(acc, v)
    out[i, j] = acc
  return out


def test_reduce_window_generic_values():
  check(lax.reduce_window(GRID, 0., _f, (2, 2), (1, 1), "VALID"),
        _loop_reduce_window(GRID, 0., _f, (2, 2)))
  check(xjax.jit(lambda x: lax.reduce_window(x, 0., _f, (2, 2), (1, 1), "VALID"))(GRID),
        _loop_reduce_window(GRID, 0., _f, (2, 2)))
  check(lax.reduce_window(GRID, 1., lax.mul, (2, 2), (1, 1), "VALID"),
        _loop_reduce_window(GRID, 1., lambda a, b: a * b, (2, 2)))
  # strides, padding and dilations agree with the dedicated sum path
  kw = dict(window_dimensions=(2, 2), window_strides=(2, 1), padding=((1, 0), (0, 2)),
            base_dilation=(2, 1), window_dilation=(1, 2))
  check(lax.reduce_window(GRID, 0., lambda a, b: a + b, **kw),
        lax.reduce_window(GRID, 0., lax.add, **kw))
  check(lax.reduce_window(np.arange(5), 0, lambda a, b: a * 2 + b, (2,), (1,), "VALID"),
        [1, 4, 7, 10])


def test_reduce_window_pytree():
  out = lax.reduce_window((GRID, GRID * 2), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]),
                          (2, 2), (1, 2), "SAME")
  assert isinstance(out, tuple)
  check(out[0], [[10., 18.], [26., 34.], [17., 21.]])
  check(out[1], [[0., 4032.], [23040., 73920.], [288., 440.]])


def test_reduce_window_generic_jvp_and_vmap():
  fn = lambda x: lax.reduce_window(x, 0., _f, (2, 2), (1, 1), "VALID")
  t = np.cos(GRID)
  out, tan = xjax.jvp(fn, (GRID,), (t,))
  check(out, _loop_reduce_window(GRID, 0., _f, (2, 2)))
  eps = 1e-3
  fd = (_loop_reduce_window((GRID + eps * t).astype(np.float64), 0., _f, (2, 2))
        - _loop_reduce_window((GRID - eps * t).astype(np.float64), 0., _f, (2, 2))) / (2 * eps)
  np.testing.assert_allclose(np.asarray(tan), fd, rtol=2e-2)
  v = xjax.vmap(lambda r: lax.reduce_window(r, 0., _f, (2,), (1,), "VALID"))(GRID)
  check(v, [_loop_reduce_window(r[None], 0., _f, (1, 2))[0] for r in GRID])


def test_reduce_window_generic_errors():
  with pytest.raises(NotImplementedError, match="initial values"):
    xjax.vmap(lambda r, i: lax.reduce_window(r, i, _f, (2,), (1,), "VALID"))(GRID, GRID[:, 0])
  with pytest.raises(TypeError, match="inconsistent dtypes"):
    lax.reduce_window(np.arange(5), 0., _f, (2,), (1,), "VALID")
  with pytest.raises(ValueError, match="tree structure"):
    lax.reduce_window(GRID, 0., lambda a, b: (a, b), (2, 2), (1, 1), "VALID")
  with pytest.raises(TypeError, match="init_value_tangent"):
    xjax.jvp(lambda i: lax.reduce_window(GRID, i, _f, (2, 2), (1, 1), "VALID"), (0.,), (1.,))


# ---------------------------------------------------------------------------------------
# bitcast, reduce_precision, reduce

def test_bitcast_convert_type():
  x = np.array([1.0, -2.5, 3.14159], np.float32)
  np.testing.assert_array_equal(lax.bitcast_convert_type(x, np.int32), x.view(np.int32))
  b = lax.bitcast_convert_type(x, np.uint8)
  np.testing.assert_array_equal(b, x.view(np.uint8).reshape(3, 4))
  np.testing.assert_array_equal(lax.bitcast_convert_type(b, np.float32), x)
  with pytest.raises(ValueError):
    lax.bitcast_convert_type(np.zeros(3, np.uint8), np.float32)
  out = xjax.vmap(lambda r: lax.bitcast_convert_type(r, np.float32), in_axes=1)(
      x.view(np.uint8).reshape(3, 4).T)
  np.testing.assert_array_equal(out, x)


def test_reduce_precision():
  x = RNG.standard_normal(8).astype(np.float32) * 100
  np.testing.assert_array_equal(lax.reduce_precision(x, 5, 10),
                                x.astype(np.float16).astype(np.float32))
  g = xjax.grad(lambda x: lax.reduce_precision(x, 8, 7).sum())(x)
  np.testing.assert_array_equal(g, np.ones(8))


def test_reduce_with_python_computation():
  a = np.arange(12., dtype=np.float32).reshape(3, 4)
  sumsq = lambda acc, v: lax.add(acc, lax.mul(v, v))
  np.testing.assert_allclose(lax.reduce(a, np.float32(1.), sumsq, (0,)), 1 + (a * a).sum(0))
  s, m = lax.reduce((a, a * 2), (np.float32(0), np.float32(-np.inf)),
                    lambda p, q: (lax.add(p[0], q[0]), lax.max(p[1], q[1])), (1,))
  np.testing.assert_allclose(s, a.sum(1))
  np.testing.assert_allclose(m, (2 * a).max(1))
  out = xjax.vmap(lambda r: lax.reduce(r, np.float32(1.), sumsq, (0,)))(a)
  np.testing.assert_allclose(out, [1 + (r * r).sum() for r in a])
  np.testing.assert_allclose(xjax.jit(lambda r: lax.reduce(r, np.float32(1.), sumsq, (1,)))(a),
                             1 + (a * a).sum(1))
  # monoid computations with identity inits use the differentiable reductions
  g = xjax.grad(lambda r: lax.reduce(r, np.float32(0), lax.add, (0, 1)))(a)
  np.testing.assert_allclose(g, np.ones_like(a))
  # JAX 0.10.2's signatures: out_sharding for a sum only; the other reductions take none
  with pytest.raises(NotImplementedError, match="out_sharding"):
    lax.reduce(a, -np.inf, lax.max, (0,), out_sharding=xjax.sharding.PartitionSpec())
  for reduction in (lax.reduce_prod, lax.reduce_max, lax.reduce_min):
    with pytest.raises(TypeError, match="out_sharding"):
      reduction(a, (0,), out_sharding=None)
  with pytest.raises(TypeError):
    lax.reduce_sum(a, (0,), None)  # keyword only


def test_reduce_monoids_follow_the_inits_dtype():
  """JAX picks a dedicated reduction when the init is its computation's identity for the
  init's own dtype, bitwise ones included (pgx's Zobrist hash: a uint32 xor from init 0)."""
  u = np.arange(6, dtype=np.uint32).reshape(3, 2) * np.uint32(0x9E3779B9)
  for op, ref in ((lax.bitwise_xor, np.bitwise_xor), (lax.bitwise_or, np.bitwise_or)):
    out = lax.reduce(u, 0, op, (0,))
    assert out.dtype == np.uint32 and not out.aval.weak_type
    np.testing.assert_array_equal(out, ref.reduce(u, 0))
    np.testing.assert_array_equal(xjax.jit(lambda x: lax.reduce(x, 0, op, (0,)))(u),
                                  ref.reduce(u, 0))
  np.testing.assert_array_equal(lax.reduce(u, -1, lax.bitwise_and, (1,)),
                                np.bitwise_and.reduce(u, 1))
  i = np.array([[3, -7], [5, 2]], np.int32)
  out = lax.reduce(i, -np.inf, lax.max, (0,))   # (a float identity reduces an int array)
  assert out.dtype == np.int32
  np.testing.assert_array_equal(out, [5, 2])
  # weak only when the operand and the init both are (JAX's rule)
  weak = lax.full((3,), 2.0)
  assert lax.reduce(weak, 0.0, lax.add, (0,)).aval.weak_type
  assert not lax.reduce(weak, np.float32(0), lax.add, (0,)).aval.weak_type
  # no identity: the init's dtype must match; the computation is traced on it first
  with pytest.raises(TypeError, match="reduce operand dtypes should match"):
    lax.reduce(u, 1, lax.bitwise_xor, (0,))
  with pytest.raises(TypeError, match="add does not accept dtype bool"):
    lax.reduce(u, True, lax.add, (0,))
  with pytest.raises(TypeError, match="logical reduction requires operand dtype bool or int"):
    lax.reduce_and(np.ones(3, np.float32), (0,))


def test_reduce_window_monoids_follow_the_inits_dtype():
  """Max pooling of integers from a -inf init is JAX's reduce_window_max, as is a boolean
  max from False; an init that is no identity keeps the operand's dtype rule."""
  i = np.arange(6, dtype=np.int32).reshape(2, 3)
  out = lax.reduce_window(i, -np.inf, lax.max, (1, 2), (1, 1), "VALID")
  assert out.dtype == np.int32
  np.testing.assert_array_equal(out, [[1, 2], [4, 5]])
  np.testing.assert_array_equal(lax.reduce_window(i, np.inf, lax.min, (1, 2), (1, 1), "VALID"),
                                [[0, 1], [3, 4]])
  b = np.array([[True, False, False]])
  np.testing.assert_array_equal(lax.reduce_window(b, -np.inf, lax.max, (1, 2), (1, 1), "VALID"),
                                [[True, False]])
  assert "reduce_window_max" in str(xjax.make_jaxpr(
      lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 2), (1, 1), "SAME"))(i))
  with pytest.raises(TypeError, match="inconsistent dtypes"):
    lax.reduce_window(i, 1.0, lax.max, (1, 2), (1, 1), "VALID")
  with pytest.raises(TypeError, match="expected init_values to be scalars"):
    lax.reduce_window(i, np.zeros(1, np.int32), lax.mul, (1, 2), (1, 1), "VALID")
  with pytest.raises(TypeError, match="must have a number dtype, got bool"):
    lax.reduce_window(b, 0, lax.add, (1, 2), (1, 1), "VALID")


def test_generic_reduce_is_differentiable():
  x = np.arange(3.0, dtype=np.float32)
  # A non-associative computation: JAX differentiates the pairwise tree it reduces by.
  g = xjax.grad(lambda x: lax.reduce(x, 0.0, lambda a, b: a * b + a, (0,)))(x)
  np.testing.assert_allclose(g, [6.0, 0.0, 0.0])
  m = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
  g = xjax.grad(lambda m: lax.reduce(m, 1.0, lambda a, b: a * b, (0,)).sum())(m)
  np.testing.assert_allclose(g, [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]])


def test_generic_reduce_differentiates_jaxs_halving_tree():
  """JAX's JVP of a generic reduce halves the rows (first half with second half), and both
  its results come from that tree: a computation that is not associative gives JAX's
  numbers (taken from JAX 0.10.2) and its jaxpr (a reshape with dimensions, a squeeze)."""
  x = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 7
  h = lambda x: lax.reduce(x, 0.5, lambda a, b: a * b + jnp.cos(b), (1,)).sum()
  primal, tangent = xjax.jvp(h, (x,), (np.ones_like(x),))
  np.testing.assert_allclose([primal, tangent], [6.3926344, 5.8543577], rtol=1e-6)
  np.testing.assert_allclose(h(x), 7.692457, rtol=1e-6)   # (no JVP: XLA's own order)
  text = str(xjax.make_jaxpr(xjax.grad(h))(x))
  assert "reshape[dimensions=(1, 0) new_sizes=(4, 3)" in text and "squeeze" in text
  text = str(xjax.make_jaxpr(
      lambda x: lax.reduce_window(x, 1.0, lax.mul, (2, 2), (1, 1), "VALID"))(x))
  assert "consts=()" in text and "jaxpr={ lambda" in text
  text = str(xjax.make_jaxpr(lambda x: lax.reduce(x, 2.0, lax.mul, (0,)))(x))
  assert "computation=<function mul at 0xXXXXXXXXXXXX>" in text


def test_reduce_window_with_an_init_that_is_no_identity_pads_with_it():
  """As JAX: only an identity init (0 for add, -inf/inf for max/min) takes the monoid
  reducer; any other init is where each window's reduction starts (padding adds nothing)."""
  x = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 7
  padded = np.pad(x, [(1, 1), (0, 1)])
  expected = np.array([[1.0 + padded[i:i + 2, j:j + 2].sum() for j in range(4)]
                       for i in range(4)], np.float32)
  out = lax.reduce_window(x, 1.0, lax.add, (2, 2), (1, 1), [(1, 1), (0, 1)])
  np.testing.assert_allclose(out, expected, rtol=1e-6)
  same = lax.reduce_window(x, 0.0, lax.max, (2, 2), (1, 1), "SAME")
  np.testing.assert_array_equal(same, np.maximum(lax.reduce_window(x, -np.inf, lax.max, (2, 2),
                                                                   (1, 1), "SAME"), 0))


@pytest.mark.parametrize("x64", [False, True])
def test_reduce_init_values_keep_their_own_dtype(x64):
  """JAX checks a non-monoid reduction's init values as they are: a Python int beside
  floats, or a Python float under x64 beside float32, is a TypeError (its messages)."""
  xjax.config.update("jax_enable_x64", x64)
  try:
    m = jnp.ones((2, 3), jnp.float32)
    with pytest.raises(TypeError, match="reduce operand dtypes should match corresponding "
                       r"initial value dtypes, got operands=\[ShapedArray\(float32\[2,3\]\)\]"):
      lax.reduce(m, 0, lambda a, c: a + c, (1,))
    with pytest.raises(TypeError, match=r"reduce_window got inconsistent dtypes for operands "
                       r"and init_values: got operand dtypes \[dtype\('float32'\)\] and "
                       r"init_value dtypes \[dtype\('int(32|64)'\)\]"):
      lax.reduce_window(m, 1, lax.mul, (1, 2), (1, 1), "VALID")
    # monoids with their identity take any scalar, as JAX's reducers do
    np.testing.assert_array_equal(lax.reduce(m, 0, lax.add, (1,)), [3, 3])
    np.testing.assert_array_equal(lax.reduce_window(m, 0, lax.add, (1, 2), (1, 1), "VALID"),
                                  np.full((2, 2), 2))
    float_init = lambda: lax.reduce(m, 0.0, lambda a, c: a + 2 * c, (1,))
    if x64:
      with pytest.raises(TypeError, match="float64"):
        float_init()
    else:
      np.testing.assert_array_equal(float_init(), [6, 6])
  finally:
    xjax.config.update("jax_enable_x64", False)


def test_argmax_reducer_is_jaxs():
  # JAX 0.10.2's reducer keeps the first value only when it compares greater (or is NaN),
  # the first index also on ties; XLA shares that reduce with a max of the same operand,
  # so jit(max, argmax) of signed zeros gives JAX's -0.0 (xjax gave 0.0 before).
  a = jnp.array([-0., 0., -0.], jnp.float32)
  out = xjax.jit(lambda v: (jnp.max(v), jnp.min(v), jnp.argmax(v), jnp.argmin(v)))(a)
  assert [np.signbit(np.asarray(x)).item() for x in out[:2]] == [True, True]
  assert [int(x) for x in out[2:]] == [0, 0]
  b = jnp.array([1., np.nan, 3., np.nan, 3.], jnp.float32)
  assert (int(xjax.jit(jnp.argmax)(b)), int(xjax.jit(jnp.argmin)(b))) == (1, 1)
  text = xjax.jit(jnp.argmax).lower(b).as_text()
  assert text.count("stablehlo.compare") == 4 and text.count("stablehlo.select") == 2
