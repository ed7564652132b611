"""JAX's call primitives (``jax.extend.core.CallPrimitive``): a primitive bound with a
function, ``p.bind(*args, subfuns=(fun,), **params)``, that calls it.

Eagerly the primitive's ``impl`` (by default ``call_impl``) calls the function.  Under a
transformation the function is staged to a jaxpr and the primitive is bound with it as its
``call_jaxpr`` parameter (a Jaxpr whose constants come first among its inputs), as JAX's
jaxprs show it; every rule then transforms that jaxpr and binds the same primitive again,
so ``jit``, ``grad``/``jvp``/``vjp``, ``vmap``, dead-code elimination and lowering (a
private function call) all work, as for JAX's ``core.call_p``.
"""
from __future__ import annotations

from functools import partial

from xjax._src.core import varying
from xjax._src.core.jaxpr import eval_jaxpr
from xjax._src.core.trace import Primitive, current_trace, eval_trace
from xjax._src.core.values import get_aval
from xjax._src.extend.dce_rules import dce_jaxpr_call_rule, dce_rule_to_slot
from xjax._src.interpreters.higher_order import call_rules, trace_hoisted
from xjax._src.interpreters.linear_util import wrap_init


def call_impl(f, *args, **params):
  """Eager evaluation of a call primitive: ``f.call_wrapped(*args)`` (``params``
  parameterize the primitive, not the function)."""
  del params
  return f.call_wrapped(*args)


class CallPrimitive(Primitive):
  """A primitive calling the function it is bound with (see the module docstring)."""
  multiple_results = True
  call_primitive = True

  def __init__(self, name: str) -> None:
    super().__init__(name, multiple_results=True)
    self.abstract_eval = lambda *avals, call_jaxpr, **_: list(call_jaxpr.out_avals)
    self.effects = lambda *, call_jaxpr, **_: call_jaxpr.effects
    self.vma_rule = varying.from_bodies
    self.lowering = lambda ctx, *args, call_jaxpr, **_: ctx.call(call_jaxpr, self.name,
                                                                  list(args))
    call_rules(self, "call_jaxpr", open_jaxpr=True)
    self.dce = dce_rule_to_slot(self, dce_jaxpr_call_rule)

  def impl(self, f, *args, **params):
    return call_impl(f, *args, **params)

  def bind(self, *args, subfuns=None, **params):
    trace = current_trace()
    if subfuns is None:   # from an equation: the function is its call_jaxpr
      if trace is eval_trace:
        return self.impl(*self.get_bind_params(params)["subfuns"], *args,
                         **{k: v for k, v in params.items() if k != "call_jaxpr"})
      return trace.process_primitive(self, args, params)
    fun, = subfuns
    if trace is eval_trace:
      return self.impl(fun, *args, **params)
    call = getattr(fun, "call_wrapped", fun)
    hoisted, consts = trace_hoisted(lambda *xs: list(call(*xs)), [get_aval(x) for x in args])
    return trace.process_primitive(self, (*consts, *args),
                                   dict(params, call_jaxpr=hoisted.jaxpr))

  def get_bind_params(self, params: dict) -> dict:
    """``params`` of an equation as ``bind`` takes them: its ``call_jaxpr`` as the
    function in ``subfuns``."""
    new = dict(params)
    jaxpr = new.pop("call_jaxpr")
    new["subfuns"] = (wrap_init(partial(eval_jaxpr, jaxpr, ())),)
    return new
