"""The layer order of docs/design.md §1, checked on the source: a module imports only modules
of its own layer or of lower ones, at module level and inside functions alike."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
DESIGN = (ROOT / "docs" / "design.md").read_text()

# The layers, lowest first, each a folder of ``xjax/_src``; the public modules outside
# ``xjax._src`` form the top layer, with what ``install_as_jax`` presents (``_src/compat``).
LAYERS = ["foundations", "core", "backend", "execution", "interpreters", "primitives", "api",
          "extend", "libraries", "public"]
FOLDER_LAYER = {"compat": "public"}


def _modules():
  mods = {}
  for path in (ROOT / "xjax").rglob("*.py"):
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    mods[name.removesuffix(".__init__")] = path
  return mods


def _layer(module: str) -> int | None:
  parts = module.split(".")
  if parts[:2] != ["xjax", "_src"]:
    return LAYERS.index("public")
  if len(parts) == 2:
    return 0  # xjax._src itself holds nothing
  layer = FOLDER_LAYER.get(parts[2], parts[2])
  return LAYERS.index(layer) if layer in LAYERS else None


def _imports(name: str, path: pathlib.Path, mods):
  """(imported xjax module, line) for every import statement in the file."""
  package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
  for node in ast.walk(ast.parse(path.read_text())):
    if isinstance(node, ast.Import):
      targets = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom):
      base = node.module or ""
      if node.level:
        base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
      targets = [f"{base}.{a.name}" for a in node.names]
    else:
      continue
    for t in targets:
      while t and t not in mods:
        t = t.rpartition(".")[0]
      if t.startswith("xjax") and t != name:
        yield t, node.lineno


def test_every_module_has_a_layer():
  assert [m for m in _modules() if _layer(m) is None] == []


def test_imports_only_go_down_the_layers():
  mods = _modules()
  upward = []
  for name, path in sorted(mods.items()):
    for target, line in _imports(name, path, mods):
      if _layer(target) > _layer(name):
        upward.append(f"{path.relative_to(ROOT)}:{line} ({LAYERS[_layer(name)]}) imports "
                      f"{target} ({LAYERS[_layer(target)]})")
  assert upward == [], "\n".join(upward)


def test_design_doc_names_every_layer():
  for layer in LAYERS:
    assert f"| {layer} |" in DESIGN, f"docs/design.md §1 does not list the layer {layer!r}"
