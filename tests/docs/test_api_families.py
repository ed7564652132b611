"""The API reference groups xjax, xjax.numpy, xjax.lax and xjax.random by family (docs/api/numpy/*.md,
docs/api/lax/*.md, docs/api/random.md): every public name is on exactly one family's list, and
the sidebar (mkdocs.yml's nav) lists every family page."""
import importlib
import os
import re
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")
FAMILY_PAGES = {
    "xjax.numpy": ["api/numpy"],
    "xjax.lax": ["api/lax"],
    "xjax.random": ["api/random.md"],
    "xjax": ["api/xjax.md"],
}


def _public_names(module_name):
  """The names the reference shows for a module (mkdocs.yml's filters), submodules aside."""
  module = importlib.import_module(module_name)
  return {name for name in dir(module)
          if not name.startswith("_") and not name.endswith("_p") and name != "annotations"
          and not isinstance(getattr(module, name), types.ModuleType)}


def _pages(entries):
  for entry in entries:
    path = os.path.join(DOCS, entry)
    if os.path.isdir(path):
      yield from sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".md"))
    else:
      yield path


def _family_blocks(path):
  """(module, members) of each `::: module` block of a page with a `members:` list."""
  yaml = pytest.importorskip("yaml")
  text = open(path).read()
  for match in re.finditer(r"^::: (\S+)\n((?:    .*\n)*)", text, re.MULTILINE):
    options = yaml.safe_load(match.group(2)) or {}
    members = options.get("options", {}).get("members")
    if isinstance(members, list):
      yield match.group(1), members


@pytest.mark.parametrize("module_name", sorted(FAMILY_PAGES))
def test_every_public_name_is_in_exactly_one_family(module_name):
  listed = []
  for page in _pages(FAMILY_PAGES[module_name]):
    for module, members in _family_blocks(page):
      assert module == module_name, (page, module)
      listed += members
  public = _public_names(module_name)
  assert not sorted(public - set(listed)), "names on no family's page: add them to one"
  # the narrowest dtypes (int1, uint1, ...) exist where the installed ml_dtypes has them
  ml_dtypes = importlib.import_module("ml_dtypes")
  absent = {name for name in set(listed) - public if not hasattr(ml_dtypes, name)}
  assert not sorted(set(listed) - public - absent), "names listed that the module does not have"
  assert len(listed) == len(set(listed)), sorted({n for n in listed if listed.count(n) > 1})
  assert len(public) > 40


def test_sidebar_lists_every_family_page():
  yaml = pytest.importorskip("yaml")
  with open(os.path.join(ROOT, "mkdocs.yml")) as f:
    config = yaml.safe_load(f)

  def paths(node):
    if isinstance(node, str):
      yield node
    elif isinstance(node, list):
      for item in node:
        yield from paths(item)
    elif isinstance(node, dict):
      for value in node.values():
        yield from paths(value)

  nav = set(paths(config["nav"]))
  pages = {os.path.relpath(p, DOCS) for entries in FAMILY_PAGES.values() for p in _pages(entries)}
  assert len(pages) > 20
  assert not sorted(pages - nav), "family pages missing from mkdocs.yml's nav"
