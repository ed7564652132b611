"""The command line every example shares: `--smoke` (a smaller, faster run, used by the test
suite) and `--plot out.png` (draw the result with matplotlib, the optional `examples` extra)."""
from __future__ import annotations

import argparse
import sys


def parse_args(description: str, argv: list[str] | None = None) -> argparse.Namespace:
  parser = argparse.ArgumentParser(description=description)
  parser.add_argument("--smoke", action="store_true", help="a smaller, faster run (for tests)")
  parser.add_argument("--plot", metavar="OUT.png", help="save a figure of the result (needs matplotlib)")
  return parser.parse_args(argv)


def pyplot():
  """matplotlib.pyplot on a file-only backend; without matplotlib, exit with a one-line message."""
  try:
    import matplotlib
  except ImportError:
    sys.exit("--plot needs matplotlib, which is not installed: "
             "pip install matplotlib (or pip install -e '.[examples]')")
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  return plt


def save(fig, path: str) -> None:
  if fig.get_layout_engine() is None:   # a figure laid out by its own engine keeps it
    fig.tight_layout()
  fig.savefig(path, dpi=100)
  print(f"saved {path}")
