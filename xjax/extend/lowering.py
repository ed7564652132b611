"""``jax.extend.lowering``: what lowering rules written with jaxlib's MLIR Python bindings
work with: the rule context, the MLIR context class, and the registry of the dialects
JAX's modules use (``JaxIrContext`` and ``upstream_dialects`` are made on first access)."""
from xjax._src.backend import mlir_modules as _mlir_modules
from xjax._src.extend.user_lowering import LoweringRuleContext  # noqa: F401

_made: dict = {}


def _jax_ir_context():
  ir = _mlir_modules.mlir_bindings("ir")

  class JaxIrContext(ir.Context):
    """An MLIR context holding only the dialects loaded into it (``ir.Context()`` itself
    loads every dialect linked into jaxlib)."""

    def __init__(self, *args, **kwargs) -> None:
      super(ir.Context, self).__init__(*args, **kwargs)
  return JaxIrContext


def _upstream_dialects():
  registry = _mlir_modules.mlir_bindings("ir").DialectRegistry()
  _mlir_modules.mlir_bindings("_mlir_libs._jax_mlir_ext").register_dialects(registry)
  return registry


_MAKERS = {"JaxIrContext": _jax_ir_context, "upstream_dialects": _upstream_dialects}


def __getattr__(name):
  if name in _MAKERS:
    if name not in _made:
      _made[name] = _MAKERS[name]()
    return _made[name]
  raise AttributeError(f"module 'xjax.extend.lowering' has no attribute '{name}'")


def __dir__():
  return sorted([*globals(), *_MAKERS])
