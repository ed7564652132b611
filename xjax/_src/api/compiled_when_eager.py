"""``compiled_when_eager``: a library function run as one compiled program per argument
signature when called on concrete values, inline when traced."""
from __future__ import annotations

import functools
from typing import Callable

from xjax._src.core.trace import current_trace, eval_trace
from xjax._src.foundations.wrapping import wraps
from xjax._src.api.call_tracing import NonHashableStaticError, check_statics_hashable, split_args
from xjax._src.api.jit import PjitFunction
from xjax._src.foundations import tree_util
from xjax._src.interpreters import ad
from xjax._src.interpreters.batching import BatchTrace
from xjax._src.interpreters.ad import JVPTrace, JVPTracer
from xjax._src.interpreters.staging import staged_constant
from xjax._src.execution.array import Array


def compiled_when_eager(fun: Callable | None = None, *, static_argnames=(),
                        hashable_statics: bool = False, staged: str | None = None):
  """``fun``, a library function built from primitives, run as one compiled program per
  argument signature when called on concrete values (as JAX jits its ``jax.numpy``).
  Traced, it runs inline, so jaxprs show its primitives, but for the functions JAX jits
  (``staged``: the name JAX's jaxprs give the call): under any transformation (make_jaxpr,
  jit, a loop body, eager grad or vmap) these are a nested ``jit`` call of that name, as in
  JAX, so weak types follow a call's rules (its transpose sums cotangents inside the call).
  A trace defined outside xjax (a custom interpreter) gets every call as a ``jit``, as
  JAX's would: ``inline`` for the functions JAX jits so, which it stages inline.
  A non-hashable value for a static parameter runs it op by op instead, or, with
  ``hashable_statics`` (functions JAX jits with those parameters as they are given), raises
  JAX's ValueError. Run inline under jvp, a call types its tangents from the primals (a
  weak primal's tangent is weak, a strong one's strong; staged, a tangent it passes through
  is the one given), its cotangents keep their types, and its outputs are arrays, as the
  JVP of JAX's jit does."""
  if fun is None:
    return functools.partial(compiled_when_eager, static_argnames=static_argnames,
                             hashable_statics=hashable_statics, staged=staged)
  jitted = PjitFunction(fun, None, static_argnames, None, None, False, staged is None,
                        name=staged, host_eval=True)

  @wraps(fun)
  def call(*args, **kwargs):  # (with ``call.on_host``, ``jitted.call_on_host``, below)
    trace = current_trace()
    if (trace is eval_trace or staged is not None or _eager_batching(trace)
        or trace.defined_outside_xjax):
      try:
        return jitted(*args, **kwargs)
      except NonHashableStaticError as e:
        if hashable_statics:
          raise e.as_value_error() from None
    elif hashable_statics:  # traced: JAX's jit still hashes them (a traced axis fails)
      try:
        check_statics_hashable(*split_args(args, kwargs, jitted._static_argnums,
                                             jitted._static_argnames)[2:])
      except NonHashableStaticError as e:
        raise e.as_value_error() from None
    if isinstance(trace, JVPTrace):  # as an inline jit's JVP, without tracing one
      forwarded = {}
      retype = functools.partial(ad.as_jit_input, trace, forwarded=forwarded)
      args = [retype(a) if type(a) is JVPTracer else  # (and within sequences, as einsum's
              tree_util.tree_map(retype, a) if isinstance(a, (tuple, list)) else a  # operands)
              for a in args]
      out = fun(*args, **kwargs)
      if isinstance(out, JVPTracer):  # (one result, without a tree walk)
        return ad.as_jit_output(trace, out, forwarded)
      if type(out) is Array:  # (a result of constants: as it is)
        return out
      return tree_util.tree_map(
          functools.partial(ad.as_jit_output, trace, forwarded=forwarded), out)
    out = fun(*args, **kwargs)
    if type(out) is Array:  # (inside jit a jitted function's result is a tracer, as JAX's,
      return staged_constant(out, made=False)  # even where it passes a concrete input through)
    return out
  call.on_host = jitted.call_on_host
  return call


def _eager_batching(trace) -> bool:
  """Whether ``trace`` is an eager ``vmap`` (batch traces over the eval trace): there JAX's
  jitted functions run batched as one program each (XLA folds and fuses inside it), so
  they are called as a jit here too."""
  while type(trace) is BatchTrace:
    trace = trace.parent
  return trace is eval_trace
