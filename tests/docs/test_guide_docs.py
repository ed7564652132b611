"""Every Python block of the user guide, the README and the docs' home page runs, and prints
what the page shows (conventions in tests/docs/markdown_runner.py). Each page runs in its own
process."""
import glob
import os
import subprocess
import sys

import pytest

from tests.docs.markdown_runner import blocks, run_page

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "tests", "docs", "markdown_runner.py")
PAGES = sorted(glob.glob(os.path.join(ROOT, "docs", "guide", "*.md"))) + [
    os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs", "index.md")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: os.path.relpath(p, ROOT))
def test_page_runs_and_prints_what_it_shows(page):
  assert blocks(open(page, encoding="utf-8").read()), f"{page} has no Python block"
  env = {k: v for k, v in os.environ.items() if k not in ("JAX_NUM_CPU_DEVICES", "XLA_FLAGS")}
  out = subprocess.run([sys.executable, RUNNER, page],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
  assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-3000:]


def test_runner_checks_output_ellipsis_and_errors(tmp_path):
  page = tmp_path / "page.md"
  page.write_text(
    "Text.\n\n```python\nx = 2\nprint(x + 1)\n```\n\n```text\n3\n```\n\n"
    "```python\nprint('at 0x7f3a, done')\n```\n```text\nat ..., done\n```\n\n"
    "```python\nraise ValueError('bad\\nnews')\n```\n```text\nValueError: bad\n...\n```\n\n"
    "```bash\nnot python\n```\n")
  assert [b.line for b in blocks(page.read_text())] == [4, 13, 20]
  assert run_page(str(page)) == []
  page.write_text("```python\nprint(1)\n```\n```text\n2\n```\n\n```python\nprint('unshown')\n```\n\n"
                  "```python\n1 / 0\n```\n")
  failures = run_page(str(page))
  assert len(failures) == 3
  assert "page.md:2: output differs" in failures[0]
  assert "page.md:9: output differs" in failures[1] and "unshown" in failures[1]
  assert "page.md:13: the block raised" in failures[2] and "ZeroDivisionError" in failures[2]
