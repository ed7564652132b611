"""docs/differences.md is the one list of what xjax lacks: its machine-read lists hold against
the code, and the README and the guide name only what exists or what that list names."""
import importlib
import pathlib
import re

import pytest

import xjax

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIFFERENCES = (ROOT / "docs" / "differences.md").read_text()
NAME = re.compile(r"`(jax(?:\.\w+)+)`")


def _block(marker: str) -> str:
  found = re.search(rf"<!-- {marker} -->\n(.*?)<!-- end -->", DIFFERENCES, re.S)
  assert found, f"docs/differences.md has no '<!-- {marker} -->' list"
  return found.group(1)


def _heads(marker: str) -> list[str]:
  """What each item of a list ('- `a`, `b`: why', over one or more lines) names before
  its colon."""
  items = re.split(r"^- ", _block(marker), flags=re.M)[1:]
  return [item.split("`:", 1)[0] + "`" if "`:" in item else item for item in items]


NOT_PROVIDED = [n for head in _heads("names: not provided") for n in NAME.findall(head)]
PROVIDED = NAME.findall(_block("names: provided"))
REFUSED = [re.fullmatch(r"`([^`]+)`", head.strip()).group(1)
           for head in _heads("calls: refused")]


def resolve(name: str):
  """What `name` (`jax.a.b`) is in xjax: the module `xjax.a.b`, or an attribute of the
  longest module prefix; raises ImportError or AttributeError when xjax lacks it."""
  parts = ("x" + name).split(".")
  for i in range(len(parts), 0, -1):
    try:
      obj = importlib.import_module(".".join(parts[:i]))
    except ModuleNotFoundError as e:
      if e.name is None or not ".".join(parts[:i]).startswith(e.name):
        raise   # a module xjax has failed to import something else
      continue
    for attr in parts[i:]:
      obj = getattr(obj, attr)
    return obj
  raise ModuleNotFoundError(name)


def test_the_lists_are_there():
  assert len(NOT_PROVIDED) >= 20 and len(PROVIDED) >= 10 and len(REFUSED) >= 3


@pytest.mark.parametrize("name", NOT_PROVIDED)
def test_names_called_not_provided_do_not_import(name):
  with pytest.raises((ImportError, AttributeError)):
    resolve(name)


@pytest.mark.parametrize("name", PROVIDED)
def test_names_called_provided_import(name):
  resolve(name)


@pytest.mark.parametrize("call", REFUSED)
def test_calls_called_refused_raise_not_implemented(call):
  for name in re.findall(r"jax(?:\.\w+)+", call):
    resolve(name)   # imports the submodules the call names, as `import jax` would
  with pytest.raises(NotImplementedError):
    eval(call, {"jax": xjax})


@pytest.mark.parametrize("doc", ["README.md", "docs/guide/differences.md", "docs/index.md"])
def test_other_pages_link_to_the_list_and_name_only_what_exists(doc):
  text = (ROOT / doc).read_text()
  assert "differences.md" in text
  for line in text.splitlines():   # no list of its own: what it calls missing, the list has
    if re.search(r"\b(not yet|missing|not there|not provided)\b", line):
      assert set(NAME.findall(line)) <= set(NOT_PROVIDED), f"{doc}: {line}"
  for name in sorted(set(NAME.findall(text)) - set(NOT_PROVIDED)):
    try:
      resolve(name)
    except (ImportError, AttributeError):
      pytest.fail(f"{doc} names `{name}`, which xjax lacks and docs/differences.md does not "
                  "list as not provided")
