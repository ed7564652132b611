"""The jaxlib range xjax declares, and what it does with a jaxlib outside it."""
import pathlib
import re
import subprocess
import sys
import tomllib

import jaxlib
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _dependencies() -> dict[str, str]:
  project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
  return {re.match(r"[A-Za-z_]+", d).group(0).lower(): d for d in project["dependencies"]}


def _version(text: str) -> tuple[int, ...]:
  return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def test_dependencies_are_ranges_whose_lower_bounds_are_the_ci_constraints():
  """pyproject declares ranges (so installing beside JAX changes nothing of it), and
  requirements/lower-bounds.txt, which `make setup` installs against, pins each to its
  lower bound."""
  deps = _dependencies()
  pins = dict(line.split("==") for line in (ROOT / "requirements/lower-bounds.txt")
              .read_text().splitlines() if line and not line.startswith("#"))
  for name in ("jaxlib", "numpy", "scipy", "ml_dtypes"):
    spec = deps[name]
    low = re.search(r">=([\d.]+)", spec).group(1)
    assert re.search(r",<[\d.]+", spec), spec   # an upper bound: the newest tested series
    assert pins[name] == low, (name, spec)
  assert deps["jaxlib"].startswith("jaxlib>=0.10.2,")


def test_the_running_jaxlib_and_numpy_are_inside_the_declared_ranges():
  deps = _dependencies()
  for name, running in (("jaxlib", jaxlib.__version__), ("numpy", np.__version__)):
    low = _version(re.search(r">=([\d.]+)", deps[name]).group(1))
    high = _version(re.search(r"<([\d.]+)", deps[name]).group(1))
    assert low <= _version(running) < high, (name, running, deps[name])


def test_a_jaxlib_lacking_what_xjax_needs_fails_at_import_naming_it():
  """A jaxlib whose Python API lacks something xjax's every program uses fails when xjax is
  imported, with an ImportError that names what is missing and the supported range."""
  code = ("import jaxlib.xla_client as xc\n"
          "del xc.batched_device_put\n"
          "try:\n"
          "  import xjax.numpy\n"
          "except ImportError as e:\n"
          "  print('ImportError:', e)\n")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
  assert "ImportError: xjax cannot run on jaxlib" in out.stdout, out.stdout + out.stderr
  assert "xla_client.batched_device_put" in out.stdout
  assert "0.10.2" in out.stdout and "0.13" in out.stdout
