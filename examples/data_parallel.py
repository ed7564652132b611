"""Data-parallel training of a small MLP over 4 CPU devices, three ways, with the same loss
curve: on one device, with ``pmap`` (gradients averaged by ``lax.pmean``), and with ``jit``
over a batch split across a mesh (XLA's partitioner inserts the reduction).  With
``--processes 2`` the sharded jit also runs over 2 processes of 2 devices each, joined by
``xjax.distributed`` on 127.0.0.1, each process feeding its half of every batch.

    python examples/data_parallel.py [--processes 2]
"""
import argparse
import os
import socket
import subprocess
import sys

import numpy as np

import xjax as jax
import xjax.numpy as jnp
from xjax.sharding import Mesh, NamedSharding, PartitionSpec as P

parser = argparse.ArgumentParser()
parser.add_argument("--processes", type=int, default=1)
parser.add_argument("--port", type=int)          # set for the processes it starts
parser.add_argument("--process-id", type=int)
parser.add_argument("--smoke", action="store_true", help="fewer steps (for tests)")
parser.add_argument("--plot", metavar="OUT.png", help="save the loss curves (needs matplotlib)")
args = parser.parse_args()
if args.process_id is not None:
  jax.config.update("jax_num_cpu_devices", 4 // args.processes)
  jax.distributed.initialize(f"127.0.0.1:{args.port}", args.processes, args.process_id,
                             initialization_timeout=60)
else:
  jax.config.update("jax_num_cpu_devices", 4)

N_DEV, BATCH, STEPS, LR = 4, 64, 8 if args.smoke else 20, 0.1


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
    elif kind == "processes":  # each process holds its rows of the batch
      rows = slice(jax.process_index() * BATCH // jax.process_count(),
                   (jax.process_index() + 1) * BATCH // jax.process_count())
      params, value = step_one_device(
          params, *jax.make_array_from_process_local_data(split, (x[rows], y[rows])))
    else:  # sharded jit: the batch is split over the mesh, the parameters replicated
      params, value = step_one_device(params, jax.device_put(x, split),
                                      jax.device_put(y, split))
    curve.append(float(value))
  return curve


def train_in_processes(n: int) -> list:
  """Starts ``n`` copies of this script as the processes of one run; process 0's curve."""
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
  procs = [subprocess.Popen([sys.executable, __file__, "--processes", str(n), "--port",
                             str(port), "--process-id", str(i)] + ["--smoke"] * args.smoke,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "XLA_FLAGS": ""}) for i in range(n)]
  try:
    outs = [p.communicate(timeout=300)[0] for p in procs]
  finally:
    for p in procs:
      if p.poll() is None:
        p.kill()
  if any(p.returncode for p in procs):
    raise RuntimeError("a training process failed:\n" + "\n".join(outs))
  line = next(l for l in outs[0].splitlines() if l.startswith("curve:"))  # gloo prints too
  return [float(v) for v in line.split()[1:]]


if args.process_id is not None:  # one process of a run started by train_in_processes
  print("curve:", " ".join(repr(v) for v in train("processes")))
  jax.distributed.shutdown()
elif __name__ == "__main__":
  curves = {kind: train(kind) for kind in ("one device", "pmap", "sharded jit")}
  if args.processes > 1:
    curves[f"{args.processes} processes"] = train_in_processes(args.processes)
  for kind, curve in curves.items():
    print(f"{kind:12s}", " ".join(f"{v:.5f}" for v in curve[::4]))
  reference = np.array(curves["one device"])
  for kind in list(curves)[1:]:
    np.testing.assert_allclose(curves[kind], reference, rtol=1e-4, atol=1e-6)
  print("same loss curve on 1 and 4 devices" + (f" and {args.processes} processes"
                                                  if args.processes > 1 else ""))
  if args.plot:
    from example_cli import pyplot, save
    fig, ax = pyplot().subplots(figsize=(5, 3.5))
    for kind, curve in curves.items():
      ax.plot(curve, label=kind, linestyle="--" if kind != "one device" else "-")
    ax.set(xlabel="step", ylabel="loss", title="data-parallel MLP: the same curve")
    ax.legend()
    save(fig, args.plot)
