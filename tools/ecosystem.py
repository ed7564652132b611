"""Runs JAX libraries' own test suites on xjax, as a user without JAX would.

(The same environment also holds the libraries whose README quickstarts
tests/compat/test_ecosystem_quickstarts.py runs; `make ecosystem` runs those after the suites.)

    python tools/ecosystem.py                 # set up .ecosystem/venv (no `jax`), run the suites
                                              # whose reference passes are recorded
    python tools/ecosystem.py --lib chex -k asserts     # only chex files whose path has 'asserts'
    python tools/ecosystem.py --report        # print the last results again
    python tools/ecosystem.py --overlay --results .ecosystem/results-reference
                                              # the same suites, environment and library versions
                                              # on the real JAX 0.10.2 (a folder holding only
                                              # `jax`, .ecosystem/jax-overlay, on PYTHONPATH)
    python tools/ecosystem.py --reference --venv DIR/venv --results DIR/results
                                              # the same on JAX 0.10.2 in an environment of its own

The environment gets the libraries with `pip install --no-deps` and their non-JAX
dependencies, and xjax's working tree through a `.pth` file; it has no `jax` package.
A suite is the test files of the installed wheel, or of the library's sdist where the wheel
ships none (downloaded once into .ecosystem/sdists). Each file runs in its own process (as
chex's CI does) through the import redirection (`python -m xjax -m pytest FILE`), one after
another, with a time limit per file. Per library it prints passed/failed/errored tests, the
pass rate, the share of the reference's passing tests that pass (from
tools/ecosystem_reference/), and the most common failure causes (exception type and first
line of the message).
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REFERENCE_PASSES = REPO / "tools" / "ecosystem_reference"
REFERENCE_JAX = "jax==0.10.2"


@dataclasses.dataclass(frozen=True)
class Suite:
  """Where a library's own tests are and what they need to run."""
  distribution: str              # pinned
  folder: str                    # in site-packages, or in the unpacked sdist when `sdist`
  patterns: tuple[str, ...] = ("*_test.py",)  # the test files' names
  sdist: bool = False            # the wheel ships no tests; the sdist does
  env: tuple[tuple[str, str], ...] = ()  # environment variables the suite reads
  recursive: bool = True         # False: the folder's own files only, not its subfolders'
  leave_out: tuple[str, ...] = ()  # subfolders whose tests need what is not installed here


# The libraries whose wheel or sdist ships tests that run here (dm-pix's and haiku's files
# that compare with TensorFlow, and einops' torch ones, do not: no tensorflow or torch here;
# jaxlie's sdist lacks its tests' helper module). Those without a recorded reference
# (jax-md) run only with `--lib`.
LIBRARIES = {
    "optax": Suite("optax==0.2.8", "optax"), "chex": Suite("chex==0.1.92", "chex"),
    "einops": Suite("einops==0.8.2", "einops/tests", ("test_*.py",),
                    env=(("EINOPS_TEST_BACKENDS", "jax"),)),
    "jax_dataclasses": Suite("jax-dataclasses==1.6.3", "tests", ("test_*.py",), sdist=True),
    "jraph": Suite("jraph==0.0.6.dev0", "jraph"), "dm_pix": Suite("dm-pix==0.4.5", "dm_pix"),
    "rlax": Suite("rlax==0.1.9", "rlax"), "flashbax": Suite("flashbax==0.1.3", "flashbax"),
    "distrax": Suite("distrax==0.1.9", "distrax"), "haiku": Suite("dm-haiku==0.0.17", "haiku"),
    "mctx": Suite("mctx==0.0.71", "mctx/_src/tests", sdist=True),
    "tinygp": Suite("tinygp==0.3.1", "tests", ("test_*.py",), sdist=True),
    "gymnax": Suite("gymnax==1.0.1", "tests", ("test_*.py",), sdist=True),
    "e3nn_jax": Suite("e3nn-jax==0.21.0", "tests", sdist=True),
    "dynamax": Suite("dynamax==1.0.3", "dynamax", ("*_test.py", "test_*.py"), sdist=True),
    "blackjax": Suite("blackjax==1.7.1", "tests", ("test_*.py",), sdist=True),
    "flax": Suite("flax==0.12.8", "tests/nnx", sdist=True),
    "flax_linen": Suite("flax==0.12.8", "tests/linen", sdist=True),
    "flax_core": Suite("flax==0.12.8", "tests/core", sdist=True),
    "flax_misc": Suite("flax==0.12.8", "tests", sdist=True, recursive=False),  # (struct, ...)
    "numpyro": Suite("numpyro==0.22.0", "test", ("test_*.py",), sdist=True),
    "penzai": Suite("penzai==0.2.5", "tests", sdist=True),
    "jax_md": Suite("jax-md==0.2.29", "tests", sdist=True),
    "mjx": Suite("mujoco-mjx==3.17.0", "mujoco/mjx/_src"),
    # (brax's physics, I/O and training-utility tests; not its agents' training runs and
    # perf benchmarks, which take many minutes each)
    "brax": Suite("brax==0.14.2", "brax", tuple(f"{n}_test.py" for n in (
        "kinematics", "scan", "math", "fluid", "base", "actuator", "com", "contact", "joints",
        "constraint", "dynamics", "mass", "json", "mjcf", "types", "replay_buffers", "losses",
        "training"))),
    "clu": Suite("clu==0.0.12", "clu"),
    "gpjax": Suite("gpjax==1.0.0", "tests", ("test_*.py",), sdist=True),
    "interpax": Suite("interpax==0.3.16", "tests", ("test_*.py",), sdist=True),
    # (quax's benchmarks need pytest-benchmark)
    "quax": Suite("quax==0.4.6", "tests", ("test_*.py",), sdist=True, leave_out=("benchmark",)),
    "tree_math": Suite("tree-math==0.2.1", "tree_math"),
    # (scico's Ray Tune test needs ray)
    "scico": Suite("scico==0.0.7", "scico/test", ("test_*.py",), leave_out=("test_ray_tune.py",)),
}
# The libraries whose quickstarts tests/compat/test_ecosystem_quickstarts.py runs.
QUICKSTART_LIBRARIES = ["numpyro==0.22.0", "blackjax==1.7.1", "equinox==0.13.8", "diffrax==0.7.2",
                        "optimistix==0.1.0", "lineax==0.1.1", "tinygp==0.3.1", "dm-haiku==0.0.17",
                        "distrax==0.1.9", "tfp-nightly==0.26.0.dev20261027", "jaxopt==0.8.5",
                        "jraph==0.0.6.dev0", "jaxtyping==0.3.11"]
# Installed without their dependencies (they all ask for `jax`).
NO_DEPS = sorted({*(s.distribution for s in LIBRARIES.values()), "flax==0.12.8",
                  *QUICKSTART_LIBRARIES})
# What the libraries and their tests import besides JAX (flax: the parts linen needs; then
# what the quickstart libraries need: numpyro, blackjax, equinox/diffrax, haiku, tfp; then
# what rlax, flashbax and the distrax and haiku tests need; quax's multiple dispatch).
SUPPORT = ["absl-py", "toolz", "typing_extensions>=4.15", "pytest==9.2.0", "cloudpickle",
           "dm-tree", "scikit-learn", "msgpack", "rich", "PyYAML", "treescope", "etils",
           "opt_einsum", "multipledispatch", "tqdm", "fastprogress", "wadler_lindig",
           "typeguard", "jmp", "tabulate", "decorator", "gast", "six", "dm-env",
           "tensorstore", "mock", "dill", "plum-dispatch==2.10.1", "beartype", "imageio",
           "tifffile", "PyAbel"]
XJAX_RUNTIME = ["numpy==2.4.6", "jaxlib==0.10.2", "ml_dtypes==0.6.0", "scipy==1.17.1",
                "flatbuffers==25.12.19"]
REFERENCE_RUNTIME = [*XJAX_RUNTIME, REFERENCE_JAX, "opt_einsum"]


def _pip(python: Path, *args: str) -> None:
  subprocess.run([str(python), "-m", "pip", "install", "-q", *args], check=True)


def site_packages(python: Path) -> Path:
  out = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       check=True, capture_output=True, text=True)
  return Path(out.stdout.strip())


def setup(venv: Path, reference: bool) -> Path:
  """Creates the environment once (a marker file records what was installed)."""
  python = venv / "bin" / "python"
  wanted = json.dumps([reference, NO_DEPS, SUPPORT, REFERENCE_RUNTIME if reference else XJAX_RUNTIME])
  marker = venv / ".ecosystem-installed"
  if marker.exists() and marker.read_text() == wanted:
    return python
  if not python.exists():
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
  _pip(python, *(REFERENCE_RUNTIME if reference else XJAX_RUNTIME), *SUPPORT)
  _pip(python, "--no-deps", *NO_DEPS)
  if not reference:
    (site_packages(python) / "xjax_working_tree.pth").write_text(str(REPO) + "\n")
    probe = subprocess.run([str(python), "-c", "import importlib.util as u; print(u.find_spec('jax'))"],
                           capture_output=True, text=True, check=True)
    if probe.stdout.strip() != "None":
      raise SystemExit(f"{venv} has a `jax` package; the xjax environment must not")
  marker.write_text(wanted)
  return python


def jax_overlay(python: Path, venv: Path) -> Path:
  """A folder holding only `jax==0.10.2`: on PYTHONPATH it turns the xjax environment into
  the reference, with the very same library versions."""
  overlay = venv.parent / "jax-overlay"
  if not (overlay / "jax").exists():
    _pip(python, "--no-deps", "--upgrade", "--target", str(overlay), REFERENCE_JAX)
  return overlay


def suite_root(python: Path, suite: Suite) -> Path:
  """The folder the suite's file names are relative to: site-packages, or where the sdist
  is unpacked (downloaded the first time)."""
  if not suite.sdist:
    return site_packages(python)
  root = REPO / ".ecosystem" / "sdists"
  name, version = suite.distribution.split("==")
  unpacked = root / f"{name.replace('-', '_')}-{version}"
  if not unpacked.exists():
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(python), "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    "-d", str(root), suite.distribution], check=True)
    shutil.unpack_archive(root / f"{unpacked.name}.tar.gz", root)
  return unpacked


def test_files(python: Path, lib: str) -> dict[str, Path]:
  """{path inside site-packages (or the sdist): path} of the library's test files."""
  suite = LIBRARIES[lib]
  root = suite_root(python, suite)
  folder = root / suite.folder
  files = {p for pattern in suite.patterns
           for p in (folder.rglob(pattern) if suite.recursive else folder.glob(pattern))
           if not set(p.relative_to(folder).parts) & set(suite.leave_out)}
  return {str(p.relative_to(root)): p for p in sorted(files)}


def _cause(element) -> str:
  """'ExceptionType: first line of message' for a junit <failure>/<error> element."""
  lines = [ln[1:].strip() for ln in (element.text or "").splitlines() if ln.startswith("E ")]
  for line in reversed(lines):       # collection errors carry no useful message attribute
    head = line.split(":", 1)[0]
    if head.replace(".", "").replace("_", "").isalnum() and head[:1].isupper() and ":" in line:
      message = element.get("message") or ""
      if element.tag == "failure" and message and not message.startswith("collection"):
        return message.splitlines()[0][:160]
      return line[:160]
  return (element.get("message") or element.tag).splitlines()[0][:160]


def parse_junit(path: Path) -> dict[str, list[str]]:
  """{test id: [outcome, cause]} from a pytest junit file."""
  results = {}
  for case in ET.parse(path).getroot().iter("testcase"):
    test_id = f"{case.get('classname')}::{case.get('name')}"
    outcome, cause = "passed", ""
    for child in case:
      if child.tag in ("failure", "error"):
        outcome, cause = ("failed" if child.tag == "failure" else "error"), _cause(child)
        break
      if child.tag == "skipped":
        outcome = "skipped"
    results[test_id] = [outcome, cause]
  return results


def run_file(python: Path, test_file: Path, reference: bool, timeout: float, work: Path,
             env: dict[str, str]) -> dict:
  junit = work / "junit.xml"
  junit.unlink(missing_ok=True)
  ini = work / "pytest.ini"
  ini.write_text("[pytest]\n")
  front = [str(python)] if reference else [str(python), "-m", "xjax"]
  command = [*front, "-m", "pytest", str(test_file), "-q", "-p", "no:cacheprovider",
             "-c", str(ini), "--rootdir", str(test_file.parent), f"--junitxml={junit}"]
  start = time.time()
  process = subprocess.Popen(command, cwd=work, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True, text=True)
  try:
    output, _ = process.communicate(timeout=timeout)
    status = "ran"
  except subprocess.TimeoutExpired:
    os.killpg(process.pid, signal.SIGKILL)
    output, _ = process.communicate()
    status = "timeout"
  tests = parse_junit(junit) if junit.exists() else {}
  if not tests:
    status = status if status == "timeout" else "crashed"
    tail = [ln for ln in output.splitlines() if ln.strip()][-3:]
    tests = {f"{test_file.name}::<file>": ["error", f"{status}: " + " | ".join(tail)[:160]]}
  return {"status": status, "seconds": round(time.time() - start, 1), "tests": tests}


def load_reference(lib: str) -> set[str] | None:
  path = REFERENCE_PASSES / f"{lib}.txt"
  return set(path.read_text().split("\n")) - {""} if path.exists() else None


_XJAX_NAME = re.compile(r"\bxjax\.")


def report(lib: str, results: dict, top: int) -> str:
  """Prints the library's counts and failure causes; returns its row of docs/ecosystem.md's
  table of own test suites."""
  outcomes = collections.Counter()
  causes = collections.Counter()
  for file_result in results.values():
    for outcome, cause in file_result["tests"].values():
      outcomes[outcome] += 1
      if outcome in ("failed", "error"):
        causes[cause] += 1
  ran = outcomes["passed"] + outcomes["failed"] + outcomes["error"]
  rate = 100.0 * outcomes["passed"] / ran if ran else 0.0
  print(f"\n== {lib}: {len(results)} files; {outcomes['passed']} passed, {outcomes['failed']} failed, "
        f"{outcomes['error']} errored, {outcomes['skipped']} skipped; pass rate {rate:.1f}%")
  reference = load_reference(lib)
  name, version = LIBRARIES[lib].distribution.split("==")
  row = f"| {name} | {version} | no reference recorded | | |"
  if reference:
    # (test ids that print a value's class name it as xjax's: ``<class 'xjax.numpy.float32'>``)
    passed = {_XJAX_NAME.sub("jax.", t) for r in results.values()
              for t, (o, _) in r["tests"].items() if o == "passed"}
    both = len(passed & reference)
    share = f"{100.0 * both / len(reference):.1f}%"
    print(f"   vs the reference JAX 0.10.2: {both} of its {len(reference)} passing tests pass ({share})")
    row = f"| {name} | {version} | {len(reference):,} | {both:,} | {share} |"
  slow = [f"{Path(f).name} ({r['status']})" for f, r in results.items() if r["status"] != "ran"]
  if slow:
    print("   files that did not finish: " + ", ".join(slow))
  for cause, count in causes.most_common(top):
    print(f"   {count:5d}  {cause}")
  return row


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--venv", type=Path, default=REPO / ".ecosystem" / "venv")
  parser.add_argument("--results", type=Path, default=REPO / ".ecosystem" / "results")
  parser.add_argument("--reference", action="store_true",
                      help="run on the real JAX 0.10.2, in an environment of its own")
  parser.add_argument("--overlay", action="store_true",
                      help="run on the real JAX 0.10.2 put on PYTHONPATH in the xjax environment")
  parser.add_argument("--lib", action="append", choices=sorted(LIBRARIES))
  parser.add_argument("-k", dest="pattern", default="", help="only test files whose path has this")
  parser.add_argument("--timeout", type=float, default=300.0, help="seconds per test file")
  parser.add_argument("--top", type=int, default=15, help="failure causes to print")
  parser.add_argument("--report", action="store_true", help="print the saved results only")
  parser.add_argument("--table", action="store_true",
                      help="print the Markdown table of docs/ecosystem.md's own test suites")
  parser.add_argument("--write-reference", action="store_true",
                      help="save the passing test ids as tools/ecosystem_reference/<lib>.txt")
  args = parser.parse_args(argv)
  libs = args.lib or sorted(lib for lib in LIBRARIES if load_reference(lib) is not None)
  args.results = args.results.resolve()  # the test files run in a folder under it
  args.results.mkdir(parents=True, exist_ok=True)
  python = None if args.report else setup(args.venv, args.reference)
  env = dict(os.environ)
  env.pop("PYTHONPATH", None)
  if args.overlay and python is not None:
    env["PYTHONPATH"] = str(jax_overlay(python, args.venv))
  reference = args.reference or args.overlay
  rows = []
  for lib in libs:
    saved = args.results / f"{lib}.json"
    results = json.loads(saved.read_text()) if saved.exists() else {}
    if python is not None:
      work = args.results / "work" / lib  # (one per library: runs of two never share a report)
      work.mkdir(parents=True, exist_ok=True)
      for key, test_file in test_files(python, lib).items():
        if args.pattern not in key:
          continue
        result = run_file(python, test_file, reference, args.timeout, work,
                          {**env, **dict(LIBRARIES[lib].env)})
        results[key] = result
        counts = collections.Counter(o for o, _ in result["tests"].values())
        print(f"{key}: {dict(counts)} in {result['seconds']} s ({result['status']})", flush=True)
        saved.write_text(json.dumps(results, indent=0, sort_keys=True))
    rows.append(report(lib, results, args.top))
    if args.write_reference:
      REFERENCE_PASSES.mkdir(exist_ok=True)
      passed = sorted(t for r in results.values() for t, (o, _) in r["tests"].items() if o == "passed")
      (REFERENCE_PASSES / f"{lib}.txt").write_text("\n".join(passed) + "\n")
  if args.table:
    print("\n| library | version | passing on JAX 0.10.2 | of those, passing on xjax | share |\n"
          "|---|---|---:|---:|---:|\n" + "\n".join(rows))


if __name__ == "__main__":
  main()
