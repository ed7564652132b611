"""`python -m xjax`'s command line, as `python`'s own: help, version, -c, -m, a script and its
arguments, errors on one line, tracebacks from the user's code."""
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def xjax_cli(*args, cwd, pythonpath=True):
  env = dict(os.environ)
  env.pop("PYTHONPATH", None)
  if pythonpath:
    env["PYTHONPATH"] = str(REPO)
  return subprocess.run([sys.executable, "-m", "xjax", *map(str, args)], capture_output=True,
                        text=True, cwd=cwd, env=env, timeout=300)


def test_help_says_what_it_does_and_exits_0(tmp_path):
  out = xjax_cli("--help", cwd=tmp_path)
  assert out.returncode == 0 and out.stderr == ""
  assert out.stdout.startswith("usage: python -m xjax")
  assert "`import jax`" in out.stdout and "resolves to xjax" in out.stdout
  for option in ("-h, --help", "--version", "-c CODE", "-m MODULE", "SCRIPT", "ARGS"):
    assert option in out.stdout
  assert xjax_cli("-h", cwd=tmp_path).stdout == out.stdout


def test_version_names_xjax_the_jax_api_and_jaxlib(tmp_path):
  import jaxlib
  import xjax
  out = xjax_cli("--version", cwd=tmp_path)
  assert out.returncode == 0
  assert out.stdout == (f"xjax {xjax.__version__} (JAX API 0.10.2), "
                        f"jaxlib {jaxlib.__version__}\n")


def test_script_runs_as_main_with_pythons_argv_and_path(tmp_path):
  (tmp_path / "sub").mkdir()
  (tmp_path / "sub" / "helper.py").write_text("VALUE = 7\n")
  (tmp_path / "sub" / "prog.py").write_text(
      "import sys, jax, jax.numpy as jnp, helper\n"
      "print(sys.argv, sys.path[0], __name__, __file__, sys.modules['__main__'].__file__)\n"
      "print(jax.__version__, float(jnp.sum(jnp.arange(4.0))) + helper.VALUE)\n")
  out = xjax_cli("sub/prog.py", "a", "--b", cwd=tmp_path)
  assert out.returncode == 0, out.stderr
  sub, path = os.path.realpath(tmp_path / "sub"), tmp_path / "sub" / "prog.py"
  assert out.stdout.splitlines() == [
      f"['sub/prog.py', 'a', '--b'] {sub} __main__ {path} {path}", "0.10.2 13.0"]


def test_dash_c_and_dash_m(tmp_path):
  out = xjax_cli("-c", "import sys, jax; print(sys.argv, jax.__version__, __name__)", "x",
                 cwd=tmp_path)
  assert out.returncode == 0, out.stderr
  assert out.stdout == "['-c', 'x'] 0.10.2 __main__\n"
  (tmp_path / "mod.py").write_text("import sys, jax\n"
                                   "print(sys.argv[1:], jax.numpy.ones(2).sum())\n")
  out = xjax_cli("-m", "mod", "y", cwd=tmp_path)
  assert out.returncode == 0, out.stderr
  assert out.stdout == "['y'] 2.0\n"


def test_missing_script_is_one_line_and_exits_2_as_python(tmp_path):
  out = xjax_cli("nope.py", cwd=tmp_path)
  assert out.returncode == 2 and out.stdout == ""
  path = tmp_path / "nope.py"
  assert out.stderr == (f"python -m xjax: can't open file '{path}': [Errno 2] "
                        "No such file or directory\n")
  out = xjax_cli("-m", "no_such_module_xyz", cwd=tmp_path)
  assert (out.returncode, out.stderr) == (1, "python -m xjax: No module named no_such_module_xyz\n")


@pytest.mark.parametrize("args, message", [
    (["--versoin"], "unknown option: --versoin"),
    (["-c"], "argument expected for the -c option"),
    (["-m"], "argument expected for the -m option"),
    ([], "no program given"),
])
def test_usage_errors_exit_2(tmp_path, args, message):
  out = xjax_cli(*args, cwd=tmp_path)
  assert out.returncode == 2
  lines = out.stderr.splitlines()
  assert lines[0].startswith(f"python -m xjax: {message}") and lines[1].startswith("usage:")


def test_traceback_starts_at_the_users_code(tmp_path):
  (tmp_path / "prog.py").write_text("def f(x):\n  return 1 / x\n\nf(0)\n")
  out = xjax_cli("prog.py", cwd=tmp_path)
  plain = subprocess.run([sys.executable, "prog.py"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
  assert out.returncode == plain.returncode == 1
  assert out.stderr == plain.stderr
  assert out.stderr.splitlines()[:2] == ["Traceback (most recent call last):",
                                         f'  File "{tmp_path / "prog.py"}", line 4, in <module>']
  out = xjax_cli("-c", "import jax\n(1).x", cwd=tmp_path)
  assert out.stderr.splitlines()[:2] == ["Traceback (most recent call last):",
                                         '  File "<string>", line 2, in <module>']
  (tmp_path / "quits.py").write_text("import sys\nsys.exit(3)\n")
  out = xjax_cli("quits.py", cwd=tmp_path)
  assert (out.returncode, out.stderr) == (3, "")


def test_a_clone_folder_named_xjax_in_the_current_directory_is_named(tmp_path):
  # Run from the folder holding a clone named `xjax` (git's default), `import xjax` finds the
  # clone, a folder without __init__.py, unless the package comes first on sys.path.
  (tmp_path / "xjax").mkdir()
  (tmp_path / "prog.py").write_text("import jax\nprint(jax.devices())\n")
  found = subprocess.run([sys.executable, "-c", "import xjax; print(xjax.__file__)"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
  if found.returncode == 0 and found.stdout.strip() != "None":
    pytest.skip("xjax is installed so that it comes before the current directory")
  for args in (["prog.py"], ["--version"]):
    out = xjax_cli(*args, cwd=tmp_path, pythonpath=False)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith(f"python -m xjax: `import xjax` found {tmp_path / 'xjax'}, "
                                 "which is not the xjax package")
    assert "Run from another folder" in out.stderr and len(out.stderr.splitlines()) == 1
