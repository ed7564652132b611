"""Modules older and newer JAX code imports, run through `python -m xjax` as such programs
are: `jax.experimental.pjit`, `jax.experimental.compilation_cache`, `jax.lib` (empty in
JAX 0.10.2), stax's activations and optimizers' type names, `jax.api_util.safe_map`, and
the private `jax._src.util` / `jax._src.lax.lax` that JAX's own guides import.  Expected
outputs are JAX 0.10.2's."""
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]

# A jaxpr interpreter in the style of JAX's "custom interpreters" guide, and the primitives
# guide's imports (tests/data: xjax's own tree never imports `jax`).
PROGRAM = (REPO / "tests" / "data" / "program_using_legacy_modules.txt").read_text()


def test_legacy_and_private_modules_under_python_dash_m_xjax(tmp_path):
  script = tmp_path / "prog.py"
  script.write_text(PROGRAM)
  env = dict(os.environ, PYTHONPATH=str(REPO), XJAX_COMPILATION_CACHE="1")
  out = subprocess.run([sys.executable, "-m", "xjax", str(script)], capture_output=True,
                       text=True, cwd=tmp_path, env=env, timeout=300)
  assert out.returncode == 0, out.stderr[-3000:]
  lines = out.stdout.splitlines()
  assert lines == [
      "interpreted [4.28338, 4.28338, 4.28338]",
      "api_util.safe_map [4, 6]",
      "safe_zip safe_zip() argument 1 has length 1 but argument 0 has length 2. All lengths: "
      "(2, 1)",
      "lists ((1, 3), (2, 4)) [[1], [2, 3], [4, 5]] ([2], [1, 3]) [9, 1, 8]",
      "lax internal True 1.0 mul",
      "pjit warns ['jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` "
      "instead.']",
      "pjit 3.0 pjit",
      "pjit ImportError True",
      "xla_bridge True",
      "cache dir True",
      "cache written True",  # xjax persists every compilation (JAX: those over 1 s)
      "stax [0.0, 0.5] True True True [-0.15881, 0.34571] [-1.11133, 0.52535]",
      "optimizers <class 'int'> collections.abc.Callable[[int], float] typing.Any",
  ], out.stdout
