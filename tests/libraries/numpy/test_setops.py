"""Set operations: values as NumPy's; without ``size`` they read their inputs' concrete values
as JAX does, so no derivative flows through them (JAX 0.10.2 gives zero gradients), and under
jit they need ``size``."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

X = np.array([0.3, 0.5, 0.7, 0.5], np.float32)
Y = np.array([0.35, 0.5, 0.75], np.float32)
CASES = {
    "union1d": (lambda a, b, **kw: jnp.union1d(a, b, **kw), np.union1d),
    "intersect1d": (lambda a, b, **kw: jnp.intersect1d(a, b, **kw), np.intersect1d),
    "setdiff1d": (lambda a, b, **kw: jnp.setdiff1d(a, b, **kw), np.setdiff1d),
    "setxor1d": (lambda a, b, **kw: jnp.setxor1d(a, b, **kw), np.setxor1d),
    "unique_all": (lambda a, b, **kw: jnp.unique_all(a, **kw).values,
                   lambda a, b: np.unique(a)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_gradients_and_jit(name):
  ours, numpy = CASES[name]
  want = numpy(X, Y)
  np.testing.assert_array_equal(ours(X, Y), want)
  grad = xjax.grad(lambda x: jnp.sum(ours(x, Y)))(jnp.asarray(X))
  np.testing.assert_array_equal(grad, np.zeros_like(X))          # as JAX, eagerly
  with pytest.raises(xjax.errors.ConcretizationTypeError, match=f"jnp.{name}"):
    xjax.jit(lambda x: ours(x, Y))(X)
  sized = xjax.jit(lambda x: ours(x, Y, size=len(want)))(X)
  np.testing.assert_array_equal(sized, want)


def test_isin_methods_agree_with_numpy():
  a = np.array([[1., np.nan, 3.], [2., 0., -0.]], np.float32)
  t = np.array([3, 0, 7], np.int32)
  for method in ("auto", "compare_all", "binary_search", "sort"):
    for invert in (False, True):
      np.testing.assert_array_equal(jnp.isin(a, t, invert=invert, method=method),
                                    np.isin(a, t, invert=invert))
  np.testing.assert_array_equal(xjax.jit(jnp.isin, static_argnames="method")(
      t, a, method="binary_search"), np.isin(t, a))
  with pytest.raises(ValueError, match="method='x' is not implemented"):
    jnp.isin(a, t, method="x")


def test_setdiff1d_keeps_the_first_arrays_dtype():
  """JAX returns elements of ``ar1`` (compared with ``ar2`` after promotion): an int8 array
  less a float one stays int8, a uint8 one less a Python-int-sized value stays uint8."""
  out = jnp.setdiff1d(jnp.array([1, 2, 3], jnp.int8), jnp.array([1.5, 2.0]))
  assert out.dtype == np.int8 and out.tolist() == [1, 3]
  out = jnp.setdiff1d(jnp.array([3, 1, 3, 7], jnp.uint8), jnp.array([300]))
  assert out.dtype == np.uint8 and out.tolist() == [1, 3, 7]
  sized = xjax.jit(lambda a: jnp.setdiff1d(a, jnp.array([1, 2]), size=4))(
      jnp.arange(6, dtype=jnp.int32))
  assert sized.dtype == np.int32 and sized.tolist() == [0, 3, 4, 5]


def test_intersect1d_indices_dtype_when_inputs_are_unique():
  """JAX 0.10.2 types intersect1d's indices int32 under x64 when it sorts the inputs as
  given (assume_unique, no size), the default integer otherwise."""
  a, b = np.array([1, 3, 4]), np.array([3, 1, 2])
  with xjax.enable_x64(True):
    vals, i1, i2 = jnp.intersect1d(a, b, assume_unique=True, return_indices=True)
    assert vals.dtype == np.int64 and i1.dtype == i2.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(i1), [0, 1])
    np.testing.assert_array_equal(np.asarray(i2), [1, 0])
    assert jnp.intersect1d(a, b, return_indices=True)[1].dtype == np.int64
    assert jnp.intersect1d(a, b, return_indices=True, size=3)[1].dtype == np.int64
