"""The documentation site builds with warnings as errors (`make docs`), when MkDocs is installed
(the `docs` extra, which `make test` installs)."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.slow
def test_docs_build_strict(tmp_path):
  pytest.importorskip("mkdocs")
  pytest.importorskip("mkdocstrings_handlers.python")
  out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
  assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-5000:]
  for page in ("index.html", "guide/thinking/index.html", "api/numpy/index.html"):
    assert (tmp_path / page).is_file(), page
  numpy_page = (tmp_path / "api/numpy/index.html").read_text()
  assert 'id="xjax.numpy.where"' in numpy_page and 'id="xjax.numpy.sin"' in numpy_page
  # highlighting is done at build time and served with the site (nothing from a CDN), and
  # output blocks are marked apart from code (docs/css/output.css styles them)
  home = (tmp_path / "index.html").read_text()
  assert '<div class="language-python highlight">' in home
  assert '<div class="language-text highlight">' in home
  assert 'href="css/pygments.css"' in home and 'href="css/output.css"' in home
  for page in tmp_path.rglob("*.html"):
    text = page.read_text()
    assert "highlight.js" not in text and not re.search(r"""src=["']https?://""", text), page
  # the API reference: no dunders, no build machine's paths, primitives on a page of their own
  for name in ("xjax", "numpy", "lax", "scipy"):
    text = (tmp_path / "api" / name / "index.html").read_text()
    assert "__file__" not in text and ROOT not in text and "__cached__" not in text, name
  assert 'id="xjax.lax.sin_p"' not in (tmp_path / "api/lax/index.html").read_text()
  assert 'id="xjax.extend.core.primitives.sin_p"' in (
      tmp_path / "api/primitives/index.html").read_text()
