"""Runs processes of a multi-process test at once (2 CPU devices each), bounded in time:
every process is killed if the slowest overruns."""
import os
import socket
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port() -> int:
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def _env(devices: int) -> dict:
  env = {k: v for k, v in os.environ.items() if k not in ("JAX_NUM_CPU_DEVICES", "XLA_FLAGS")}
  env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
  return env


def run_all(commands, timeout: float, devices: int = 2) -> list:
  """Runs the commands at once (each process with ``devices`` CPU devices); returns
  (returncode, output) of each, killing them all when the slowest overruns ``timeout``."""
  procs = [subprocess.Popen(c, cwd=ROOT, env=_env(devices), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True) for c in commands]
  deadline = time.monotonic() + timeout
  out = []
  try:
    for p in procs:
      text, _ = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
      out.append((p.returncode, text))
  finally:
    for p in procs:
      if p.poll() is None:
        p.kill()
        p.wait()
  return out
