"""Runs a file of multi-device cases in a fresh process with 4 CPU devices (the suite's own
process keeps one device), and reports pytest's summary."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_cases(path: str, devices: int = 4, timeout: int = 300, as_jax: bool = False) -> int:
  """Runs ``path`` (relative to the repository) under pytest with ``devices`` CPU devices
  (``as_jax``: through ``python -m xjax``, so that ``import jax`` gives xjax there too);
  fails with the output if any case fails; returns the number that passed."""
  env = {k: v for k, v in os.environ.items() if k not in ("JAX_NUM_CPU_DEVICES", "XLA_FLAGS")}
  env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
  xjax = ["-m", "xjax"] if as_jax else []
  out = subprocess.run([sys.executable, *xjax, "-m", "pytest", "-q", "-p", "no:xdist", "-p",
                        "no:cacheprovider", path], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=timeout)
  assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-3000:]
  return int(re.search(r"(\d+) passed", out.stdout).group(1))
