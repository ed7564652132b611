"""The private `jax._src.*` names that real libraries import, for the `jax` import redirection
(`install_as_jax`, `python -m xjax`): `import jax._src.X` loads `xjax._src.compat.jax_private_compat.X`.

Only names that libraries use are here, each doing what JAX's does (see the compatibility-surface
section of docs/differences.md); nothing in xjax imports this package.  A module or name it
lacks fails with ModuleNotFoundError/AttributeError naming the `jax._src` name.
"""
import importlib
import importlib.util

DIFFERENCES = "docs/differences.md (section 'Compatibility surface: jax._src')"


def missing(module: str, name: str) -> AttributeError:
  return AttributeError(f"module '{module}' has no attribute '{name}': xjax's compatibility "
                        f"surface for JAX's private modules does not provide it; see "
                        f"{DIFFERENCES}")


def __getattr__(name: str):
  if importlib.util.find_spec(f"{__name__}.{name}") is not None:
    return importlib.import_module(f"{__name__}.{name}")   # `jax._src.xla_bridge` as attribute
  raise missing("jax._src", name)
