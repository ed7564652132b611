"""kernex: a sliding-window map and a sliding-window scan over an array (its README's kmap
and kscan), eager, jitted and differentiated."""
import jax
import jax.numpy as jnp
import kernex as kex


@kex.kmap(kernel_size=(3,))
def window_sum(x):
  return jnp.sum(x)


@kex.kscan(kernel_size=(3,), padding="same")
def running(x):
  return x[0] + x[1] * 0.5 + x[2]


@kex.kmap(kernel_size=(3, 3), padding="same")
def blur(x):
  return jnp.mean(x)


def run():
  x = jnp.arange(1.0, 11.0)
  image = jnp.arange(36.0).reshape(6, 6)
  return {"kmap": window_sum(x), "kmap_jit": jax.jit(window_sum)(x),
          "kmap_grad": jax.grad(lambda v: window_sum(v).sum())(x), "kscan": running(x),
          "blur": blur(image)}
