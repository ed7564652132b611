"""MkDocs hooks (mkdocs.yml `hooks:`): make lazily loaded submodules visible to the API reference."""
import importlib
import pkgutil


def on_config(config):
  """`xjax.scipy` loads its submodules on first access; the reference inspects them, so load them."""
  import xjax.scipy
  for module in pkgutil.iter_modules(xjax.scipy.__path__):
    importlib.import_module(f"xjax.scipy.{module.name}")
  return config
