"""Record the reference JAX's public names per user-facing module.

Run once with the reference JAX installed (from outside the repository, so `jax` is the
installed package):

    cd /tmp && /work/refjax/bin/python /work/main/tools/snapshot_public_api.py

It writes `tests/data/jax_public_api.json`: {module: sorted public names}.  A name is public
when it does not start with `_` and is not a module.  Namespace modules (those that only
re-export) keep every such name; implementation modules (`IMPLEMENTATION_MODULES`, where
JAX defines the API in the module itself) keep only the names they define, so their
imported helpers (`jnp`, `partial`, `tree_map`, ...) are not counted.
"""
import functools
import importlib
import json
import pathlib
import types

MODULES = """
jax jax.numpy jax.numpy.linalg jax.numpy.fft jax.lax jax.lax.linalg jax.random jax.nn
jax.nn.initializers jax.scipy jax.scipy.linalg jax.scipy.special jax.scipy.stats
jax.scipy.signal jax.scipy.fft jax.scipy.optimize jax.scipy.integrate jax.scipy.interpolate
jax.scipy.ndimage jax.scipy.cluster.vq jax.scipy.sparse.linalg jax.scipy.spatial.transform
jax.tree_util jax.tree jax.dtypes jax.errors jax.sharding jax.ops jax.image jax.flatten_util
jax.custom_batching jax.custom_derivatives jax.typing jax.stages jax.ad_checkpoint jax.debug
jax.profiler jax.monitoring jax.core jax.api_util jax.test_util jax.experimental
jax.experimental.ode jax.experimental.checkify jax.experimental.jet
jax.example_libraries.stax jax.example_libraries.optimizers jax.distributed jax.dlpack
jax.export jax.ffi jax.experimental.shard_map jax.experimental.multihost_utils
jax.experimental.mesh_utils jax.experimental.pjit jax.experimental.compilation_cache.compilation_cache
jax.lib
""".split()

IMPLEMENTATION_MODULES = {"jax.experimental.ode", "jax.experimental.jet",
                          "jax.example_libraries.stax", "jax.example_libraries.optimizers"}

# Modules whose names the reference's namespace modules import for themselves (not API).
_HELPER_MODULES = ("typing", "collections", "collections.abc", "functools", "builtins",
                   "__future__", "jaxlib.utils", "jax._src.util")


def _is_helper_import(obj, name: str) -> bool:
  """`Callable`, `partial`, `safe_map`, ... imported under their own names."""
  sentinel = object()
  return any(getattr(importlib.import_module(m), name, sentinel) is obj for m in _HELPER_MODULES)


def _defined_here(obj, module: str) -> bool:
  owner = getattr(obj, "__module__", None)
  if isinstance(obj, functools.partial):      # stax.Conv = partial(GeneralConv, ...)
    owner = getattr(obj.func, "__module__", None)
  return owner in (None, module) and not isinstance(obj, (int, float, str))


def public_names(module: str) -> list[str]:
  mod = importlib.import_module(module)
  names = []
  for name in dir(mod):
    obj = getattr(mod, name)
    if name.startswith("_") or isinstance(obj, types.ModuleType):
      continue
    if module in IMPLEMENTATION_MODULES:
      if not _defined_here(obj, module):
        continue
    elif _is_helper_import(obj, name):
      continue
    names.append(name)
  return sorted(names)


def main() -> None:
  import jax
  snapshot = {"version": jax.__version__,
              "modules": {m: public_names(m) for m in MODULES}}
  out = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "jax_public_api.json"
  out.write_text(json.dumps(snapshot, indent=1) + "\n")
  total = sum(len(v) for v in snapshot["modules"].values())
  print(f"wrote {out}: {len(MODULES)} modules, {total} names (JAX {jax.__version__})")


if __name__ == "__main__":
  main()
