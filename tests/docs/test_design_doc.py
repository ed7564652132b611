"""docs/design.md against the tree: §1's layer table names every folder of ``xjax/_src`` in
the order ``tests/test_layers.py`` enforces, each module a row names is in its layer's folder,
and every path or module the page names in backticks exists."""
import importlib
import pathlib
import re

from tests.test_layers import LAYERS

ROOT = pathlib.Path(__file__).resolve().parents[2]
SRC = ROOT / "xjax" / "_src"
DESIGN = (ROOT / "docs" / "design.md").read_text()
FOLDER_LAYER = {"compat": "public"}   # as tests/test_layers.py places _src/compat/


def _table() -> list[tuple[str, str, str]]:
  """(layer, what it knows, folder) for each row of §1's layer table."""
  section = DESIGN.split("## 1. Layers", 1)[1].split("\n## ", 1)[0]
  rows = [l for l in section.splitlines() if l.startswith("| ") and not l.startswith("| ---")]
  cells = [[c.strip() for c in r.strip("|").split(" | ")] for r in rows[1:]]
  assert all(len(c) == 3 for c in cells), "a row of §1's table is not (layer, what, folder)"
  return [tuple(c) for c in cells]


def _ticked(text: str) -> list[str]:
  return re.findall(r"`([^`\n]+)`", text)


def test_the_table_lists_the_layers_in_the_enforced_order():
  assert [layer for layer, _, _ in _table()] == LAYERS


def test_every_folder_of_src_is_a_row_of_the_table():
  named = {f.rstrip("/").removeprefix("_src/") for _, _, folders in _table()
           for f in _ticked(folders) if f.startswith("_src/")}
  folders = {p.name for p in SRC.iterdir() if p.is_dir() and p.name != "__pycache__"}
  assert named == folders
  for layer, _, folders in _table():
    for f in _ticked(folders):
      if f.startswith("_src/"):
        name = f.removeprefix("_src/").rstrip("/")
        assert FOLDER_LAYER.get(name, name) == layer, f"{f} is listed in the row of {layer}"


def _row_roots(layer: str, folders: str) -> list[pathlib.Path]:
  roots = [SRC / f.removeprefix("_src/") for f in _ticked(folders) if f.startswith("_src/")]
  return roots + ([ROOT / "xjax"] if layer == "public" else [])


def test_each_module_a_row_names_is_in_its_layer():
  missing = []
  for layer, what, folders in _table():
    roots = _row_roots(layer, folders)
    for name in _ticked(what):
      if re.fullmatch(r"[\w/]+\.py|[\w/]+/", name):
        if not any((r / name).exists() for r in roots):
          missing.append(f"{layer}: {name}")
  assert missing == []


_PATH = re.compile(r"[\w.]*\w/[\w./]*|\w+\.(?:py|md|json|txt)")
_STEMS = {p.stem for p in (ROOT / "xjax").rglob("*.py")} | {
    p.name for p in (ROOT / "xjax").rglob("*") if p.is_dir()}
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def _path_exists(name: str) -> bool:
  """A path from the root, from ``xjax/_src`` or below one of its folders (``lax/dot.py``
  is ``primitives/lax/dot.py``); a bare file name anywhere in the tree; a module's path
  and an attribute (``lax/primitive_builders.standard_primitive``)."""
  name = name.removesuffix("/")
  if name.startswith("../"):   # beside the project (the seed documents)
    return (ROOT / name).exists()
  stem, _, suffix = name.rpartition(".")
  if stem and "/" in stem and suffix not in ("py", "md", "json", "txt", "toml", "yml"):
    name = stem + ".py"
  if "/" not in name:
    return any(ROOT.glob(f"xjax/**/{name}")) or any(ROOT.glob(f"*/**/{name}"))
  if (ROOT / name).exists() or (ROOT / "xjax" / name).exists() or (SRC / name).exists():
    return True
  return any(p.is_dir() and (p / name).exists() for p in SRC.rglob("*")
             if "__pycache__" not in p.parts)


def _candidates(first: str) -> list[str]:
  """The modules ``first`` may name: ``xjax``, or a module or package of ``xjax``."""
  if first == "xjax":
    return ["xjax"]
  found = [p for p in (ROOT / "xjax").rglob(f"{first}.py")] + [
      p for p in (ROOT / "xjax").rglob(first) if p.is_dir()]
  return [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in found
          if "__pycache__" not in p.parts]


def _module_exists(name: str) -> bool:
  """``xjax.a.b`` or ``dispatch.pick_device`` (a module of ``xjax/_src`` named by its
  file, then attributes): for one reading, the longest module prefix imports and the rest
  are attributes of it."""
  first, *rest = name.split(".")
  for module in _candidates(first):
    parts = module.split(".") + rest
    for i in range(len(parts), len(module.split(".")) - 1, -1):
      try:
        obj = importlib.import_module(".".join(parts[:i]))
      except ImportError:
        continue
      # ``config._trace_token``: the object ``config`` of module ``config``
      if _has(obj, parts[i:]) or (i == len(module.split(".")) and _has(obj, [first] + rest)):
        return True
      break
  return False


def _has(obj, attrs) -> bool:
  for a in attrs:
    if not hasattr(obj, a):
      return False
    obj = getattr(obj, a)
  return True


def test_every_path_and_module_the_page_names_exists():
  missing = []
  for name in _ticked(DESIGN):
    if " " in name or "…" in name or "*" in name or "<" in name:
      continue
    if _PATH.fullmatch(name) and "://" not in name:
      if not _path_exists(name):
        missing.append(name)
    elif (_DOTTED.fullmatch(name) and name.split(".")[0] in _STEMS | {"xjax"}
          and not _module_exists(name)):
      missing.append(name)
  assert missing == []
