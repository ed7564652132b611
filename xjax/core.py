"""Core types (``jax.core``): tracers, abstract values, primitives and jaxprs."""
from typing import Any

from xjax._src.core.avals import ShapedArray  # noqa: F401
from xjax._src.core.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var,  # noqa: F401
                                  eval_jaxpr, jaxpr_as_fun)
from xjax._src.core.trace import Primitive, Trace, Tracer  # noqa: F401
from xjax._src.core.values import get_aval, pytype_aval_mappings  # noqa: F401
from xjax._src.core.compile_time_eval import ensure_compile_time_eval, eval_context  # noqa: F401
from xjax._src.core.concrete import max_dim, min_dim  # noqa: F401

AbstractValue = ShapedArray
Atom = Var | Literal   # what an equation's operand is
ParamDict = dict[str, Any]  # an equation's parameters
Value = Any  # a concrete value


def __getattr__(name):
  """Names JAX 0.10.2 still serves here, deprecated, from ``jax.extend.core``."""
  if name in ("Effect", "Effects"):
    import warnings
    from xjax.extend import core as extend_core
    warnings.warn(f"xjax.core.{name} is deprecated. Use xjax.extend.core.{name}.",
                  DeprecationWarning, stacklevel=2)
    return getattr(extend_core, name)
  raise AttributeError(f"module 'xjax.core' has no attribute '{name}'")
