"""Options and edge cases of jnp functions, pinned to JAX 0.10.2's results (found by
tools/differential_expressions.py over tools/expressions/numpy_options.txt)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax


def test_nan_extremes_with_initial_fill_all_nan_slices():
  a = jnp.array([[1., np.nan], [np.nan, np.nan]])
  np.testing.assert_array_equal(jnp.nanmin(a, axis=1, initial=0.0), [0., 0.])
  np.testing.assert_array_equal(jnp.nanmax(a, axis=1, initial=5.0), [5., 5.])
  np.testing.assert_array_equal(jnp.nanmax(a, axis=1), [1., np.nan])


def test_polymul_trims_leading_zeros_when_asked():
  a, b = jnp.array([0, 0, 1, 2.]), jnp.array([1, 2, 3.])
  np.testing.assert_array_equal(jnp.polymul(a, b, trim_leading_zeros=True), [1, 4, 7, 6])
  np.testing.assert_array_equal(jnp.polymul(a, b), [0, 0, 1, 4, 7, 6])
  np.testing.assert_array_equal(jnp.polymul(jnp.zeros(2), jnp.zeros(2),
                                            trim_leading_zeros=True), [0.])


def test_unravel_index_divmods_and_keeps_weak_types():
  r = jnp.unravel_index(7, (3, 4))
  assert [int(v) for v in r] == [1, 3] and all(v.aval.weak_type for v in r)
  r = jnp.unravel_index(jnp.array(3.0), (3, 4))
  assert [float(v) for v in r] == [0., 3.] and r[0].dtype == jnp.float32
  r = jnp.unravel_index(jnp.array([1, 5, 13, -1, -13]), (3, 4))
  np.testing.assert_array_equal(r, [[0, 1, 2, 2, 0], [1, 1, 3, 3, 0]])
  r = jnp.unravel_index(jnp.uint8(200), (3, 4))
  assert [int(v) for v in r] == [2, 3] and r[0].dtype == jnp.uint8


def test_geomspace_and_logspace_compile_as_one_program():
  np.testing.assert_array_equal(np.asarray(jnp.geomspace(1, 1000, 4)).view(np.uint32),
                                [1065353216, 1092616195, 1120403463, 1148846080])
  np.testing.assert_array_equal(jnp.geomspace(jnp.array([1., 10.]), 1000, 3, axis=1),
                                np.float32([[1.0, 31.62277603149414, 1000.0],
                                            [10.0, 100.0, 1000.0]]))
  np.testing.assert_array_equal(np.asarray(jnp.logspace(0., 2., 5, base=3.)).view(np.uint32),
                                [1065353216, 1071494103, 1077936128, 1084638945, 1091567616])
  with pytest.raises(TypeError):
    jnp.linspace(0, 1, 2.5)


def test_unique_with_size_traces_every_output():
  f = xjax.jit(lambda a: jnp.unique(a, size=4, return_counts=True, return_inverse=True,
                                    return_index=True))
  vals, index, inverse, counts = f(jnp.array([2, 0, 2, 1, 0, 2]))
  np.testing.assert_array_equal(vals, [0, 1, 2, 0])
  np.testing.assert_array_equal(index, [1, 3, 0, 1])
  np.testing.assert_array_equal(inverse, [2, 0, 2, 1, 0, 2])
  np.testing.assert_array_equal(counts, [2, 1, 3, 0])
  rows, counts = jnp.unique(jnp.array([[1, 2], [0, 1], [1, 2], [0, 0]]), axis=0, size=4,
                            fill_value=9, return_counts=True)
  np.testing.assert_array_equal(rows, [[0, 0], [0, 1], [1, 2], [9, 9]])
  np.testing.assert_array_equal(counts, [1, 1, 2, 0])
  batched = xjax.vmap(lambda a: jnp.unique(a, size=3, return_counts=True))(
      jnp.array([[0, 1, 2, 0], [4, 4, 2, 0]]))
  np.testing.assert_array_equal(batched[1], [[2, 1, 1], [1, 1, 2]])


def test_histogram2d_takes_a_list_of_mixed_bins():
  counts, ex, ey = jnp.histogram2d(jnp.array([-1., 0.5, 1.5, 0.2]), jnp.array([0., 1., 2., 3.]),
                                   bins=[jnp.array([-2., 0., 2.]), 3])
  np.testing.assert_array_equal(counts, [[1, 0, 0], [0, 1, 2]])
  np.testing.assert_array_equal(ex, [-2., 0., 2.])
  np.testing.assert_array_equal(ey, [0., 1., 2., 3.])
  with pytest.raises(ValueError, match="should be a bin for each dimension"):
    jnp.histogramdd(jnp.zeros((3, 2)), bins=(2, 3, 4))


def test_average_takes_weights_shaped_to_a_tuple_of_axes():
  t = jnp.arange(24.).reshape(2, 3, 4)
  w = jnp.arange(8.).reshape(4, 2)
  want = (np.arange(24.).reshape(2, 3, 4) * np.arange(8.).reshape(4, 2).T[:, None, :]).sum(
      (0, 2)) / 28.
  np.testing.assert_allclose(jnp.average(t, axis=(2, 0), weights=w), want, rtol=1e-6)
  with pytest.raises(ValueError, match="consistent with shape of a"):
    jnp.average(t, axis=(0, 2), weights=jnp.ones((4, 2)))
  avg, wsum = jnp.average(jnp.arange(6), returned=True)
  assert avg.dtype == jnp.float32 and wsum.shape == () and float(wsum) == 6.


def test_insert_clips_positions_and_traces_them():
  x = jnp.arange(6.)
  np.testing.assert_array_equal(jnp.insert(x, 10, 1.0), [0, 1, 2, 3, 4, 5, 1])
  np.testing.assert_array_equal(xjax.jit(lambda i: jnp.insert(x, i, 9.))(2),
                                [0, 1, 9, 2, 3, 4, 5])
  np.testing.assert_array_equal(jnp.insert(x, jnp.array([1, 3]), jnp.array([7., 8.])),
                                [0, 7, 1, 2, 8, 3, 4, 5])
  with pytest.raises(TypeError):
    jnp.insert(x, [1, 1], 5.)
  # values become arrays before the cast to the array's dtype (JAX's order): -1 wraps
  out = jnp.insert(jnp.arange(3, dtype=jnp.uint8), 1, -1)
  assert out.dtype == jnp.uint8
  np.testing.assert_array_equal(out, [0, 255, 1, 2])


def test_delete_takes_a_mask_and_checks_a_static_index():
  x = jnp.arange(6.)
  np.testing.assert_array_equal(
      jnp.delete(x, jnp.array([True, False, True, False, False, False])), [1, 3, 4, 5])
  with pytest.raises(ValueError, match="out of bounds"):
    jnp.delete(x, 7)
  np.testing.assert_array_equal(
      xjax.jit(lambda i: jnp.delete(x, i, assume_unique_indices=True))(jnp.array([0, 3])),
      [1, 2, 4, 5])


def test_padded_shapes_are_python_ints():
  assert all(type(d) is int for d in jnp.pad(jnp.ones(6), 2, mode="empty").shape)
  assert all(type(d) is int for d in xjax.lax.pad(jnp.ones(6), 0., [(1, 1, 0)]).shape)


def test_complex_convolution_is_three_real_ones():
  """Gauss's trick, as JAX lowers complex convolutions on CPU: JAX 0.10.2's bits."""
  x = jnp.array([0.3, -1.2, 2.5, 0.7, -0.1, 1.9], jnp.float32)
  y = jnp.array([1.1, 0.4, -0.8], jnp.float32)
  r = jnp.correlate(x + 1j * x[::-1], y + 0.5j, mode="full")
  np.testing.assert_array_equal(
      np.asarray(r).view(np.uint32),
      [1060487818, 3218457232, 1073574052, 1067785913, 3211159144, 1060152278, 1059816736,
       3224706744, 1082361119, 1066863164, 1008981888, 1061662231, 1045220556, 3221644902,
       1074748457, 3206461520])


@pytest.mark.parametrize("call, error", [
    (lambda: jnp.quantile(jnp.ones(3), 0.5, overwrite_input=True), ValueError),
    (lambda: jnp.median(jnp.ones(3), overwrite_input=True), ValueError),
    (lambda: jnp.cov(jnp.ones((2, 4)), fweights=jnp.array([1.5, 2, 1, 3])), TypeError),
    (lambda: jnp.cov(jnp.ones((2, 4)), aweights=jnp.ones(3)), RuntimeError),
    (lambda: jnp.ix_(jnp.array([True, False])), NotImplementedError),
    (lambda: jnp.ravel_multi_index((jnp.array([0.]), jnp.array([1.])), (3, 4)), ValueError),
    (lambda: jnp.nonzero(jnp.ones((2, 2)), size=8, fill_value=(-1,)), ValueError),
    (lambda: jnp.histogram(jnp.ones(3), bins="auto"), TypeError),
    (lambda: jnp.bincount(jnp.arange(3), weights=jnp.ones(3, bool)), TypeError),
    (lambda: jnp.arange(None), TypeError),
    (lambda: jnp.concatenate([jnp.ones(6), 1.0]), TypeError),
    (lambda: jnp.piecewise(jnp.ones(6), jnp.ones(6) < 0, [1.0, 2.0]), ValueError),
    (lambda: jnp.gradient(jnp.ones(4), edge_order=1), NotImplementedError),
    (lambda: jnp.ediff1d(jnp.ones(3, bool)), TypeError),
    (lambda: jnp.ones(2, bool).at[1].add(True), TypeError),
])
def test_invalid_calls_raise_jax_classes(call, error):
  with pytest.raises(error):
    call()


def test_piecewise_switches_per_element_and_bincount_scatters():
  x = jnp.arange(-4, 5)
  np.testing.assert_array_equal(
      jnp.piecewise(x, [x < -1, x > 1], [lambda v: 1 + v, lambda v: v - 1, 0]),
      [-3, -2, -1, 0, 0, 0, 1, 2, 3])
  np.testing.assert_array_equal(
      jnp.piecewise(x, jnp.array([False, True, False]), [lambda v: v * 0, lambda v: v * 10,
                                                        lambda v: v * 100]),
      10 * np.arange(-4, 5))
  np.testing.assert_array_equal(jnp.concatenate([jnp.float32(1), jnp.ones(2)], axis=None),
                                [1, 1, 1])
  counts = jnp.bincount(jnp.array([0, 1, 1, 3, -2, 5]),
                        weights=jnp.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], jnp.float32))
  np.testing.assert_allclose(counts, [0.6, 0.5, 0, 0.4, 0, 0.6], rtol=1e-6)
  flat = jnp.ravel_multi_index((jnp.array([1]), jnp.array([2])), (3, 4), dtype=jnp.int16)
  assert flat.dtype == jnp.int16 and int(flat[0]) == 6


def test_take_along_axis_is_one_gather_with_batch_dims():
  x = jnp.arange(6.).reshape(2, 3)
  idx = jnp.array([[0, -1, 5], [-4, 2, 1]])
  np.testing.assert_array_equal(jnp.take_along_axis(x, idx, axis=1),
                                [[0., 2., np.nan], [np.nan, 5., 4.]])
  np.testing.assert_array_equal(jnp.take_along_axis(x, idx, axis=1, mode="clip"),
                                [[0., 2., 2.], [3., 5., 4.]])
  np.testing.assert_array_equal(jnp.take_along_axis(x, idx, axis=1, mode="one_hot"),
                                [[0., 2., 0.], [0., 5., 4.]])
  jaxpr = xjax.make_jaxpr(lambda a: jnp.take_along_axis(a, jnp.argsort(a, axis=1), axis=1))(x)
  inner = jaxpr.eqns[-1].params["jaxpr"].jaxpr
  gather = [e for e in inner.eqns if e.primitive.name == "gather"][0]
  assert gather.params["dimension_numbers"].operand_batching_dims == (0,)  # as JAX 0.10.2
  with pytest.raises(ValueError, match='Unknown gather mode "wrap"'):
    jnp.take_along_axis(x, idx, axis=1, mode="wrap")


@pytest.mark.cpu_bits
def test_det_gradient_is_the_cofactor_solve():
  """JAX's _cofactor_solve: exact for full rank, rank n-1 and lower ranks alike."""
  rng = np.random.RandomState(1)
  a = jnp.asarray(rng.standard_normal((4, 4)).astype(np.float32))
  adj = np.linalg.det(np.asarray(a, np.float64)) * np.linalg.inv(np.asarray(a, np.float64)).T
  np.testing.assert_allclose(xjax.grad(jnp.linalg.det)(a), adj, rtol=2e-5, atol=1e-5)
  rank2 = a.at[3].set(a[0] + a[1]).at[2].set(a[0] - a[1])
  np.testing.assert_array_equal(xjax.grad(jnp.linalg.det)(rank2), np.zeros((4, 4)))


def test_signatures_and_argument_errors_are_jaxs():
  """JAX 0.10.2's parameters: gcd, lcm, trunc and matmul take them by name; real, imag and
  conj only by position; a binary ufunc's operands are ``x``/``y`` (``x1``/``x2`` for
  true_divide), as its jit's errors name them; a string operand reaches that jit (JAX's
  array-like check takes it for a NumPy scalar)."""
  a, b = jnp.array([4, 6]), jnp.array([6, 9])
  assert jnp.gcd(x1=a, x2=b).tolist() == [2, 3] and jnp.lcm(x1=a, x2=b).tolist() == [12, 18]
  assert jnp.trunc(x=jnp.array([1.5, -1.5])).tolist() == [1.0, -1.0]
  assert jnp.matmul(a=jnp.eye(2), b=jnp.eye(2)).tolist() == [[1.0, 0.0], [0.0, 1.0]]
  for call, name in ((lambda: jnp.real(val=a), "val"), (lambda: jnp.conjugate(x=a), "x")):
    with pytest.raises(TypeError, match=f"positional-only arguments passed as keyword "
                                        f"arguments: '{name}'"):
      call()
  for fn, path in ((jnp.add, "y"), (jnp.bitwise_and, "y"), (jnp.logical_or, "y"),
                   (jnp.true_divide, "x2"), (jnp.equal, "y")):
    with pytest.raises(TypeError, match=f"passed to the function at path {path}\\."):
      fn(a, "s")
  with pytest.raises(TypeError, match="add requires ndarray or scalar arguments, got "
                                      "<class 'list'> at position 0"):
    jnp.add([1, 2], a)


def test_lax_elementwise_functions_take_jaxs_parameter_names():
  a = jnp.array([1.0, 2.0])
  assert lax.add(x=a, y=a).tolist() == [2.0, 4.0] and lax.abs(x=-a).tolist() == [1.0, 2.0]
  assert lax.clamp(min=0.0, x=a, max=1.5).tolist() == [1.0, 1.5]
  assert lax.complex(x=a, y=a).tolist() == [1 + 1j, 2 + 2j]
  np.testing.assert_allclose(lax.polygamma(m=1.0, x=a), [1.644934, 0.644934], rtol=1e-5)
  assert (lax.nextafter(x1=a, x2=a * 2) > a).all()


def test_more_parameters_take_jaxs_names():
  from xjax import random
  assert jnp.issubdtype(arg1=jnp.float32, arg2=jnp.floating)
  assert lax.padtype_to_pads((5,), (3,), window_strides=(1,), padding="SAME") == [(1, 1)]
  assert str(random.key_dtype(impl_spec="rbg")) == "key<rbg>"
  with xjax.default_device(new_val=xjax.devices()[0]):
    assert jnp.ones(2).devices() == {xjax.devices()[0]}
  out = jnp.empty_like(prototype=jnp.ones((2, 2)), dtype=jnp.int32)
  assert out.dtype == jnp.int32 and out.tolist() == [[0, 0], [0, 0]]
  with pytest.raises(TypeError, match="ones_like requires ndarray or scalar arguments"):
    jnp.empty_like([1.0, 2.0])  # (JAX's message names ones_like)


def test_conj_is_its_own_function_as_jax():
  """JAX 0.10.2's ``jnp.conj`` is a function named ``conj`` calling ``conjugate``."""
  assert jnp.conj.__name__ == "conj" and jnp.conj is not jnp.conjugate
  assert complex(jnp.conj(1 + 2j)) == 1 - 2j
  assert [e.primitive.name for e in xjax.make_jaxpr(jnp.conj)(1.0 + 1j).eqns] == ["conj"]


def test_ldexp_stages_jaxs_operations_in_jaxs_order():
  """The top-level equations of ``make_jaxpr(jnp.ldexp)``, as JAX 0.10.2 prints them."""
  outer = xjax.make_jaxpr(jnp.ldexp)(jnp.ones((2, 3)), 2)
  assert [(e.primitive.name, e.params.get("name")) for e in outer.eqns] == [("jit", "ldexp")]
  inner = outer.eqns[0].params["jaxpr"]
  names = [e.primitive.name + (f"[{e.params['name']}]" if e.primitive.name == "jit" else "")
           for e in getattr(inner, "jaxpr", inner).eqns]
  assert names == ["convert_element_type", "jit[frexp]", "convert_element_type", "add", "gt",
                   "mul", "jit[_where]", "gt", "sub", "jit[_where]", "pow", "mul",
                   "jit[isinf]", "eq", "or", "jit[_where]"]
  np.testing.assert_array_equal(jnp.ldexp(jnp.asarray([0.75, -3.0, 0.0]), 3), [6.0, -24.0, 0.0])


def test_array_options_by_position_are_deprecated():
  """JAX 0.10.2's `jnp.array(x, dtype, copy, order, ndmin)`: taken, with a
  DeprecationWarning pointing at the caller; clashes with keywords are TypeErrors."""
  with pytest.warns(DeprecationWarning, match="positionally is deprecated") as record:
    x = jnp.array([1, 2], None, False, "K", 2)
  assert x.shape == (1, 2) and record[0].filename == __file__
  with pytest.raises(TypeError, match="multiple values for argument 'copy'"):
    jnp.array([1], None, True, copy=False)
  with pytest.raises(TypeError, match="at most 5 positional arguments but 6 were given"):
    jnp.array([1], None, True, "K", 0, 1)
  import warnings
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    assert jnp.array([1, 2], jnp.float32, copy=False).dtype == jnp.float32


def test_joining_with_a_dtype_checks_it_as_asarray_does():
  x = jnp.ones(2)
  for join in (jnp.concatenate, jnp.stack, jnp.hstack, jnp.vstack, jnp.dstack):
    with pytest.raises(TypeError, match="Cannot construct a dtype from an array"):
      join([x, x], dtype=np.ones(3))
    out = join([x, x], dtype="int8")
    assert out.dtype == np.int8 and not out.aval.weak_type
  if not xjax.config.read("jax_enable_x64"):
    with pytest.warns(UserWarning, match="requested in asarray is not available"):
      assert jnp.concatenate([x, x], dtype=np.float64).dtype == np.float32


def test_eye_and_trace_take_an_integer_offset():
  """JAX's rule for ``k``: a Python int (clipped to int32) or an integer scalar, which may
  be traced; a float or an array is its ValueError."""
  a = np.arange(9.0, dtype=np.float32).reshape(3, 3)
  assert float(jnp.trace(a, 1)) == 1 + 5
  assert float(jnp.trace(a, np.int64(-1))) == 3 + 7
  assert float(xjax.jit(jnp.trace)(a, 1)) == 6
  np.testing.assert_array_equal(jnp.eye(3, k=2 ** 40), np.zeros((3, 3)))
  np.testing.assert_array_equal(jnp.eye(3, k=jnp.array(1)), np.eye(3, k=1))
  for bad in (1.0, jnp.array(1.0), np.ones(2, np.int32)):
    with pytest.raises(ValueError, match="k must be a scalar integer"):
      jnp.eye(3, k=bad)
    with pytest.raises(ValueError, match="k must be a scalar integer"):
      jnp.trace(a, bad)


def test_repeat_select_roll_and_broadcast_shapes_take_what_jax_takes():
  i = np.arange(6).reshape(2, 3)
  # repeats are raveled (as JAX's): one count per element of the flattened array
  np.testing.assert_array_equal(jnp.repeat(i, i), np.repeat(i.ravel(), i.ravel()))
  # an array of conditions is the sequence of its rows
  a = np.arange(1.0, 7.0).reshape(2, 3)
  np.testing.assert_array_equal(jnp.select(a > 2, a), [4.0, 5.0, 3.0])
  with pytest.raises(ValueError, match="must be scalars or 1D arrays"):
    jnp.roll(a, np.ones((2, 2), np.int32))
  assert jnp.broadcast_shapes((2, 1), (3,)) == (2, 3)
  assert jnp.broadcast_shapes(3, (2, 1)) == (2, 3)
  for bad in ((2.0,), (2, None)):
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
      jnp.broadcast_shapes(bad, (1,))
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
      lax.broadcast_shapes(bad)
  with pytest.raises(TypeError, match="Only non-negative indices"):
    lax.broadcast_shapes((-1,), (1,))


@pytest.mark.parametrize("call", [
    lambda l: jnp.ravel(l), lambda l: jnp.squeeze(l), lambda l: jnp.transpose(l),
    lambda l: jnp.conj(l), lambda l: jnp.real(l), lambda l: jnp.imag(l),
    lambda l: jnp.flip(l), lambda l: jnp.roll(l, 1), lambda l: jnp.split(l, 2),
    lambda l: jnp.diag(l), lambda l: jnp.nansum(l), lambda l: jnp.nanmax(l),
    lambda l: jnp.nanargmin(l), lambda l: jnp.median(l), lambda l: jnp.cumulative_sum(l),
    lambda l: jnp.copy(l), lambda l: jnp.unstack(l), lambda l: jnp.argwhere(l),
    lambda l: jnp.quantile(jnp.ones(4), l), lambda l: jnp.percentile(jnp.ones(4), l),
    lambda l: jnp.linspace(0.0, l, 3), lambda l: jnp.vdot(jnp.ones(4), l),
    lambda l: jnp.append(jnp.ones(2), l), lambda l: jnp.lexsort([l, l]),
    lambda l: jnp.rot90(jnp.outer(l, l) if isinstance(l, xjax.Array) else [l, l]),
    lambda l: jnp.tril(jnp.outer(l, l) if isinstance(l, xjax.Array) else [l, l]),
    lambda l: jnp.diagonal(jnp.outer(l, l) if isinstance(l, xjax.Array) else [l, l]),
    lambda l: jnp.tril_indices_from(jnp.outer(l, l) if isinstance(l, xjax.Array) else [l, l])])
def test_lists_are_refused_where_jax_refuses_them(call):
  """JAX's numpy functions take arrays and scalars, not lists or tuples (a list is many
  leaves to trace, a silent slowdown): TypeError naming the argument's position. The same
  call on an array works."""
  with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
    call([0.25, 0.5, 1.0, 0.75])
  call(jnp.array([0.25, 0.5, 1.0, 0.75]))


def test_scalar_inputs_keep_jaxs_types():
  """trim_zeros of a 0-d value is that value (no axis to trim); diagflat builds a strong
  array; unique_all/counts/inverse keep a weak input's weak type (complex aside), as JAX's."""
  out = jnp.trim_zeros(0.5)
  assert out.shape == () and out.aval.weak_type and float(out) == 0.5
  np.testing.assert_array_equal(jnp.trim_zeros(jnp.array([0, 1, 0]), trim=""), [0, 1, 0])
  out = jnp.diagflat(2.0)
  assert out.shape == (1, 1) and not out.aval.weak_type
  for fn in (jnp.unique_all, jnp.unique_counts, jnp.unique_inverse):
    assert fn(0.5).values.aval.weak_type
    assert not fn(jnp.float32(0.5)).values.aval.weak_type
    assert not fn(1 + 2j).values.aval.weak_type


def test_cov_of_no_observations_and_hstack_of_nothing():
  assert np.isnan(float(jnp.cov(jnp.zeros(0))))
  out = jnp.cov(jnp.zeros((3, 0)))
  assert out.shape == (3, 3) and np.isnan(np.asarray(out)).all()
  assert np.isnan(float(jnp.corrcoef(jnp.zeros(0))))
  with pytest.raises(ValueError, match="Need at least one array to concatenate"):
    jnp.hstack(jnp.zeros((0,)))


def test_repeated_axes_are_refused():
  x = jnp.ones((2, 3))
  for call in (lambda: jnp.size(x, (0, 0)), lambda: jnp.trim_zeros(x, axis=(0, 0))):
    with pytest.raises(ValueError, match="repeated axis"):
      call()
  assert jnp.size(x, (0, -1)) == 6


def test_around_is_a_jitted_call_of_round():
  text = str(xjax.make_jaxpr(jnp.around)(jnp.ones(3)))
  assert "name=around" in text and "name=round" in text
  np.testing.assert_array_equal(jnp.around(jnp.array([1.25, 2.5]), 1),
                                np.array([1.2, 2.5], np.float32))


def test_logical_gcd_and_logaddexp_weak_types_as_jax():
  """Weak types JAX 0.10.2 gives (recorded there): a weak promotion against a strong array
  operand is strong; 0-d results and all-weak operands stay weak."""
  b, i8 = jnp.array([True, False]), jnp.array([1, 2], jnp.int8)
  weak = lambda r: r.aval.weak_type
  assert not weak(jnp.logical_and(b, 2.5)) and not weak(jnp.logical_or(i8, 2.5))
  assert weak(jnp.logical_and(True, 2)) and weak(jnp.logical_xor(jnp.int32(3), 2.0))
  assert weak(jnp.logical_and(jnp.array(True), 2.5))
  assert not weak(jnp.gcd(b, 3)) and not weak(jnp.lcm(b, 3)) and weak(jnp.gcd(True, 2))
  assert not weak(jnp.logaddexp2(b, 2.5)) and weak(jnp.logaddexp(b, 2.5))
  assert weak(jnp.logaddexp(1j, 1j)) and not weak(jnp.logaddexp(b, 1j))
  assert weak(jnp.logaddexp2(jnp.array(True), 1j))
