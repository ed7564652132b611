"""The exception classes (and key message text) users catch, as recorded from JAX 0.10.2.

tools/differential_errors.py compares several hundred such cases with the reference; the
ones pinned here were fixed from it.
"""
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
