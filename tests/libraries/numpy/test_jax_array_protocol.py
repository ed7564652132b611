"""Objects that define ``__jax_array__`` (flax's ``Variable``, a registered pytree, is the
common one) as xjax.numpy's operands: each function takes the array the object gives, as
JAX's ``ensure_arraylike`` does, eagerly and under jit, grad and vmap."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import tree_util


@tree_util.register_pytree_node_class
class Boxed:
  """Holds a value; forwards other attributes to it, as flax's Variable does."""

  def __init__(self, value):
    self.value = value

  def __jax_array__(self):
    return self.value

  def __getattr__(self, name):
    return getattr(self.value, name)

  def tree_flatten(self):
    return (self.value,), None

  @classmethod
  def tree_unflatten(cls, aux, children):
    return cls(*children)


X = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)
FUNCTIONS = {
    "mean": (jnp.mean, np.mean),
    "sum": (lambda a: jnp.sum(a, axis=0), lambda a: np.sum(a, axis=0)),
    "sin": (jnp.sin, np.sin),
    "add": (lambda a: jnp.add(1.0, a), lambda a: 1.0 + a),
    "matmul": (lambda a: jnp.matmul(a, jnp.ones(3)), lambda a: a @ np.ones(3)),
    "where": (lambda a: jnp.where(jnp.greater(a, 2), a, 0.0), lambda a: np.where(a > 2, a, 0.0)),
    "tanh": (jnp.tanh, np.tanh),
    "max": (jnp.max, np.max),
    "cumsum": (jnp.cumsum, np.cumsum),
    "sort": (jnp.sort, np.sort),
    "transpose": (jnp.transpose, np.transpose),
    "softmax": (xjax.nn.softmax, lambda a: np.exp(a) / np.exp(a).sum(-1, keepdims=True)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_take_the_array_an_operand_gives(name):
  f, want = FUNCTIONS[name]
  np.testing.assert_allclose(np.asarray(f(Boxed(X))), want(X), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(xjax.jit(lambda b: f(b))(Boxed(X))), want(X),
                             rtol=1e-6)
  np.testing.assert_allclose(np.asarray(xjax.vmap(lambda r: f(Boxed(r)))(X)),
                             np.stack([want(r) for r in X]), rtol=1e-6)
  g = xjax.grad(lambda a: jnp.sum(f(Boxed(a))))(X)
  g_plain = xjax.grad(lambda a: jnp.sum(f(a)))(X)
  np.testing.assert_allclose(np.asarray(g), np.asarray(g_plain), rtol=1e-6)


class Unregistered:
  """Gives an array by ``__jax_array__`` but is no pytree: JAX 0.10.2 converts it only in
  ``jnp.asarray``/``jnp.array``, the Array operators and its unjitted helpers."""

  def __jax_array__(self):
    return jnp.arange(2.0)


ABSTRACTIFIED = {   # each raises JAX 0.10.2's ValueError (recorded from it)
    "jit": lambda: xjax.jit(lambda a: a)(Unregistered()),
    "device_put": lambda: xjax.device_put(Unregistered()),
    "sin": lambda: jnp.sin(Unregistered()),
    "add": lambda: jnp.add(Unregistered(), 1.0),
    "where": lambda: jnp.where(Unregistered(), 1.0, 0.0),
    "sum": lambda: jnp.sum(Unregistered()),
    "vmap": lambda: xjax.vmap(lambda a: a)(Unregistered()),
    "grad": lambda: xjax.grad(lambda a: a.sum())(Unregistered()),
    "typeof": lambda: xjax.typeof(Unregistered()),
    "lax.sin": lambda: xjax.lax.sin(Unregistered()),
}


@pytest.mark.parametrize("name", sorted(ABSTRACTIFIED))
def test_an_unregistered_object_is_not_abstractified(name):
  with pytest.raises(ValueError, match=r"Triggering __jax_array__\(\) during abstractification"):
    ABSTRACTIFIED[name]()


def test_an_unregistered_object_converts_where_jax_converts_it():
  x = jnp.asarray([3.0, 4.0])
  for got, want in [(x * Unregistered(), [0.0, 4.0]), (Unregistered() * x, [0.0, 4.0]),
                    (x - Unregistered(), [3.0, 3.0]), (Unregistered() - x, [-3.0, -3.0]),
                    (jnp.asarray(Unregistered()), [0.0, 1.0]),
                    (jnp.array(Unregistered()), [0.0, 1.0])]:
    np.testing.assert_array_equal(np.asarray(got), want)
  assert float(x @ Unregistered()) == 4.0
  assert jnp.shape(Unregistered()) == (2,) and jnp.ndim(Unregistered()) == 1
  assert jnp.size(Unregistered()) == 2 and jnp.iscomplexobj(Unregistered()) is False


@pytest.mark.parametrize("like, value", [(jnp.zeros_like, 0.0), (jnp.ones_like, 1.0),
                                         (jnp.empty_like, 0.0),
                                         (lambda a: jnp.full_like(a, 2.0), 2.0)])
def test_like_functions_read_the_shape_and_dtype_of_such_objects(like, value):
  """JAX's ``zeros_like(variable)`` (flax's ``m.kernel[...] = jnp.zeros_like(m.kernel)``
  in a loop body) reads the object's shape and dtype, eagerly and under jit."""
  for out in (like(Boxed(jnp.asarray(X))), xjax.jit(lambda a: like(Boxed(a)))(X)):
    assert out.shape == (2, 3) and out.dtype == np.float32 and not out.weak_type
    np.testing.assert_array_equal(out, np.full((2, 3), value, np.float32))
