"""A short tour of xjax through the examples of the JAX FAQ and "How to think in JAX"."""
from functools import partial

import numpy as np

import xjax as jax
import xjax.numpy as jnp
from xjax import lax

x_np = np.linspace(0, 10, 5)
print("jnp mirrors NumPy:", np.allclose(2 * np.sin(x_np) * np.cos(x_np),
                                        2 * jnp.sin(jnp.linspace(0, 10, 5)) * jnp.cos(jnp.linspace(0, 10, 5)), atol=1e-6))
x = jnp.arange(10)
try:
  x[0] = 10
except TypeError as e:
  print("arrays are immutable:", str(e).splitlines()[0][:70], "...")
print("functional update x.at[0].set(10):", x.at[0].set(10))

print("jnp.add(1, 1.0) promotes:", repr(jnp.add(1, 1.0)))
try:
  lax.add(1, 1.0)
except TypeError as e:
  print("lax.add(1, 1.0) is strict:", str(e).split(". (")[0])


def norm(X):
  X = X - X.mean(0)
  return X / X.std(0)


X = jnp.array(np.random.RandomState(1701).rand(10000, 10))
print("jit(norm) matches norm:", np.allclose(norm(X), jax.jit(norm)(X), atol=1e-6))


@jax.jit
def f(x, y):
  print("  tracing f:", x)
  return jnp.dot(x + 1, y + 1)


xs, ys = np.ones((3, 4), np.float32), np.ones(4, np.float32)
print("first call traces:")
f(xs, ys)
print("second call does not:", f(xs, ys))
print(jax.make_jaxpr(lambda x, y: jnp.dot(x + 1, y + 1))(xs, ys))


@partial(jax.jit, static_argnums=(1,))
def g(x, neg):
  return -x if neg else x


print("static_argnums:", g(1, True), g(1, False))
print("grad through Python control flow:", jax.grad(lambda x, y: x / y if y >= 1. else 0.)(3., 2.))
print("per-example gradients with vmap(grad):",
      jax.vmap(jax.grad(lambda x: jnp.sin(x) * x))(jnp.arange(3.0)))
print("sigmoid gradients:", jax.vmap(jax.grad(jax.nn.sigmoid))(jnp.array([-10.0, -1.0, 0.0, 1.0, 10.0])))


def get_negatives(x):
  return x[x < 0]


try:
  jax.jit(get_negatives)(jnp.array([-1.0, 2.0]))
except IndexError as e:
  print("boolean masks need concrete values under jit:", type(e).__name__)
print("structured control flow: fori_loop sum =",
      lax.fori_loop(0, 10, lambda i, acc: acc + i, 0))
