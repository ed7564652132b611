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
