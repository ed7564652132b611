"""Result dtypes and weak types under ``jax_enable_x64`` where JAX's functions pick their
own: values and types recorded from JAX 0.10.2 (found by running the expression sweep,
tools/differential_expressions.py, with ``--x64``)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request):
  xjax.config.update("jax_enable_x64", request.param)
  try:
    yield request.param
  finally:
    xjax.config.update("jax_enable_x64", False)


def _type(v):
  return str(v.dtype), bool(v.weak_type)


def test_rint_and_angle_of_integers_give_the_default_float(x64):
  wide = "float64" if x64 else "float32"
  i = jnp.arange(-2, 3, dtype=jnp.int32)
  assert _type(jnp.rint(i)) == (wide, False)
  assert _type(jnp.rint(i > 0)) == (wide, False)
  assert _type(jnp.rint(3)) == (wide, False)
  assert _type(jnp.angle(i)) == (wide, False)
  assert _type(jnp.angle(3)) == (wide, False)
  assert _type(jnp.angle(3.0)) == (wide, False)
  assert _type(jnp.angle(2 + 3j)) == ("float64" if x64 else "float32", True)
  assert _type(jnp.angle(jnp.array([1 + 1j], jnp.complex64))) == ("float32", False)
  np.testing.assert_array_equal(jnp.rint(i), [-2, -1, 0, 1, 2])
  np.testing.assert_allclose(jnp.angle(i), [np.pi, np.pi, 0, 0, 0])
  assert _type(xjax.vmap(jnp.rint)(i)) == (wide, False)


def test_matrix_rank_counts_in_the_default_integer_and_tri_is_float32(x64):
  wide = "int64" if x64 else "int32"
  assert _type(jnp.linalg.matrix_rank(jnp.ones((3, 3)))) == (wide, False)
  assert _type(jnp.linalg.matrix_rank(jnp.ones((2, 3, 3)))) == (wide, False)
  assert _type(jnp.linalg.matrix_rank(jnp.ones(3))) == ("int32", False)  # (a vector: JAX's)
  assert int(jnp.linalg.matrix_rank(jnp.ones((3, 3)))) == 1
  assert _type(jnp.tri(3)) == ("float32", False)  # whatever x64 says, as JAX's default
  assert _type(jnp.tri(2, dtype=int)) == (wide, False)


def test_scatter_max_gradients_under_x64(x64):
  """The chooser JVP's constants are typed as the updates (a Python float was float64 under
  x64, which lax refuses beside float32)."""
  x = jnp.arange(4.0, dtype=jnp.float32)
  g = xjax.grad(lambda a: a.at[jnp.array([1, 2])].max(0.0).sum())(x)
  assert _type(g) == ("float32", False)
  np.testing.assert_array_equal(g, [1, 1, 1, 1])
  u = jnp.array([1.0, 0.0, 5.0], jnp.float32)
  g = xjax.grad(lambda a: a.at[jnp.array([0, 0, 1])].min(u).sum())(jnp.array([1., 2., 3.],
                                                                             jnp.float32))
  np.testing.assert_array_equal(g, [0, 1, 1])  # (JAX 0.10.2's)


def test_regular_grid_interpolator_promotes_values_with_the_points(x64):
  """As JAX's: the result's dtype is the values' promoted with the points' (float64 points
  under x64 give float64), integer values become inexact; values against SciPy's."""
  import scipy.interpolate
  from xjax.scipy.interpolate import RegularGridInterpolator
  values = np.arange(12.0, dtype=np.float32).reshape(3, 4) ** 1.5
  grid = (np.arange(3.0), np.arange(4.0))
  points = np.array([[0.5, 0.5], [1.2, 2.7]])
  out = RegularGridInterpolator(tuple(map(jnp.asarray, grid)), jnp.asarray(values))(
      jnp.asarray(points))
  assert _type(out) == ("float64" if x64 else "float32", False)
  np.testing.assert_allclose(out, scipy.interpolate.RegularGridInterpolator(grid, values)(points),
                             rtol=1e-6)
  ints = RegularGridInterpolator(grid, jnp.arange(12, dtype=jnp.int32).reshape(3, 4))(
      np.array([[0.5, 0.5]], np.float32))
  assert _type(ints) == ("float64" if x64 else "float32", False)  # (the grid's float64)


def test_user_ufunc_at_keeps_the_arrays_dtype_beside_python_scalars(x64):
  """``jnp.ufunc(f, 2, 1).at(x, idx, 1.)``: the result dtype is ``f``'s on one element of
  each operand with weak types kept, so a Python float defers to float32 ``x`` (JAX's)."""
  add = jnp.ufunc(lambda a, c: a + c, 2, 1, name="add3")
  x = jnp.asarray(np.linspace(-1, 2, 6).astype(np.float32))
  out = add.at(x, jnp.array([0, 0, 2]), 1.0, inplace=False)
  assert _type(out) == ("float32", False)
  expected = np.asarray(x).copy()
  np.add.at(expected, [0, 0, 2], np.float32(1))
  np.testing.assert_array_equal(out, expected)
  ints = add.at(jnp.arange(6, dtype=jnp.int32), jnp.array([0, 0, 2]), 1, inplace=False)
  assert _type(ints) == ("int32", False)
  np.testing.assert_array_equal(ints, [2, 1, 3, 3, 4, 5])
  with pytest.raises(ValueError, match="axis 0 is out of bounds for array of dimension 0"):
    add.reduce(3.0)


def test_vector_norm_of_integers_is_not_promoted_first(x64):
  """JAX's ``jnp.linalg.vector_norm`` of integers (values and types recorded from JAX
  0.10.2): the 2-norm is the float of the integer sum of squares, the 1-norm and inf-norm
  stay integers, the 0-norm raises, another order is cast to the integer dtype."""
  i = jnp.array([[3, -4, 0], [1, 2, -2]], jnp.int32)
  wide_float, wide_int = ("float64", "int64") if x64 else ("float32", "int32")
  two = jnp.linalg.vector_norm(i)
  assert _type(two) == (wide_float, False)
  np.testing.assert_allclose(two, np.sqrt(34), rtol=1e-6)
  one = jnp.linalg.vector_norm(i, ord=1)
  assert _type(one) == (wide_int, False) and int(one) == 12
  top = jnp.linalg.vector_norm(i, ord=np.inf)
  assert _type(top) == ("int32", False) and int(top) == 4
  assert int(jnp.linalg.vector_norm(i, ord=3)) == 1  # (1/3 cast to an integer: JAX's)
  with pytest.raises(ValueError, match="not inexact"):
    jnp.linalg.vector_norm(i, ord=0)
  assert _type(jnp.linalg.vector_norm(jnp.array([True, False, True]))) == (wide_float, False)
  np.testing.assert_array_equal(jnp.linalg.vector_norm(i, axis=0, ord=1), [4, 6, 2])
