"""Core types (``jax.core``): tracers, abstract values, primitives and jaxprs."""
from typing import Any as _Any

from xjax._src.core.avals import ShapedArray  # noqa: F401
from xjax._src.core.jaxpr import Literal as _Literal, Var as _Var, eval_jaxpr  # noqa: F401
from xjax._src.core.trace import Trace, Tracer  # noqa: F401
from xjax._src.core.compile_time_eval import ensure_compile_time_eval, eval_context  # noqa: F401
from xjax._src.core.concrete import max_dim, min_dim  # noqa: F401

AbstractValue = ShapedArray
Atom = _Var | _Literal   # what an equation's operand is
ParamDict = dict[str, _Any]  # an equation's parameters
Value = _Any  # a concrete value


# Names JAX 0.10.2 still serves here, deprecated: name -> the module to use instead.
_DEPRECATED = {
    **{name: "xjax.extend.core" for name in (
        "CallPrimitive", "DebugInfo", "DropVar", "Effect", "Effects", "check_jaxpr",
        "concrete_or_error", "find_top_trace", "gensym", "get_opaque_trace_state",
        "jaxprs_in_params", "new_jaxpr_eqn", "no_effects", "primal_dtype_to_tangent_dtype",
        "valid_jaxtype")},
    "InconclusiveDimensionOperation": "xjax.errors", "JaxprTypeError": "xjax.errors",
    **{name: None for name in (
        "nonempty_axis_env_DO_NOT_USE", "unsafe_am_i_under_a_jit_DO_NOT_USE",
        "unsafe_am_i_under_a_vmap_DO_NOT_USE", "unsafe_get_axis_names_DO_NOT_USE",
        "is_concrete", "is_constant_dim", "is_constant_shape", "pytype_aval_mappings")},
}
# The deprecated names served from xjax's own modules rather than from xjax.extend.core.
_SOURCES = {**dict.fromkeys(("is_concrete", "is_constant_dim", "is_constant_shape"),
                            "xjax._src.core.concrete"),
            "pytype_aval_mappings": "xjax._src.core.values"}
def __getattr__(name):
  if name not in _DEPRECATED:
    from xjax._src.compat.removed_names import missing_name
    raise missing_name(__name__, name)
  import importlib
  import warnings
  use = _DEPRECATED[name]
  warnings.warn(f"xjax.core.{name} is deprecated." + (f" Use {use}.{name}." if use else ""),
                DeprecationWarning, stacklevel=2)
  return getattr(importlib.import_module(_SOURCES.get(name, "xjax.extend.core")), name)
