"""Arguments JAX 0.10.2 no longer honours are refused as it refuses them, never silently
ignored: ``reduce_axes`` of grad/value_and_grad/vjp/linear_transpose; values of no JAX type,
with the texts JAX gives where they arrive."""
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.sharding import PartitionSpec as P


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


class _NoJaxType:
  def __repr__(self) -> str:
    return "<obj>"


def test_values_of_no_jax_type_raise_the_texts_jax_gives_where_they_arrive():
  """JAX 0.10.2's texts: an object of no JAX type is 'not a valid JAX type' with its type
  quoted (vmap, jvp, cond, scan), a string with its type bare, and shard_map's, checkpoint's
  and device_put's arguments 'cannot be interpreted as an abstract array'."""
  o, f = _NoJaxType(), lambda a: a
  quoted = "Argument '<obj>' of type '<class 'tests.api.test_refused_arguments._NoJaxType'>' "
  for call in (lambda: xjax.vmap(f)(o), lambda: xjax.jvp(f, (o,), (o,)),
               lambda: lax.cond(True, f, f, o),
               lambda: lax.scan(lambda c, a: (c, a), o, None, length=2)):
    with pytest.raises(TypeError) as info:
      call()
    assert str(info.value).split("\n")[0] == quoted + "is not a valid JAX type"
  with pytest.raises(TypeError) as info:
    xjax.vmap(f)("a")
  assert str(info.value).split("\n")[0] == ("Argument 'a' of type <class 'str'> is not a valid "
                                             "JAX type")
  mesh = xjax.sharding.AbstractMesh((1,), ("d",))
  cannot = ("Cannot interpret value of type <class 'tests.api.test_refused_arguments."
            "_NoJaxType'> as an abstract array; it does not have a dtype attribute")
  for call in (lambda: xjax.shard_map(f, mesh=mesh, in_specs=P(), out_specs=P())(o),
               lambda: xjax.checkpoint(f)(o), lambda: xjax.device_put(o)):
    with pytest.raises(TypeError) as info:
      call()
    assert str(info.value).split("\n")[0] == cannot
