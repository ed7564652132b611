"""lax API details found by tools/differential_expressions.py (tools/expressions/lax_api.txt),
pinned to JAX 0.10.2's behaviour."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax


def test_cond_passes_a_value_closed_over_by_both_branches_once():
  text = str(xjax.make_jaxpr(lambda a: lax.cond(a > 0, lambda: a, lambda: -a))(1.))
  assert "{ lambda ; e:f32[]. let f:f32[] = neg e in (f,) }" in text
  assert "] c a\n" in text  # the index, then a once
  f = lambda a, b: lax.switch(1, [lambda: a, lambda: b, lambda: a + b])
  jaxpr = xjax.make_jaxpr(f)(1., 2.)
  assert len(jaxpr.eqns[-1].invars) == 3  # the index, a and b
  assert float(f(1., 2.)) == 2.
  grad = xjax.grad(lambda a: lax.cond(a > 0, lambda: a ** 2, lambda: -a))
  assert float(grad(1.)) == 2. and float(grad(-1.)) == -1.


def test_lu_returns_a_list_and_precision_reprs_as_jax():
  assert type(lax.linalg.lu(jnp.eye(2))) is list
  assert repr(lax.Precision("highest")) == "Precision.HIGHEST"
  assert str(lax.Precision.HIGH) == "HIGH"


def test_float_indices_are_a_value_error():
  dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
  with pytest.raises(ValueError, match="indices must have an integer type"):
    lax.gather(jnp.ones(6), jnp.array([[1.0]]), dn, (1,))
  sdn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
  with pytest.raises(ValueError, match="indices must have an integer type"):
    lax.scatter_add(jnp.ones(6), jnp.array([[1.0]]), jnp.ones(1), sdn)


def test_bitcast_to_an_unavailable_64_bit_type_is_its_32_bit_one():
  with pytest.warns(UserWarning, match="float64"):
    out = lax.bitcast_convert_type(jnp.arange(4.).reshape(2, 2), jnp.float64)
  assert out.dtype == jnp.float32 and out.shape == (2, 2)


def test_callbacks_reject_64_bit_results_without_x64():
  spec = xjax.ShapeDtypeStruct((6,), np.float64)
  with pytest.raises(ValueError, match="cannot specify 64-bit types"):
    xjax.pure_callback(np.sin, spec, jnp.ones(6))
  with pytest.raises(ValueError, match="cannot specify 64-bit types"):
    xjax.experimental.io_callback(np.sin, spec, jnp.ones(6))


BITS_CUMLOGSUMEXP_GRAD = [1030481483, 1012042643, 1057296371, 1034941916, 1025384659,
                          1049759073]  # JAX 0.10.2


def test_cumlogsumexp_differentiates_through_jax_logaddexp():
  x = jnp.array([0.3, -1.2, 2.5, 0.7, -0.1, 1.9], jnp.float32)
  g = xjax.grad(lambda a: lax.cumlogsumexp(a)[-1])(x)
  np.testing.assert_array_equal(np.asarray(g).view(np.uint32), BITS_CUMLOGSUMEXP_GRAD)


def test_concatenate_transposes_to_one_split():
  f = xjax.grad(lambda a, b: jnp.concatenate([a, b]).sum(), argnums=(1,))
  text = str(xjax.make_jaxpr(f)(jnp.ones(2), jnp.ones(3)))
  assert "_:f32[2] e:f32[3] = split[axis=0 sizes=(2, 3)] d" in text
  np.testing.assert_array_equal(f(jnp.ones(2), jnp.ones(3))[0], np.ones(3))


def test_complex_and_conj_are_linear_so_real_gradients_are_strong():
  g = xjax.grad(lambda a: lax.abs(lax.complex(a, 2.)))(1.)
  assert not g.aval.weak_type and float(g) == np.float32(1 / np.sqrt(5.))
  g = xjax.grad(lambda a: lax.imag(lax.exp(lax.complex(0., a))))(1.)
  assert not g.aval.weak_type and float(g) == np.float32(np.cos(1.))
  text = str(xjax.make_jaxpr(lax.conj)(1.0))
  assert "conj[input_dtype=float32] a" in text
  assert complex(lax.conj(1.0)) == 1 + 0j
  assert float(xjax.grad(lambda a: lax.conj(a).real)(2.)) == 1.
  with pytest.raises(TypeError, match="conj does not accept dtype int32"):
    lax.conj(jnp.int32(1))


def test_complex_cube_multiplies_as_jax():
  rng = np.random.RandomState(0)
  x = rng.standard_normal(6).astype(np.float32)
  y = rng.standard_normal(6).astype(np.float32)
  want = [1060529086, 1090531698, 1024839295, 3180187212, 1063780819, 3197587348, 1092741485,
          1086568768, 1087158083, 1069582627, 1084787937, 1066117824]  # JAX 0.10.2
  z = lax.complex(jnp.asarray(x), jnp.asarray(y))
  np.testing.assert_array_equal(np.asarray(lax.integer_pow(z, 3)).view(np.uint32), want)
  np.testing.assert_array_equal(np.asarray(z ** 3).view(np.uint32), want)


PROD_GRAD_BITS = [0, 0, 1027874258, 0, 0, 0]  # JAX 0.10.2 (+0.0 where a factor is 0)
PROD_JVP_PRIMAL_BITS = 3214125525


def test_prod_differentiates_as_a_tree_of_products():
  """JAX's reduce_prod JVP: JAX 0.10.2's bits, signed zeros included."""
  x = jnp.array([0.3, -1.2, 0., 0.7, -0.1, 1.9], jnp.float32)
  g = xjax.grad(jnp.prod)(x)
  np.testing.assert_array_equal(np.asarray(g).view(np.uint32), PROD_GRAD_BITS)
  out = xjax.jvp(jnp.prod, (x + 1,), (jnp.ones(6),))[0]
  assert np.asarray(out).view(np.uint32) == PROD_JVP_PRIMAL_BITS


def test_gather_checks_slice_sizes_before_xla_does():
  dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
                                  start_index_map=(0,))
  with pytest.raises(TypeError, match="can only collapse slice dims with bound 1"):
    lax.gather(jnp.ones(6), jnp.array([[1], [4]]), dn, (2,))
  with pytest.raises(TypeError, match="Slice size at index 0 in gather op is out of range"):
    lax.gather(jnp.ones(6), jnp.array([[1]]),
               lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(),
                                          start_index_map=(0,)), (7,))


def test_vmap_of_cond_stops_gradients_of_other_lanes_operands():
  x = jnp.arange(6.0).reshape(2, 3)
  f = lambda x: xjax.vmap(lambda r: lax.cond(r[0] > 1, jnp.sin, jnp.cos, r))(x)
  names = [e.primitive.name for e in xjax.make_jaxpr(f)(x).eqns]
  assert names[-12:] == ["eq", "stop_gradient", "broadcast_in_dim", "select_n", "cos", "eq",
                         "stop_gradient", "broadcast_in_dim", "select_n", "sin",
                         "broadcast_in_dim", "select_n"]  # JAX 0.10.2's
  g = lambda v: lax.cond(v > 0, jnp.sqrt, lambda v: 0. * v, v)
  np.testing.assert_array_equal(xjax.vmap(xjax.grad(g))(jnp.array([-1., 4.])), [0., 0.25])


def test_top_k_takes_an_axis():
  t = jnp.arange(24.).reshape(2, 3, 4)[:, ::-1]
  vals, idx = lax.top_k(t, 2, axis=1)
  np.testing.assert_array_equal(vals, np.sort(np.asarray(t), axis=1)[:, ::-1][:, :2])
  np.testing.assert_array_equal(idx, np.zeros((2, 2, 4)) + [[0], [1]])
  assert "top_k[axis=2 k=2]" in str(xjax.make_jaxpr(lambda a: lax.top_k(a, 2))(t))
  g = xjax.grad(lambda a: lax.top_k(a, 2, axis=0)[0].sum())(t)
  np.testing.assert_array_equal(g, np.ones((2, 3, 4)))


def test_non_hashable_static_arguments_raise_a_plain_value_error():
  x = jnp.arange(6.)
  for call in (lambda: xjax.jit(lambda a, n: a * n, static_argnums=1)(x, jnp.ones(6)),
               lambda: jnp.partition(x, jnp.array(2))):
    with pytest.raises(ValueError, match="Non-hashable static arguments") as info:
      call()
    assert type(info.value) is ValueError  # (JAX's class, not a subclass)


def test_clip_scatters_clamp_when_lowered_not_in_the_jaxpr():
  x = jnp.arange(6.)
  idx = jnp.array([0, 7, -9, 3])
  np.testing.assert_array_equal(x.at[idx].add(1., mode="clip"), [2., 1., 2., 4., 4., 6.])
  names = [e.primitive.name for e in
           xjax.make_jaxpr(lambda r: r.at[idx].set(1., mode="clip"))(x).eqns]
  assert names == ["lt", "add", "select_n", "broadcast_in_dim", "broadcast_in_dim",
                   "scatter"]  # JAX 0.10.2's: no min/max
  g = xjax.vmap(lambda r, i: lax.dynamic_update_slice(r, jnp.ones(2), (i,)))(
      jnp.stack([x, x]), jnp.array([0, 5]))
  np.testing.assert_array_equal(g, [[1., 1., 2., 3., 4., 5.], [0., 1., 2., 3., 1., 1.]])


@pytest.mark.parametrize("reduce", [lax.reduce_sum, lax.reduce_prod, lax.cumsum, lax.cummax])
def test_sums_products_and_cumulative_ops_refuse_bool(reduce):
  with pytest.raises(TypeError, match="does not accept dtype bool. Accepted dtypes are "
                                      "subtypes of number."):
    reduce(jnp.array([True, False]), 0 if reduce in (lax.cumsum, lax.cummax) else (0,))
  assert lax.reduce_max(jnp.array([True, False]), (0,)).tolist() is True


def test_boolean_sums_and_products_are_or_and_and():
  b = jnp.array([[True, False, True], [False, False, True]])
  assert jnp.sum(b, axis=0, dtype=bool).tolist() == [True, False, True]
  assert jnp.prod(b, axis=0, dtype=bool).tolist() == [False, False, True]
  assert jnp.sum(b, dtype=bool).tolist() is True and jnp.prod(b, dtype=bool).tolist() is False
  assert jnp.sum(jnp.zeros((0,), bool), dtype=bool).tolist() is False
  assert jnp.prod(jnp.zeros((0,), bool), dtype=bool).tolist() is True
  assert jnp.sum(b).tolist() == 3 and jnp.cumsum(b, axis=1, dtype=bool).tolist() == [
      [True, True, True], [False, False, True]]
  assert xjax.vmap(lambda r: jnp.sum(r, dtype=bool))(b).tolist() == [True, True]


def test_histogram_weights_promote_to_inexact():
  a = jnp.array([1., 2., 2.5])
  counts = jnp.histogram(a, bins=2, weights=jnp.array([True, False, True]))[0]
  assert counts.dtype == jnp.float32 and counts.tolist() == [1., 1.]
  assert jnp.histogram(jnp.array([1, 2, 3]), bins=2, weights=jnp.array([1, 2, 3]))[0].dtype \
      == jnp.float32


def test_pow_keeps_an_integer_exponent():
  """lax.pow takes an integer exponent as it is (converted when lowered), so its derivative
  at an exponent 0 is 0 also at x = 0 (JAX's values)."""
  assert float(xjax.grad(lambda a: lax.pow(a, jnp.int32(0)))(0.)) == 0.
  jac = xjax.jacfwd(lambda a: jnp.power(a, jnp.array([0, 1, 2, 3])))(jnp.zeros(4))
  np.testing.assert_array_equal(jac, np.diag([0., 1., 0., 0.]))
  assert xjax.vmap(xjax.grad(lambda a, n: lax.pow(a, n)))(
      jnp.array([0., 1., 2.]), jnp.array([0, 1, 2])).tolist() == [0., 1., 4.]
  assert "pow a 0:i32[]" in str(xjax.make_jaxpr(lambda a: lax.pow(a, jnp.int32(0)))(1.))
  out = lax.pow(2., 2)
  assert out.weak_type and float(out) == 4. and not lax.pow(2., jnp.int32(2)).weak_type
  assert lax.pow(jnp.ones(3, jnp.float16), jnp.arange(3, dtype=jnp.uint8)).dtype == jnp.float16
  with pytest.raises(TypeError, match="two inexact dtypes must match, but got float32 and "
                                      "float16"):
    lax.pow(jnp.ones(2), jnp.ones(2, jnp.float16))


def test_platform_dependent_and_shape_as_value():
  assert float(lax.platform_dependent(1., cpu=lambda a: a * 2, default=lambda a: a)) == 2.
  assert float(lax.platform_dependent(1., cuda=lambda a: a * 2, default=lambda a: a)) == 1.
  with pytest.raises(ValueError, match="Use 'cuda' or 'rocm' for lax.platform_dependent"):
    lax.platform_dependent(1., gpu=lambda a: a, default=lambda a: a)
  empty = lax.shape_as_value(())
  assert isinstance(empty, xjax.Array) and empty.shape == (0,) and empty.dtype == jnp.int32
  assert lax.shape_as_value((2, 3)).tolist() == [2, 3]
