"""Arguments JAX 0.10.2 no longer honours are refused as it refuses them, never silently
ignored: ``reduce_axes`` of grad/value_and_grad/vjp/linear_transpose."""
import pytest

import xjax
import xjax.numpy as jnp


@pytest.mark.parametrize("call, what", [
    (lambda: xjax.vjp(jnp.sin, 1.0, reduce_axes=("i",)), "vjp"),
    (lambda: xjax.grad(jnp.sin, reduce_axes=("i",)), "grad"),
    (lambda: xjax.value_and_grad(jnp.sin, reduce_axes=("i",)), "grad"),
    (lambda: xjax.linear_transpose(lambda x: 2 * x, 1.0, reduce_axes=("i",)), "transpose"),
])
def test_reduce_axes_is_refused(call, what):
  with pytest.raises(NotImplementedError, match=f"reduce_axes argument to {what}"):
    call()


def test_empty_reduce_axes_is_accepted():
  assert float(xjax.grad(lambda x: x * x, reduce_axes=())(3.0)) == 6.0
  out, f_vjp = xjax.vjp(lambda x: 2 * x, 1.0, reduce_axes=())
  assert float(f_vjp(1.0)[0]) == 2.0


def test_non_jax_inputs_raise_the_differentiating_transformations_errors():
  """JAX 0.10.2's texts and classes: grad-family checks end with a period, vjp's is
  ``dtypes.InvalidInputException`` (a TypeError), jvp's and vmap's have no period."""
  from xjax._src.foundations.dtypes import InvalidInputException
  f = lambda x: x
  with_period = "(?m)^Argument 'a' of type <class 'str'> is not a valid JAX type\\.$"
  for call in (lambda: xjax.grad(f)("a"), lambda: xjax.value_and_grad(f)("a"),
               lambda: xjax.jacfwd(f)("a"), lambda: xjax.jacrev(f)("a"),
               lambda: xjax.hessian(f)("a")):
    with pytest.raises(TypeError, match=with_period) as info:
      call()
    assert type(info.value) is TypeError
  with pytest.raises(InvalidInputException, match=with_period):
    xjax.vjp(f, "a")
  for call in (lambda: xjax.jvp(f, ("a",), ("a",)), lambda: xjax.vmap(f)("a")):
    with pytest.raises(TypeError, match="(?m)is not a valid JAX type$"):
      call()
