"""The documentation site builds with warnings as errors (`make docs`), when MkDocs is installed
(the `docs` extra, which `make test` installs)."""
import builtins
import html
import inspect
import os
import re
import subprocess
import sys
import types
import typing

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
  """The site built once for this module's tests, with warnings as errors."""
  pytest.importorskip("mkdocs")
  pytest.importorskip("mkdocstrings_handlers.python")
  tmp_path = tmp_path_factory.mktemp("site")
  out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
  assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-5000:]
  return tmp_path


def _text(page):
  """A built page's text: tags (and the attributes, where `title=` repeats signatures) kept, entities decoded."""
  return " ".join(html.unescape(page.read_text()).split())


def _foreign_docstring_lines():
  """The opening lines of the docstrings of Python's own types (str, float, frozenset,
  SimpleNamespace, TypeVar...): both the first line and the first line that is not a signature."""
  kinds = [t for t in (*vars(builtins).values(), *vars(types).values(), typing.TypeVar) if isinstance(t, type)]
  lines = set()
  for kind in kinds:
    if isinstance(kind.__doc__, str) and kind.__doc__.strip():
      doc = [line.strip() for line in inspect.cleandoc(kind.__doc__).splitlines()[:4]]
      lines.update(line for line in doc if len(line) >= 16 and line[0].isupper() and "->" not in line)
  return lines


@pytest.mark.slow
def test_docs_build_strict(site):
  tmp_path = site
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


@pytest.mark.slow
def test_api_pages_show_no_addresses_or_builtin_docstrings(site):
  foreign = _foreign_docstring_lines()
  assert "Create a new string object from the given object. If encoding or" in foreign
  assert "Convert a string or number to a floating point number, if possible." in foreign
  pages = sorted((site / "api").rglob("*.html"))
  assert len(pages) >= 10
  for page in pages:
    text = _text(page)
    assert not re.search(r"object at 0x[0-9a-fA-F]", text), (page, re.search(r".{200}object at 0x", text))
    found = sorted(line for line in foreign if line in text)
    assert not found, (page, found)
  numpy_page = _text(site / "api/numpy/index.html")
  # constants and index helpers carry descriptions of their own
  for name, words in (("pi", "circumference"), ("e", "natural logarithms"), ("c_", "columns"), ("s_", "brackets")):
    entry = numpy_page.split(f'id="xjax.numpy.{name}"', 1)[1][:1500]
    assert words in entry, (name, entry)
