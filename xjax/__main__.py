"""`python -m xjax`: runs a program written for JAX on xjax, as `python` runs it, with
`import jax` resolving to xjax (options: HELP below)."""
import builtins
import io
import os
import runpy
import sys
import types
import zipfile

from xjax._src.compat.jax_alias import JAX_VERSION, install_as_jax, xjax_package
from xjax._src.backend.jaxlib_api import JAXLIB_VERSION
from xjax._src.foundations.version import __version__

USAGE = "usage: python -m xjax [-h] [--version] [-c CODE | -m MODULE | SCRIPT] [ARGS...]"
HELP = f"""{USAGE}

Runs a Python program written for JAX on xjax, unchanged: `import jax` (and every
`jax.<submodule>` import) resolves to xjax for the whole run. The program sees sys.argv,
sys.path and __main__ as `python` would give them.

options:
  -h, --help  show this message and exit
  --version   print xjax's version, the JAX API version it implements and jaxlib's, and exit
  -c CODE     run CODE, a string of Python (as `python -c`)
  -m MODULE   run the module MODULE as a script (as `python -m`), e.g. -m pytest tests/
  SCRIPT      run the Python file SCRIPT
  ARGS        the program's arguments, in sys.argv[1:]

Without `python -m xjax`, a program can call `xjax.install_as_jax()` before importing jax,
or import xjax itself (`import xjax as jax`, `import xjax.numpy as jnp`)."""


def _usage_error(message: str):
  print(f"python -m xjax: {message}\n{USAGE}\nTry 'python -m xjax --help' for more information.",
        file=sys.stderr)
  raise SystemExit(2)


def _run_as_main(code, filename: str | None) -> None:
  """Runs compiled `code` as the module `__main__`, as `python` runs a script or `-c`."""
  main = types.ModuleType("__main__")
  main.__dict__.update(__builtins__=builtins, __spec__=None, __loader__=None)
  if filename is not None:
    main.__file__ = filename
    main.__cached__ = None
  sys.modules["__main__"] = main
  exec(code, main.__dict__)


def _run(argv: list[str]) -> None:
  if argv[0] == "-c":
    sys.argv = ["-c", *argv[2:]]
    sys.path[0] = ""
    _run_as_main(compile(argv[1], "<string>", "exec"), None)
  elif argv[0] == "-m":
    sys.argv = argv[1:]
    sys.path[0] = os.getcwd()
    runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
  elif os.path.isdir(argv[0]) or zipfile.is_zipfile(argv[0]):
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")   # a folder or zip file with __main__.py
  else:
    sys.argv = argv
    sys.path[0] = os.path.dirname(os.path.realpath(argv[0]))
    path = os.path.abspath(argv[0])      # __main__.__file__ is absolute, as `python` gives
    with io.open_code(path) as f:
      source = f.read()
    _run_as_main(compile(source, path, "exec"), path)


def _user_traceback(tb):
  """`tb` from the first frame that is not this module's or runpy's: the user's code."""
  while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__,
                                                               "<frozen runpy>"):
    tb = tb.tb_next
  return tb


def main(argv: list[str]) -> None:
  if not argv:
    _usage_error("no program given (a SCRIPT, -m MODULE or -c CODE)")
  if argv[0] in ("-h", "--help"):
    print(HELP)
    return
  try:
    xjax_package()
  except ImportError as e:
    print(f"python -m xjax: {e}", file=sys.stderr)
    raise SystemExit(1) from None
  if argv[0] == "--version":
    print(f"xjax {__version__} (JAX API {JAX_VERSION}), jaxlib {JAXLIB_VERSION}")
    return
  if argv[0] in ("-c", "-m") and len(argv) < 2:
    _usage_error(f"argument expected for the {argv[0]} option")
  if argv[0].startswith("-") and argv[0] not in ("-c", "-m"):
    _usage_error(f"unknown option: {argv[0]}")
  if argv[0] not in ("-c", "-m") and not os.path.exists(argv[0]):
    print(f"python -m xjax: can't open file {os.path.abspath(argv[0])!r}: "
          "[Errno 2] No such file or directory", file=sys.stderr)
    raise SystemExit(2)
  install_as_jax()
  try:
    _run(argv)
  except SystemExit:
    raise
  except BaseException as e:  # reported as `python` does, from the user's first frame
    if isinstance(e, ImportError) and _user_traceback(e.__traceback__) is None:
      print(f"python -m xjax: {e}", file=sys.stderr)   # no such module, no __main__.py
      raise SystemExit(1) from None
    tb = _user_traceback(e.__traceback__)
    sys.excepthook(type(e), e.with_traceback(tb), tb)
    raise SystemExit(130 if isinstance(e, KeyboardInterrupt) else 1) from None


if __name__ == "__main__":
  main(sys.argv[1:])
