"""`python -m xjax SCRIPT [ARGS]` (or `-m MODULE [ARGS]`, or `-c CODE [ARGS]`): runs a JAX
program unmodified, with `import jax` resolving to xjax."""
import runpy
import sys

from xjax._src.compat.jax_alias import install_as_jax

USAGE = ("usage: python -m xjax SCRIPT [ARGS...] | python -m xjax -m MODULE [ARGS...] | "
         "python -m xjax -c CODE [ARGS...]")


def main(argv: list[str]) -> None:
  if not argv or argv[0] in ("-h", "--help") or (argv[0] in ("-m", "-c") and len(argv) < 2):
    print(USAGE, file=sys.stderr)
    raise SystemExit(2)
  install_as_jax()
  if argv[0] == "-m":
    sys.argv = argv[1:]
    runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
  elif argv[0] == "-c":
    sys.argv = ["-c", *argv[2:]]
    exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
  else:
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
  main(sys.argv[1:])
