"""``jax.experimental.primal_tangent_dtype`` (an extended dtype stored as its primal dtype,
whose tangents have another dtype) and ``EArray``, against jaxprs, values and errors of
JAX 0.10.2 (which runs them inside ``jit`` only: eager arrays of such a dtype, and EArrays of
PRNG keys, fail there with internal AttributeErrors)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.experimental import EArray, primal_tangent_dtype

DT = primal_tangent_dtype(jnp.float32, jnp.bfloat16)
X = jnp.arange(3.)


def to(x):
  return lax.convert_element_type(x, DT)


def fro(y):
  return lax.convert_element_type(y, jnp.float32)


def test_dtype_as_jax():
  assert str(DT) == repr(DT) == DT.name == "PrimalTangentDType{f32/bf16}"
  assert (DT.primal_dtype, DT.tangent_dtype) == (np.float32, jnp.bfloat16)
  assert jnp.issubdtype(DT, xjax.dtypes.extended)
  assert DT == primal_tangent_dtype(jnp.float32, jnp.bfloat16)
  assert hash(DT) == hash(primal_tangent_dtype("float32", "bfloat16"))
  assert str(primal_tangent_dtype("float32", "float16", name="mine")) == "mine"
  assert str(primal_tangent_dtype(np.int32, xjax.dtypes.float0)) == "PrimalTangentDType{i32/void}"


def test_conversions_jaxpr_as_jax():
  assert str(xjax.make_jaxpr(lambda x: fro(to(x)))(X)) == """\
{ lambda ; a:f32[3]. let
    b:PrimalTangentDType{f32/bf16}[3] = to_edtype[
      edtype=PrimalTangentDType{f32/bf16}
    ] a
    c:f32[3] = from_edtype[dtype=float32] b
  in (c,) }"""


def test_gradient_takes_the_tangent_dtype_as_jax():
  f = lambda x: (fro(to(x)) ** 2).sum()
  assert float(xjax.jit(f)(X)) == 5.
  np.testing.assert_array_equal(xjax.jit(xjax.grad(f))(X), [0., 2., 4.])
  eqns = xjax.make_jaxpr(xjax.grad(f))(X).eqns
  assert [str(e.outvars[0].aval) for e in eqns[-2:]] == ["bfloat16[3]", "float32[3]"]

  def h(x):  # the cotangent of a primal-tangent value has the tangent dtype
    _, vjp = xjax.vjp(lambda y: fro(y) * 3, to(x))
    return vjp(jnp.ones(3))[0]
  ct = xjax.jit(h)(X)
  assert ct.dtype == jnp.bfloat16
  np.testing.assert_array_equal(ct, [3., 3., 3.])

  def k(x):
    return xjax.jvp(lambda y: fro(y) * 3, (to(x),), (jnp.ones(3, jnp.bfloat16),))
  out, tangent = xjax.jit(k)(X)
  np.testing.assert_array_equal(out, [0., 3., 6.])
  assert tangent.dtype == np.float32
  np.testing.assert_array_equal(tangent, [3., 3., 3.])


def test_structural_operations_and_vmap():
  np.testing.assert_array_equal(xjax.jit(lambda x: fro(to(x)[1:]))(X), [1., 2.])
  np.testing.assert_array_equal(xjax.jit(lambda x: fro(to(x).reshape(3, 1)))(X),
                                [[0.], [1.], [2.]])
  np.testing.assert_array_equal(xjax.jit(lambda x: fro(xjax.vmap(lambda a: a)(to(x))))(X), X)
  # eager (JAX 0.10.2 cannot return such arrays from a computation)
  y = to(X)
  assert y.dtype == DT and y.shape == (3,)
  np.testing.assert_array_equal(fro(y), X)
  np.testing.assert_array_equal(xjax.jit(lambda x: to(x))(X).shape, (3,))


def test_errors_as_jax():
  with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs .* but "
                                      "got PrimalTangentDType"):
    xjax.jit(lambda x: xjax.grad(lambda y: fro(y).sum())(to(x)))(X)
  with pytest.raises(TypeError, match="expected tangent dtype bfloat16, but got tangent dtype "
                                      "float32"):
    xjax.jit(lambda x: xjax.jvp(lambda y: fro(y), (to(x),), (jnp.ones(3),)))(X)
  with pytest.raises(TypeError, match="add does not accept dtype PrimalTangentDType"):
    xjax.jit(lambda x: fro(to(x) + to(x)))(X)
  with pytest.raises(ValueError, match="is not a valid dtype for JAX type promotion"):
    xjax.jit(lambda x: fro(to(x) * 1))(X)
  with pytest.raises(ValueError, match="can only convert from extended dtype to its "
                                       "representation dtype, but tried to convert from "
                                       "PrimalTangentDType{f32/bf16} to int32"):
    xjax.jit(lambda x: lax.convert_element_type(to(x), jnp.int32))(X)
  with pytest.raises(ValueError, match="can only convert to extended dtype from its "
                                       "representation dtype, but tried to convert from int32"):
    xjax.jit(lambda x: to(x.astype(jnp.int32)))(X)


def test_earray():
  key = xjax.random.key(0)
  data = xjax.random.key_data(key)
  e = EArray(xjax.typeof(key), data)
  assert not isinstance(key, EArray) and not isinstance(X, EArray)
  assert e.dtype == key.dtype and e.shape == ()
  np.testing.assert_array_equal(xjax.random.key_data(e), data)
  np.testing.assert_array_equal(xjax.random.uniform(e, (2,)), xjax.random.uniform(key, (2,)))
  y = EArray(xjax.core.ShapedArray((3,), DT), X)
  assert isinstance(y, EArray) and y.dtype == DT
  np.testing.assert_array_equal(xjax.jit(fro)(y), X)
  with pytest.raises(TypeError, match="needs data of type f32\\[3\\]"):
    EArray(xjax.core.ShapedArray((3,), DT), jnp.arange(3))
  with pytest.raises(TypeError, match="extended dtype"):
    EArray(xjax.typeof(X), X)
