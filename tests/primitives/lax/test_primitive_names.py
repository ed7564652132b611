"""The ``lax.*_p`` primitive objects JAX 0.10.2 exports that xjax has as real primitives:
binding them works as in the reference (values taken from it)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax

A = np.array([np.nan, -0., 1., -np.inf, np.nan, 2.], np.float32)
B = np.array([np.nan, 0., np.nan, 1., np.inf, 2.], np.float32)


def test_total_order_comparisons():
  assert lax.eq_to_p.bind(A, B).tolist() == [True, False, False, False, False, True]
  assert lax.le_to_p.bind(A, B).tolist() == [True, True, True, True, False, True]
  assert lax.lt_to_p.bind(A, B).tolist() == [False, True, True, True, False, False]
  i, j = np.array([1, 2, 3]), np.array([2, 2, 2])
  assert lax.lt_to_p.bind(i, j).tolist() == [True, False, False]
  assert lax.eq_to_p.bind(1., 1.).weak_type
  assert str(xjax.make_jaxpr(lambda a, b: lax.lt_to_p.bind(a, b))(A, B)) == (
      "{ lambda ; a:f32[6] b:f32[6]. let c:bool[6] = lt_to a b in (c,) }")
  assert "TOTALORDER" in xjax.jit(lambda a, b: lax.le_to_p.bind(a, b)).lower(A, B).as_text()
  got = xjax.vmap(lambda a, b: lax.lt_to_p.bind(a, b))(A.reshape(2, 3), B.reshape(2, 3))
  assert got.tolist() == [[False, True, True], [True, False, False]]
  _, t = xjax.jvp(lambda a: lax.lt_to_p.bind(a, B), (A,), (A,))
  assert t.dtype == xjax.dtypes.float0
  with pytest.raises(TypeError, match="complex64"):
    lax.lt_to_p.bind(np.ones(2, np.complex64), np.ones(2, np.complex64))


def test_reduce_window_and_sharding_constraint_primitives():
  x = jnp.arange(12.).reshape(3, 4)
  jaxpr = xjax.make_jaxpr(lambda x: lax.reduce_window(x, 1., lax.mul, (2, 2), (1, 1),
                                                      "VALID"))(x)
  assert jaxpr.jaxpr.eqns[0].primitive is lax.reduce_window_p
  out = lax.reduce_window(x, 1., lax.mul, (2, 2), (1, 1), "VALID")
  xn = np.asarray(x)
  want = [[xn[i:i + 2, j:j + 2].prod() for j in range(3)] for i in range(2)]
  np.testing.assert_array_equal(out, want)
  mesh = xjax.sharding.Mesh(np.array(xjax.devices()[:1]), ("x",))
  s = xjax.sharding.NamedSharding(mesh, xjax.sharding.PartitionSpec("x"))
  f = xjax.jit(lambda x: lax.sharding_constraint_p.bind(x, sharding=s) * 2)
  assert f(x).tolist() == (2 * x).tolist()
  assert "sharding_constraint[" in str(xjax.make_jaxpr(
      lambda x: lax.sharding_constraint_p.bind(x, sharding=s))(x))


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
