"""Runs a short program per JAX library on xjax and on JAX 0.10.2 and compares their outputs.

    python tools/ecosystem_sweep.py                  # set up, run every program, print the table
    python tools/ecosystem_sweep.py --lib flax --lib rlax       # only these
    python tools/ecosystem_sweep.py --report         # print the last results again
    python tools/ecosystem_sweep.py --write-docs     # ... and put the table in docs/ecosystem.md
    python tools/ecosystem_sweep.py --write-reference          # record JAX's outputs for
                                                     # tests/compat/test_ecosystem_sweep.py

Each program, tools/ecosystem_programs/<lib>.py, is written as the library's README or
quickstart teaches (build a model, distribution or transform, run a jitted step or a
gradient) and returns a dict of numbers (or strings) from `run()`. The environment is
tools/ecosystem.py's .ecosystem/venv (no `jax`; xjax's working tree through a .pth file)
with the libraries below added without their dependencies and their non-JAX dependencies.
The reference is the same environment with only `jax==0.10.2` added (a `pip --target`
folder on PYTHONPATH), so both sides see the very same library versions. Each program runs
in its own process (`python -m xjax tools/ecosystem_sweep.py --run-program LIB` for xjax):
outputs compare to the program's TOLERANCE; a failure is its exception class, message and
the last call made outside xjax, and is put in a cause class.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "tools" / "ecosystem_programs"
REFERENCE_OUTPUTS = REPO / "tools" / "ecosystem_reference" / "sweep.json"
DOC = REPO / "docs" / "ecosystem.md"
# program name -> the pinned distribution it exercises (all support JAX 0.10.2). Those not
# in tools/ecosystem.py's environment already are installed here without dependencies.
LIBRARIES = {
    "flax_nnx": "flax==0.12.8", "flax_linen": "flax==0.12.8", "jaxtyping": "jaxtyping==0.3.11",
    "optax": "optax==0.2.8", "orbax_checkpoint": "orbax-checkpoint==0.12.8",
    "chex": "chex==0.1.92", "equinox": "equinox==0.13.8", "haiku": "dm-haiku==0.0.17",
    "numpyro": "numpyro==0.22.0", "einops": "einops==0.8.2", "optree": "optree==0.20.0",
    "treescope": "treescope==0.1.10", "penzai": "penzai==0.2.5",
    "tfp": "tfp-nightly==0.26.0.dev20261027", "distrax": "distrax==0.1.9", "rlax": "rlax==0.1.9",
    "dm_pix": "dm-pix==0.4.5", "blackjax": "blackjax==1.7.1", "diffrax": "diffrax==0.7.2",
    "lineax": "lineax==0.1.1", "optimistix": "optimistix==0.1.0", "jaxopt": "jaxopt==0.8.5",
    "jraph": "jraph==0.0.6.dev0", "e3nn_jax": "e3nn-jax==0.21.0", "jax_md": "jax-md==0.2.29",
    "gymnax": "gymnax==1.0.1", "evosax": "evosax==0.3.2", "dynamax": "dynamax==1.0.3",
    "ott": "ott-jax==0.6.0", "jaxlie": "jaxlie==1.5.0", "jax_dataclasses": "jax-dataclasses==1.6.3",
    "flashbax": "flashbax==0.1.3", "pgx": "pgx==2.6.0", "kfac_jax": "kfac-jax==0.0.8",
    "mujoco_mjx": "mujoco-mjx==3.17.0", "brax": "brax==0.14.2", "tinygp": "tinygp==0.3.1",
    "mctx": "mctx==0.0.71", "gpjax": "gpjax==1.0.0", "interpax": "interpax==0.3.16",
    "quax": "quax==0.4.6", "jumanji": "jumanji==1.1.2", "jaxns": "jaxns==3.0.0",
    "flowjax": "flowjax==19.1.2", "distreqx": "distreqx==0.0.3", "clu": "clu==0.0.12",
    "jax_cosmo": "jax-cosmo==0.1.0", "pytensor": "pytensor==3.0.7",
    "pennylane": "pennylane==0.45.1", "opt_einsum": "opt_einsum==3.4.0",
    "keras": "keras==3.15.1", "netket": "netket==3.23.0", "craftax": "craftax==1.6.1",
    "evojax": "evojax==0.2.17", "jaxley": "jaxley==0.14.0", "jaxmarl": "jaxmarl==0.2.0",
    "qdax": "qdax==0.5.0", "jwave": "jwave==0.2.1", "xminigrid": "xminigrid==0.9.3",
    "s2fft": "s2fft==1.5.0", "kernex": "kernex==0.2.1", "jax_healpy": "jax-healpy==0.8.2",
    "equimo": "equimo==1.1.0", "jmp": "jmp==0.0.4", "tree_math": "tree-math==0.2.1",
    "sympy2jax": "sympy2jax==0.0.8", "quadax": "quadax==0.3.1", "jax_cfd": "jax-cfd==0.2.1",
    "jaxoplanet": "jaxoplanet==0.2.0", "pyhf": "pyhf==0.7.6", "funsor": "funsor==0.4.8",
    "scico": "scico==0.0.7", "pytreeclass": "pytreeclass==0.11.1", "mpax": "mpax==0.2.4",
    "jaxwt": "jaxwt==0.1.1", "flowmc": "flowMC==0.6.4", "brainstate": "brainstate==0.5.4",
    "brainunit": "brainunit==0.5.2", "coix": "coix==0.1.0", "evermore": "evermore==0.4.1",
    "dlux": "dLux==0.15.1", "jaxkan": "jaxkan==0.3.7", "bayex": "bayex==0.3.0",
    "jax_metrics": "jax-metrics==0.2.5", "jaxsim": "jaxsim==0.9.0",
    "optimagic": "optimagic==0.5.3", "exponax": "exponax==0.2.0", "dynamiqs": "dynamiqs==0.3.7",
    "qujax": "qujax==1.1.0", "augmax": "augmax==0.4.1",
    "jaxwell": "jaxwell==0.2.0", "navix": "navix==0.7.4",
    "deepxde": "deepxde==1.15.0", "dinosaur": "dinosaur==1.5.1",
    "exojax": "exojax==2.6.0", "fiddle": "fiddle==0.3.1",
    "tensorcircuit": "tensorcircuit-ng==1.10.0", "sax": "sax==0.16.14",
}
# JAX libraries the programs' libraries depend on (also installed without dependencies).
JAX_DEPENDENCIES = ["paramax==0.0.5", "jaxkd==0.1.2", "esquilax==2.1.0", "jax-tqdm==0.4.0",
                    "jaxctx==1.2.0", "tridiax==0.2.1", "jaxdf==0.2.8", "saiunit==0.5.2",
                    "brainevent==0.2.1", "zodiax==0.5.0", "abcdLux==0.0.2",
                    "simple_pytree==0.2.2", "qpax==0.1.4", "tensornetwork-ng==0.5.3",
                    "klujax==0.4.8"]
# Their non-JAX dependencies that tools/ecosystem.py does not install (brax's web viewer and
# jax-md's materials-science extras are left out: the programs do not import them).
SUPPORT = ["aiofiles", "humanize", "prometheus-client", "protobuf", "psutil", "simplejson",
           "nest_asyncio", "loguru", "lz4", "semver", "ordered-set", "svgwrite", "dotmap",
           "matplotlib", "seaborn", "gymnasium==1.3.0", "tyro", "mujoco==3.17.0", "trimesh",
           "ml-collections", "pillow", "sympy", "frozendict", "immutabledict", "beartype",
           "plum-dispatch==2.10.1", "ihoop", "huggingface-hub", "requests", "cons", "etuples",
           "logical-unification", "minikanren", "filelock", "setuptools", "autoray", "rustworkx",
           "networkx", "appdirs", "cachetools", "autograd", "diastatic-malt", "tomlkit",
           "pennylane-lightning==0.45.0", "numba==0.65.1", "igraph", "sparse", "orjson", "rich",
           "cma", "pygame", "imageio", "safetensors", "scikit-learn", "pandas", "jsonschema",
           "jsonpatch", "makefun", "multipledispatch", "PyWavelets", "array-api-compat",
           "rod==0.5.0", "coloredlogs", "pptree", "pybaum", "plotly", "sqlalchemy",
           "annotated-types", "qutip", "cmap", "ipython", "wandb",
           "scikit-optimize", "pint", "dask", "xarray", "libcst", "graphviz",
           "lark", "natsort", "scikit-rf"]
# Exception classes whose failure means xjax lacks a name JAX has.
MISSING = ("ModuleNotFoundError", "ImportError", "AttributeError")
# How close xjax's outputs must be to JAX's, unless a program sets its own TOLERANCE.
TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}


# ---------------------------------------------------------------------------------------
# The environment

def setup(venv: Path) -> tuple[Path, Path]:
  """The xjax environment (tools/ecosystem.py's, plus the libraries here) and the folder
  that holds only `jax`, which turns it into the reference."""
  import ecosystem  # beside this file; only the sweep's driver needs it, not a program's process
  python = ecosystem.setup(venv, reference=False)
  extra = sorted(set(LIBRARIES.values()) - set(ecosystem.NO_DEPS)) + JAX_DEPENDENCIES
  wanted = json.dumps([extra, SUPPORT])
  marker = venv / ".ecosystem-sweep-installed"
  if not (marker.exists() and marker.read_text() == wanted):
    ecosystem._pip(python, *SUPPORT, *ecosystem.XJAX_RUNTIME)
    ecosystem._pip(python, "--no-deps", *extra)
    marker.write_text(wanted)
  return python, ecosystem.jax_overlay(python, venv)


# ---------------------------------------------------------------------------------------
# One program, in the process that runs it

def load_program(name: str):
  """The module tools/ecosystem_programs/<name>.py."""
  spec = importlib.util.spec_from_file_location(f"ecosystem_program_{name}", PROGRAMS / f"{name}.py")
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module  # as an import would (jaxtyping looks its functions up there)
  spec.loader.exec_module(module)
  return module


def plain(value):
  """Numbers, strings and nested lists of them, from arrays and scalars."""
  if isinstance(value, str):
    return value
  if isinstance(value, (list, tuple)):
    return [plain(v) for v in value]
  import numpy as np
  array = np.asarray(value)
  if array.dtype.kind == "b":
    return array.tolist()
  return array.astype(np.float64).tolist() if array.dtype.kind in "fiu" else str(value)


def _failing_call(error: BaseException) -> str:
  """The last call made outside xjax (and JAX): the library's or the program's line."""
  frames = traceback.extract_tb(error.__traceback__)
  outside = [f for f in frames if not re.search(r"/xjax/|(site-packages|jax-overlay)/jax/|importlib",
                                                f.filename)]
  frame = (outside or frames)[-1]
  where = frame.filename.split("site-packages/")[-1].replace(str(REPO) + "/", "")
  return f"{where}:{frame.lineno}: {(frame.line or '').strip()}"


def run_program(name: str) -> None:
  """Runs one program and prints its outcome as one JSON line."""
  start = time.time()
  try:
    program = load_program(name)
    outputs = {key: plain(value) for key, value in program.run().items()}
    result = {"outputs": outputs, "tolerance": getattr(program, "TOLERANCE", TOLERANCE)}
  except BaseException as error:  # the outcome is the exception itself
    message = str(error).strip().splitlines()
    result = {"error": type(error).__name__, "message": message[0][:300] if message else "",
              "call": _failing_call(error),
              "last_frames": [f"{f.filename.split('site-packages/')[-1]}:{f.lineno} {f.name}"
                              for f in traceback.extract_tb(error.__traceback__)[-3:]]}
  import jax
  result.update(jax="xjax" if "/xjax/" in jax.__file__ else f"jax {jax.__version__}",
                seconds=round(time.time() - start, 1))
  print("\n@@result " + json.dumps(result), flush=True)


# ---------------------------------------------------------------------------------------
# The sweep

def execute(python: Path, overlay: Path, name: str, reference: bool, timeout: float) -> dict:
  front = [str(python)] if reference else [str(python), "-m", "xjax"]
  env = dict(os.environ, PYTHONHASHSEED="0", XLA_FLAGS="--xla_force_host_platform_device_count=1")
  env.pop("PYTHONPATH", None)
  if reference:
    env["PYTHONPATH"] = str(overlay)
  work = REPO / ".ecosystem" / "sweep-work"
  work.mkdir(parents=True, exist_ok=True)
  command = [*front, str(Path(__file__)), "--run-program", name]
  try:
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True,
                          timeout=timeout)
  except subprocess.TimeoutExpired:
    return {"error": "Timeout", "message": f"did not finish in {timeout:.0f} s", "call": ""}
  for line in reversed(done.stdout.splitlines()):
    if line.startswith("@@result "):
      return json.loads(line[len("@@result "):])
  tail = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()][-2:]
  return {"error": "Crash", "message": f"exit {done.returncode}: " + " | ".join(tail)[:300],
          "call": ""}


def close(a, b, rtol: float, atol: float) -> bool:
  """Whether outputs `a` (xjax's) are within tolerance of `b` (JAX's), structure and all."""
  if isinstance(a, list) and isinstance(b, list):
    return len(a) == len(b) and all(close(x, y, rtol, atol) for x, y in zip(a, b))
  if isinstance(a, (int, float)) and isinstance(b, (int, float)):
    if a != a or b != b:
      return a != a and b != b
    if a == b:  # (infinities too)
      return True
    return abs(a - b) <= atol + rtol * abs(b)
  return a == b


def compare(xjax_result: dict, reference: dict) -> dict:
  """match / mismatch / error on xjax / fails on both, with a cause class."""
  tolerance = reference.get("tolerance", TOLERANCE)
  if "error" in reference:
    same = (xjax_result.get("error"), xjax_result.get("message")) == \
        (reference["error"], reference["message"])
    return {"status": "same error" if same else "reference fails", "cause": ""}
  if "error" in xjax_result:
    return {"status": "error", "cause": cause_class(xjax_result)}
  ours, theirs = xjax_result["outputs"], reference["outputs"]
  differ = sorted(k for k in theirs if not close(ours.get(k), theirs[k], **tolerance))
  if not differ:
    return {"status": "match", "cause": ""}
  loose = all(close(ours.get(k), theirs[k], rtol=1e-2, atol=1e-3) for k in differ)
  return {"status": "mismatch", "cause": "numerics" if loose else "semantics difference",
          "differ": differ}


def cause_class(result: dict) -> str:
  error, message = result["error"], result.get("message", "")
  if error in MISSING and "jax._src" in message:
    return "missing jax._src name"
  if error in MISSING:
    return "missing public module/attribute"
  return "semantics difference"


def _first_line(result: dict) -> str:
  if "error" not in result:
    return "ok"
  text = f"{result['error']}: {result.get('message', '')}".replace(str(REPO) + "/", "")
  return text[:140].replace("|", "\\|")


def table(results: dict) -> str:
  """The Markdown table of the sweep."""
  rows = ["| program | version | on xjax | reference JAX 0.10.2 | cause class | s (xjax / JAX) |",
          "| --- | --- | --- | --- | --- | --- |"]
  for name in sorted(results):
    entry = results[name]
    ours, theirs, verdict = entry["xjax"], entry["reference"], entry["verdict"]
    status = verdict["status"]
    if status == "mismatch":
      status += " (" + ", ".join(verdict["differ"])[:60] + ")"
    elif status in ("error", "reference fails"):
      status += ": " + _first_line(ours)
    rows.append(f"| {name} | {LIBRARIES.get(name, '?').split('==')[1]} | {status} | "
                f"{_first_line(theirs)} | {verdict['cause']} | "
                f"{ours.get('seconds', '-')} / {theirs.get('seconds', '-')} |")
  return "\n".join(rows)


def failures(results: dict) -> str:
  """Per failing program: the exception and the exact call that raised it."""
  lines = []
  for name in sorted(results):
    entry = results[name]
    if entry["verdict"]["status"] == "error":
      ours = entry["xjax"]
      lines.append(f"- **{name}** ({entry['verdict']['cause']}): `{_first_line(ours)}` "
                   f"at `{ours.get('call', '')}`")
    elif entry["verdict"]["status"] == "mismatch":
      differ = entry["verdict"]["differ"]
      lines.append(f"- **{name}** ({entry['verdict']['cause']}): outputs differ: "
                   + ", ".join(f"`{k}`" for k in differ))
  return "\n".join(lines)


def write_docs(results: dict) -> None:
  text = DOC.read_text()
  begin, end = "<!-- sweep table -->", "<!-- end sweep table -->"
  head, rest = text.split(begin)
  _, tail = rest.split(end)
  DOC.write_text(f"{head}{begin}\n{table(results)}\n\n{failures(results)}\n{end}{tail}")


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--venv", type=Path, default=REPO / ".ecosystem" / "venv")
  parser.add_argument("--results", type=Path, default=REPO / ".ecosystem" / "sweep.json")
  parser.add_argument("--lib", action="append", choices=sorted(LIBRARIES))
  parser.add_argument("--timeout", type=float, default=300.0, help="seconds per program and side")
  parser.add_argument("--report", action="store_true", help="print the saved results only")
  parser.add_argument("--write-docs", action="store_true", help="update docs/ecosystem.md's table")
  parser.add_argument("--write-reference", action="store_true",
                      help="save JAX's outputs of the matching programs in " + str(REFERENCE_OUTPUTS))
  parser.add_argument("--run-program", help=argparse.SUPPRESS)
  args = parser.parse_args(argv)
  if args.run_program:
    run_program(args.run_program)
    return
  results = json.loads(args.results.read_text()) if args.results.exists() else {}
  if not args.report:
    python, overlay = setup(args.venv)
    for name in args.lib or sorted(LIBRARIES):
      reference = execute(python, overlay, name, True, args.timeout)
      ours = execute(python, overlay, name, False, args.timeout)
      results[name] = {"xjax": ours, "reference": reference,
                       "verdict": compare(ours, reference)}
      print(f"{name}: {results[name]['verdict']['status']} ({_first_line(ours)})", flush=True)
      args.results.write_text(json.dumps(results, indent=1, sort_keys=True))
  for entry in results.values():  # verdicts from the saved outcomes, as this version judges them
    entry["verdict"] = compare(entry["xjax"], entry["reference"])
  print("\n" + table(results) + "\n\n" + failures(results))
  if args.write_docs:
    write_docs(results)
  if args.write_reference:  # (programs without results here keep their recorded outputs)
    recorded = json.loads(REFERENCE_OUTPUTS.read_text()) if REFERENCE_OUTPUTS.exists() else {}
    for name, entry in results.items():
      recorded.pop(name, None)
      if entry["verdict"]["status"] == "match":
        recorded[name] = {"version": LIBRARIES[name], "outputs": entry["reference"]["outputs"],
                          "seconds_xjax": entry["xjax"].get("seconds")}
    REFERENCE_OUTPUTS.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
  main()
