"""XLA's optimized HLO of the compiled rows of bench_table.py, xjax against JAX: whether the
programs XLA runs are the same.

Each row runs once per implementation in a fresh process with XLA's dumps on
(``--xla_dump_to``); the row's program is the largest ``*.cpu_after_optimizations.txt``. The
two are compared as multisets of instructions, with names, operand names, parameter numbers,
metadata and the order of computations and of the schedule left out. A row is "same" when
the multisets are equal; otherwise the instructions only one side has are listed.

    .venv/bin/python benchmarks/compare_hlo.py --jax-python /tmp/ref/bin/python [words]
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

_BUILD = """
import sys
sys.path.insert(0, {here!r})
if {lib!r} == "xjax":
  sys.path.insert(0, {repo!r})
  import xjax as jax, xjax.numpy as jnp
  from xjax import lax
else:
  import jax, jax.numpy as jnp
  from jax import lax
import bench_table
fn, _ = dict(bench_table.ROWS)[{row!r}](jax, jnp, lax)
fn()
"""

_NAME = re.compile(r"%[\w.\-]+")


def instructions(hlo: str) -> collections.Counter:
  """The module's instructions without names, metadata or order."""
  out = collections.Counter()
  for line in hlo.splitlines():
    line = line.strip()
    if " = " not in line or not line.startswith(("%", "ROOT ")):
      continue
    line = re.sub(r", metadata=\{[^}]*\}", "", line.removeprefix("ROOT "))
    _, rhs = line.split(" = ", 1)
    rhs = re.sub(r"parameter\(\d+\)", "parameter(#)", _NAME.sub("%", rhs))
    out[rhs] += 1
  return out


def optimized_hlo(python: str, lib: str, row: str) -> str | None:
  """The largest optimized module XLA compiled while the row ran once, or None on failure."""
  with tempfile.TemporaryDirectory() as dump:
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={dump} --xla_dump_hlo_as_text")
    env.pop("PYTHONPATH", None)
    code = _BUILD.format(here=str(HERE), repo=str(HERE.parent), lib=lib, row=row)
    done = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True)
    if done.returncode != 0:
      print(f"  {lib}: failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
      return None
    modules = sorted(Path(dump).glob("*.cpu_after_optimizations.txt"), key=lambda p: p.stat().st_size)
    return modules[-1].read_text() if modules else None


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--jax-python", default=os.environ.get("XJAX_REFERENCE_PYTHON"),
                      help="interpreter of an environment with the reference JAX 0.10.2")
  parser.add_argument("--show", type=int, default=6, help="differing instructions to print")
  parser.add_argument("rows", nargs="*", help="only rows whose name holds one of these words")
  args = parser.parse_args()
  if not args.jax_python:
    print("compare_hlo.py compares with the reference JAX: give --jax-python (or set "
          "XJAX_REFERENCE_PYTHON)")
    return
  sys.path.insert(0, str(HERE))
  import bench_table
  for row, _ in bench_table.ROWS:
    if not row.startswith("jit") or "dispatch" in row:
      continue
    if args.rows and not any(word in row for word in args.rows):
      continue
    ours, theirs = (optimized_hlo(python, lib, row) for python, lib in
                    ((sys.executable, "xjax"), (args.jax_python, "jax")))
    if ours is None or theirs is None:
      continue
    a, b = instructions(ours), instructions(theirs)
    if a == b:
      print(f"{row}: same ({sum(a.values())} instructions)")
      continue
    only_ours, only_theirs = a - b, b - a
    print(f"{row}: differs ({sum(a.values())} instructions in xjax's, {sum(b.values())} in "
          f"JAX's; {sum(only_ours.values())} only in xjax's, {sum(only_theirs.values())} only "
          f"in JAX's)")
    for label, extra in (("xjax", only_ours), ("JAX", only_theirs)):
      for text, count in list(extra.items())[:args.show]:
        print(f"  only {label}: {count} x {text[:200]}")


if __name__ == "__main__":
  main()
