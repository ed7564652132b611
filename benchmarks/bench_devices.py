"""Devices benchmarks: transfer bandwidth, asynchronous dispatch, donation's memory saving.

Run: .venv/bin/python benchmarks/bench_devices.py
With the reference JAX importable (PYTHONPATH=. /path/to/jax-venv/bin/python ...), JAX's
figures are printed beside xjax's.  On the CPU a device buffer is host memory, so
``np.asarray(x)`` is a zero-copy view; the device->host row therefore times ``np.array(x)``
(a real copy) and the view separately.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))

import numpy as np

from _timing import best_of, implementations

MB = 1 << 20


def transfers(impls) -> None:
  print("transfer bandwidth (GB/s; higher is better)")
  for size in (1 * MB, 100 * MB):
    host = np.random.default_rng(0).random(size // 4, dtype=np.float32)
    number = 50 if size == MB else 3
    row = [f"  {size // MB:4d} MB  np.copy {size / best_of(lambda: np.copy(host), number=number) / 1e9:7.2f}"]
    for label, jax, jnp, _ in impls:
      put = best_of(lambda: jax.device_put(host).block_until_ready(), number=number)
      x = jax.device_put(host).block_until_ready()
      get = best_of(lambda: np.array(x), number=number)
      view = best_of(lambda: np.asarray(x), number=number)
      row.append(f"{label}: host->device {size / put / 1e9:7.2f}  device->host {size / get / 1e9:7.2f}"
                 f"  (np.asarray view {view * 1e6:.1f} us)")
    print("  ".join(row))


def async_dispatch(impls) -> None:
  print("asynchronous dispatch of a 2000x2000 float32 matmul (jit)")
  a = np.random.default_rng(1).random((2000, 2000), dtype=np.float32)
  for label, jax, jnp, _ in impls:
    f = jax.jit(lambda x: x @ x)
    x = jax.device_put(a)
    f(x).block_until_ready()
    returns, completes = [], []
    for _ in range(5):
      t0 = time.perf_counter()
      out = f(x)
      returns.append(time.perf_counter() - t0)
      out.block_until_ready()
      completes.append(time.perf_counter() - t0)
    r, c = min(returns), min(completes)
    print(f"  {label}: call returns after {r * 1e6:8.1f} us, result ready after "
          f"{c * 1e3:7.1f} ms  (return/complete {r / c:.4f})")


_CHILD = r"""
import sys, numpy as np
sys.path.insert(0, {root!r})
if {use_jax}:
  import jax
else:
  import xjax as jax
n = 25 * (1 << 20)  # 100 MB of float32
step = jax.jit(lambda p, g: p - 0.1 * g, donate_argnums=(0,) if {donate} else ())
g = jax.device_put(np.ones(n, np.float32))
p = jax.device_put(np.zeros(n, np.float32)) * 1
p = step(p, g).block_until_ready()
def status_kb(field):
  with open("/proc/self/status") as f:
    return next(int(l.split()[1]) for l in f if l.startswith(field))
with open("/proc/self/clear_refs", "w") as f:
  f.write("5")  # resets the peak (VmHWM) to the current RSS
before = status_kb("VmRSS")
for _ in range(10):
  p = step(p, g)
p.block_until_ready()
peak = status_kb("VmHWM")
print(max(peak - before, 0) / 1024)
"""


def donation(impls) -> None:
  print("100 MB parameter update loop, 10 steps: peak RSS growth over the loop (MB)")
  root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
  for label, *_ in impls:
    grows = {}
    for donate in (False, True):
      code = _CHILD.format(root=root, use_jax=label == "jax", donate=donate)
      out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
      grows[donate] = float(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else None
    print(f"  {label}: without donation +{grows[False]:.0f} MB, with donation "
          f"+{grows[True]:.0f} MB  (saved {grows[False] - grows[True]:.0f} MB)")


if __name__ == "__main__":
  impls = implementations()
  transfers(impls)
  async_dispatch(impls)
  donation(impls)
