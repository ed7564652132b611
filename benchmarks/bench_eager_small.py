"""Eager operations on small CPU arrays: xjax against JAX, PyTorch eager and NumPy.

Each implementation runs in a process of its own (its rows as JSON on stdout): xjax in this
interpreter's environment, the reference JAX in ``--jax-python``'s (an environment with JAX
0.10.2; never imported next to xjax), PyTorch and NumPy in this interpreter when importable.
A row's time is the best mean of several rounds; xjax's and JAX's results are waited for
(``block_until_ready``) in every call, as PyTorch's and NumPy's are done when they return.

    .venv/bin/python benchmarks/bench_eager_small.py --jax-python /tmp/ref/bin/python
    .venv/bin/python benchmarks/bench_eager_small.py chain concatenate    # rows naming a word
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

from _timing import best_of

CHAIN_STEPS = 1000  # 500 steps of two operations and 500 of one: 1,500 operations


def _chain(v):
  for i in range(CHAIN_STEPS):
    v = v * 1.0001 + 0.5 if i % 2 else v - 0.25
  return v


def jax_rows(jax, jnp) -> dict:
  """{row: callable} for xjax or JAX (the same code: their APIs are one)."""
  x3 = jnp.asarray([1.0, 2.0, 3.0], dtype=jnp.float32)
  y3 = jnp.asarray([4.0, 5.0, 6.0], dtype=jnp.float32)
  x100 = jnp.arange(100, dtype=jnp.float32)
  a4 = jnp.arange(16, dtype=jnp.float32).reshape(4, 4) / 16
  e100 = jnp.exp(x100 / 100)  # a compiled result: its data on the device
  ready = jax.block_until_ready
  grad_chain = jax.grad(lambda v: jnp.sum(_chain(v)))
  return {
      "x + x, 3-vector": lambda: ready(x3 + x3),
      "chain of 1,500 elementwise ops": lambda: ready(_chain(x3)),
      "grad of the chain (forward included)": lambda: ready(grad_chain(x3)),
      "x[1], 100-vector": lambda: ready(x100[1]),
      "jnp.array([1., 2., 3.])": lambda: ready(jnp.array([1.0, 2.0, 3.0])),
      "concatenate two 3-vectors": lambda: ready(jnp.concatenate([x3, y3])),
      "stack two 3-vectors": lambda: ready(jnp.stack([x3, y3])),
      "sum of a 100-vector": lambda: ready(jnp.sum(x100)),
      "matmul 4x4": lambda: ready(a4 @ a4),
      "where(x > 2, x, 0), 3-vector": lambda: ready(jnp.where(x3 > 2, x3, 0.0)),
      "exp, 3-vector": lambda: ready(jnp.exp(x3)),
      "float(x[1]), 100-vector": lambda: float(x100[1]),
      "x[1], computed 100-vector": lambda: ready(e100[1]),
      "float(exp(x)[1]), 100-vector": lambda: float(jnp.exp(x100)[1]),
      "bool(any(x > 50)), 100-vector": lambda: bool(jnp.any(x100 > 50)),
      "argmax of a 100-vector": lambda: ready(jnp.argmax(x100)),
  }


def torch_rows(torch) -> dict:
  x3 = torch.tensor([1.0, 2.0, 3.0])
  y3 = torch.tensor([4.0, 5.0, 6.0])
  x100 = torch.arange(100, dtype=torch.float32)
  a4 = torch.arange(16, dtype=torch.float32).reshape(4, 4) / 16
  e100 = torch.exp(x100 / 100)

  def grad_chain():
    v = x3.clone().requires_grad_()
    _chain(v).sum().backward()
    return v.grad

  return {
      "x + x, 3-vector": lambda: x3 + x3,
      "chain of 1,500 elementwise ops": lambda: _chain(x3),
      "grad of the chain (forward included)": grad_chain,
      "x[1], 100-vector": lambda: x100[1],
      "jnp.array([1., 2., 3.])": lambda: torch.tensor([1.0, 2.0, 3.0]),
      "concatenate two 3-vectors": lambda: torch.cat([x3, y3]),
      "stack two 3-vectors": lambda: torch.stack([x3, y3]),
      "sum of a 100-vector": lambda: torch.sum(x100),
      "matmul 4x4": lambda: a4 @ a4,
      "where(x > 2, x, 0), 3-vector": lambda: torch.where(x3 > 2, x3, 0.0),
      "exp, 3-vector": lambda: torch.exp(x3),
      "float(x[1]), 100-vector": lambda: float(x100[1]),
      "x[1], computed 100-vector": lambda: e100[1],
      "float(exp(x)[1]), 100-vector": lambda: float(torch.exp(x100)[1]),
      "bool(any(x > 50)), 100-vector": lambda: bool(torch.any(x100 > 50)),
      "argmax of a 100-vector": lambda: torch.argmax(x100),
  }


def numpy_rows(np) -> dict:
  x3 = np.array([1.0, 2.0, 3.0], np.float32)
  y3 = np.array([4.0, 5.0, 6.0], np.float32)
  x100 = np.arange(100, dtype=np.float32)
  a4 = np.arange(16, dtype=np.float32).reshape(4, 4) / 16
  e100 = np.exp(x100 / 100)
  return {
      "x + x, 3-vector": lambda: x3 + x3,
      "chain of 1,500 elementwise ops": lambda: _chain(x3),
      "x[1], 100-vector": lambda: x100[1],
      "jnp.array([1., 2., 3.])": lambda: np.array([1.0, 2.0, 3.0]),
      "concatenate two 3-vectors": lambda: np.concatenate([x3, y3]),
      "stack two 3-vectors": lambda: np.stack([x3, y3]),
      "sum of a 100-vector": lambda: np.sum(x100),
      "matmul 4x4": lambda: a4 @ a4,
      "where(x > 2, x, 0), 3-vector": lambda: np.where(x3 > 2, x3, 0.0),
      "exp, 3-vector": lambda: np.exp(x3),
      "float(x[1]), 100-vector": lambda: float(x100[1]),
      "x[1], computed 100-vector": lambda: e100[1],
      "float(exp(x)[1]), 100-vector": lambda: float(np.exp(x100)[1]),
      "bool(any(x > 50)), 100-vector": lambda: bool(np.any(x100 > 50)),
      "argmax of a 100-vector": lambda: np.argmax(x100),
  }


def measure(fn, budget: float = 0.05) -> float:
  """Best mean seconds per call; each of the rounds takes about ``budget`` seconds."""
  fn()
  t0 = time.perf_counter()
  fn()
  once = time.perf_counter() - t0
  number = max(1, int(budget / max(once, 1e-7)))
  return best_of(fn, repeat=5 if once < 0.1 else 3, number=number)


def worker(lib: str, words: list[str]) -> None:
  """Prints {row: seconds} of one implementation as JSON."""
  if lib == "xjax":
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    import xjax
    import xjax.numpy as xnp
    rows = jax_rows(xjax, xnp)
  elif lib == "jax":
    import jax
    import jax.numpy as jnp
    rows = jax_rows(jax, jnp)
  elif lib == "torch":
    import torch
    rows = torch_rows(torch)
  else:
    import numpy
    rows = numpy_rows(numpy)
  print(json.dumps({name: measure(fn) for name, fn in rows.items()
                    if not words or any(w in name for w in words)}))


def run_worker(python: str, lib: str, words: list[str]) -> dict:
  done = subprocess.run([python, os.path.abspath(__file__), "--worker", lib, *words],
                        capture_output=True, text=True)
  if done.returncode != 0:
    tail = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    print(f"{lib}: failed ({tail})", file=sys.stderr)
    return {}
  return json.loads(done.stdout.strip().splitlines()[-1])


def _importable(name: str) -> bool:
  import importlib.util
  return importlib.util.find_spec(name) is not None


def _cell(seconds) -> str:
  if seconds is None:
    return "–"
  return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


def _ratio(a, b) -> str:
  return "–" if a is None or b is None else f"{a / b:.2f}×"


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("XJAX_REFERENCE_PYTHON"),
                      help="interpreter of an environment with the reference JAX 0.10.2")
  parser.add_argument("--worker", choices=["xjax", "jax", "torch", "numpy"], help=argparse.SUPPRESS)
  parser.add_argument("rows", nargs="*", help="run only rows whose name holds one of these words")
  args = parser.parse_args()
  if args.worker:
    return worker(args.worker, args.rows)
  results = {"xjax": run_worker(sys.executable, "xjax", args.rows)}
  if args.jax_python:
    results["jax"] = run_worker(args.jax_python, "jax", args.rows)
  if _importable("torch"):
    results["torch"] = run_worker(sys.executable, "torch", args.rows)
  results["numpy"] = run_worker(sys.executable, "numpy", args.rows)
  print("| eager, small CPU arrays | xjax | JAX | PyTorch eager | NumPy | xjax/PyTorch | xjax/JAX |")
  print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
  torch_ratios, jax_ratios = [], []
  for name, ours in results["xjax"].items():
    jax_t, torch_t = results.get("jax", {}).get(name), results.get("torch", {}).get(name)
    numpy_t = results["numpy"].get(name)
    if torch_t:
      torch_ratios.append(ours / torch_t)
    if jax_t:
      jax_ratios.append(ours / jax_t)
    print(f"| {name} | {_cell(ours)} | {_cell(jax_t)} | {_cell(torch_t)} | {_cell(numpy_t)} "
          f"| {_ratio(ours, torch_t)} | {_ratio(ours, jax_t)} |")
  geo = lambda rs: f"{math.exp(sum(map(math.log, rs)) / len(rs)):.2f}×" if rs else "–"
  print(f"| geometric mean | | | | | {geo(torch_ratios)} | {geo(jax_ratios)} |")


if __name__ == "__main__":
  main()
