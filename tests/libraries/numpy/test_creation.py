"""xjax.numpy's array creation against NumPy: the linspace family, eye/identity/tri,
triangles, diagonals, trace and meshgrid (values and dtypes)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A, I


def test_linspace_family():
  check(jnp.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
  check(jnp.linspace(0, 10, 5, dtype=int), np.linspace(0, 10, 5, dtype=np.int32))
  out, step = jnp.linspace(0, 1, 4, endpoint=False, retstep=True)
  ref, rstep = np.linspace(0, 1, 4, endpoint=False, retstep=True)
  check(out, ref.astype(np.float32))
  np.testing.assert_allclose(step, rstep)
  check(jnp.linspace(np.array([0., 1.]), np.array([1., 3.]), 3, axis=-1),
        np.linspace(np.array([0., 1.]), np.array([1., 3.]), 3, axis=-1).astype(np.float32))
  check(jnp.linspace(2, 3, 1), np.linspace(2, 3, 1).astype(np.float32))
  check(jnp.linspace(2, 3, 0), np.linspace(2, 3, 0).astype(np.float32))
  check(jnp.logspace(0, 2, 3), np.logspace(0, 2, 3).astype(np.float32), rtol=1e-5)
  check(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4).astype(np.float32), rtol=1e-5)
  check(jnp.geomspace(-1, -100, 3), np.geomspace(-1, -100, 3).astype(np.float32), rtol=1e-5)


def test_matrices():
  check(jnp.eye(3), np.eye(3, dtype=np.float32))
  check(jnp.eye(2, 3, k=-1, dtype=int), np.eye(2, 3, k=-1, dtype=np.int32))
  check(jnp.identity(2, dtype=bool), np.identity(2, dtype=bool))
  check(jnp.tri(3, 4, k=1), np.tri(3, 4, k=1, dtype=np.float32))
  check(jnp.tril(A), np.tril(A))
  check(jnp.triu(I, -1), np.triu(I, -1))
  for k in (-2, 0, 1):
    check(jnp.diag(np.arange(3), k), np.diag(np.arange(3), k).astype(np.int32))
    check(jnp.diag(A, k), np.diag(A, k))
  check(jnp.diagonal(np.arange(24.).reshape(2, 3, 4), 1, -1, 0),
        np.diagonal(np.arange(24.).reshape(2, 3, 4), 1, -1, 0).astype(np.float32))
  check(jnp.diagflat(np.arange(2.)), np.diagflat(np.arange(2.)).astype(np.float32))
  check(jnp.trace(I), np.trace(I).astype(np.int32))
  check(jnp.trace(A, -1), np.trace(A, -1))
  for kw in ({}, {"indexing": "ij"}, {"sparse": True}):
    check(jnp.meshgrid(np.arange(3), np.arange(2.), np.arange(4), **kw),
          [x.astype(np.float32 if x.dtype == np.float64 else np.int32)
           for x in np.meshgrid(np.arange(3), np.arange(2.), np.arange(4), **kw)])


def test_full_and_full_like_broadcast_an_array_fill_value():
  row = np.arange(3.)
  check(jnp.full((2, 3), row), np.full((2, 3), row).astype(np.float32))
  # the result has a's dtype (not weak) unless dtype is given; shape= overrides a's
  check(jnp.full_like(np.ones((2, 3), np.int32), row), np.full((2, 3), row, np.int32))
  check(jnp.full_like(np.ones((2, 3), np.int32), row, dtype=np.float16),
        np.full((2, 3), row, np.float16))
  check(jnp.full_like(A, row[:1], shape=(2, 5)), np.zeros((2, 5), np.float32))
  check(xjax.jit(jnp.full_like)(np.ones((2, 3), np.float32), row.astype(np.float32)),
        np.full((2, 3), row, np.float32))
  check(xjax.vmap(lambda b: jnp.full_like(np.ones((2, 3), np.float32), b))(np.eye(3)),
        np.broadcast_to(np.eye(3, dtype=np.float32)[:, None], (3, 2, 3)))
  check(xjax.grad(lambda b: jnp.full_like(np.ones((2, 3), np.float32), b).sum())(
      np.ones(3, np.float32)), np.full(3, 2., np.float32))
  with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input "
                                       r"type=float32\[4\] and requested type=float32\[3\]"):
    jnp.full_like(np.ones(3, np.float32), np.ones(4, np.float32))
  with pytest.raises(ValueError, match="Cannot broadcast to shape with fewer dimensions"):
    jnp.full_like(2., np.ones(3))
  with pytest.raises(TypeError, match=r"full_like requires ndarray or scalar arguments, got "
                                      r"<class 'list'> at position 1\."):
    jnp.full_like(A, [1, 2])
  with pytest.raises(TypeError, match=r"full requires ndarray or scalar arguments"):
    jnp.full((2, 3), [1, 2, 3])


def test_arange_bounds_are_real_scalars():
  with pytest.raises(ValueError, match="Passing complex start/stop/step to jnp.arange"):
    jnp.arange(0, 3, 1j)
  with pytest.raises(ValueError, match="Passing complex start/stop/step to jnp.arange"):
    jnp.arange(jnp.asarray(2j))
  with pytest.raises(ValueError, match=r"jax.numpy.arange: arguments must be scalars; got stop="):
    jnp.arange(np.ones(3))
  with pytest.raises(TypeError, match=r"arange requires ndarray, scalar, or None arguments, "
                                      r"got <class 'list'> at position 0\."):
    jnp.arange([1])
  check(jnp.arange(3, dtype=np.complex64), np.arange(3, dtype=np.complex64))


def test_an_array_is_not_a_dtype():
  x = jnp.ones(3)
  for f in (lambda: jnp.zeros(3, dtype=x), lambda: x.astype(x),
            lambda: xjax.lax.convert_element_type(x, x), lambda: xjax.jit(lambda v: v.astype(v))(x)):
    with pytest.raises(ValueError, match=r"Passing an array as a dtype argument .*instead of "
                                         r"dtype=arr use dtype=arr\.dtype\."):
      f()
  with pytest.raises(TypeError, match="Cannot construct a dtype from an array"):
    x.astype(np.ones(3))


def test_strings_are_values_not_dtype_names():
  # 'a' in a sequence is a string value (<U1), not NumPy's bytes type code
  for bad in (["a", "b"], [1, "a"]):
    with pytest.raises(TypeError, match=r"Value 'a' with dtype <U1 is not a valid JAX array "
                                        r"type"):
      jnp.array(bad)


def test_diagonal_of_one_axis_twice():
  with pytest.raises(TypeError, match="axis1 and axis2 must be different axes"):
    jnp.diagonal(A, axis1=0, axis2=-2)


def test_only_the_keep_memory_order_is_accepted():
  x = jnp.ones((2, 2))
  for make in (lambda: jnp.array(x, order="F"), lambda: jnp.asarray(x, order="C"),
               lambda: jnp.copy(x, order="F")):
    with pytest.raises(NotImplementedError, match="Only implemented for order='K'"):
      make()
  assert jnp.array([1, 2], order="K").tolist() == [1, 2]
  with pytest.raises(TypeError):   # Array.copy takes no order, as JAX's
    x.copy(order="F")


def test_logical_ufunc_reduce_takes_a_dtype():
  out = jnp.logical_and.reduce(jnp.array([True, False]), dtype=jnp.int32)
  assert out.dtype == np.int32 and int(out) == 0


def test_reshape_and_ravel_orders_as_jax():
  x = jnp.arange(6).reshape(2, 3)
  assert jnp.reshape(x, (3, 2), order="F").tolist() == [[0, 4], [3, 2], [1, 5]]
  assert x.ravel(order="F").tolist() == [0, 3, 1, 4, 2, 5]
  with pytest.raises(NotImplementedError, match="np.reshape order=A is not implemented."):
    x.reshape((3, 2), order="A")
  with pytest.raises(NotImplementedError, match="Ravel not implemented for order='K'."):
    jnp.ravel(x, order="K")
  with pytest.raises(ValueError, match="Unexpected value for 'order' argument: Z."):
    jnp.reshape(x, (3, 2), order="Z")



def test_reshape_of_numpy_input_is_numpy_as_in_jax():
  """JAX's jnp.reshape hands a value with its own ``reshape`` method (a NumPy array) to it:
  the result is a NumPy array of the input's dtype (float64 even without x64)."""
  x = np.arange(6, dtype=np.float64)
  out = jnp.reshape(x, (2, 3))
  assert type(out) is np.ndarray and out.dtype == np.float64
  np.testing.assert_array_equal(jnp.reshape(x, (3, 2), order="F"),
                                x.reshape((3, 2), order="F"))
  assert type(jnp.reshape(np.float32(2), (1,))) is np.ndarray
  with pytest.raises(ValueError, match="cannot reshape array of size 6"):
    jnp.reshape(x, (4, 2))   # (NumPy's own error, as JAX's)
  with pytest.raises(TypeError, match="reshape requires ndarray or scalar arguments"):
    jnp.reshape([1, 2, 3, 4], (2, 2))
  out = jnp.reshape(2.0, (1,))   # (a Python scalar has no method: an Array)
  assert isinstance(out, xjax.Array) and out.dtype == np.float32 and out.aval.weak_type
  assert jnp.reshape.__name__ == "reshape"
  traced = xjax.jit(lambda y: jnp.reshape(y, (2, 3)))(x)   # (inside jit: a tracer)
  assert isinstance(traced, xjax.Array) and traced.dtype == np.float32

def _traceback_files(e):
  files, tb = [], e.__traceback__
  while tb is not None:
    files.append(tb.tb_frame.f_code.co_filename)
    tb = tb.tb_next
  return files


@pytest.mark.parametrize("make, error, message", [
    # JAX 0.10.2 raises NumPy's ValueError for a ragged list, and names the function
    (lambda: jnp.array([[1, 2], [3]]), ValueError, "inhomogeneous shape after 1 dimensions"),
    (lambda: jnp.asarray([[1.0], [2.0, 3.0]]), ValueError, "inhomogeneous shape"),
    (lambda: jnp.ones_like([[1], [2, 3]]), TypeError,
     "ones_like requires ndarray or scalar arguments, got <class 'list'> at position 0."),
    (lambda: jnp.zeros((2, -1)), TypeError, "non-negative"),
])
def test_constructor_errors_are_raised_from_the_users_call(make, error, message):
  with pytest.raises(error, match=message.replace("(", ".").replace(")", ".")) as e:
    make()
  import xjax._src
  internal = [f for f in _traceback_files(e.value) if f.startswith(xjax._src.__path__[0])]
  assert internal == [] and _traceback_files(e.value)[-1] == __file__


def test_diagonal_matrices_and_meshgrid_against_numpy():
  v = np.array([1.5, -2., 0.5], np.float32)
  for k in (-2, 0, 1):
    np.testing.assert_array_equal(jnp.diag(v, k), np.diag(v, k))
  m = np.arange(12., dtype=np.float32).reshape(3, 4)
  for k in (-1, 0, 2):
    np.testing.assert_array_equal(jnp.triu(m, k), np.triu(m, k))
    np.testing.assert_array_equal(jnp.tril(m, k), np.tril(m, k))
    np.testing.assert_array_equal(jnp.trace(m, k), np.trace(m, k))
  grids = zip(jnp.meshgrid(v, v[:2], v, sparse=True), np.meshgrid(v, v[:2], v, sparse=True))
  for got, want in grids:
    np.testing.assert_array_equal(got, want)
  with pytest.raises(ValueError, match="only supports copy=True"):
    jnp.meshgrid(v, copy=False)


_OUTSIDE = jnp.ones(3)


def _kinds():
  """Whether each constructor's result is traced (inside the function being traced)."""
  g = _OUTSIDE
  made = dict(list=jnp.array([1, 2]), scalar=jnp.array(3.), numpy=jnp.array(np.ones(2)),
              asarray_numpy=jnp.asarray(np.ones(2)), asarray_int=jnp.asarray(2),
              tuple=jnp.array((1, 2)), scalar_type=jnp.float32(3.), bool_=jnp.bool_(True),
              asarray_array=jnp.asarray(g), astype=g.astype(jnp.float32),
              astype_scalar=jnp.asarray(g[0]).astype(jnp.int32),
              convert=xjax.lax.convert_element_type(g, jnp.float32))
  return {k: isinstance(v, xjax.core.Tracer) for k, v in made.items()}


def test_constructors_inside_jit_are_traced_as_in_jax():
  # JAX 0.10.2: inside jit every constructor's result is a tracer (the value is a constant
  # of the jaxpr), except asarray of an existing Array; under vmap or grad they stay arrays
  seen = {}

  def f(x):
    seen["jit"] = _kinds()
    return x
  xjax.jit(f)(1.)
  assert seen["jit"] == {"list": True, "scalar": True, "numpy": True, "asarray_numpy": True,
                         "asarray_int": True, "tuple": True, "scalar_type": True,
                         "bool_": True, "asarray_array": False, "astype": True,
                         "astype_scalar": True, "convert": True}
  xjax.vmap(lambda x: seen.__setitem__("vmap", _kinds()) or x)(jnp.ones(2))
  xjax.grad(lambda x: seen.__setitem__("grad", _kinds()) or x)(1.)
  with xjax.ensure_compile_time_eval():
    xjax.jit(lambda x: seen.__setitem__("folded", _kinds()) or x)(2.)
  for where in ("vmap", "grad", "folded"):
    assert not any(seen[where].values()), where


def test_traced_constants_behave_as_jaxs():
  x = jnp.ones((2, 3))
  # a boolean mask made with jnp inside jit is not concrete (NumPy's is)
  with pytest.raises(xjax.errors.NonConcreteBooleanIndexError):
    xjax.jit(lambda v: v[:, jnp.array([True, False, True])])(x)
  check(xjax.jit(lambda v: v[:, np.array([True, False, True])])(x), np.ones((2, 2), np.float32))
  # the seed's example: the product of jnp.array(x.shape) is traced, so it is no shape
  with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
    xjax.jit(lambda v: v.reshape(jnp.array(v.shape).prod()))(x)
  # the constant is a constvar of the jaxpr, and scalar conversions still fold to literals
  text = str(xjax.make_jaxpr(lambda v: v + jnp.array([0, 2, 3]) + jnp.array(2) * 1.5)(x))
  assert text == (
      "{ lambda a:i32[3]; b:f32[2,3]. let\n"
      "    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=False] a\n"
      "    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n"
      "    e:f32[2,3] = add b d\n"
      "    f:f32[] = mul 2.0:f32[] 1.5:f32[]\n"
      "    g:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f\n"
      "    h:f32[2,3] = add e g\n"
      "  in (h,) }"), text


def test_functions_jax_jits_give_tracers_inside_jit_even_for_no_ops():
  # JAX 0.10.2: jnp functions it jits (and stop_gradient, which binds) return tracers
  # inside jit even where they pass a concrete input through; lax's no-ops return it
  h = _OUTSIDE
  seen = {}

  def f(x):
    made = dict(stop_gradient=xjax.lax.stop_gradient(h), stop_int=xjax.lax.stop_gradient(3),
                squeeze=jnp.squeeze(h), ravel=jnp.ravel(h), real=jnp.real(h),
                moveaxis=jnp.moveaxis(h, 0, 0), broadcast_arrays=jnp.broadcast_arrays(h, h)[0],
                conj=jnp.conj(h))
    seen.update({k: isinstance(v, xjax.core.Tracer) for k, v in made.items()})
    seen["lax_squeeze"] = xjax.lax.squeeze(h, ()) is h
    seen["lax_reshape"] = xjax.lax.reshape(h, (3,)) is h
    return x
  xjax.jit(f)(1.)
  assert all(seen.values()), seen
  assert xjax.lax.stop_gradient(2.0) == 2.0 and not isinstance(jnp.squeeze(h), xjax.core.Tracer)


@pytest.mark.parametrize("value,first", [
    (["a", "b"], "Value 'a' with dtype <U1"), ({"a": 1}, "Value '{'a': 1}' with dtype object"),
    ([1, "a"], "Value 'a' with dtype <U1"), (b"ab", "Value 'b'ab'' with dtype |S2"),
    ([{"a": 1}], "Value '{'a': 1}' with dtype object"), ("abc", "Value 'abc' with dtype <U3"),
])
def test_array_of_values_no_array_holds_raises_jax_text(value, first):
  """JAX 0.10.2's TypeError, naming the first value that no array can hold."""
  with pytest.raises(TypeError) as info:
    jnp.array(value)
  assert str(info.value) == (f"{first} is not a valid JAX array type. Only arrays of numeric "
                             "types are supported by JAX.")
  with pytest.raises(TypeError, match="^Dtype <U1 is not a valid JAX array type"):
    xjax.device_put(np.array(["x"]))
