"""``jax.extend.core``: primitives and the jaxpr IR."""
from xjax._src.core.avals import ShapedArray  # noqa: F401
from xjax._src.core.jaxpr import (ClosedJaxpr, DropVar, Jaxpr, JaxprEqn,  # noqa: F401
                                  Literal, Var, jaxpr_as_fun)
from xjax._src.core.trace import Primitive, set_current_trace  # noqa: F401
from xjax._src.core.trace import current_trace as find_top_trace  # noqa: F401
from xjax.extend.core import primitives  # noqa: F401


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=frozenset(), source_info=None,
                  ctx=None) -> JaxprEqn:
  return JaxprEqn(primitive, list(invars), list(outvars), dict(params), effects)
