"""Runs the Python code blocks of a markdown page and checks the output each one shows.

The conventions (the guide's "About the examples" section says the same to readers):

- Every ```` ```python ```` block runs, in page order, in one namespace per page (a page is one
  program, run in a fresh process so that it may configure devices before the first backend starts).
- A ```` ```text ```` block that directly follows a Python block (blank lines between them allowed) is
  what that block prints. A Python block without one must print nothing.
- `...` in shown output stands for any text, including several lines (doctest's ELLIPSIS): use it
  for what legitimately varies (timings, addresses, file paths) or to shorten a long message.
- A block may end by raising: its output then ends with the line `ErrorClass: message`, as
  an interactive session shows it (without the traceback). A block that raises without showing it fails.
- Other blocks (```` ```bash ````, ```` ```console ````, ...) are shown, not run.

`python tests/docs/markdown_runner.py PAGE.md` prints every mismatch and exits 1 when there is one.
"""
from __future__ import annotations

import contextlib
import doctest
import io
import re
import sys
import traceback
from dataclasses import dataclass

_FENCE = re.compile(r"^```\s*([\w+-]*)\s*$")


@dataclass
class Block:
  line: int          # 1-based line of the first code line in the page
  code: str
  want: str | None   # the shown output, or None when the block shows none


def blocks(text: str) -> list[Block]:
  """The page's Python blocks, each with the output block that follows it (if any)."""
  lines = text.splitlines()
  fenced: list[tuple[str, int, str, int]] = []   # (language, first line, body, closing line)
  i = 0
  while i < len(lines):
    m = _FENCE.match(lines[i])
    if not m:
      i += 1
      continue
    j = i + 1
    while j < len(lines) and lines[j].rstrip() != "```":
      j += 1
    if j == len(lines):
      raise ValueError(f"line {i + 1}: code block is never closed")
    fenced.append((m.group(1).lower(), i + 2, "\n".join(lines[i + 1:j]) + "\n", j + 1))
    i = j + 1
  out: list[Block] = []
  for k, (lang, first, body, _) in enumerate(fenced):
    if lang != "python":
      continue
    want = None
    if k + 1 < len(fenced) and fenced[k + 1][0] == "text":
      between = lines[fenced[k][3]:fenced[k + 1][1] - 2]
      if all(not s.strip() for s in between):
        want = fenced[k + 1][2]
    out.append(Block(first, body, want))
  return out


def _normalize(s: str) -> str:
  return "\n".join(line.rstrip() for line in s.strip("\n").splitlines()) + "\n"


def run_page(path: str) -> list[str]:
  """Runs every Python block of the page at `path`; returns a description of each mismatch."""
  with open(path, encoding="utf-8") as f:
    page = f.read()
  namespace: dict = {"__name__": "__main__"}
  checker = doctest.OutputChecker()
  failures: list[str] = []
  for block in blocks(page):
    code = compile("\n" * (block.line - 1) + block.code, path, "exec")
    buf = io.StringIO()
    raised = None
    with contextlib.redirect_stdout(buf):
      try:
        exec(code, namespace)
      except Exception as e:  # noqa: BLE001 (shown as the block's last output line)
        raised = e
        print(f"{type(e).__name__}: {e}")
    got = buf.getvalue()
    where = f"{path}:{block.line}"
    if raised is not None and block.want is None:
      tb = "".join(traceback.format_exception(raised))
      failures.append(f"{where}: the block raised, and the page shows no output for it\n{tb}")
      continue
    want = _normalize(block.want) if block.want is not None else "\n"
    if not checker.check_output(want, _normalize(got), doctest.ELLIPSIS):
      failures.append(f"{where}: output differs\n--- shown:\n{want}--- printed:\n{_normalize(got)}")
  return failures


def main(argv: list[str]) -> int:
  failures = [f for path in argv for f in run_page(path)]
  for f in failures:
    print(f, end="\n\n")
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
