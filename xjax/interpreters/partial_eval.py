"""Partial evaluation and staging (``jax.interpreters.partial_eval``)."""
from typing import Any, Sequence

from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval
from xjax._src.interpreters.ad import PartialEvalTrace as JaxprTrace  # noqa: F401
from xjax._src.interpreters.staging import DynamicJaxprTracer, trace_to_jaxpr  # noqa: F401

JaxprTracer = DynamicJaxprTracer   # partial evaluation's unknowns are staging tracers


def trace_to_jaxpr_dynamic(fun, in_avals: Sequence[ShapedArray], **_):
  """Stages ``fun`` (a ``linear_util.WrappedFun`` or a callable returning a sequence) at
  ``in_avals``; returns (jaxpr, out_avals, consts) as JAX does."""
  call = getattr(fun, "call_wrapped", fun)
  closed = trace_to_jaxpr(lambda *xs: list(call(*xs)), list(in_avals))
  return closed.jaxpr, list(closed.out_avals), list(closed.consts)


class PartialVal(tuple):
  """A known value ``(None, const)`` or an unknown one ``(aval, None)``."""

  def __new__(cls, xs: tuple[Any, Any]):
    return tuple.__new__(cls, xs)

  @classmethod
  def known(cls, const) -> "PartialVal":
    return PartialVal((None, const))

  @classmethod
  def unknown(cls, aval) -> "PartialVal":
    return PartialVal((aval, None))

  def is_known(self) -> bool:
    return self[0] is None

  def get_known(self):
    return self[1] if self[0] is None else None

  def get_aval(self):
    return self[0] if self[0] is not None else get_aval(self[1])
