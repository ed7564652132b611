"""Features that used to raise NotImplementedError: interp(period=), pad (reflect_type='odd',
median, callable modes), generic lax.reduce_window, all_gather over several axis names,
r_/c_ matrix directives, ufunc.reduce(where=), ravel_multi_index(order='F')."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax


def check(got, want, **kw):
  np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5, **kw)


# ---------------------------------------------------------------------------------------
# numeric

def test_interp_period():
  x = np.array([-1., 0.5, 3.5, 7., 9.25], np.float32)
  xp = np.array([3., 0, 1, 2], np.float32)
  fp = np.array([1., 5, 2, 7], np.float32)
  check(jnp.interp(x, xp, fp, period=4), np.interp(x, xp, fp, period=4))
  check(jnp.interp(x, xp, fp, period=-4, left=100), np.interp(x, xp, fp, period=4))
  assert jnp.interp(np.array([1, 2]), xp.astype(int), fp, period=4).dtype == np.float32
  with pytest.raises(ValueError, match="period must be a scalar"):
    jnp.interp(x, xp, fp, period=np.array([1., 2.]))


def test_interp_extrapolate_and_bounds():
  x = np.array([-1.5, 0.5, 2.5], np.float32)
  xp, fp = np.array([0., 1, 2], np.float32), np.array([1., 5, 2], np.float32)
  check(jnp.interp(x, xp, fp, left="extrapolate", right="extrapolate"), [-5., 3., 0.5])
  check(jnp.interp(x, xp, fp, left=-1, right=9), np.interp(x, xp, fp, left=-1, right=9))
  with pytest.raises(ValueError, match="extrapolate"):
    jnp.interp(x, xp, fp, left="nearest")


def test_gradient_edge_order_unsupported():
  with pytest.raises(NotImplementedError):
    jnp.gradient(jnp.arange(5.), edge_order=2)


def test_ravel_multi_index_fortran_order():
  idx = (np.array([1, 0, 2]), np.array([2, 1, 0]), np.array([0, 4, 3]))
  for order in ("C", "F"):
    check(jnp.ravel_multi_index(idx, (3, 4, 5), order=order),
          np.ravel_multi_index(idx, (3, 4, 5), order=order))
  check(jnp.ravel_multi_index(idx, (3, 4, 5), mode="clip", order="F"),
        np.ravel_multi_index(idx, (3, 4, 5), mode="clip", order="F"))
  with pytest.raises(ValueError, match="invalid order"):
    jnp.ravel_multi_index(idx, (3, 4, 5), order="X")


# ---------------------------------------------------------------------------------------
# pad

@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_pad_reflect_odd(mode):
  x = np.array([[1., 2, 4], [3, 7, 5]], np.float32)
  for pw in [((1, 4), (5, 2)), ((0, 7), (3, 0))]:
    check(jnp.pad(x, pw, mode=mode, reflect_type="odd"),
          np.pad(x, pw, mode=mode, reflect_type="odd"))
  xi = np.array([1, 2, 5], np.int32)
  got = jnp.pad(xi, (2, 3), mode=mode, reflect_type="odd")
  assert got.dtype == np.int32
  check(got, np.pad(xi, (2, 3), mode=mode, reflect_type="odd"))
  check(jnp.pad(np.array([3]), (2, 3), mode=mode, reflect_type="odd"), [3] * 6)


def test_pad_median_and_kwarg_errors():
  x = np.array([[1., 2, 4], [3, 7, 5]], np.float32)
  check(jnp.pad(x, 1, mode="median"), np.pad(x, 1, mode="median"))
  check(jnp.pad(np.array([1, 2, 4, 9]), 1, mode="median"), [3, 1, 2, 4, 9, 3])
  with pytest.raises(NotImplementedError, match="Unimplemented padding mode"):
    jnp.pad(x, 1, mode="foo")
  with pytest.raises(ValueError, match="unsupported keyword arguments"):
    jnp.pad(x, 1, mode="reflect", constant_values=1)
  with pytest.raises(ValueError, match="reflect_type"):
    jnp.pad(x, 1, mode="reflect", reflect_type="bad")


def test_pad_callable_mode():
  x = np.array([[1., 2, 4], [3, 7, 5]], np.float32)

  def fill(v, width, iaxis, kwargs):
    v = v.at[:width[0]].set(kwargs.get("val", 9) + iaxis)
    return v.at[v.shape[0] - width[1]:].set(-1)

  def np_fill(v, width, iaxis, kwargs):
    v[:width[0]] = kwargs.get("val", 9) + iaxis
    v[v.shape[0] - width[1]:] = -1
  check(jnp.pad(x, ((1, 2), (0, 1)), fill, val=5), np.pad(x, ((1, 2), (0, 1)), np_fill, val=5))
  check(jnp.pad(np.array([1, 2, 3]), 1, lambda v, w, i, k: v * 2), [0, 2, 4, 6, 0])


# ---------------------------------------------------------------------------------------
# lax.reduce_window with an arbitrary computation

X = np.arange(12., dtype=np.float32).reshape(3, 4)


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
  check(lax.reduce_window(X, 0., _f, (2, 2), (1, 1), "VALID"),
        _loop_reduce_window(X, 0., _f, (2, 2)))
  check(xjax.jit(lambda x: lax.reduce_window(x, 0., _f, (2, 2), (1, 1), "VALID"))(X),
        _loop_reduce_window(X, 0., _f, (2, 2)))
  check(lax.reduce_window(X, 1., lax.mul, (2, 2), (1, 1), "VALID"),
        _loop_reduce_window(X, 1., lambda a, b: a * b, (2, 2)))
  # strides, padding and dilations agree with the dedicated sum path
  kw = dict(window_dimensions=(2, 2), window_strides=(2, 1), padding=((1, 0), (0, 2)),
            base_dilation=(2, 1), window_dilation=(1, 2))
  check(lax.reduce_window(X, 0., lambda a, b: a + b, **kw),
        lax.reduce_window(X, 0., lax.add, **kw))
  check(lax.reduce_window(np.arange(5), 0, lambda a, b: a * 2 + b, (2,), (1,), "VALID"),
        [1, 4, 7, 10])


def test_reduce_window_pytree():
  out = lax.reduce_window((X, X * 2), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]),
                          (2, 2), (1, 2), "SAME")
  assert isinstance(out, tuple)
  check(out[0], [[10., 18.], [26., 34.], [17., 21.]])
  check(out[1], [[0., 4032.], [23040., 73920.], [288., 440.]])


def test_reduce_window_generic_jvp_and_vmap():
  fn = lambda x: lax.reduce_window(x, 0., _f, (2, 2), (1, 1), "VALID")
  t = np.cos(X)
  out, tan = xjax.jvp(fn, (X,), (t,))
  check(out, _loop_reduce_window(X, 0., _f, (2, 2)))
  eps = 1e-3
  fd = (_loop_reduce_window((X + eps * t).astype(np.float64), 0., _f, (2, 2))
        - _loop_reduce_window((X - eps * t).astype(np.float64), 0., _f, (2, 2))) / (2 * eps)
  np.testing.assert_allclose(np.asarray(tan), fd, rtol=2e-2)
  v = xjax.vmap(lambda r: lax.reduce_window(r, 0., _f, (2,), (1,), "VALID"))(X)
  check(v, [_loop_reduce_window(r[None], 0., _f, (1, 2))[0] for r in X])


def test_reduce_window_generic_errors():
  with pytest.raises(NotImplementedError, match="initial values"):
    xjax.vmap(lambda r, i: lax.reduce_window(r, i, _f, (2,), (1,), "VALID"))(X, X[:, 0])
  with pytest.raises(TypeError, match="inconsistent dtypes"):
    lax.reduce_window(np.arange(5), 0., _f, (2,), (1,), "VALID")
  with pytest.raises(ValueError, match="tree structure"):
    lax.reduce_window(X, 0., lambda a, b: (a, b), (2, 2), (1, 1), "VALID")
  with pytest.raises(TypeError, match="init_value_tangent"):
    xjax.jvp(lambda i: lax.reduce_window(X, i, _f, (2, 2), (1, 1), "VALID"), (0.,), (1.,))


# ---------------------------------------------------------------------------------------
# all_gather over several axis names

def test_all_gather_several_axis_names():
  x = np.arange(12., dtype=np.float32).reshape(2, 3, 2)
  run = lambda fn: np.asarray(xjax.vmap(xjax.vmap(fn, axis_name="j"), axis_name="i")(x))
  flat = x.reshape(6, 2)
  for i, j in np.ndindex(2, 3):
    check(run(lambda v: lax.all_gather(v, ("i", "j")))[i, j], flat)
    check(run(lambda v: lax.all_gather(v, ("i", "j"), axis=1))[i, j], flat.T)
    check(run(lambda v: lax.all_gather(v, ("j", "i"), tiled=True))[i, j],
          x.transpose(1, 0, 2).ravel())

  def loss(x):
    scale = jnp.arange(6.)[:, None]
    fn = lambda v: lax.all_gather(v, ("i", "j")) * scale
    return (xjax.vmap(xjax.vmap(fn, axis_name="j"), axis_name="i")(x) ** 2).sum()
  k = np.arange(6.).reshape(2, 3, 1)
  check(xjax.grad(loss)(x), 6 * 2 * k ** 2 * x)


# ---------------------------------------------------------------------------------------
# index tricks and ufunc objects

def test_concat_matrix_directives():
  row, col = jnp.r_["r", [1, 2], [3, 4]], jnp.r_["c", [1, 2], [3, 4]]
  assert row.shape == (1, 4) and col.shape == (4, 1)
  check(row, [[1, 2, 3, 4]])
  check(col, [[1], [2], [3], [4]])
  check(jnp.r_["c", [[1, 2]], [[3, 4]]], [[1, 2], [3, 4]])
  check(jnp.c_["r", [1, 2]], [[1], [2]])


def test_ufunc_reduce_where():
  a = np.arange(6.).reshape(2, 3)
  m = np.array([[True, False, True], [False, False, True]])
  add = jnp.frompyfunc(lambda x, y: x + y, 2, 1, identity=0)
  mul = jnp.frompyfunc(lambda x, y: x * y, 2, 1, identity=1)
  check(add.reduce(a, axis=1, where=m), np.add.reduce(a, axis=1, where=m))
  check(add.reduce(a, axis=0, where=m[0]), np.add.reduce(a, axis=0, where=m[0]))
  check(mul.reduce(a + 1, axis=None, where=m, keepdims=True),
        np.multiply.reduce(a + 1, axis=None, where=m, keepdims=True))
  f = jnp.frompyfunc(lambda x, y: x * y + 1, 2, 1)
  check(f.reduce(a, axis=0, where=m, initial=2.), [1., 2., 26.])
  with pytest.raises(ValueError, match="identity"):
    f.reduce(a, where=m)
  with pytest.raises(ValueError, match="dtype=bool"):
    add.reduce(a, where=1)
  with pytest.raises(NotImplementedError, match="out argument"):
    add.reduce(a, out=a)
