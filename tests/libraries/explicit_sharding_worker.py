"""One process of a 2-process run of the explicit-sharding MLP step (started by
tests/libraries/test_distributed.py with the coordinator's port, its process id and its
device count): a (4, 2) mesh of Explicit axes over the 8 devices of both processes, the batch
split over "data" and the hidden layer over "model", each process feeding its rows; prints
the loss curve, the step's all-reduce count and the one-device curve of the same training.
Process id ``single`` runs the same step in one process of 8 devices."""
import sys

import numpy as np

import xjax

port, pid, local = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
xjax.config.update("jax_num_cpu_devices", local)
if pid != "single":
  pid = int(pid)
  xjax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=pid,
                              initialization_timeout=30)

import xjax.numpy as jnp  # noqa: E402
from xjax.sharding import NamedSharding, PartitionSpec as P  # noqa: E402

STEPS = 5


def loss(params, x, y, out_sharding=None):
  hidden = jnp.tanh(x @ params["w1"] + params["b1"])
  pred = jnp.dot(hidden, params["w2"], out_sharding=out_sharding)
  return jnp.mean((pred - y) ** 2)


def make_step(out_sharding):
  @xjax.jit
  def step(p, x, y):
    value, grads = xjax.value_and_grad(loss)(p, x, y, out_sharding)
    return xjax.tree.map(lambda w, g: w - 0.2 * g, p, grads), value
  return step


rng = np.random.RandomState(0)
x = rng.randn(64, 16).astype(np.float32)
y = (np.sin(x[:, :1] * 2) + 0.5 * x[:, 1:2]).astype(np.float32)
params = {"w1": (rng.randn(16, 32) * 0.3).astype(np.float32), "b1": np.zeros(32, np.float32),
          "w2": (rng.randn(32, 1) * 0.3).astype(np.float32)}

one, device = make_step(None), xjax.local_devices()[0]
p, one_device = {k: xjax.device_put(v, device) for k, v in params.items()}, []
for _ in range(STEPS):
  p, value = one(p, xjax.device_put(x, device), xjax.device_put(y, device))
  one_device.append(float(value))

mesh = xjax.make_mesh((4, 2), ("data", "model"))
assert len(mesh.devices.flat) == 8


def global_array(value, spec):
  sharding = NamedSharding(mesh, spec)
  return xjax.make_array_from_callback(value.shape, sharding, lambda index: value[index])


with xjax.set_mesh(mesh):
  placed = {"w1": global_array(params["w1"], P(None, "model")),
            "b1": global_array(params["b1"], P("model")),
            "w2": global_array(params["w2"], P("model", None))}
  if pid == "single":
    xs, ys = global_array(x, P("data", None)), global_array(y, P("data", None))
  else:
    rows = slice(32 * pid, 32 * (pid + 1))     # this process's half of the batch
    data = NamedSharding(mesh, P("data", None))
    xs = xjax.make_array_from_process_local_data(data, x[rows])
    ys = xjax.make_array_from_process_local_data(data, y[rows])
  assert str(xjax.typeof(xs)) == "float32[64@data,16]", xjax.typeof(xs)
  step = make_step(P("data", None))
  text = step.lower(placed, xs, ys).compile().as_text()
  curve = []
  for _ in range(STEPS):
    placed, value = step(placed, xs, ys)
    curve.append(float(value.addressable_shards[0].data))
print("all-reduces:", text.count("all-reduce("), flush=True)
print("curve:", " ".join(repr(v) for v in curve), flush=True)
print("one device:", " ".join(repr(v) for v in one_device), flush=True)
if pid != "single":
  xjax.distributed.shutdown()
