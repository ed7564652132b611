"""The layer order of docs/design.md §1, checked on the source: a module imports only modules
of its own layer or of lower ones, at module level and inside functions alike; inside each
package, only modules of its own group of the package's declared stack or of lower ones."""
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


# The order inside each package of ``xjax/_src``, lowest group first: a module imports only
# modules of its own group or of lower ones (module- and function-level imports alike, read
# by tools/import_circles.py).  An entry names a module relative to the package
# ("control_flow.loops" for a module of a sub-package placed here), or a sub-package with a
# stack of its own, which it stands for as a whole (its inside is held by its own stack); an
# entry that names a module of such a sub-package places that module on its own.  The
# namespace modules sit on top, imported by nothing inside their package.
STACKS = {
    # -- foundations
    "xjax._src.foundations": [
        ["config", "monitoring", "version", "wrapping", "sequences"],  # flags, events, helpers
        ["config_states", "dtypes", "errors"],  # flag objects, dtypes (x64), errors (filtering)
        ["pytree_proto", "tree_util"],  # pytrees, and their wire format
        ["sharding", "layout"],  # how arrays lie over devices and in memory
        ["retracing"],  # explaining retraces: reads the flags, raises the errors
    ],
    # -- core
    "xjax._src.core": [
        ["avals", "effects", "pretty_printer", "source_info", "jaxpr_cache"],  # plain records
        ["typed_ndarray", "varying"],  # host arrays with a type (float0 results); the
        # rules of the manual axes values vary over
        ["trace"],  # Primitive, traces and tracers, on avals
        ["dim_expr"],  # symbolic dimensions (their dim_as_value primitive)
        ["values", "concrete", "compile_time_eval", "leaks"],  # what tracers and values meet
        ["jaxpr"],  # the IR, its printer and its evaluator
        ["dce", "typecheck"],  # passes over jaxprs
    ],
    # -- backend
    "xjax._src.backend": [
        ["jaxlib_api", "lowering", "compilation_cache", "executable_budget"],  # jaxlib checked;
        # lowering to StableHLO text (no runtime); the disk cache and the memory budget
        ["clients", "mlir_modules", "custom_call"],  # PJRT clients; MLIR bindings; custom calls
        ["buffers", "dlpack", "ffi_targets", "hlo_sharding", "profiling"],  # on the clients
        ["executables"],  # compiling and running programs
    ],
    # -- execution
    "xjax._src.execution": [
        ["host_values", "result_checks", "gspmd_sharding"],  # what Arrays and runs consult
        ["array"],  # xjax.Array
        ["basearray", "dispatch", "host_eval"],  # its public type; the run sequence; NumPy runs
        ["spmd"],  # programs over several devices
        ["compiled_jaxprs", "eager_primitives"],  # what runs: compiled jaxprs, eager primitives
    ],
    # -- interpreters
    "xjax._src.interpreters": [
        ["staging", "array_builders", "linear_util"],  # tracing to a jaxpr; the slots lax
        # fills; functions wrapped with transformations, as JAX's internals pass them
        ["ad", "batching"],  # the transformations
        ["higher_order"],  # the rules higher-order primitives share
    ],
    # -- primitives
    "xjax._src.primitives": [
        ["traced_lowering", "state"],  # lowering rules as Python functions; mutable refs
        ["custom_derivatives"],  # custom_jvp/custom_vjp, which lax's linear_solve is built with
        ["lax"],  # the lax primitive set
        ["callback", "checkpoint", "custom_batching", "hijax"],  # higher-order primitives
        ["checkpoint_policies", "debugging"],  # what checkpoint saves; jax.debug's callbacks
    ],
    "xjax._src.primitives.state": [
        ["dslice", "indexing"],  # index expressions on refs
        ["types"],  # AbstractRef and the eager Ref
        ["primitives"],  # the state primitives with their rules
        ["discharge", "grad_refs"],  # refs discharged into plain jaxprs; VJPs into refs
    ],
    # -- libraries/numpy and primitives/lax
    "xjax._src.libraries.numpy": [
        ["arguments", "promotion", "dslice_indexing", "introspection", "dlpack"],  # argument
        # checks, promotion, jax.ds indexing, questions answered without computing, DLPack
        ["creation", "shaping"],  # full broadcasts with shaping, which converts with asarray
        ["nonzero", "where", "scalar_types", "host_io"],  # on asarray and the shaping core
        ["ufuncs", "indexing"],  # elementwise functions; x[idx]
        ["reductions", "cumulative"],  # on the ufuncs
        ["composed_math", "matrices", "functional", "bit_packing"],  # composed elementwise
        # math, matrix-shaped creation, arrays built by calling functions, bit packing
        ["linalg_basic", "numerical_ranges", "rearrange", "einsum", "windows"],  # products,
        # ranges, rearranging, einsum, window functions
        ["sorting", "setops", "statistics", "padding", "searching"],  # on the families below
        ["array_api", "fft", "index_tricks", "ufunc_class", "ufunc_objects"],  # aliases,
        # jnp.fft, index helpers, jnp.ufunc and the functions exposed as ufunc objects
        ["linalg", "numeric", "arrayops", "polynomial"],  # the largest families, on the rest
        ["namespace", "array_methods"],  # the namespace, and Array's methods taken from it
    ],
    "xjax._src.primitives.lax": [
        ["primitive_builders", "operand_checks", "accuracy", "dot_algorithms",
         "sharding_constraint", "single_device", "control_flow.body_tracing", "linalg.lapack"],
        # building primitives and checking operands, the options they take, tracing bodies
        ["shapes", "elementwise", "reductions", "extended_arrays", "dimension_values"],
        # (transposes close a circle; sizes as values on the conversions)
        ["bit_conversions", "device_put", "empty2", "optimization_barrier", "stop_gradient",
         "tokens", "token_classes", "trace_markers", "control_flow.carried_refs", "linalg.rules"],
        # the small families on the base
        ["control_flow.associative", "control_flow.conditionals", "control_flow.loops", "dot",
         "fft", "general_reduce", "linear_solve", "log_add", "rng", "rounding", "stacking",
         "parallel", "shard_map", "shard_map_eager"],  # pcast asks shard_map for its manual
        # axes; shard_map runs at the top level through shard_map_eager
        ["gather_scatter", "scaled_dot", "special", "windowed"],  # on dot and control flow
        ["cumulative", "select_and_scatter", "sorting"],  # on windowed ops and gather
        ["approx_top_k", "parallel_transfers", "ragged_dot", "linalg.matrices"],  # on sorting
        # and cumulative reductions
        ["linalg.triangular_solve", "linalg.eigh", "linalg.schur", "linalg.svd",
         "linalg.symmetric_product", "linalg.tridiagonal"],  # factorizations on the matrices
        ["linalg.cholesky", "linalg.lu", "linalg.qr", "linalg.eig"],  # on triangular_solve
        ["lax", "primitives", "control_flow", "linalg"],  # the namespaces
    ],
    # -- api
    "xjax._src.api": [
        ["call_tracing", "fast_path", "jit_primitives", "shape_dtype_struct", "vmappable"],  # the
        # parts jit and the transformations are made of
        ["make_jaxpr", "stages", "transformations"],  # make_jaxpr; the AOT stages; jvp/vjp/vmap
        ["jit", "eval_shape", "jacobians", "jet", "closure_convert", "saved_residuals",
         "checkify", "checkify_rules"],  # on them (checkify's rules fill its table)
        ["compiled_when_eager", "custom_gradient", "placement", "pmap", "export"],  # on jit
        ["explicit_sharding"],  # set_mesh and reshard, on placement
    ],
    "xjax._src.api.export": [
        ["flatbuffer", "shape_poly"],  # FlatBuffers tables; shape polymorphism (refused)
        ["exported", "serialization"],  # Exported, and its bytes (which read its fields)
    ],
    # -- extend
    "xjax._src.extend": [
        ["rule_registries", "dce_rules", "partial_eval_rules"],  # JAX's rule tables as views
        # of the rule slots
        ["api_util", "call_primitive"],  # on interpreters' linear_util
        ["ir_attributes", "ir_modules", "ir_trees"],  # jaxlib's MLIR bindings, made usable
        ["lowering_records", "user_lowering"],  # lowering rules written the JAX way
        ["jaxpr_to_ir", "jaxpr_to_module", "ffi"],  # built on user_lowering
    ],
    # -- libraries
    "xjax._src.libraries": [
        ["colocated_python", "distributed", "environment", "global_arrays", "mesh_utils",
         "profiler", "sharding_display", "staged_lax", "test_util"],  # on the layers below
        ["numpy"],
        ["flatten_util", "segment_ops", "multihost_utils", "tensorstore_arrays", "image",
         "pallas"],  # on numpy (or on global_arrays)
        ["async_checkpoints", "ode"],  # on tensorstore_arrays; on flatten_util
        ["scipy.arguments", "scipy.special.log_sum_exp"],  # logsumexp, which nn's softmax uses,
        ["nn.softmax"],  # and softmax, with which random draws Dirichlet samples
        ["random"],
        ["nn", "sparse"],  # initializers and random sparse arrays draw keys
        ["scipy"],  # stats and rotations draw keys, gumbel_r uses nn's log1mexp
    ],
    "xjax._src.libraries.random": [
        ["counter_prng", "threefry", "out_sharding"],  # counter-based hashes; out_sharding=
        ["prng"],  # key arrays: the key dtype, the primitives that make and consume keys
        ["philox", "rbg", "threefry4x32"],  # the other PRNG implementations
        ["keys", "sampler_args"],  # making and splitting keys; the samplers' arguments
        ["continuous"],  # uniform, normal and their transforms
        ["discrete", "gamma", "multivariate"],  # samplers built on the continuous ones
    ],
    "xjax._src.libraries.nn": [
        ["activations", "initializers", "one_hot", "scaled_dot", "softmax"],  # jax.nn's parts
        ["attention"],  # with softmax
    ],
    "xjax._src.libraries.image": [
        ["kernels"],  # interpolation kernels
        ["scale"],  # resize and scale_and_translate with them
    ],
    "xjax._src.libraries.pallas": [
        ["grid", "specs"],  # inside a kernel; block and grid descriptions
        ["pallas_call"],  # running a kernel over its grid
        ["triton"],  # Triton's operations, on pallas_call's refs
        ["splash_attention"],  # JAX's splash attention kernel, computed densely
    ],
    "xjax._src.libraries.sparse": [
        ["sparse_array", "batched"],  # what every format shares; batched layouts
        ["ad", "coo", "bcoo_layout"],  # sparse-aware grad; COO; BCOO's layout primitives
        ["csr", "bcoo_products", "bcoo_structure"],  # CSR/CSC on COO; BCOO's operations
        ["bcoo", "linalg"],  # BCOO; spsolve, on CSR's products
        ["bcsr", "random"],  # BCSR and random BCOO arrays, on BCOO
        ["api"],  # format-independent functions
        ["transform"],  # sparsify
    ],
    "xjax._src.libraries.scipy": [
        ["arguments", "cluster", "eigh_tridiagonal", "fft", "interpolate", "ndimage", "optimize",
         "qdwh", "rotations", "signal", "sparse", "sparse.krylov"],  # on numpy and lax only
        ["linalg", "special", "spectral"],  # linalg on qdwh; special on arguments; on signal
        ["special_matrices", "stats"],  # on special (and linalg)
    ],
    "xjax._src.libraries.scipy.optimize": [
        ["line_search"],  # the strong-Wolfe line search
        ["quasi_newton"],  # BFGS and L-BFGS with it
        ["minimize"],  # the front end
    ],
    "xjax._src.libraries.scipy.special": [
        ["bessel", "exponential_integrals", "faddeeva", "gamma_functions", "information",
         "log_sum_exp", "softmax", "spherical_harmonics", "transforms", "zeta_functions"],
        ["hypergeometric", "normal"],  # on gamma_functions; on faddeeva
    ],
    "xjax._src.libraries.scipy.stats": [
        ["bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
         "gamma", "gennorm", "geom", "gumbel_l", "gumbel_r", "kde", "laplace", "logistic",
         "multinomial", "multivariate_normal", "nbinom", "norm", "pareto", "poisson",
         "summaries", "t", "uniform", "vonmises", "wrapcauchy"],  # one module a distribution
        ["truncnorm"],  # on norm
    ],
    # -- compat (the public layer's part inside _src)
    "xjax._src.compat": [
        ["jax_distribution"],  # importlib.metadata's `jax`
        ["removed_names"],  # the names JAX removed, with its texts
        ["jax_alias", "jax_private_compat"],  # `import jax` redirected; jax._src's names
    ],
    "xjax._src.compat.jax_private_compat": [
        ["ad_util", "api", "api_util", "checkify", "compiler", "core", "dispatch", "distributed",
         "dtypes", "earray", "flatten_util", "interpreters", "interpreters.batching", "lib",
         "interpreters.partial_eval",
         "interpreters.pxla", "lax",
         "lax.control_flow", "lax.lax", "nn", "nn.functions", "numpy", "numpy.ufuncs",
         "numpy.util", "pjit", "scipy",
         "literals", "named_sharding", "random", "random.threefry2x32", "scipy.special",
         "sharding_impls", "source_info_util",
         "state", "state.types",
         "traceback_util",
         "public_test_util", "tree_util", "typing", "util", "xla_bridge"],  # one module a jax._src
        # module, none on another
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


def _entry(package: str, module: str) -> str | None:
  """The entry of ``package``'s stack that places ``module``: the module's own, else that of
  the sub-package with a stack of its own that holds it."""
  relative = module[len(package) + 1:]
  placed = {m for group in STACKS[package] for m in group}
  if relative in placed:
    return relative
  owners = [e for e in placed if f"{package}.{e}" in STACKS
            and (relative == e or relative.startswith(e + "."))]
  return max(owners, key=len, default=None)


def test_every_layer_folder_has_a_stack():
  folders = [p.name for p in (ROOT / "xjax" / "_src").iterdir()
             if p.is_dir() and p.name != "__pycache__"]
  assert [f for f in folders if f"xjax._src.{f}" not in STACKS] == []


@pytest.mark.parametrize("package", sorted(STACKS))
def test_stack_places_every_module(package):
  inside = {m for m in _modules() if m.startswith(package + ".")}
  placed = [m for group in STACKS[package] for m in group]
  twice = sorted({m for m in placed if placed.count(m) > 1})
  assert twice == [], f"{package}: placed twice in its stack: {twice}"
  unplaced = sorted(m for m in inside if _entry(package, m) is None)
  assert unplaced == [], f"{package}: modules its stack does not place: {unplaced}"
  missing = sorted(e for e in placed if f"{package}.{e}" not in _modules())
  assert missing == [], f"{package}: its stack names no such module or package: {missing}"


@pytest.mark.parametrize("package", sorted(STACKS))
def test_imports_only_go_down_the_stack(package):
  ic = _import_circles()
  mods = ic.modules(ROOT)
  level = {m: i for i, group in enumerate(STACKS[package]) for m in group}
  namespaces = set(NAMESPACES.get(package, []))
  broken = []
  for name in sorted(m for m in mods if m.startswith(package + ".")):
    source = _entry(package, name)
    for target, line, in_function in ic.imports(name, mods[name], mods):
      if not target.startswith(package + "."):
        continue
      entry = _entry(package, target)
      if entry == source:
        continue   # inside one sub-package: its own stack holds it
      where = (f"{mods[name].relative_to(ROOT)}:{line}"
               f"{' (inside a function)' if in_function else ''} imports {target}")
      if entry in namespaces:
        broken.append(f"{where}: the namespace {entry!r} is imported by nothing inside "
                      f"{package}; import the module that defines the name")
      elif level[entry] > level[source]:
        broken.append(f"{where}: {entry!r} (group {level[entry]}) is above {source!r} "
                      f"(group {level[source]}) in the stack of {package}")
  assert broken == [], "\n".join(broken)


@pytest.mark.parametrize("package", sorted(STACKS))
def test_import_circles_are_small(package):
  ic = _import_circles()
  large = [c for c in ic.circles(ic.graph(package, ic.modules(ROOT))) if len(c) > MAX_CIRCLE]
  assert large == [], "\n".join(f"an import circle of {len(c)} modules (at most {MAX_CIRCLE}): "
                                f"{', '.join(c)}" for c in large)


@pytest.mark.parametrize("package", sorted(STACKS))
def test_function_level_imports_say_why(package):
  """An import inside a function is a cycle that could not be removed: the imported module
  reaches the importing one through module-level imports, and a comment above says why."""
  ic = _import_circles()
  mods = ic.modules(ROOT)
  module_level = ic.graph(package, mods, module_level_only=True)

  def reaches(start, goal):
    seen, todo = set(), [start]
    while todo:
      m = todo.pop()
      if m == goal:
        return True
      if m not in seen:
        seen.add(m)
        todo.extend(module_level.get(m, ()))
    return False

  wrong = []
  for name, line, target in ic.function_level_imports(package, mods):
    where = f"{mods[name].relative_to(ROOT)}:{line} imports {target} inside a function"
    if not reaches(target, name):
      wrong.append(f"{where}, but no cycle needs it: import it at module level")
    elif not mods[name].read_text().splitlines()[line - 2].strip().startswith("#"):
      wrong.append(f"{where} with no comment above saying which cycle needs it")
  assert wrong == [], "\n".join(wrong)


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
  """jaxlib's Python API is not public: only ``backend/jaxlib_api.py`` imports it, and the
  other backend modules take jaxlib's modules from it (design.md §1)."""
  outside = []
  for name, path in sorted(_modules().items()):
    if name == "xjax._src.backend.jaxlib_api":
      continue
    for node in ast.walk(ast.parse(path.read_text())):
      targets = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
      if any(t == "jaxlib" or t.startswith("jaxlib.") for t in targets):
        outside.append(f"{path.relative_to(ROOT)}:{node.lineno}")
  assert outside == [], "\n".join(outside)
