"""select_and_scatter_add_p, select_and_gather_add_p and select_and_scatter_p: values as
JAX 0.10.2's (taken from the reference), derivatives by finite differences, vmap against
loops."""
import numpy as np
import pytest

import xjax
from xjax import lax
from xjax.test_util import check_grads

X = np.array([[1., 5., 2., 2.], [3., 0., 7., 1.], [4., 4., 6., 0.]], np.float32)
SRC = np.array([[10., 20., 30.], [40., 50., 60.]], np.float32)
T = np.arange(12., dtype=np.float32).reshape(3, 4)
KW = dict(window_dimensions=(2, 2), window_strides=(1, 1), padding=((0, 0), (0, 0)))
KW2 = dict(window_dimensions=(2, 2), window_strides=(2, 1), padding=((1, 0), (0, 1)))
ONES = dict(base_dilation=(1, 1), window_dilation=(1, 1))


def scatter_add(s, x, prim=lax.ge_p, kw=KW):
  return lax.select_and_scatter_add_p.bind(s, x, select_prim=prim, **kw)


def gather_add(t, x, prim=lax.ge_p, kw=KW, dil=ONES):
  return lax.select_and_gather_add_p.bind(t, x, select_prim=prim, **kw, **dil)


def test_values_as_reference():
  assert scatter_add(SRC, X).tolist() == [[0, 10, 0, 0], [0, 0, 160, 0], [40, 0, 0, 0]]
  assert scatter_add(SRC, X, lax.le_p).tolist() == [[0, 0, 0, 0], [0, 120, 0, 30],
                                                    [0, 0, 0, 60]]
  assert gather_add(T, X).tolist() == [[1, 6, 6], [8, 6, 6]]
  assert gather_add(T, X, lax.le_p).tolist() == [[5, 5, 7], [5, 5, 11]]
  s2 = np.arange(8., dtype=np.float32).reshape(2, 4)
  assert scatter_add(s2, X, kw=KW2).tolist() == [[0, 1, 2, 3], [0, 0, 11, 7], [4, 0, 0, 0]]
  assert gather_add(T, X, kw=KW2).tolist() == [[1, 1, 2, 3], [8, 6, 6, 7]]
  dil = dict(base_dilation=(2, 1), window_dilation=(1, 2))
  assert gather_add(T, X, dil=dil).tolist() == [[2, 1], [6, 7], [6, 7], [10, 9]]
  ties = np.ones((2, 3), np.float32)  # the first selected element wins
  assert scatter_add(np.array([[1., 2.]], np.float32), ties).tolist() == [[1, 2, 0], [0, 0, 0]]
  assert gather_add(np.arange(6., dtype=np.float32).reshape(2, 3), ties).tolist() == [[0, 1]]


def test_general_select_and_scatter():
  from xjax._src.core.avals import ShapedArray
  from xjax._src.interpreters.staging import trace_to_jaxpr
  sc = ShapedArray((), np.float32)
  sel = trace_to_jaxpr(lambda a, b: [lax.ge(a, b)], [sc, sc])
  add = trace_to_jaxpr(lambda a, b: [lax.add(a, b)], [sc, sc])
  out = lax.select_and_scatter_p.bind(X, SRC, np.float32(0), select_jaxpr=sel,
                                      select_consts=(), scatter_jaxpr=add, scatter_consts=(),
                                      **KW)
  np.testing.assert_array_equal(out, scatter_add(SRC, X))


def test_jaxpr_as_reference():
  assert str(xjax.make_jaxpr(scatter_add)(SRC, X)) == """{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[3,4] = select_and_scatter_add[
      padding=((0, 0), (0, 0))
      select_prim=ge
      window_dimensions=(2, 2)
      window_strides=(1, 1)
    ] a b
  in (c,) }"""


def test_derivatives():
  check_grads(lambda s: scatter_add(s, X), (SRC,), 2, atol=2e-2, rtol=2e-2, eps=1e-3)
  check_grads(lambda t: gather_add(t, X, kw=KW2), (T,), 2, atol=2e-2, rtol=2e-2)
  dil = dict(base_dilation=(2, 1), window_dilation=(1, 1))
  check_grads(lambda t: gather_add(t, X, dil=dil), (T,), 1, modes=("rev",), atol=2e-2, rtol=2e-2)
  _, tangent = xjax.jvp(lambda x: scatter_add(SRC, x), (X,), (X,))
  assert not np.any(tangent)  # the selection does not move under small changes


def test_vmap_against_loops():
  xs = np.stack([X, X[::-1]])
  ss = np.stack([SRC, 2 * SRC])
  got = xjax.vmap(scatter_add)(ss, xs)
  for i in range(2):
    np.testing.assert_array_equal(got[i], scatter_add(ss[i], xs[i]))
  got = xjax.vmap(gather_add, in_axes=(None, 0))(T, xs)
  for i in range(2):
    np.testing.assert_array_equal(got[i], gather_add(T, xs[i]))


def test_bad_input():
  with pytest.raises(TypeError, match="source must have the shape of the windows"):
    scatter_add(np.ones((2, 5), np.float32), X)
  with pytest.raises(TypeError, match="select_prim must be"):
    scatter_add(SRC, X, lax.add_p)
  with pytest.raises(TypeError, match="same dtypes"):
    gather_add(T.astype(np.int32), X)
