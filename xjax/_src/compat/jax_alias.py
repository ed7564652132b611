"""Running unmodified JAX programs: `install_as_jax()` makes `import jax` (and every
`jax.<submodule>` import) resolve to xjax, through a finder placed first on `sys.meta_path`
(which also answers `importlib.metadata`'s questions about the `jax` distribution).

`jax` itself is a thin module that forwards attribute lookups to `xjax` but reports the JAX
version xjax implements; `jax.numpy` and the other submodules *are* the xjax modules.  A
submodule xjax lacks raises ModuleNotFoundError instead of falling through to an installed
JAX.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import sys
import types

from xjax._src.compat.jax_distribution import find_jax_distributions
from xjax._src.compat.removed_names import REMOVED, missing_name

JAX_VERSION = "0.10.2"
_DIFFERENCES = "docs/differences.md"
# The public `jax.*` modules in sys.modules after JAX 0.10.2's `import jax` (treescope finds
# `jax.tree_util` there); `jax.version` is served by `_VersionLoader`.
EAGER_SUBMODULES = (
    "api_util", "core", "custom_batching", "custom_derivatives", "debug", "distributed",
    "dlpack", "dtypes", "errors", "experimental", "experimental.compilation_cache",
    "experimental.compilation_cache.compilation_cache", "export", "ffi", "image",
    "interpreters", "interpreters.ad", "interpreters.batching", "interpreters.mlir",
    "interpreters.partial_eval", "interpreters.pxla", "interpreters.xla", "lax", "lax.linalg",
    "lib", "monitoring", "nn", "nn.initializers", "numpy", "numpy.fft", "numpy.linalg", "ops",
    "profiler", "random", "ref", "scipy", "sharding", "stages", "tree", "tree_util", "typing",
    "version")
_PRIVATE_COMPAT = "xjax._src.compat.jax_private_compat"   # what `jax._src` names


def xjax_package():
  """The imported `xjax`, checked to be the package: run from the folder that holds a clone
  named `xjax`, `import xjax` finds the clone itself, a folder without `__init__.py`."""
  import xjax
  if getattr(xjax, "__file__", None) is None:
    where = ", ".join(getattr(xjax, "__path__", [])) or "a folder"
    raise ImportError(
        f"`import xjax` found {where}, which is not the xjax package (no xjax/__init__.py "
        "there, so Python took it as a namespace package): this is usually the clone's own "
        "folder, found because Python looks in the current directory (or the script's) first. "
        "Run from another folder, e.g. inside the clone, or rename the clone.", name="xjax")
  return xjax


class _JaxModule(types.ModuleType):
  """`jax`: forwards to `xjax`, with JAX's version."""

  def __getattr__(self, name):
    import xjax
    if name in ("_src", "version"):  # JAX's private modules and its version module
      return importlib.import_module("jax." + name)
    try:
      return getattr(xjax, name)
    except AttributeError:
      if not name.startswith("_") and importlib.util.find_spec("xjax." + name) is not None:
        return importlib.import_module("jax." + name)    # submodules, as `jax.ops`
      if name in REMOVED["xjax"]:   # (JAX's own text for the names it removed)
        raise missing_name("xjax", name) from None
      raise AttributeError(f"module 'jax' has no attribute '{name}' (xjax does not provide "
                           f"'xjax.{name}'; see {_DIFFERENCES})") from None

  def __dir__(self):
    import xjax
    return sorted(set(dir(xjax)) | set(self.__dict__))


class _ExistingModuleLoader(importlib.abc.Loader):
  """Loads `jax.X` as the already-imported module `xjax.X` (same object)."""

  def __init__(self, target: str) -> None:
    self.target = target

  def create_module(self, spec):
    if spec.name == "jax":
      xjax = xjax_package()
      module = _JaxModule("jax", xjax.__doc__)
      module.__path__ = list(xjax.__path__)
      module.__version__ = JAX_VERSION
      module.__version_info__ = _version_info(JAX_VERSION)
      return module
    module = importlib.import_module(self.target)
    self._own_spec = module.__spec__
    return module

  def exec_module(self, module):
    if module.__name__ != "jax":     # keep xjax.X's own spec (the import system set jax.X's)
      module.__spec__ = self._own_spec
      return
    sys.modules["jax"] = module       # (the import system puts it there only after this)
    for name in EAGER_SUBMODULES:     # what JAX's `import jax` loads, as libraries find it
      importlib.import_module("jax." + name)


class _VersionLoader(importlib.abc.Loader):
  """`jax.version`: the JAX version xjax implements (libraries compare it), and the jaxlib
  that runs it."""

  def create_module(self, spec):
    return None

  def exec_module(self, module):
    from xjax._src.backend.jaxlib_api import JAXLIB_VERSION
    module.__version__ = module._version = JAX_VERSION
    module.__version_info__ = _version_info(JAX_VERSION)
    module._minimum_jaxlib_version = JAXLIB_VERSION
    module._minimum_jaxlib_version_info = _version_info(JAXLIB_VERSION)


def _version_info(version: str) -> tuple:
  return tuple(int(p) for p in version.split("."))


class _JaxAliasFinder(importlib.abc.MetaPathFinder):

  def find_spec(self, fullname, path=None, target=None):
    if fullname != "jax" and not fullname.startswith("jax."):
      return None
    if fullname == "jax.version":
      return importlib.machinery.ModuleSpec(fullname, _VersionLoader())
    private = fullname == "jax._src" or fullname.startswith("jax._src.")
    xname = _PRIVATE_COMPAT + fullname[len("jax._src"):] if private else "x" + fullname
    try:
      found = importlib.util.find_spec(xname)
    except ModuleNotFoundError:
      found = None
    if found is None and private:
      raise ModuleNotFoundError(
          f"No module named '{fullname}': xjax's compatibility surface for JAX's private "
          f"modules ({_PRIVATE_COMPAT}) does not provide it; see {_DIFFERENCES}, section "
          f"'Compatibility surface: jax._src'", name=fullname)
    if found is None:
      raise ModuleNotFoundError(
          f"No module named '{fullname}': xjax, standing in for jax, has no module "
          f"'{xname}' (see {_DIFFERENCES} for what xjax does not provide)", name=fullname)
    is_package = found.submodule_search_locations is not None
    return importlib.machinery.ModuleSpec(fullname, _ExistingModuleLoader(xname),
                                          is_package=is_package)

  def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
    """`importlib.metadata`'s `jax`: xjax's, as `import jax` is (first on sys.meta_path)."""
    return find_jax_distributions(context, JAX_VERSION)


_FINDER = _JaxAliasFinder()


def install_as_jax() -> None:
  """Makes `import jax` and `import jax.<submodule>` import xjax from now on."""
  present = sys.modules.get("jax")
  if present is not None and not isinstance(present, _JaxModule):
    raise RuntimeError("install_as_jax: the real `jax` is already imported in this process; "
                       "call xjax.install_as_jax() before anything imports jax.")
  xjax_package()
  if _FINDER not in sys.meta_path:
    sys.meta_path.insert(0, _FINDER)
  _present_array_classes_as_jaxs()
  _present_functions_as_jaxs()


def _present_array_classes_as_jaxs() -> None:
  """Gives xjax's array, tracer and scalar type classes the modules (and the array class
  the name) JAX's have: libraries that pick an array library by `type(x).__module__`
  (opt_einsum, autoray and so PennyLane and quimb) then take xjax's arrays for JAX's,
  eagerly and under transformations, and `type(x)` and `jnp.float32` print as JAX's. (Arrays pickle by value and tracers not at
  all, so nothing looks the classes up by these names.)"""
  from xjax._src.api.jet import JetTracer
  from xjax._src.execution.array import Array
  from xjax._src.interpreters.ad import JVPTracer
  from xjax._src.interpreters.batching import BatchTracer
  from xjax._src.interpreters.staging import DynamicJaxprTracer
  for cls, module in [(Array, "jaxlib._jax"),
                      (DynamicJaxprTracer, "jax._src.interpreters.partial_eval"),
                      (JVPTracer, "jax._src.interpreters.ad"),
                      (BatchTracer, "jax._src.interpreters.batching"),
                      (JetTracer, "jax.experimental.jet")]:
    cls.__module__ = module
  Array.__name__ = Array.__qualname__ = "ArrayImpl"  # (``type(x)`` prints as JAX's class)
  from xjax._src.libraries.numpy import scalar_types
  for scalar_type in vars(scalar_types).values():
    if isinstance(scalar_type, scalar_types._ScalarMeta):
      scalar_type.__module__ = "jax.numpy"  # (``jnp.float32`` prints <class 'jax.numpy.float32'>)
  import xjax.errors
  for error in vars(xjax.errors).values():   # (a traceback names jax.errors.<class>, as JAX's)
    if isinstance(error, type) and error.__module__ == "xjax.errors":
      error.__module__ = "jax.errors"


# The public modules whose functions JAX's name a module xjax serves, and that module: their
# own public one (`jnp.sum.__module__ == "jax.numpy"`), or a private one on the compatibility
# surface (elsewhere JAX's name `jax._src` modules xjax does not have).
_FUNCTION_MODULES = {"numpy": "jax.numpy", "numpy.linalg": "jax.numpy.linalg", "lax": "jax.lax",
                     "tree_util": "jax.tree_util", "nn.initializers": "jax.nn.initializers",
                     "dtypes": "jax.dtypes", "nn": "jax._src.nn.functions"}


def _present_functions_as_jaxs() -> None:
  """Gives the functions of `_FUNCTION_MODULES`' modules the `__module__` JAX's have, so that
  what finds a function by its module and name (pickle, fiddle's serialization and code
  generation) writes `jax.numpy.tanh`, as on JAX, and finds it again through the redirection.
  A function two modules export (`jax.nn.tanh` is `jnp.tanh`) keeps the first's."""
  for name, jax_module in _FUNCTION_MODULES.items():
    module = importlib.import_module("xjax." + name)
    if jax_module.startswith("jax._src."):   # (in sys.modules, as after JAX's import, for
      importlib.import_module(jax_module)    # `inspect.getmodule` of its functions)
    for attr in getattr(module, "__all__", None) or dir(module):
      value = getattr(module, attr, None)
      if (attr.startswith("_") or isinstance(value, (type, types.ModuleType))
          or not callable(value)):
        continue
      if getattr(value, "__module__", "").startswith("xjax._src."):
        try:
          value.__module__ = jax_module
        except (AttributeError, TypeError):   # (a builtin or a bound method keeps its own)
          pass
