"""Memory of long-running programs: growth of the resident set (MiB) for many eager ops,
many distinct jitted functions kept alive, and one function called with many shapes.

Each row runs in a fresh process per implementation; the ratio to JAX is printed when the
reference is importable (run it as
``PYTHONPATH=/work/main /work/refjax/bin/python benchmarks/bench_memory.py``).
Pass a smaller scale (e.g. ``0.2``) as the first argument for a quick run.
"""
from __future__ import annotations

import subprocess
import sys

ROWS = {
    "100,000 eager ops": """
x = jnp.ones(8)
for i in range(N(100_000)):
  x = x * 1.0001
x.block_until_ready()
""",
    "5,000 jitted functions kept": """
x = jnp.ones(10)
kept = []
for i in range(N(5_000)):
  f = jax.jit(lambda x, i=i: x * i + 1)
  f(x).block_until_ready()
  kept.append(f)
""",
    "1 function, 1,500 shapes": """
f = jax.jit(lambda x: x * 2)
for n in range(1, N(1_500) + 1):
  f(jnp.ones(n)).block_until_ready()
""",
}

_PRELUDE = """
import os, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {root!r})
if {module!r} == "xjax":
  import xjax as jax
else:
  import jax
jnp = jax.numpy
N = lambda n: max(1, int(n * {scale}))
def rss():
  with open("/proc/self/statm") as f:
    return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
jnp.ones(3) * 2  # the runtime is up before the first reading
before = rss()
"""


def growth(module: str, body: str, scale: float) -> float | None:
  import os
  root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
  code = _PRELUDE.format(root=root, module=module, scale=scale) + body + (
      "\nprint(rss() - before)\n")
  done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
  if done.returncode != 0:
    return None
  return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
  scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
  try:
    import jax  # noqa: F401
    labels = ["xjax", "jax"]
  except ImportError:
    labels = ["xjax"]
  print(f"{'resident set growth (MiB)':<32s}" + "".join(f"{x:>10s}" for x in labels)
        + ("   xjax/jax" if len(labels) > 1 else ""))
  for name, body in ROWS.items():
    mib = [growth(label, body, scale) for label in labels]
    line = f"{name:<32s}" + "".join(
        f"{m:10.1f}" if m is not None else f"{'failed':>10s}" for m in mib)
    if len(mib) > 1 and None not in mib and mib[1] > 0:
      line += f"   {mib[0] / mib[1]:7.2f}x"
    print(line)


if __name__ == "__main__":
  main()
