"""`ensure_compile_time_eval`: operations on concrete values run eagerly even while tracing
(inside `jit`, and inside the jitted functions it calls: ``eager_constant_folding``, as
JAX), so their results stay concrete; operations on tracers are still staged."""
from __future__ import annotations

import contextlib

from xjax._src.foundations.config import config
from xjax._src.core.trace import (Trace, Tracer, current_trace, eval_trace,
                                  set_current_trace)


class _CompileTimeEvalTrace(Trace):
  """Evaluates primitives on concrete values; hands tracers to the enclosing trace."""
  __slots__ = ("outer",)

  def __init__(self, outer: Trace) -> None:
    super().__init__(outer)
    self.outer = outer

  def process_primitive(self, prim, args, params):
    target = self.outer if any(isinstance(x, Tracer) for x in args) else eval_trace
    with set_current_trace(target):
      return prim.bind_with_trace(target, args, params)


@contextlib.contextmanager
def ensure_compile_time_eval():
  """Inside the block, operations whose inputs are all concrete are computed at once."""
  with config._override("eager_constant_folding", True), \
      set_current_trace(_CompileTimeEvalTrace(current_trace())):
    yield


eval_context = ensure_compile_time_eval
