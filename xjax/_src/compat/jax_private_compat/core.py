"""`jax._src.core`: the abstract values, primitives and trace state libraries reach for
(flax's fp8 dtype rules, numpyro's trace check, brainstate's tracing of its states)."""
from xjax._src.core.avals import ShapedArray, physical_aval  # noqa: F401
from xjax._src.core.concrete import is_constant_dim  # noqa: F401
from xjax._src.core.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, JaxprEqnContext,  # noqa: F401
                                  JaxprPpContext, Literal, Var, jaxpr_as_fun)
from xjax._src.core.trace import (Primitive, Trace, Tracer, current_trace, eval_trace,  # noqa: F401
                                  set_current_trace)
from xjax.extend.core import (TraceTag, concrete_or_error, no_effects,  # noqa: F401
                              take_current_trace)
from xjax._src.core.values import get_aval  # noqa: F401
from xjax._src.foundations.sharding import ShardingTypeError  # noqa: F401
from xjax._src.api.jit_primitives import closed_call_p  # noqa: F401
from xjax._src.compat.jax_private_compat import missing

AbstractValue = ShapedArray


def trace_state_clean() -> bool:
  """Whether no transformation is under way (the evaluation trace is the current one)."""
  return current_trace() is eval_trace


class _TraceContext:
  """``trace_ctx``: the trace state; ``.trace`` is the trace now current."""
  __slots__ = ()

  @property
  def trace(self) -> Trace:
    return current_trace()


trace_ctx = _TraceContext()


def get_referent(value):
  """What identifies ``value``: a tracer's referent, else the value itself."""
  return value.get_referent() if isinstance(value, Tracer) else value


def full_lower(value):
  """A tracer's simplest form (itself: xjax's tracers never wrap an untraced value)."""
  return value.full_lower() if isinstance(value, Tracer) else value


def __getattr__(name: str):
  raise missing("jax._src.core", name)
