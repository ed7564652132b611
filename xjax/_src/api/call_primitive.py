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

from xjax._src.core.jaxpr import (ClosedJaxpr, Jaxpr, closed_with_consts_as_args,
                                  eval_jaxpr)
from xjax._src.core.jaxpr_cache import cached_on_jaxpr
from xjax._src.core.trace import Primitive, current_trace, eval_trace
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.interpreters.dce_rules import dce_jaxpr_call_rule, dce_rule_to_slot
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.interpreters.linear_util import wrap_init


def call_impl(f, *args, **params):
  """Eager evaluation of a call primitive: ``f.call_wrapped(*args)`` (``params``
  parameterize the primitive, not the function)."""
  del params
  return f.call_wrapped(*args)


@cached_on_jaxpr()
def _closed(jaxpr: Jaxpr) -> ClosedJaxpr:
  return ClosedJaxpr(jaxpr, ())


def _open(closed: ClosedJaxpr) -> tuple[Jaxpr, list]:
  """A transformed jaxpr as a call_jaxpr, and the constants it takes first."""
  return closed_with_consts_as_args(closed)


class CallPrimitive(Primitive):
  """A primitive calling the function it is bound with (see the module docstring)."""
  multiple_results = True
  call_primitive = True

  def __init__(self, name: str) -> None:
    super().__init__(name, multiple_results=True)
    self.abstract_eval = lambda *avals, call_jaxpr, **_: list(call_jaxpr.out_avals)
    self.effects = lambda *, call_jaxpr, **_: call_jaxpr.effects
    self.lowering = lambda ctx, *args, call_jaxpr, **_: ctx.call(call_jaxpr, self.name,
                                                                  list(args))
    self.jvp = partial(_call_jvp, self)
    self.partial_eval = partial(_call_partial_eval, self)
    self.transpose = partial(_call_transpose, self)
    self.batch = partial(_call_batch, self)
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
    closed = trace_to_jaxpr(lambda *xs: list(call(*xs)), [get_aval(x) for x in args])
    jaxpr, consts = _open(closed)
    return trace.process_primitive(self, (*consts, *args), dict(params, call_jaxpr=jaxpr))

  def get_bind_params(self, params: dict) -> dict:
    """``params`` of an equation as ``bind`` takes them: its ``call_jaxpr`` as the
    function in ``subfuns``."""
    new = dict(params)
    jaxpr = new.pop("call_jaxpr")
    new["subfuns"] = (wrap_init(partial(eval_jaxpr, jaxpr, ())),)
    return new


def _call_jvp(prim, primals, tangents, *, call_jaxpr, **params):
  nonzeros = [type(t) is not Zero for t in tangents]
  jvp_closed, out_nz = ad.jvp_closed_jaxpr(_closed(call_jaxpr), nonzeros,
                                           instantiate_out=False)
  jaxpr, consts = _open(jvp_closed)
  outs = prim.bind(*consts, *primals, *[t for t in tangents if type(t) is not Zero],
                   call_jaxpr=jaxpr, **params)
  n = len(call_jaxpr.outvars)
  nz_tangents = iter(outs[n:])
  return outs[:n], [next(nz_tangents) if nz else Zero(ad.tangent_aval(a))
                    for nz, a in zip(out_nz, call_jaxpr.out_avals)]


def _call_partial_eval(prim, trace, args, params):
  call_jaxpr = params["call_jaxpr"]
  rest = {k: v for k, v in params.items() if k != "call_jaxpr"}
  unknowns = [trace.is_unknown(x) for x in args]
  known, unknown, out_unknowns, num_res = ad.partial_eval_jaxpr(_closed(call_jaxpr),
                                                                unknowns)
  known_jaxpr, known_consts = _open(known)
  known_outs = prim.bind(*known_consts, *[x for x, u in zip(args, unknowns) if not u],
                         call_jaxpr=known_jaxpr, **rest)
  n_known = len(known_outs) - num_res
  staged = trace.stage(prim, [*known_outs[n_known:], *[x for x, u in zip(args, unknowns) if u]],
                       dict(rest, call_jaxpr=unknown.jaxpr))
  known_it, staged_it = iter(known_outs[:n_known]), iter(staged)
  return [next(staged_it) if u else next(known_it) for u in out_unknowns]


def _call_transpose(prim, cts, *args, call_jaxpr, **params):
  linear = [ad.is_undefined(x) for x in args]
  jaxpr, consts = _open(ad.transpose_closed_jaxpr(_closed(call_jaxpr), linear))
  outs = iter(prim.bind(*consts, *[x for x in args if not ad.is_undefined(x)],
                        *[ad.instantiate(c) for c in cts], call_jaxpr=jaxpr, **params))
  return [next(outs) if lin else None for lin in linear]


def _call_batch(prim, axis, args, dims, *, call_jaxpr, **params):
  args = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(args, dims)]
  batched, out_batched = batching.batch_closed_jaxpr(_closed(call_jaxpr), axis,
                                                     [d is not None for d in dims])
  jaxpr, consts = _open(batched)
  outs = prim.bind(*consts, *args, call_jaxpr=jaxpr, **params)
  return outs, [0 if b else None for b in out_batched]
