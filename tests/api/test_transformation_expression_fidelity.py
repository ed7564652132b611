"""Transformation details found by tools/differential_expressions.py
(tools/expressions/transformations.txt), pinned to JAX 0.10.2's behaviour."""
import pickle

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax


def test_float0_results_carry_their_type():
  ints = jnp.arange(3)
  g = xjax.grad(lambda a, n: (a * n).sum(), argnums=1, allow_int=True)(jnp.ones(3), ints)
  assert g.dtype == xjax.dtypes.float0 and g.shape == (3,)
  assert g.weak_type is False and str(g.aval) == "float0[3]"
  assert repr(g) == "TypedNdArray([(b'',), (b'',), (b'',)], dtype=void)"  # JAX's text
  assert type(np.asarray(g)) is np.ndarray
  assert pickle.loads(pickle.dumps(g)).aval == g.aval  # (JAX 0.10.2's loses its aval)
  _, t = xjax.jvp(lambda n: n * 2, (ints,), (g,))
  assert t.dtype == xjax.dtypes.float0 and t.weak_type is False
  _, pullback = xjax.vjp(lambda a, n: a * n, jnp.ones(3), ints)
  assert pullback(jnp.ones(3))[1].aval.weak_type is False


def test_eval_shape_of_a_jitted_function_keeps_its_static_arguments():
  tile = xjax.jit(lambda a, n: jnp.tile(a, n), static_argnums=1)
  out = xjax.eval_shape(tile, jnp.ones(6), 3)
  assert (out.shape, out.dtype) == ((18,), jnp.float32)


def test_a_numpy_integer_names_a_static_argument():
  f = xjax.jit(lambda a, n: a * n, static_argnums=np.int64(1))
  np.testing.assert_array_equal(f(jnp.arange(3.), 2), [0., 2., 4.])


def test_a_pure_callback_without_results_is_never_called():
  calls = []
  callback = lambda a: calls.append(a)
  assert xjax.pure_callback(callback, None, jnp.ones(3)) is None
  assert xjax.jit(lambda a: xjax.pure_callback(callback, None, a))(jnp.ones(3)) is None
  assert xjax.pure_callback(callback, (), jnp.ones(3)) == ()
  assert calls == []


def test_map_with_batch_size_zero_is_one_vmap():
  x = jnp.arange(6.)
  np.testing.assert_array_equal(lax.map(jnp.sin, x, batch_size=0), jnp.sin(x))


def test_scanning_a_python_scalar_is_a_value_error_and_a_0d_array_an_index_error():
  body = lambda c, a: (c + a, None)
  with pytest.raises(ValueError, match="no leading axis to scan over: 3.0"):
    lax.scan(body, 0., 3.)
  with pytest.raises(IndexError):
    lax.scan(body, 0., jnp.array(3.))
  with pytest.raises(ValueError, match="no leading axis"):
    lax.map(jnp.sin, 3.)
  with pytest.raises(IndexError):
    lax.map(jnp.sin, jnp.array(3.))


def test_grad_with_no_argnums_is_a_value_error():
  for transform in (xjax.grad, xjax.value_and_grad):
    with pytest.raises(ValueError, match=r"argnums=\(\) selects no argument"):
      transform(lambda a: a * 2., argnums=())(1.)


def test_frexp_tangent_is_strong_and_its_cotangent_weak():
  g = xjax.grad(lambda a: jnp.frexp(a)[0])(3.)
  assert float(g) == 0.25 and g.weak_type          # JAX's: the weak input's cotangent
  assert not xjax.grad(lambda a: jnp.frexp(a)[0])(jnp.float32(3.)).weak_type


def test_a_float0_literal_prints_as_jax_prints_it():
  text = str(xjax.make_jaxpr(lambda a: xjax.jvp(jnp.frexp, (a,), (1.,)))(3.))
  assert "(b'',):float0[]" in text


def test_inputs_handed_back_are_canonicalized_as_jax():
  """JAX 0.10 hands back inputs a transformation did not compute as typed host values
  (the reference's reprs)."""
  aux = xjax.grad(lambda a: (a ** 2, a), has_aux=True)(2.)[1]
  assert repr(aux) == "TypedFloat(2.0, dtype=float32)" and aux == 2.0
  assert aux.aval.weak_type and aux.dtype == jnp.float32
  assert repr(xjax.vjp(lambda a: a, 3.)[0]) == "TypedFloat(3.0, dtype=float32)"
  assert repr(xjax.vjp(lambda a: a, np.ones(2, np.float32))[0]) == (
      "TypedNdArray([1., 1.], dtype=float32)")
  assert xjax.vjp(lambda a: 3., 2.)[0] == 3.0            # a constant stays as it is
  assert repr(lax.stop_gradient(2)) == "TypedInt(2, dtype=int32)"
  assert repr(lax.stop_gradient(np.float64(2.5))) == "TypedNdArray(2.5, dtype=float32)"
  assert repr(lax.stop_gradient(1 + 2j)) == "TypedComplex((1+2j), dtype=complex64)"
  assert lax.stop_gradient(True) is True
  assert jnp.asarray(aux).weak_type and pickle.loads(pickle.dumps(aux)) == aux


def test_eager_checkpoint_rounds_as_without_it():
  """checkpoint's body runs equation by equation eagerly (as JAX's), so its gradient has
  the bits of the gradient without checkpoint; a constant output comes back typed."""
  sq = jnp.asarray(np.random.RandomState(0).standard_normal((3, 3)).astype(np.float32))
  f = lambda a: jnp.tanh(a @ sq).sum()
  for policy in (None, xjax.checkpoint_policies.dots_saveable):
    np.testing.assert_array_equal(xjax.grad(xjax.checkpoint(f, policy=policy))(sq),
                                  xjax.grad(f)(sq))
  assert repr(xjax.checkpoint(lambda a: 3.)(2.)) == "TypedFloat(3.0, dtype=float32)"
