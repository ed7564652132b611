"""The layer order of docs/design.md §1, checked on the source: a module imports only modules
of its own layer or of lower ones, at module level and inside functions alike."""
import ast
import importlib.util
import pathlib

import pytest

from xjax._src.core.trace import Primitive

ROOT = pathlib.Path(__file__).resolve().parent.parent
DESIGN = (ROOT / "docs" / "design.md").read_text()

# The layers, lowest first, each a folder of ``xjax/_src``; the public modules outside
# ``xjax._src`` form the top layer, with what ``install_as_jax`` presents (``_src/compat``).
LAYERS = ["foundations", "core", "backend", "execution", "interpreters", "primitives", "api",
          "extend", "libraries", "public"]
FOLDER_LAYER = {"compat": "public", "wiring": "public"}  # wiring.py imports from every layer


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


# The order inside a package, lowest group first: a module imports only modules of its own
# group or of lower ones (module- and function-level imports alike, measured by
# tools/import_circles.py); the namespace modules sit on top, imported by nothing inside.
STACKS = {
    "xjax._src.libraries.numpy": [
        ["arguments", "promotion", "dslice_indexing", "introspection", "dlpack"],
        ["creation", "shaping"],  # full broadcasts with shaping, which converts with asarray
        ["nonzero", "where", "scalar_types", "host_io"],
        ["ufuncs", "indexing"],
        ["reductions", "cumulative"],
        ["composed_math", "matrices", "functional", "bit_packing"],
        ["linalg_basic", "numerical_ranges", "rearrange", "einsum", "windows"],
        ["sorting", "setops", "statistics", "padding", "searching"],
        ["array_api", "fft", "index_tricks", "ufunc_class", "ufunc_objects"],
        ["linalg", "numeric", "arrayops", "polynomial"],
        ["namespace", "array_methods"],  # the namespace, and Array's methods taken from it
    ],
    "xjax._src.primitives.lax": [
        ["primitive_builders", "operand_checks", "accuracy", "dot_algorithms",
         "sharding_constraint", "single_device", "control_flow.body_tracing", "linalg.lapack"],
        ["shapes", "elementwise", "reductions", "extended_arrays"],  # transposes close a circle
        ["bit_conversions", "device_put", "empty2", "optimization_barrier", "stop_gradient",
         "tokens", "token_classes", "trace_markers", "control_flow.carried_refs", "linalg.rules"],
        ["control_flow.associative", "control_flow.conditionals", "control_flow.loops", "dot",
         "fft", "general_reduce", "linear_solve", "rng", "rounding", "stacking",
         "parallel", "shard_map"],  # pcast asks shard_map for its manual axes
        ["gather_scatter", "scaled_dot", "special", "windowed"],
        ["cumulative", "select_and_scatter", "sorting"],
        ["approx_top_k", "parallel_transfers", "ragged_dot", "linalg.matrices"],
        ["linalg.triangular_solve", "linalg.eigh", "linalg.schur", "linalg.svd",
         "linalg.symmetric_product", "linalg.tridiagonal"],
        ["linalg.cholesky", "linalg.lu", "linalg.qr", "linalg.eig"],
        ["lax", "primitives", "control_flow", "linalg"],  # the namespaces
    ],
}
NAMESPACES = {"xjax._src.libraries.numpy": ["namespace"],
              "xjax._src.primitives.lax": ["lax", "control_flow", "linalg"]}
MAX_CIRCLE = 4


def _import_circles():
  spec = importlib.util.spec_from_file_location("import_circles",
                                                ROOT / "tools" / "import_circles.py")
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


@pytest.mark.parametrize("package", sorted(STACKS))
def test_stack_places_every_module(package):
  inside = {m[len(package) + 1:] for m in _modules() if m.startswith(package + ".")}
  placed = [m for group in STACKS[package] for m in group]
  assert sorted(placed) == sorted(set(placed)), "a module is placed twice"
  assert set(placed) == inside, (f"not in the stack: {sorted(inside - set(placed))}; "
                                 f"no such module: {sorted(set(placed) - inside)}")


@pytest.mark.parametrize("package", sorted(STACKS))
def test_imports_only_go_down_the_stack(package):
  ic = _import_circles()
  mods = ic.modules(ROOT)
  level = {f"{package}.{m}": i for i, group in enumerate(STACKS[package]) for m in group}
  namespaces = {f"{package}.{m}" for m in NAMESPACES.get(package, [])}
  upward = []
  for name in sorted(level):
    for target, line, _ in ic.imports(name, mods[name], mods):
      if target in level and (level[target] > level[name] or target in namespaces):
        upward.append(f"{mods[name].relative_to(ROOT)}:{line} imports {target}")
  assert upward == [], "\n".join(upward)


@pytest.mark.parametrize("package", sorted(STACKS))
def test_import_circles_are_small(package):
  ic = _import_circles()
  large = [c for c in ic.circles(ic.graph(package, ic.modules(ROOT))) if len(c) > MAX_CIRCLE]
  assert large == [], f"import circles over {MAX_CIRCLE} modules: {large}"


@pytest.mark.parametrize("package", sorted(STACKS))
def test_function_level_imports_say_why(package):
  """An import inside a function is a cycle that could not be removed: a comment above it
  gives the reason."""
  ic = _import_circles()
  mods = ic.modules(ROOT)
  silent = []
  for name, line, _ in ic.function_level_imports(package, mods):
    above = mods[name].read_text().splitlines()[line - 2].strip()
    if not above.startswith("#"):
      silent.append(f"{mods[name].relative_to(ROOT)}:{line}")
  assert silent == [], "\n".join(silent)


# What a module may set at import time on a name it imports from another module: a rule slot
# of a primitive of its own layer (a higher family registering a rule on a lower one's
# primitive, design.md §1).  Everything else a lower layer takes from a higher one is
# installed by ``_src/wiring.py``.
WIRING = "xjax._src.wiring"
PRIMITIVE_RULES = set(Primitive.RULES)


def _module_level_statements(body):
  for node in body:
    if isinstance(node, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
      yield from _module_level_statements(node.body + getattr(node, "orelse", [])
                                          + getattr(node, "finalbody", []))
    else:
      yield node


def test_only_the_wiring_module_installs_into_other_modules():
  mods = _modules()
  installs = []
  for name, path in sorted(mods.items()):
    if name == WIRING:
      continue
    tree = ast.parse(path.read_text())
    imported = {}
    for node in tree.body:
      if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xjax"):
        for a in node.names:
          imported[a.asname or a.name] = f"{node.module}.{a.name}"
      elif isinstance(node, ast.Import):
        for a in node.names:
          if a.name.startswith("xjax"):
            imported[a.asname or a.name.split(".")[0]] = a.name
    for node in _module_level_statements(tree.body):
      targets = (node.targets if isinstance(node, ast.Assign) else [node.target]
                 if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
      calls_setattr = (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                       and getattr(node.value.func, "id", None) == "setattr")
      for target in [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])
                     if isinstance(e, ast.Attribute)] + ([node.value.args[0]] if calls_setattr
                                                         else []):
        base = target
        while isinstance(base, (ast.Attribute, ast.Subscript)):
          base = base.value
        source = imported.get(getattr(base, "id", None))
        if source is None:
          continue
        own_rule = (isinstance(target, ast.Attribute) and target.attr in PRIMITIVE_RULES
                    and _layer(source) == _layer(name))
        if not own_rule:
          installs.append(f"{path.relative_to(ROOT)}:{node.lineno} sets {ast.unparse(target)}")
  assert installs == [], "install these in xjax/_src/wiring.py:\n" + "\n".join(installs)


def test_only_the_backend_imports_jaxlib():
  """jaxlib's Python API is not public: only ``_src/backend/`` imports it (design.md §1)."""
  outside = []
  for name, path in sorted(_modules().items()):
    if name.startswith("xjax._src.backend."):
      continue
    for node in ast.walk(ast.parse(path.read_text())):
      targets = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
      if any(t == "jaxlib" or t.startswith("jaxlib.") for t in targets):
        outside.append(f"{path.relative_to(ROOT)}:{node.lineno}")
  assert outside == [], "\n".join(outside)
