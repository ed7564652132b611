"""The layer order of docs/design.md §1, checked on the source: a module imports only modules
of its own layer or of lower ones, at module level and inside functions alike."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
DESIGN = (ROOT / "docs" / "design.md").read_text()

# (layer, module prefixes), lowest first.  A module belongs to the layer of its longest
# matching prefix; modules outside ``xjax._src`` form the top layer ("public modules").
LAYERS = [
    ("foundations", ["xjax._src.config", "xjax._src.config_states", "xjax._src.dtypes",
                     "xjax._src.errors", "xjax._src.retracing", "xjax._src.tree_util",
                     "xjax._src.sharding", "xjax._src.layout",
                     "xjax._src.wrapping",
                     "xjax._src.monitoring"]),
    ("core", ["xjax._src.core", "xjax._src.compile_time_eval"]),
    ("backend", ["xjax._src.backend"]),
    ("arrays and execution", ["xjax._src.array", "xjax._src.basearray", "xjax._src.dispatch",
                              "xjax._src.spmd", "xjax._src.gspmd_sharding"]),
    ("interpreters", ["xjax._src.interpreters", "xjax._src.linear_util"]),
    ("primitives", ["xjax._src.lax", "xjax._src.custom_derivatives", "xjax._src.checkpoint",
                    "xjax._src.checkpoint_policies", "xjax._src.custom_batching",
                    "xjax._src.callback", "xjax._src.debugging", "xjax._src.state",
                    "xjax._src.ffi",
                    "xjax._src.hijax"]),
    ("transformations", ["xjax._src.api", "xjax._src.ad_api", "xjax._src.jit",
                         "xjax._src.closure_convert", "xjax._src.custom_gradient",
                         "xjax._src.placement", "xjax._src.stages", "xjax._src.checkify",
                         "xjax._src.checkify_rules",
                         "xjax._src.export", "xjax._src.explicit_sharding",
                         "xjax._src.pmap", "xjax._src.saved_residuals", "xjax._src.jet",
                         "xjax._src.call_primitive", "xjax._src.vmappable",
                         "xjax._src.partial_eval_rules", "xjax._src.jaxpr_to_module"]),
    ("libraries", ["xjax._src.numpy", "xjax._src.random", "xjax._src.nn", "xjax._src.scipy",
                   "xjax._src.image", "xjax._src.ops", "xjax._src.flatten_util",
                   "xjax._src.ode", "xjax._src.segment_ops", "xjax._src.sparse_bcoo",
                   "xjax._src.test_util"]),
    ("public modules", ["xjax", "xjax._src.example_libraries", "xjax._src.environment",
                        "xjax._src.jax_alias", "xjax._src.jax_private_compat"]),
]


def _modules():
  mods = {}
  for path in (ROOT / "xjax").rglob("*.py"):
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    mods[name.removesuffix(".__init__")] = path
  return mods


def _layer(module: str) -> int:
  best, best_len = None, -1
  for i, (_, prefixes) in enumerate(LAYERS):
    for p in prefixes:
      if (module == p or module.startswith(p + ".")) and len(p) > best_len:
        best, best_len = i, len(p)
  return best


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
        upward.append(f"{path.relative_to(ROOT)}:{line} ({LAYERS[_layer(name)][0]}) imports "
                      f"{target} ({LAYERS[_layer(target)][0]})")
  assert upward == [], "\n".join(upward)


def test_design_doc_names_every_layer():
  for layer, _ in LAYERS:
    assert f"| {layer} |" in DESIGN, f"docs/design.md §1 does not list the layer {layer!r}"
