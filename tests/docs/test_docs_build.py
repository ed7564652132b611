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
  assert 'id="xjax.numpy.where"' in (tmp_path / "api/numpy/indexing/index.html").read_text()
  assert 'id="xjax.numpy.sin"' in (tmp_path / "api/numpy/math/index.html").read_text()
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
  for page in (tmp_path / "api").rglob("*.html"):
    text = page.read_text()
    assert "__file__" not in text and ROOT not in text and "__cached__" not in text, page
    assert 'id="xjax.lax.sin_p"' not in text or page.parent.name == "primitives", page
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
  # constants and index helpers carry descriptions of their own
  for family, name, words in (("arrays", "pi", "circumference"), ("arrays", "e", "natural logarithms"),
                              ("indexing", "c_", "columns"), ("indexing", "s_", "brackets")):
    entry = _text(site / "api/numpy" / family / "index.html").split(f'id="xjax.numpy.{name}"', 1)[1][:1500]
    assert words in entry, (name, entry)


@pytest.mark.slow
def test_api_pages_are_grouped_and_small(site):
  """Every built page stays under 300 KB (numpy's single page was 600 KB); the families have
  pages of their own, listed in the sidebar, each opening with its summary table."""
  sizes = {str(page.relative_to(site)): page.stat().st_size for page in site.rglob("*.html")}
  assert not {page: size for page, size in sizes.items() if size > 300_000}
  numpy_index = (site / "api/numpy/index.html").read_text()
  for family in ("creation", "shaping", "math", "reductions", "sorting", "linalg", "fft"):
    assert f'href="{family}/"' in numpy_index, family            # the overview and the sidebar
  math = (site / "api/numpy/math/index.html").read_text()
  assert "Functions:" in math and 'href="#xjax.numpy.sin"' in math   # the summary table links the entry
  assert "import xjax.numpy as jnp" not in math                 # nor the module docstring again
  random = _text(site / "api/random/index.html")
  assert 0 < random.index("Key creation and manipulation") < random.index("Random samplers")
  for family in ("control-flow", "parallel", "classes"):
    assert f'id="xjax.lax.' in (site / "api/lax" / family / "index.html").read_text()


@pytest.mark.slow
def test_module_docstring_code_is_a_code_block(site):
  """xjax's docstring (`import xjax as jax` indented under its summary) shows as highlighted code,
  not one line of text; so does xjax.random's example."""
  for page, line in (("xjax", "import xjax.numpy as jnp"), ("random", "x = xjax.random.normal(subkey, (3,))")):
    text = (site / "api" / page / "index.html").read_text()
    block = text.split('<div class="language-python highlight">', 1)[1].split("</pre>", 1)[0]
    assert line in re.sub(r"<[^>]+>", "", html.unescape(block)), (page, block)


@pytest.mark.slow
def test_summary_tables_show_whole_first_sentences(site):
  """A summary row is its docstring's first line: a first sentence wrapped in the source is
  joined there (`jit`'s row was cut at "signature. device"; `clear_caches`' ended at "and");
  config states describe their flag."""
  text = _text(site / "api/xjax/index.html")
  rows = dict(re.findall(r'href="#xjax\.(\w+)"[^>]*>[^<]*</a></code></td> <td> '
                         r'<div class="doc-md-description"> <p>(.*?)</p>', text))
  assert re.sub(r"<[^>]+>", "", rows["jit"]) == (
      "Compiles fun with XLA; traced once per distinct argument signature.")
  assert rows["clear_caches"].endswith("and the executables of eager primitives.")
  assert "64-bit types" in rows["enable_x64"] and "NaN" in rows["debug_nans"]
