"""Data-parallel MLP step time on 1, 2 and 4 CPU devices with pmap (weak scaling: 64
examples per device), and psum bandwidth between 2 processes on 127.0.0.1 (one device each,
gloo over TCP), for xjax and, when importable, JAX.

    .venv/bin/python benchmarks/parallel_scaling.py
    PYTHONPATH=/work/main /work/refjax/bin/python benchmarks/parallel_scaling.py
"""
import os
import socket
import subprocess
import sys
import time

import numpy as np

PSUM_SIZES = (1 << 10, 1 << 16, 1 << 20, 1 << 22)  # float32 elements per process


def bench(jax, n_dev: int, per_device: int = 64, reps: int = 30) -> float:
  jnp = jax.numpy

  def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"])
    return jnp.mean((h @ p["w2"] - y) ** 2)

  def body(p, x, y):
    g = jax.lax.pmean(jax.grad(loss)(p, x, y), "b")
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)

  step = jax.pmap(body, axis_name="b", in_axes=(None, 0, 0), out_axes=None,
                  devices=jax.devices()[:n_dev])
  rng = np.random.RandomState(0)
  p = {"w1": rng.normal(size=(64, 256)).astype(np.float32) * 0.1,
       "w2": rng.normal(size=(256, 1)).astype(np.float32) * 0.1}
  x = rng.normal(size=(n_dev, per_device, 64)).astype(np.float32)
  y = rng.normal(size=(n_dev, per_device, 1)).astype(np.float32)
  jax.block_until_ready(step(p, x, y))
  start = time.perf_counter()
  for _ in range(reps):
    out = step(p, x, y)
  jax.block_until_ready(out)
  return (time.perf_counter() - start) / reps * 1e6


def psum_times(jax, reps: int = 10) -> list:
  """Seconds per psum of each size between the processes of this run (one device each)."""
  Mesh, P = jax.sharding.Mesh, jax.sharding.PartitionSpec
  mesh = Mesh(np.array(jax.devices()), ("p",))
  total = jax.jit(jax.shard_map(lambda a: jax.lax.psum(a, "p"), mesh=mesh, in_specs=P("p"),
                                out_specs=P()))
  sharding = jax.sharding.NamedSharding(mesh, P("p"))
  out = []
  for n in PSUM_SIZES:
    x = jax.make_array_from_process_local_data(sharding, np.ones(n, np.float32))
    jax.block_until_ready(total(x))
    start = time.perf_counter()
    for _ in range(reps):
      y = total(x)
    jax.block_until_ready(y)
    out.append((time.perf_counter() - start) / reps)
  return out


def psum_in_processes(lib: str) -> list:
  """Runs psum_times in 2 processes of ``lib`` ("xjax" or "jax"); process 0's times."""
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
  procs = [subprocess.Popen([sys.executable, __file__, lib, str(port), str(i)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "XLA_FLAGS": ""}) for i in (0, 1)]
  try:
    outs = [p.communicate(timeout=300)[0] for p in procs]
  finally:
    for p in procs:
      if p.poll() is None:
        p.kill()
  line = next(l for l in outs[0].splitlines() if l.startswith("times:"))
  return [float(v) for v in line.split()[1:]]


def psum_process(lib: str, port: int, pid: int) -> None:
  """One process of psum_in_processes."""
  jax = __import__(lib)
  jax.config.update("jax_num_cpu_devices", 1)
  jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=pid,
                             initialization_timeout=60)
  print("times:", " ".join(repr(t) for t in psum_times(jax)), flush=True)
  jax.distributed.shutdown()


def main():
  import xjax
  xjax.config.update("jax_num_cpu_devices", 4)
  try:
    import jax
    jax.config.update("jax_num_cpu_devices", 4)
  except ImportError:
    jax = None
  print(f"{'devices':>8} {'xjax us/step':>13} {'jax us/step':>12} {'xjax/jax':>9}")
  for n in (1, 2, 4):
    ours = bench(xjax, n)
    theirs = bench(jax, n) if jax is not None else float("nan")
    print(f"{n:>8} {ours:>13.0f} {theirs:>12.0f} {ours / theirs:>9.2f}")
  ours = psum_in_processes("xjax")
  theirs = psum_in_processes("jax") if jax is not None else [float("nan")] * len(ours)
  print(f"\npsum between 2 processes\n{'MiB':>8} {'xjax MB/s':>10} {'jax MB/s':>10} "
        f"{'xjax/jax time':>14}")
  for n, a, b in zip(PSUM_SIZES, ours, theirs):
    print(f"{n * 4 / 2**20:>8.3f} {n * 4 / a / 1e6:>10.0f} {n * 4 / b / 1e6:>10.0f} "
          f"{a / b:>14.2f}")


if __name__ == "__main__":
  if len(sys.argv) == 4:
    psum_process(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
  else:
    main()
