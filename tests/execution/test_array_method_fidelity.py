"""Array methods and operators as JAX 0.10.2 has them (found by
tools/differential_expressions.py over tools/expressions/arrays_indexing.txt)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp


def test_round_without_digits_is_an_integer_array():
  r = round(jnp.float32(2.5))
  assert r.dtype == jnp.int32 and int(r) == 2
  assert round(jnp.arange(3.) + 0.4, 1).dtype == jnp.float32


def test_compress_method_takes_the_condition_first():
  x = jnp.arange(6.)
  np.testing.assert_array_equal(x.compress(x > 2), [3., 4., 5.])
  m = jnp.arange(12.).reshape(3, 4)
  assert m.compress(jnp.array([True, False, True, False]), axis=1).shape == (3, 2)


def test_truth_of_empty_arrays_and_list_comparisons_raise():
  with pytest.raises(ValueError, match="empty array is ambiguous"):
    bool(jnp.zeros(0))
  with pytest.raises(TypeError, match="unsupported operand type"):
    jnp.arange(3) == [0, 1, 2]
  with pytest.raises(TypeError, match="unsupported operand type"):
    jnp.arange(3) != (0, 1, 2)
  with pytest.raises(ValueError, match="at least two-dimensional"):
    jnp.arange(3.).mT


def test_view_between_real_and_complex():
  x = jnp.array([1., 2., 3., 4.], jnp.float32)
  z = x.view(jnp.complex64)
  np.testing.assert_array_equal(z, [1 + 2j, 3 + 4j])
  np.testing.assert_array_equal(z.view(jnp.float32), x)


def test_indexed_divide_keeps_the_weak_type_and_repr():
  y = jnp.full(2, 2.).at[0].divide(3.)
  assert y.aval.weak_type
  assert repr(jnp.arange(2.).at[0]).startswith("_IndexUpdateRef(Array([0., 1.]")
  with pytest.raises(NotImplementedError, match="scatter_apply JVP"):
    xjax.grad(lambda a: a.at[1:3].apply(jnp.exp).sum())(jnp.arange(4.))


def test_array_copies_and_repr_layout_as_jax():
  x = jnp.ones(3)
  assert jnp.array(x) is not x and jnp.asarray(x, copy=True) is not x
  assert jnp.asarray(x) is x and jnp.array(x, copy=False) is x
  assert "= copy a" in str(xjax.make_jaxpr(jnp.array)(x))
  text = repr(jnp.array([1.76562, 0.400391, 0.980469, 2.23438, 1.86719, -0.976562],
                        jnp.bfloat16))
  assert text.endswith("],      dtype=bfloat16)")


def test_one_element_division_by_a_scalar_is_ieee_division():
  """XLA rewrites x / c as x * (1/c) only for a result of more than one element."""
  x = jnp.array([-3.], jnp.float32)
  assert np.asarray(x / np.pi ** 2).view(np.uint32)[0] == \
      np.asarray(np.float32(-3.) / np.float32(np.pi ** 2)).view(np.uint32)
