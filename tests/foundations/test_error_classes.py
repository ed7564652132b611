"""The exception classes (and key message text) users catch, as recorded from JAX 0.10.2.

tools/differential_errors.py compares several hundred such cases with the reference; the
ones pinned here were fixed from it.
"""
import re

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.scipy import linalg as sla

PUBLIC_ERRORS = ["ConcretizationTypeError", "InconclusiveDimensionOperation", "JAXIndexError",
                 "JAXTypeError", "JaxRuntimeError", "JaxprTypeError", "KeyReuseError",
                 "NonConcreteBooleanIndexError", "TracerArrayConversionError",
                 "TracerBoolConversionError", "TracerIntegerConversionError",
                 "UnexpectedTracerError"]  # dir(jax.errors) of JAX 0.10.2


@pytest.mark.parametrize("name", PUBLIC_ERRORS)
def test_public_error_classes_report_their_public_module(name):
  cls = getattr(xjax.errors, name)
  assert cls.__module__ == "xjax.errors"
  assert repr(cls) == f"<class 'xjax.errors.{name}'>"


def test_other_public_exception_modules():
  assert xjax.dtypes.TypePromotionError.__module__ == "xjax.dtypes"
  with pytest.raises(xjax.errors.JaxRuntimeError):  # jaxlib's class, caught by its public name
    xjax.pure_callback(lambda: 1 / 0, xjax.ShapeDtypeStruct((), jnp.float32))


# -- broadcasting in jnp: ValueError across ranks, the lax primitive's TypeError within one

def test_broadcasting_different_ranks_is_value_error():
  with pytest.raises(ValueError, match=r"^Incompatible shapes for broadcasting: "
                     r"shapes=\[\(100,\), \(100, 10\)\]"):
    jnp.ones(100) + jnp.ones((100, 10))
  with pytest.raises(ValueError, match=r"shapes=\[\(3,\), \(1, 4\)\]"):
    jnp.less(jnp.ones(3), jnp.ones((1, 4)))
  with pytest.raises(ValueError, match=r"shapes=\[\(2, 3\), \(4,\), \(\)\]"):
    jnp.where(jnp.ones((2, 3)) > 0, jnp.ones(4), 1.0)


@pytest.mark.parametrize("fun, prim", [(jnp.multiply, "mul"), (jnp.add, "add"),
                                       (jnp.subtract, "sub"), (jnp.true_divide, "div"),
                                       (jnp.power, "pow"), (jnp.maximum, "max"),
                                       (jnp.equal, "eq"), (jnp.less, "lt"),
                                       (jnp.arctan2, "atan2"), (jnp.floor_divide, "rem"),
                                       (jnp.remainder, "rem")])
def test_broadcasting_same_rank_is_the_primitives_type_error(fun, prim):
  with pytest.raises(TypeError, match=rf"^{prim} got incompatible shapes for broadcasting: "
                     r"\(3,\), \(4,\)\."):
    fun(jnp.ones(3), jnp.ones(4))


# -- traced values where static ones are needed

def test_one_hot_traced_num_classes():
  with pytest.raises(xjax.errors.ConcretizationTypeError,
                     match=r"^Abstract tracer value encountered where concrete value is "
                     r"expected: traced array with shape int32\[\]"):
    xjax.jit(lambda n: xjax.nn.one_hot(jnp.arange(3), n))(3)


@pytest.mark.parametrize("fun", [jnp.sum, jnp.prod, jnp.mean, jnp.var, jnp.std, jnp.max,
                                 jnp.min, jnp.any, jnp.all, jnp.ptp])
def test_reduction_traced_axis_and_keepdims(fun):
  x = jnp.ones((2, 3))
  with pytest.raises(xjax.errors.ConcretizationTypeError, match="traced array with shape"):
    xjax.jit(lambda a: fun(x, axis=a))(1)
  with pytest.raises(ValueError, match="^Non-hashable static arguments are not supported"):
    xjax.jit(lambda k: fun(x, keepdims=k))(True)
  with pytest.raises(ValueError, match="^Non-hashable static arguments are not supported"):
    fun(x, keepdims=jnp.array(True))


@pytest.mark.parametrize("fun", [jnp.nansum, jnp.nanmax, jnp.cumsum, jnp.median,
                                 jnp.count_nonzero])
def test_jitted_library_functions_hash_a_traced_static_axis(fun):
  with pytest.raises(ValueError, match="^Non-hashable static arguments are not supported"):
    xjax.jit(lambda a: fun(jnp.ones((2, 3)), axis=a))(1)


def test_reduction_keyword_checks():
  with pytest.raises(ValueError, match=r"^initial value must be a scalar. Got array of "
                     r"shape \(3,\)"):
    jnp.sum(jnp.ones(3), initial=jnp.ones(3))
  with pytest.raises(ValueError, match="^ddof and correction can't be provided "
                     "simultaneously."):
    jnp.var(jnp.ones(3), ddof=1, correction=1)
  np.testing.assert_allclose(jnp.var(jnp.arange(4.0), ddof=0, correction=1), 5 / 3, rtol=1e-6)


# -- scipy.linalg solvers: JAX's gufunc signature errors

@pytest.mark.parametrize("call, signature", [
    (lambda: sla.cho_solve((jnp.eye(3), True), jnp.ones(4)), "(n,n),(n)->(n)"),
    (lambda: sla.cho_solve((jnp.eye(3), True), jnp.ones((4, 2))), "(n,n),(n,k)->(n,k)"),
    (lambda: sla.solve_triangular(jnp.eye(3), jnp.ones(4)), "(n,n),(n)->(n)"),
    (lambda: sla.lu_solve((jnp.eye(3), jnp.arange(3)), jnp.ones(4)), "(n,n),(n),(n)->(n)"),
])
def test_scipy_solvers_check_their_signature(call, signature):
  with pytest.raises(ValueError, match=r"^inconsistent size for core dimension 'n': 4 vs 3 "
                     r"on vectorized function with excluded=frozenset\(\) and "
                     rf"signature='{signature.replace('(', '[(]').replace(')', '[)]')}'"):
    call()


def test_scipy_solvers_broadcast_batches_and_deprecate_batched_vectors():
  a = np.tril(np.arange(1.0, 10.0).reshape(3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
  batch = np.stack([a, 2 * a])
  b = np.arange(3.0, dtype=np.float32)
  out = sla.solve_triangular(batch, b, lower=True)  # one b for a batch of matrices
  np.testing.assert_allclose(out, np.linalg.solve(batch, np.broadcast_to(b, (2, 3))[..., None])[..., 0],
                             rtol=1e-5)
  with pytest.warns(FutureWarning, match="batch of vectors"):
    out = sla.solve_triangular(batch, np.stack([b, b]), lower=True)
  assert out.shape == (2, 3)


# -- lax argument errors

def test_lax_argument_errors():
  with pytest.raises(TypeError, match="^cbrt does not accept dtype complex64"):
    jnp.cbrt(jnp.ones(3, jnp.complex64))
  # the accepted classes as NumPy names them; an n-ary operation names the position
  c = jnp.ones(3, jnp.complex64)
  with pytest.raises(TypeError, match=r"^floor does not accept dtype complex64\. Accepted "
                                      r"dtypes are subtypes of floating\.$"):
    lax.floor(c)
  with pytest.raises(TypeError, match=r"^rem does not accept dtype complex64 at position 0\. "
                                      r"Accepted dtypes at position 0 are subtypes of integer, "
                                      r"floating\.$"):
    lax.rem(c, c)
  with pytest.raises(TypeError, match=r"^lt does not accept dtype complex64 at position 0\. "
                                      r"Accepted dtypes at position 0 are subtypes of integer, "
                                      r"floating, bool\.$"):
    lax.lt(c, c)
  # the tip names the promoting jnp function where there is one (as JAX)
  with pytest.raises(TypeError, match=r"^lax\.max requires arguments to have the same dtypes, "
                                      r"got float32, complex64\. \(Tip: jnp\.maximum "):
    lax.max(jnp.ones(3), c)
  with pytest.raises(TypeError, match=r"^lax\.igamma requires arguments to have the same "
                                      r"dtypes, got float32, int32\.$"):
    lax.igamma(jnp.ones(3), jnp.arange(3))
  with pytest.raises(TypeError, match=r"^lax\.concatenate requires arguments to have the same "
                                      r"dtypes, got float32, int32\. \(Tip: jnp\.concatenate"):
    lax.concatenate([jnp.ones(3), jnp.arange(3)], 0)
  with pytest.raises(TypeError, match=r"^Cannot concatenate arrays with different numbers of "
                                      r"dimensions: got \(2, 3\), \(4,\)\."):
    jnp.concatenate([jnp.ones((2, 3)), jnp.ones(4)])
  with pytest.raises(TypeError, match=r"^neg does not accept dtype bool\. Accepted dtypes are "
                                      r"subtypes of integer, floating, complexfloating\.$"):
    lax.neg(jnp.ones(3, bool))
  dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                   scatter_dims_to_operand_dims=(0,))
  idx = jnp.arange(3)[:, None]
  with pytest.raises(TypeError, match=r"^Updates tensor must be of rank 1; got 2\."):
    lax.scatter_add(jnp.ones(3), idx, jnp.ones((2, 3)), dn)
  with pytest.raises(TypeError, match="^Bounds of the scatter dimensions of updates must be "
                     "the same as"):
    lax.scatter_add(jnp.ones(3), idx, jnp.ones(4), dn)
  with pytest.raises(ValueError, match="^jax.lax.dot: dimension_numbers must be specified"):
    lax.dot(jnp.ones((2, 2, 2)), jnp.ones(3))
  with pytest.raises(ValueError, match=r"^reduce found non-scalar initial value: \[\(3,\)\]"):
    lax.reduce(jnp.ones(3), jnp.ones(3), lax.add, (0,))
  with pytest.raises(ValueError, match=r"^Incompatible shapes for arguments to "
                     r"triangular_solve: \(3, 3\) and \(4, 1\)\."):
    lax.linalg.triangular_solve(jnp.eye(3), jnp.ones((4, 1)), left_side=True)
  with pytest.raises(TypeError, match="^triangular_solve does not accept dtype int32"):
    lax.linalg.triangular_solve(jnp.eye(3, dtype=int), jnp.eye(3, dtype=int))
  with pytest.raises(ValueError, match="^scan got value with no leading axis to scan over"):
    lax.map(lambda x: x, 1.0)
  lhs, rhs = jnp.ones((1, 1, 5, 5)), jnp.ones((1, 1, 3, 3))
  with pytest.raises(ValueError, match="^conv_general_dilated window and window_strides must "
                     "have the same number of dimensions, but got 2 and 1"):
    lax.conv(lhs, rhs, (1,), "SAME")
  with pytest.raises(TypeError, match="^Wrong number of explicit pads for convolution: "
                     "expected 2, got 1."):
    lax.conv_general_dilated(lhs, rhs, (1, 1), [(0, 0)])
  with pytest.raises(ValueError, match="^`unroll` must be a `bool` or a non-negative `int`."):
    lax.scan(lambda c, x: (c, x), 0.0, jnp.ones(3), unroll=-1)


def test_jacrev_output_dtypes():
  with pytest.raises(TypeError, match=r"^jacrev requires real-valued outputs \(output dtype "
                     r"that is a sub-dtype of np.floating\), but got complex64. For holomorphic"):
    xjax.jacrev(lambda x: x * 1j)(1.0)
  with pytest.raises(TypeError, match="but got int32. For differentiation of functions with "
                     "integer outputs, use jax.vjp directly."):
    xjax.jacrev(lambda x: jnp.int32(1))(1.0)
  with pytest.raises(TypeError, match="^jacrev with holomorphic=True requires outputs with "
                     "complex dtype, but got float32."):
    xjax.jacrev(lambda x: x.real, holomorphic=True)(1j * 1.0)
  assert xjax.jacrev(lambda x: x, holomorphic=True)(1j * 1.0) == 1


def test_grad_output_messages():
  with pytest.raises(TypeError, match=r"^Gradient only defined for scalar-output functions\. "
                                      r"Output had shape: \(3,\)\."):
    xjax.grad(lambda x: x * jnp.ones(3))(1.0)
  for out in (lambda x: (x, x), lambda x: {"a": x}, lambda x: None):
    with pytest.raises(TypeError, match=r"^Gradient only defined for scalar-output functions\. "
                                        r"Output was "):
      xjax.grad(out)(1.0)
  with pytest.raises(TypeError, match="but got int32. For differentiation of functions with "
                     "integer outputs, use jax.vjp directly."):
    xjax.grad(lambda x: x.astype(int))(1.0)
  with pytest.raises(TypeError, match="but got complex64. For holomorphic differentiation"):
    xjax.grad(lambda x: x * 1j)(1.0)


# -- removed keywords, indexing, traced static arguments (messages recorded from JAX 0.10.2)

def test_removed_and_unsupported_keywords():
  x = jnp.arange(3.0)
  with pytest.raises(TypeError, match="got an unexpected keyword argument 'a_min'"):
    jnp.clip(x, a_min=0.0)
  with pytest.raises(TypeError, match="got an unexpected keyword argument 'newshape'"):
    jnp.reshape(x, newshape=(3,))
  with pytest.raises(TypeError, match=r"^'kind' argument to sort is not supported\. Use "
                     "stable=True or stable=False to specify sort stability."):
    jnp.sort(x, kind="stable")
  with pytest.raises(TypeError, match="^'order' argument to sort is not supported."):
    jnp.sort(x, order="a")
  np.testing.assert_array_equal(jnp.clip(x, 0.5, 1.5), [0.5, 1.0, 1.5])


def test_index_with_dict_object_or_string():
  x = jnp.ones((3, 3))
  with pytest.raises(IndexError, match=r"^only integers, slices \(`:`\), ellipsis \(`...`\), "
                     r"newaxis \(`None`\) and integer or boolean arrays are valid indices\. "
                     r"Got \{'a': 1\}"):
    x[{"a": 1}]
  with pytest.raises(IndexError, match="are valid indices. Got <object object"):
    x[object()]
  with pytest.raises(TypeError, match="^JAX does not support string indexing; got idx='a'"):
    x["a"]
  with pytest.raises(TypeError, match=r"^JAX does not support string indexing; got "
                     r"idx=\(0, 'a'\)"):
    x[0, "a"]


_NON_HASHABLE = "^Non-hashable static arguments are not supported"


@pytest.mark.parametrize("fun", [
    lambda n: jnp.round(jnp.ones(3), n), lambda n: jnp.percentile(jnp.ones((2, 3)), 50, axis=n),
    lambda n: jnp.nanquantile(jnp.ones((2, 3)), 0.5, axis=n),
    lambda n: jnp.partition(jnp.ones(3), n), lambda n: jnp.argpartition(jnp.ones(3), n),
    lambda n: jnp.polyfit(jnp.arange(3.0), jnp.ones(3), n),
    lambda n: jnp.linalg.norm(jnp.ones((2, 3)), n),
    lambda n: jnp.linalg.matrix_power(jnp.eye(2), n), lambda n: sla.pascal(n),
    lambda n: sla.hilbert(n), lambda n: jnp.pad(jnp.ones(3), 1, mode="mean", stat_length=n),
    lambda n: jnp.pad(jnp.ones(3), 1, mode="linear_ramp", end_values=n)])
def test_traced_static_argument_is_non_hashable_value_error(fun):
  with pytest.raises(ValueError, match=_NON_HASHABLE):
    xjax.jit(fun)(1)


def test_unhashable_static_argument_given_eagerly():
  with pytest.raises(ValueError, match=_NON_HASHABLE + r".*<class 'list'>, \[0\]"):
    jnp.percentile(jnp.ones((2, 3)), 50, axis=[0])
  with pytest.raises(ValueError, match=_NON_HASHABLE + r".*<class 'list'>, \[1, 2\]"):
    jnp.pad(jnp.ones(3), 1, mode="linear_ramp", end_values=[1, 2])


@pytest.mark.parametrize("fun, context", [
    (lambda n: jnp.eye(n), "argument of 'N' jnp.eye()"),
    (lambda n: jnp.identity(n), "argument of 'N' jnp.eye()"),
    (lambda n: jnp.eye(3, n), "argument 'M' of jnp.eye()")])
def test_traced_eye_dimension_is_shape_type_error(fun, context):
  with pytest.raises(TypeError, match=r"^Shapes must be 1D sequences of concrete values of "
                     r"integer type, got \(.*,\)\. " + re.escape(context)):
    xjax.jit(fun)(3)


def test_traced_diagonal_offset_is_allowed():
  np.testing.assert_array_equal(xjax.jit(lambda k: jnp.eye(3, 4, k))(-1), np.eye(3, 4, -1))
  np.testing.assert_array_equal(xjax.jit(lambda k: jnp.tri(3, 4, k))(1), np.tri(3, 4, 1))


@pytest.mark.parametrize("fun", [
    lambda n: jnp.indices((n,)), lambda n: jnp.triu_indices(n), lambda n: jnp.triu_indices(3, n),
    lambda n: jnp.tril_indices(n), lambda n: jnp.diag_indices(n), lambda n: jnp.pad(jnp.ones(3), n),
    lambda n: jnp.pad(jnp.ones(3), ((n, 1),)), lambda n: jnp.histogram(jnp.ones(3), bins=n),
    lambda n: jnp.histogram2d(jnp.ones(3), jnp.ones(3), bins=n)])
def test_traced_static_integer_is_concretization_error(fun):
  with pytest.raises(xjax.errors.ConcretizationTypeError, match="^Abstract tracer value "
                     r"encountered where concrete value is expected: traced array with shape "
                     r"int32\[\]"):
    xjax.jit(fun)(3)


def test_pad_takes_traced_constant_values():
  out = xjax.jit(lambda v: jnp.pad(jnp.arange(3.0), 1, constant_values=v))(7.0)
  np.testing.assert_array_equal(out, [7, 0, 1, 2, 7])
  out = jnp.pad(jnp.ones((2, 2)), ((1, 0), (0, 1)), constant_values=((2, 3), (4, 5)))
  np.testing.assert_array_equal(out, np.pad(np.ones((2, 2)), ((1, 0), (0, 1)),
                                            constant_values=((2, 3), (4, 5))))
  assert xjax.grad(lambda v: jnp.pad(jnp.arange(3.0), 1, constant_values=v).sum())(2.0) == 2


def test_lax_pad_non_scalar_padding_value():
  with pytest.raises(ValueError, match=r"^padding_value must be a scalar; got "
                     r"np.shape\(padding_value\)=\(3,\)"):
    lax.pad(jnp.ones(3), jnp.ones(3), [(1, 1, 0)])


@pytest.mark.parametrize("name, value, cls, message", [
    ("jax_numpy_rank_promotion", "foo", ValueError,
     "new enum value must be in ['allow', 'warn', 'raise'], got foo of type <class 'str'>."),
    ("jax_default_matmul_precision", 3.5, ValueError,
     "new enum value must be None or in ['default', 'high', 'highest', "),
    ("jax_numpy_dtype_promotion", "foo", ValueError, "'foo' is not a valid NumpyDtypePromotion"),
    ("jax_numpy_dtype_promotion", 3.5, TypeError,
     "new enum value must be an instance of <enum 'NumpyDtypePromotion'>, got 3.5 of type "
     "<class 'float'>."),
    ("jax_num_cpu_devices", "foo", ValueError,
     "new int config value must be None or of type int, got foo of type <class 'str'>"),
    ("jax_platforms", 3.5, ValueError, "new string config value must be None or of type str, "
     "got 3.5 of type <class 'float'>.")])
def test_config_update_checks_values(name, value, cls, message):
  before = getattr(xjax.config, name)
  with pytest.raises(cls, match="^" + re.escape(message)):
    xjax.config.update(name, value)
  assert getattr(xjax.config, name) == before


def test_lax_linalg_symmetrized_integer_input_is_promoted():
  np.testing.assert_allclose(lax.linalg.cholesky(2 * jnp.eye(2, dtype=int)),
                             np.sqrt(2) * np.eye(2), rtol=1e-6)
  np.testing.assert_allclose(lax.linalg.eigh(jnp.array([[2, 1], [1, 2]]))[1], [1, 3],
                             rtol=1e-6)
  with pytest.raises(TypeError, match="^cholesky does not accept dtype int32 at position 0"):
    lax.linalg.cholesky(jnp.eye(2, dtype=int), symmetrize_input=False)


def test_make_jaxpr_of_a_non_callable():
  with pytest.raises(TypeError, match="^the first argument must be callable"):
    xjax.make_jaxpr(1)


@pytest.mark.parametrize("where", ["eager", "jit", "grad", "vmap"])
@pytest.mark.parametrize("call, prim, position, kind", [
    (lambda a: lax.add(a, [1.0, 2.0]), "add", 1, "list"),
    (lambda a: lax.mul("a", a), "mul", 0, "str"),
    (lambda a: lax.exp(None) + a, "exp", 0, "NoneType"),
    (lambda a: lax.concatenate([a, [1.0]], 0), "concatenate", 1, "list"),
])
def test_a_primitive_operand_of_no_jax_type_is_named_with_its_position(where, call, prim,
                                                                       position, kind):
  """JAX 0.10.2's ``Primitive.bind`` text, under every transformation."""
  x = jnp.ones(2)
  run = {"eager": call, "jit": xjax.jit(call), "vmap": xjax.vmap(call),
         "grad": xjax.grad(lambda a: call(a).sum())}[where]
  with pytest.raises(TypeError, match=(
      rf"^Error interpreting argument to {prim} as a JAX value\. The problematic value is of "
      rf"type <class '{kind}'> and was passed to {prim} at position {position}\.\n")):
    run(x)


def test_lax_dot_takes_dimension_numbers_and_keywords_only():
  a, b = jnp.ones((5, 2, 3)), jnp.ones((5, 3, 4))
  out = lax.dot(a, b, dimension_numbers=(([2], [1]), ([0], [0])))
  np.testing.assert_allclose(out, np.full((5, 2, 4), 3.0))
  assert lax.dot(jnp.ones(3), jnp.arange(3.0)).tolist() == 3.0
  with pytest.raises(ValueError, match=r"^jax.lax.dot: dimension_numbers must be specified .*"
                     r"got lhs_shape=\(2, 3\) rhs_shape=\(4, 3\)$"):
    lax.dot(jnp.ones((2, 3)), jnp.ones((4, 3)))  # a mismatched contraction, as JAX words it
  with pytest.raises(TypeError):
    lax.dot(jnp.ones(3), jnp.ones(3), lax.Precision.HIGHEST)  # keyword-only in JAX 0.10.2


def test_transposing_a_product_of_two_linear_values_is_jaxs_assertion_error():
  with pytest.raises(AssertionError, match="^mul of two values that both depend on the "
                                           "inputs being transposed is not linear"):
    xjax.linear_transpose(lambda x: x * x, 1.0)(1.0)
  assert xjax.linear_transpose(lambda x: x * 2.0, 1.0)(1.0) == (2.0,)


def test_float_only_special_functions_refuse_other_dtypes_as_jax():
  x = jnp.arange(1.0, 4.0)
  for bad in (x.astype(jnp.int8), x > 1):
    with pytest.raises(TypeError, match="^random_gamma_grad does not accept dtype "):
      lax.random_gamma_grad(bad, bad)
  with pytest.raises(ValueError, match="^jnp.poch does not support complex-valued inputs"):
    xjax.scipy.special.poch(x.astype(jnp.complex64), x)


def test_a_traced_rfftfreq_length_is_a_bool_conversion_error_as_jax():
  with pytest.raises(xjax.errors.TracerBoolConversionError):
    xjax.jit(jnp.fft.rfftfreq)(4)
  with pytest.raises(xjax.errors.ConcretizationTypeError):
    xjax.jit(jnp.fft.fftfreq)(4)
  np.testing.assert_allclose(jnp.fft.rfftfreq(7, 0.5), np.fft.rfftfreq(7, 0.5), rtol=1e-6)


M34 = jnp.arange(12.0).reshape(3, 4)
I31 = jnp.arange(3)[:, None]
_GD, _SD = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers


@pytest.mark.parametrize("dn, sizes, message", [  # (JAX 0.10.2's words)
    (_GD(offset_dims=(2,), collapsed_slice_dims=(0,), start_index_map=(0,)), (1, 4),
     "Offset dimension 0 in gather op is out of bounds; got 2, but should have been in [0, 2)"),
    (_GD(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(2,)), (1, 4),
     "Invalid start_index_map; domain is [0, 2), got: 0->2."),
    (_GD(offset_dims=(1,), collapsed_slice_dims=(0, 0), start_index_map=(0,)), (1, 4),
     "collapsed_slice_dims in gather op must not repeat; got: (0, 0)."),
    (_GD(offset_dims=(), collapsed_slice_dims=(1, 0), start_index_map=(0,)), (1, 1),
     "collapsed_slice_dims in gather op must be sorted; got (1, 0)"),
    (_GD(offset_dims=(1,), collapsed_slice_dims=(-1,), start_index_map=(0,)), (1, 4),
     "Invalid collapsed_slice_dims set in gather op; valid range is [0, 2); got: -1."),
])
def test_bad_gather_dimension_numbers_are_refused_before_xla(dn, sizes, message):
  with pytest.raises(TypeError, match="^" + re.escape(message)):
    lax.gather(M34, I31, dn, sizes)


@pytest.mark.parametrize("dn, message", [
    (_SD(update_window_dims=(1,), inserted_window_dims=(2,), scatter_dims_to_operand_dims=(0,)),
     "Invalid inserted_window_dims set in scatter op; valid range is [0, 2); got: 2."),
    (_SD(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(3,)),
     "Invalid scatter_dims_to_operand_dims mapping; domain is [0, 2), got: 0->3."),
    (_SD(update_window_dims=(1,), inserted_window_dims=(0, 0), scatter_dims_to_operand_dims=(0,)),
     "inserted_window_dims in scatter op must not repeat; got: (0, 0)."),
    (_SD(update_window_dims=(2,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)),
     "Invalid update_window_dims set in scatter op; valid range is [0, 2); got: 2."),
    (_SD(update_window_dims=(1,), inserted_window_dims=(0,),
         scatter_dims_to_operand_dims=(0, 1)),
     "Scatter op has 2 elements in scatter_dims_to_operand_dims and the bound of dimension "
     "index_vector_dim=1 of indices is 1. These two numbers must be equal"),
])
def test_bad_scatter_dimension_numbers_are_refused_before_xla(dn, message):
  with pytest.raises(TypeError, match="^" + re.escape(message)):
    lax.scatter_add(M34, I31, jnp.ones((3, 4)), dn)


def test_a_traced_top_k_count_is_a_bool_conversion_error_as_jax():
  x = jnp.arange(5.0)
  with pytest.raises(xjax.errors.TracerBoolConversionError):
    xjax.jit(lambda k: lax.top_k(x, k))(2)
  assert lax.top_k(x, jnp.int32(2))[0].tolist() == [4.0, 3.0]
  with pytest.raises(ValueError, match="k argument to top_k must be nonnegative, got -1"):
    lax.top_k(x, -1)
