"""Dtype, weak-type and error-class fidelity of common user programs (values observed in JAX)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax

from tests.checking import check_exact


def test_comparisons_keep_weak_type():
  check_exact(jnp.array([1, -2, 3]) < 2.5, [True, True, False], np.bool_, True)
  check_exact(jnp.array([1, 2, 3]) == 2, [False, True, False], np.bool_, False)
  check_exact(jnp.equal(3, 2), False, np.bool_, True)
  check_exact(jnp.isnan(2.5), False, np.bool_, True)
  check_exact(jnp.isfinite(2.5), True, np.bool_, True)
  check_exact(lax.is_finite(1.0), True, np.bool_, True)


def test_power_dtypes_and_errors():
  check_exact(2 ** jnp.array([1, -2, 3]), [2, 0, 8], np.int32, False)
  check_exact(2.5 ** jnp.array([1, 2]), [2.5, 6.25], np.float32, False)
  check_exact(True ** jnp.array([1, 2], jnp.uint8), [1, 1], np.uint8, False)
  check_exact(jnp.array([1, 2, 3], jnp.uint8) ** np.int64(2), [1, 4, 9], np.uint8, False)
  check_exact(jnp.array([0, 3]) ** jnp.array([0, 64]), [1, 1], np.int32, False)
  check_exact(jnp.array([2., 3.], jnp.bfloat16) ** jnp.array([2, 3]), [4, 27], jnp.bfloat16, False)
  with pytest.raises(TypeError):
    jnp.power(2, -1)
  with pytest.raises(TypeError):
    jnp.array(2) ** -1


def test_complex_remainder_is_type_error():
  with pytest.raises(TypeError):
    jnp.array([1, -2, 3]) % 1j
  with pytest.raises(TypeError):
    1j // jnp.array([1.5])


def test_bool_negative_and_positive():
  with pytest.raises(TypeError):
    -jnp.array([True, False])
  check_exact(+jnp.array([True, False]), [True, False], np.bool_, False)
  check_exact(jnp.positive(2.5), 2.5, np.float32, True)


def test_cond_always_traces_both_branches():
  check_exact(lax.cond(True, lambda: 1, lambda: 2), 1, np.int32, True)
  check_exact(lax.cond(False, lambda x: x, lambda x: -x, 2), -2, np.int32, True)
  with pytest.raises(TypeError):
    lax.cond(True, lambda: 1, lambda: 2.0)
  with pytest.raises(TypeError):
    lax.cond(True, lambda x: (x, x), lambda x: x, 2.0)


def test_loop_weak_carry_promotion():
  check_exact(lax.fori_loop(0, 3, lambda i, c: c + i, 0), 3, np.int32, True)
  check_exact(lax.fori_loop(0, 3, lambda i, c: c + 1.5, 0), 4.5, np.float32, False)
  check_exact(lax.fori_loop(0, jnp.array(3), lambda i, c: c + i, 0), 3, np.int32, True)
  check_exact(lax.while_loop(lambda c: c < 10, lambda c: c * 2.0, 1), 16., np.float32, False)
  c, ys = lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(3.))
  check_exact(c, 3., np.float32, False)
  check_exact(ys, [0., 0., 1.], np.float32, False)
  c, _ = lax.scan(lambda c, x: (c + x, c * x), 0, jnp.arange(3))
  check_exact(c, 3, np.int32, False)
  with pytest.raises(TypeError):
    lax.fori_loop(0, 3, lambda i, c: c + 1.5, jnp.int32(0))


def test_zero_gradients_keep_weak_type():
  check_exact(xjax.grad(lambda x: 1.0)(2.0), 0., np.float32, True)
  check_exact(xjax.grad(lambda x: jnp.round(x))(1.3), 0., np.float32, True)
  check_exact(xjax.grad(lambda x: x ** 0)(0.), 0., np.float32, True)
  _, t = xjax.jvp(lambda x: 1.0, (1.0,), (1.0,))
  check_exact(t, 0., np.float32, True)


def test_at_divide_power_apply():
  x = jnp.arange(4)
  check_exact(x.at[0].divide(2), [0., 1., 2., 3.], np.float32, False)
  check_exact(x.at[1:].divide(2), [0., 0.5, 1., 1.5], np.float32, False)
  check_exact(x.at[jnp.array([1, 1])].power(2), [0, 1, 2, 3], np.int32, False)
  check_exact(jnp.arange(1, 5).at[jnp.array([1, 1])].power(2), [1, 16, 3, 4], np.int32, False)
  check_exact(x.at[jnp.array([1, 1, 2])].apply(jnp.negative), [0, 1, -2, 3], np.int32, False)


def test_integer_division_by_zero():
  x = jnp.array([1, -2, 3, -7, 0])
  check_exact(x // 0, [-2, -2, -2, -2, -1], np.int32, False)
  check_exact(x % 0, [0, 0, 0, 0, 0], np.int32, False)
  check_exact(jnp.fmod(x, 0), [0, 0, 0, 0, 0], np.int32, False)
  check_exact(jnp.array([1, 2], jnp.uint8) % jnp.uint8(0), [0, 0], np.uint8, False)
  check_exact(jnp.array([-7, 7]) // jnp.array([2, -2]), [-4, -4], np.int32, False)
  check_exact(jnp.array([-7, 7]) % jnp.array([2, -2]), [1, -1], np.int32, False)


def test_python_scalar_weak_types():
  check_exact(jnp.deg2rad(2), np.float32(np.pi / 90), np.float32, True)
  check_exact(jnp.hypot(3, 4), 5.0, np.float32, True)
  check_exact(jnp.floor_divide(3, 2), 1, np.int32, True)
  check_exact(jnp.logical_not(2), False, np.bool_, True)
  check_exact(jnp.isnan(2), False, np.bool_, True)
  check_exact(jnp.isinf(2), False, np.bool_, False)
  check_exact(jnp.ones_like(1.0), 1.0, np.float32, True)
  check_exact(jnp.zeros_like(1.0, dtype=float), 0.0, np.float32, False)
  check_exact(jnp.floor(2), 2, np.int32, True)
  check_exact(jnp.floor(jnp.array([True])), [True], np.bool_, False)
  check_exact(jnp.rint(2), 2.0, np.float32, False)
  check_exact(jnp.rint(2.5), 2.0, np.float32, True)
  check_exact(jnp.log2(2), 1.0, np.float32, False)
  check_exact(jnp.sum(2.0), 2.0, np.float32, False)
  check_exact(jnp.cumsum(2), [2], np.int32, False)
  check_exact(jnp.array_equal(3., 3.), True, np.bool_, False)
  check_exact(jnp.array(np.float64(2.0)), 2.0, np.float32, False)
  check_exact(jnp.array([True, False]) // 2, [0, 0], np.int32, True)


def test_dtype_edge_cases():
  check_exact(jnp.sign(jnp.array([0, 3], jnp.uint8)), [0, 1], np.uint8, False)
  check_exact(jnp.cumsum(jnp.arange(4), dtype=bool), [False, True, True, True], np.bool_, False)
  check_exact(jnp.arange(jnp.int8(3)), [0, 1, 2], np.int8, False)
  check_exact(jnp.array([1, -2, 3]) < 1j, [False, True, False], np.bool_, True)
  check_exact(jnp.array([1 + 1j, 2]) > jnp.array([1, 2], jnp.float16), [True, False], np.bool_,
              False)
  check_exact(jnp.array([True, False]) << True, [2, 0], np.int32, False)
  for bad, err in [(lambda: jnp.round(jnp.array([True])), ValueError),
                   (lambda: jnp.sign(True), TypeError),
                   (lambda: jnp.std(jnp.arange(4), dtype=int), ValueError),
                   (lambda: jnp.arange(3, dtype=bool), TypeError),
                   (lambda: jnp.array(None), ValueError),
                   (lambda: jnp.uint8(300), OverflowError),
                   (lambda: jnp.array([-1], jnp.uint32), OverflowError)]:
    with pytest.raises(err):
      bad()


def test_error_classes():
  x = jnp.arange(6).reshape(2, 3)
  for bad, err in [(lambda: jnp.sum(x, axis=2), ValueError),
                   (lambda: jnp.mean(x, axis=2), IndexError),
                   (lambda: jnp.argmax(x, axis=2), IndexError),
                   (lambda: jnp.where(jnp.array([True]), 1), TypeError),
                   (lambda: x.reshape(-1, -1), TypeError),
                   (lambda: jnp.transpose(x, (0, 0)), TypeError),
                   (lambda: jnp.concatenate([[1, 2], [3.]]), TypeError),
                   (lambda: lax.reshape(jnp.arange(6), (2, 4)), ValueError),
                   (lambda: lax.reshape(x, (3, 2), dimensions=(1,)), TypeError),
                   (lambda: lax.dot(jnp.ones(3), jnp.ones(4)), ValueError),
                   (lambda: lax.dynamic_slice(jnp.arange(5), (1, 2), (2,)), ValueError),
                   (lambda: lax.dynamic_slice(jnp.arange(5), (1.0,), (2,)), TypeError),
                   (lambda: lax.switch(0, []), ValueError),
                   (lambda: xjax.grad(1), TypeError),
                   (lambda: xjax.jit(lambda v: v, static_argnums=3), ValueError),
                   (lambda: lax.fori_loop(0, 3.0, lambda i, c: c + i, 0), TypeError)]:
    with pytest.raises(err) as info:
      bad()
    assert not isinstance(info.value, np.exceptions.AxisError)


def test_lax_conversions_and_mixed_dot():
  check_exact(lax.dot(jnp.ones(3), jnp.ones(3, int)), 3.0, np.float32, False)
  check_exact(lax.convert_element_type(jnp.nan, jnp.int32), 0, np.int32, False)
  check_exact(lax.convert_element_type(1e20, jnp.uint8), 255, np.uint8, False)
  check_exact(lax.fori_loop(jnp.int8(0), 3, lambda i, c: c + i, 0), 3, np.int32, True)


def test_autodiff_weak_types_and_aux():
  _, t = xjax.jvp(lambda x: x * 2, (1.0,), (jnp.float32(1),))
  check_exact(t, 2.0, np.float32, True)
  check_exact(xjax.jacfwd(lambda x: x ** 2)(2.0), 4.0, np.float32, True)
  (v, aux), g = xjax.value_and_grad(lambda x: (x ** 2, (1, "a")), has_aux=True)(3.0)
  assert aux == (1, "a") and type(aux[0]) is int
  check_exact(g, 6.0, np.float32, True)


def test_cond_weak_join_pow_and_explicit_dtype():
  check_exact(lax.cond(True, lambda x: x, lambda x: jnp.float32(x), 2.0), 2.0, np.float32, False)
  check_exact(lax.cond(True, lambda: jnp.float32(1), lambda: 2.0), 1.0, np.float32, True)
  check_exact(jnp.asarray(jnp.asarray(2.0), jnp.float32), 2.0, np.float32, False)
  check_exact(lax.pow(2.0, 3), 8.0, np.float32, True)
  check_exact(lax.pow(jnp.array([2.0, 3.0]), jnp.array([1, 2])), [2.0, 9.0], np.float32, False)


def test_round3_dtypes_errors_and_namespaces():
  check_exact(jnp.convolve(jnp.arange(5), jnp.array([1, 2]), mode="valid"), [1, 4, 7, 10],
              np.float32, False)
  with pytest.raises(ValueError):
    jnp.max(jnp.ones(3), where=jnp.ones(3, bool))
  check_exact(jnp.max(jnp.ones(3), where=jnp.ones(3, bool), initial=0.0), 1.0, np.float32, False)
  for f in (float, int, complex):
    with pytest.raises(TypeError):
      f(jnp.arange(3))
  with pytest.raises(TypeError):
    f"{jnp.arange(3):.2f}"
  assert f"{jnp.arange(2)}" == "[0 1]"
  for fn in (lambda x: jnp.zeros(x), lambda x: jnp.ones(4).reshape(x, -1)):
    with pytest.raises(TypeError) as e:
      xjax.jit(fn)(2)
    assert type(e.value) is TypeError
  check_exact(xjax.nn.tanh(0.0), 0.0, np.float32, True)
  assert xjax.checkpoint_policies.nothing_saveable() is False
  g = xjax.grad(lambda w: jnp.sum(xjax.checkpoint(
      jnp.sin, policy=xjax.checkpoint_policies.dots_saveable)(w)))(jnp.zeros(2))
  np.testing.assert_allclose(g, [1.0, 1.0])
  assert xjax.named_call(lambda x: x * 2, name="f")(3.0) == 6.0
  import functools
  assert xjax.named_call(functools.partial(lambda x: x * 2), name="f")(3.0) == 6.0
  with pytest.raises(AttributeError, match="__name__"):  # nothing to name it by, as JAX
    xjax.named_call(functools.partial(lambda x: x * 2))
  y, t = xjax.jvp(lambda x: x * 2, (jnp.arange(3),), (np.zeros(3, xjax.dtypes.float0),))
  check_exact(y, [0, 2, 4], np.int32, False)
  assert t.dtype == xjax.dtypes.float0 and t.shape == (3,)


def test_round3_make_jaxpr_text():
  text = str(xjax.make_jaxpr(xjax.grad(lambda x: jnp.sin(x) ** 2))(1.0))
  assert text == """{ lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = cos a
    _:f32[] = integer_pow[y=2] b
    d:f32[] = mul 2.0:f32[] b
    e:f32[] = mul 1.0:f32[] d
    f:f32[] = mul e c
  in (f,) }"""
  text = str(xjax.make_jaxpr(lambda x: lax.switch(0, [jnp.sin, jnp.cos], x))(1.0))
  assert """    c:f32[] = cond[
      branches=(
        { lambda ; d:f32[]. let e:f32[] = sin d in (e,) }
        { lambda ; f:f32[]. let g:f32[] = cos f in (g,) }
      )
    ] b a""" in text
  text = str(xjax.make_jaxpr(lambda x: lax.scan(lambda c, y: (c + y, c * 2), 0.0, x))(
      jnp.ones(3)))
  assert "      jaxpr={ lambda ; d:f32[] e:f32[]. let\n          f:f32[]" in text
  assert str(xjax.make_jaxpr(lambda x: (lax.dot_general(x, x, (((1,), (1,)), ((0,), (0,)))),
                                        jnp.max(x, axis=1, keepdims=True)))(jnp.ones((2, 2)))) == \
      """{ lambda ; a:f32[2,2]. let
    b:f32[2] = dot_general[dimension_numbers=(([1], [1]), ([0], [0]))] a a
    c:f32[2] = reduce_max[axes=(1,)] a
    d:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c
  in (b, d) }"""
  text = str(xjax.make_jaxpr(lambda x: x[1:, 0])(jnp.ones((3, 3))))
  assert "slice[limit_indices=(3, 1) start_indices=(1, 0) strides=None] a\n" in text
  text = str(xjax.make_jaxpr(lambda x: xjax.jit(jnp.cos)(x))(1.0))
  assert "jit[\n      name=cos\n      jaxpr={" in text


def test_round4_numpy_stats_and_sets():
  x = jnp.arange(4.0)
  check_exact(jnp.quantile(x, 0.5, method="nearest"), 1.0, np.float32, False)  # ties go low
  check_exact(jnp.quantile(jnp.arange(6.0), 0.5, method="nearest"), 2.0, np.float32, False)
  h, _, _ = jnp.histogram2d(x, x, bins=2)
  check_exact(h, [[2, 0], [0, 2]], np.int32, False)
  h, _, _ = jnp.histogram2d(x, x, bins=2, density=True)
  assert h.dtype == np.float32
  check_exact(jnp.searchsorted(jnp.array([1, 3, 3, 5]), jnp.array([3, 4]), side="right"), [3, 3],
              np.int32, False)
  a, b = jnp.ones((2, 3)), jnp.ones((3, 4))
  check_exact(jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), np.full((2, 4), 3.0), np.float32, False)
  check_exact(jnp.einsum(a, [Ellipsis, 1], [Ellipsis]), [3.0, 3.0], np.float32, False)
  z = jnp.array([1 + 2j, -3 + 0.5j, 1 + 1j], jnp.complex64)
  check_exact(jnp.sort(z), [-3 + 0.5j, 1 + 1j, 1 + 2j], np.complex64, False)
  check_exact(jnp.log10(jnp.array([0j, -1 + 0j])),
              np.array([complex(-np.inf, 0), 1.3643764j], np.complex64),
              np.complex64, False)
  assert isinstance(lax.top_k(jnp.arange(3.0), 1), list)
  a, b = jnp.array([1.0, np.nan, np.nan, 2.0]), jnp.array([np.nan, 2.0, 3.0])
  np.testing.assert_array_equal(jnp.union1d(a, b), [1, 2, 3, np.nan])  # one NaN, as in JAX
  np.testing.assert_array_equal(jnp.setdiff1d(a, b), [1, np.nan])


def test_round4_lax_fidelity():
  x = jnp.arange(20.0).reshape(4, 5)
  check_exact(lax.dynamic_slice(x, (-1, -10), (2, 2)), [[10, 11], [15, 16]], np.float32, False)
  check_exact(xjax.jit(lambda i: lax.dynamic_slice(x[0], (i,), (2,)))(-1), [3, 4], np.float32,
              False)
  with pytest.raises(TypeError):
    lax.dynamic_slice(x, (jnp.int32(1), jnp.uint8(1)), (1, 1))
  with pytest.raises(ValueError):
    lax.conv_general_dilated(jnp.ones((1, 1, 5)), jnp.ones((1, 1, 3)), (1,), "VALID",
                             lhs_dilation=(2,))
  dn = lax.GatherDimensionNumbers((), (0,), (0,))
  out = xjax.vmap(lambda o: lax.gather(o, jnp.array([[1], [0]]), dn, (1,)))(x[:3, :2])
  check_exact(out, [[1, 0], [6, 5], [11, 10]], np.float32, False)
  a = jnp.array([1 + 1j, 2 + 0j, jnp.nan + 0j])
  b = jnp.array([1 + 2j, 1 + 5j, 1 + 0j])
  check_exact(lax.max(a, b), [1 + 2j, 2, 1], np.complex64, False)
  check_exact(lax.min(a, b), [1 + 1j, 1 + 5j, 1], np.complex64, False)
  check_exact(jnp.max(jnp.array([1 + 1j, 1 + 5j, 0.5 + 9j])), 1 + 5j, np.complex64, False)
  assert xjax.grad(jnp.fmax, (0, 1))(0.0, 0.0) == (0.0, 1.0)
  with pytest.raises(IndexError):
    lax.scan(lambda c, x: (c, x), 0.0, jnp.float32(1.0))


def test_round4_control_flow_weak_types():
  c, ys = lax.scan(lambda c, x: (c * x, c), 1.0, jnp.arange(1.0, 4.0))
  check_exact(c, 6.0, np.float32, False)
  check_exact(ys, [1, 1, 2], np.float32, True)
  assert lax.scan(lambda c, x: (c, x), 1.5, jnp.arange(2.0))[0] == 1.5
  assert type(lax.scan(lambda c, x: (c, x), 1.5, jnp.arange(2.0))[0]) is float
  assert type(lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1]), (0, 2.5))[1]) is float
  lims = jnp.array([2, 3])
  out = xjax.vmap(lambda l: lax.fori_loop(0, l, lambda i, c: c + 1, 0))(lims)
  check_exact(out, [2, 3], np.int32, True)
  check_exact(xjax.vmap(lambda l: lax.cond(l > 2, lambda: 1, lambda: 2))(lims), [2, 1],
              np.int32, True)
  check_exact(xjax.vmap(lambda v: lax.psum(1, "i"), axis_name="i")(jnp.ones(3)), [3, 3, 3],
              np.int32, True)
  r = xjax.vmap(lambda x: (x, 5.0), out_axes=(0, None))(jnp.ones(2))
  assert type(r[1]) is float


def test_round4_array_repr_layout():
  assert repr(jnp.linspace(0, 1, 5)) == "Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)"
  with np.printoptions(precision=5):
    assert repr(jnp.linspace(0, 1, 7)) == (
        "Array([0.     , 0.16667, 0.33333, 0.5    , 0.66667, 0.83333, 1.     ],      "
        "dtype=float32)")


def test_round4_jit_rejects_unknown_static_argnames():
  with pytest.raises(ValueError):
    xjax.jit(lambda x: x, static_argnames="y")
  assert xjax.jit(lambda x, **kw: x, static_argnames="z")(1.0) == 1.0


def test_round5_empty_edges():
  check_exact(jnp.diff(jnp.zeros((0,))), np.zeros(0), np.float32, False)
  check_exact(jnp.diff(jnp.array([1, 2, 4]), n=5), np.zeros(0), np.int32, False)
  check_exact(jnp.diagonal(jnp.ones((2, 3)), offset=5), np.zeros(0), np.float32, False)
  (idx,) = jnp.nonzero(jnp.array([0, 1, 2]), size=0)
  check_exact(idx, np.zeros(0), np.int32, False)
  with pytest.raises(IndexError):
    jnp.take(jnp.zeros((0,)), jnp.array([0]))
  with pytest.raises(TypeError):
    jnp.median(jnp.zeros((0,)))
  check_exact(jnp.quantile(jnp.zeros((0, 3)), 0.5, axis=1), np.zeros(0), np.float32, False)
  for bad in ([2, 10], [4, 2], [-1]):
    with pytest.raises(ValueError):
      jnp.split(jnp.arange(6), bad)
  parts = jnp.split(jnp.arange(6), [2, 6])
  assert [p.shape for p in parts] == [(2,), (4,), (0,)]


def test_round5_var_degrees_of_freedom_and_int_dtype():
  check_exact(jnp.var(jnp.array([1.0, 2.0]), ddof=2), np.nan, np.float32, False)
  check_exact(jnp.std(jnp.array([1.0, 2.0]), ddof=3), np.nan, np.float32, False)
  check_exact(jnp.var(jnp.array([1.0, 2.0]), ddof=2, where=jnp.array([True, True])), np.nan,
              np.float32, False)
  check_exact(jnp.nanvar(jnp.array([1.0, 2.0]), ddof=2), np.nan, np.float32, False)
  # an integer dtype computes in integers, then gives a weakly typed float
  check_exact(jnp.var(jnp.array([1, 2]), dtype=jnp.int32), 0.0, np.float32, True)
  check_exact(jnp.var(jnp.array([1, 4]), dtype=jnp.int32), 2.0, np.float32, True)
  check_exact(jnp.var(jnp.array([1.0, 2, 3, 7]), dtype=jnp.int32), 5.0, np.float32, True)


def test_round5_max_has_no_dtype_and_complex_order_errors():
  with pytest.raises(TypeError):
    jnp.max(jnp.array([1, 2]), dtype=jnp.float32)
  check_exact(jnp.max(jnp.array([[1, 5], [3, 2]]), 0, None, True), [[3, 5]], np.int32, False)
  check_exact(jnp.maximum.reduce(jnp.array([1, 3, 2])), 3, np.int32, False)
  with pytest.raises(TypeError):
    jnp.argmax(jnp.array([1 + 2j, 2 + 0j]))
  with pytest.raises(ValueError):
    jnp.clip(jnp.array([1 + 2j]), 0, 1)
  check_exact(jnp.round(jnp.array([1.5 + 2.5j])), [2 + 2j], np.complex64, False)


def test_round5_nan_sign_and_softmax_edges():
  check_exact(jnp.signbit(jnp.array([-0.0, 0.0, -np.nan, np.nan, -1.0])),
              [True, False, True, False, True], np.bool_, False)
  check_exact(jnp.geomspace(0, 100, 3), [np.nan] * 3, np.float32, False)
  check_exact(jnp.geomspace(-1, -100, 3), [-1, -10, -100], np.float32, False)
  check_exact(xjax.nn.softmax(jnp.array([np.inf, 1.0])), [np.nan, np.nan], np.float32, False)
  check_exact(xjax.nn.log_softmax(jnp.array([np.inf, 1.0])), [np.nan, np.nan], np.float32, False)
  check_exact(xjax.nn.softmax(jnp.array([-np.inf, 1.0]), where=jnp.array([False, False])), [0, 0],
              np.float32, False)


def test_round5_misc_edge_errors_and_values():
  with pytest.raises(ValueError):
    jnp.cumulative_sum(jnp.array(3))
  with pytest.raises(ValueError):
    jnp.compress(jnp.array([True, False, True, True]), jnp.array([1, 2, 3]))
  check_exact(jnp.compress(jnp.array([True, False, True, False]), jnp.array([1, 2, 3])), [1, 3],
              np.int32, False)
  with pytest.raises(IndexError):
    jnp.ones((0,)).at[0].set(1)
  check_exact(jnp.ones((0,)).at[jnp.array([0])].set(1), np.zeros(0), np.float32, False)
  check_exact(jnp.zeros((3, 0)).at[0].set(1), np.zeros((3, 0)), np.float32, False)
  check_exact(jnp.arange(4)[1:3:jnp.array(1)], [1, 2], np.int32, False)
  check_exact(jnp.hypot(jnp.array([np.nan, -np.inf, 3.0]), jnp.array([np.inf, np.nan, 4.0])),
              [np.inf, np.inf, 5], np.float32, False)
  check_exact(jnp.heaviside(jnp.array([-1.0, 0.0, np.nan]), 0.5), [0, 0.5, np.nan], np.float32,
              False)


def test_round5_lax_edge_errors():
  for f in (lambda: lax.abs(jnp.array([1], jnp.uint8)), lambda: lax.imag(jnp.array([1])),
            lambda: lax.real(jnp.array([1.0])), lambda: lax.iota(jnp.bool_, 2),
            lambda: lax.rev(jnp.arange(3), (1,)),
            lambda: lax.concatenate([jnp.array(1.0), jnp.array(2.0)], 0)):
    with pytest.raises(TypeError):
      f()
  for f in (lambda: lax.select_n(jnp.array([0])),
            lambda: lax.reduce_sum(jnp.ones((2, 3)), (2,)),
            lambda: lax.argmax(jnp.array([1.0, 2.0]), 1, jnp.int32),
            lambda: lax.top_k(jnp.array(1.0), 1),
            lambda: lax.expand_dims(jnp.ones(2), (0, 0)),
            lambda: lax.concatenate([], 0),
            lambda: lax.conv(jnp.ones((1, 1, 4)), jnp.ones((1, 2, 2)), (1,), "VALID")):
    with pytest.raises(ValueError):
      f()


def test_round5_lax_edge_values():
  check_exact(lax.conj(jnp.array([1.0])), [1 + 0j], np.complex64, False)
  dn = lax.GatherDimensionNumbers((), (0,), (0,))
  # a bare lax.gather promises in-bounds indices: the backend clamps
  check_exact(lax.gather(jnp.arange(5.0), jnp.array([[7]]), dn, (1,)), [4.0], np.float32, False)
  check_exact(lax.igamma(jnp.array([0.0, 0.0]), jnp.array([1.0, 0.0])), [1, np.nan], np.float32,
              False)
  check_exact(lax.igammac(jnp.array([0.0]), jnp.array([0.0])), [np.nan], np.float32, False)


def test_round5_argmax_axis_of_scalar_is_index_error():
  with pytest.raises(IndexError):
    jnp.argmax(jnp.array(2.0), axis=0)
  check_exact(jnp.argmax(jnp.array(2.0)), 0, np.int32, False)
