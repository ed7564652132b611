"""Data-parallel training of a small MLP over 4 CPU devices, three ways, with the same loss
curve: on one device, with ``pmap`` (gradients averaged by ``lax.pmean``), and with ``jit``
over a batch split across a mesh (XLA's partitioner inserts the reduction).

    python examples/data_parallel.py
"""
import numpy as np

import xjax as jax
import xjax.numpy as jnp
from xjax.sharding import Mesh, NamedSharding, PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 4)

N_DEV, BATCH, STEPS, LR = 4, 64, 20, 0.1


def init(key):
  k1, k2 = jax.random.split(key)
  return {"w1": jax.random.normal(k1, (8, 32)) * 0.3, "b1": jnp.zeros(32),
          "w2": jax.random.normal(k2, (32, 1)) * 0.3, "b2": jnp.zeros(1)}


def loss(params, x, y):
  h = jnp.tanh(x @ params["w1"] + params["b1"])
  return jnp.mean((h @ params["w2"] + params["b2"] - y) ** 2)


def sgd(params, grads):
  return jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)


@jax.jit
def step_one_device(params, x, y):
  value, grads = jax.value_and_grad(loss)(params, x, y)
  return sgd(params, grads), value


def step_pmap_body(params, x, y):
  value, grads = jax.value_and_grad(loss)(params, x, y)
  grads = jax.lax.pmean(grads, "batch")
  return sgd(params, grads), jax.lax.pmean(value, "batch")


step_pmap = jax.pmap(step_pmap_body, axis_name="batch", in_axes=(None, 0, 0), out_axes=None)


def data():
  rng = np.random.RandomState(0)
  x = rng.normal(size=(STEPS, BATCH, 8)).astype(np.float32)
  y = np.sin(x.sum(-1, keepdims=True)).astype(np.float32)
  return x, y


def train(kind: str) -> list:
  params = init(jax.random.key(0))
  xs, ys = data()
  mesh = Mesh(np.array(jax.devices()[:N_DEV]), ("batch",))
  split = NamedSharding(mesh, P("batch"))
  curve = []
  for x, y in zip(xs, ys):
    if kind == "one device":
      params, value = step_one_device(params, x, y)
    elif kind == "pmap":
      params, value = step_pmap(params, x.reshape(N_DEV, -1, 8), y.reshape(N_DEV, -1, 1))
    else:  # sharded jit: the batch is split over the mesh, the parameters replicated
      params, value = step_one_device(params, jax.device_put(x, split),
                                      jax.device_put(y, split))
    curve.append(float(value))
  return curve


if __name__ == "__main__":
  curves = {kind: train(kind) for kind in ("one device", "pmap", "sharded jit")}
  for kind, curve in curves.items():
    print(f"{kind:12s}", " ".join(f"{v:.5f}" for v in curve[::4]))
  reference = np.array(curves["one device"])
  for kind in ("pmap", "sharded jit"):
    np.testing.assert_allclose(curves[kind], reference, rtol=1e-4, atol=1e-6)
  print("same loss curve on 1 and 4 devices")
