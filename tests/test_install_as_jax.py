"""`python -m xjax SCRIPT` and `xjax.install_as_jax()`: real JAX programs, written against
`jax`, run unmodified in a subprocess."""
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent

# The program is kept as text (not a .py file): xjax's own tree never imports `jax`; only
# the subprocess does, and there the redirection answers with xjax.
PROGRAM = (REPO / "tests" / "data" / "program_written_for_jax.txt").read_text()


def run(args, tmp_path, code=PROGRAM):
  script = tmp_path / "prog.py"
  script.write_text(code)
  env = dict(os.environ, PYTHONPATH=str(REPO))
  out = subprocess.run([sys.executable, *args(script)], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=300)
  assert out.returncode == 0, out.stderr
  return out.stdout


def check_output(stdout):
  assert "version 0.10.2 (0, 10, 2)" in stdout
  assert "loss True (33,)" in stdout
  assert "ode 0.36788" in stdout
  assert "segment [2.0, 1.0]" in stdout
  assert "numpy is xjax.numpy True" in stdout
  assert "missing jax.experimental.pallas True" in stdout


def test_python_dash_m_xjax(tmp_path):
  stdout = run(lambda s: ["-m", "xjax", str(s), "a", "b"], tmp_path)
  check_output(stdout)
  assert "args ['a', 'b']" in stdout


def test_install_as_jax(tmp_path):
  code = ("import xjax\nxjax.install_as_jax()\nassert xjax.__version__ != '0.10.2'\n"
          + PROGRAM)
  check_output(run(lambda s: [str(s)], tmp_path, code))


PRIVATE_NAMES = (REPO / "tests" / "data" / "program_using_private_names.txt").read_text()


def test_private_jax_names_map_to_the_compatibility_package(tmp_path):
  out = run(lambda s: ["-m", "xjax", str(s)], tmp_path, PRIVATE_NAMES)
  assert "compiled via jax._src.compiler True" in out
  assert "backends ['cpu']" in out
  assert "missing module True" in out and "missing name True" in out
