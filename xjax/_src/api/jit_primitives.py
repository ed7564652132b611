"""The ``jit`` call primitive, and JAX's plain call primitives (``closed_call``, ``call``) as
``jit`` calls."""
from __future__ import annotations

from typing import Callable

from xjax._src.core.trace import Primitive
from xjax._src.execution.compiled_jaxprs import call_primitive, run_closed_jaxpr
from xjax._src.interpreters.higher_order import as_closed, call_rules



def _jit_impl(*args, jaxpr, name, device=None, compiler_options=(), inline=False,
              donated_invars=None, keep_unused=False, ctx_mesh=None):
  """A jit call run now (under a transformation that evaluates, such as vmap at the top
  level): on ``device`` when jit was given one (``device=``/``backend=``), compiled with
  its ``compiler_options``.  (``donated_invars`` and ``keep_unused``, shown in jaxprs as
  JAX shows them, act where jit is called itself, not inside another computation;
  ``ctx_mesh`` records the context mesh it was traced under.)"""
  return run_closed_jaxpr(jaxpr, args, name, device, compiler_options)


def _jit_lowering(ctx, *args, jaxpr, name, device=None, compiler_options=(), inline=False,
                  donated_invars=None, keep_unused=False, ctx_mesh=None):
  if device is not None:
    raise NotImplementedError(
        f"jit of {name} with device={device!r} (or backend=) inside another compiled "
        "computation (jit, a loop or branch body, ...) is not supported by xjax: the "
        "placement applies only where the call runs on its own. Put the inputs on the device "
        "with jax.device_put instead (JAX deprecates jit's device and backend arguments).")
  return ctx.call(jaxpr, name, list(args))


def _jit_staging(trace, args, params) -> list:
  """A jit made with ``inline=True`` is staged as its body's equations (as JAX does)."""
  if not params.get("inline"):
    return trace.record(jit_p, args, params)
  return trace.inline(params["jaxpr"], args)


jit_p = call_primitive("jit", impl=_jit_impl, lowering=_jit_lowering)
jit_p.staging = _jit_staging
jit_p.pp_params = lambda p: sorted(((k, v) for k, v in p.items() if k != "inline"),
                                   key=lambda kv: (kv[0] != "name", kv[0]))
jit_p.pp_alias_jaxpr = "jaxpr"


def _donation_follows(params: dict, rule: str, origin: list) -> dict:
  """A transformed jit call donates the operands the original donated (a transpose none),
  as JAX's rules: ``donated_invars`` is a parameter only while some operand is donated."""
  donated = params.get("donated_invars")
  if donated is None:
    return params
  flags = tuple(rule != "transpose" and (donated[o] if type(o) is int else  # (a tangent:
                                         type(o) is tuple and donated[o[1]])  # as its primal)
                for o in origin)
  params = dict(params)
  if any(flags):
    params["donated_invars"] = flags
  else:
    del params["donated_invars"]
  return params


call_rules(jit_p, keep_consts=("jvp", "batch", "known"), forward_inputs=True,  # (as JAX)
           update=_donation_follows, batch_in_place=True)


def _jax_call_primitive(name: str, closed_of: Callable) -> Primitive:
  """JAX's plain call primitives (`closed_call_p`: a ClosedJaxpr in `call_jaxpr`; `call_p`:
  a Jaxpr without constants there): they run the jaxpr, and a transformation of one gives a
  `jit` call of the transformed jaxpr (xjax itself stages neither)."""
  prim = Primitive(name, multiple_results=True)
  jit_params = lambda p: dict(jaxpr=closed_of(p["call_jaxpr"]), name=name)
  prim.abstract_eval = lambda *avals, **p: jit_p.abstract_eval(*avals, **jit_params(p))
  prim.impl = lambda *args, **p: jit_p.impl(*args, **jit_params(p))
  prim.lowering = lambda ctx, *args, **p: jit_p.lowering(ctx, *args, **jit_params(p))
  prim.effects = lambda **p: jit_p.effects(**jit_params(p))
  prim.jvp = lambda primals, tangents, **p: jit_p.jvp(primals, tangents, **jit_params(p))
  prim.partial_eval = lambda trace, args, p: jit_p.partial_eval(trace, args, jit_params(p))
  prim.transpose = lambda cts, *args, **p: jit_p.transpose(cts, *args, **jit_params(p))
  prim.batch = lambda axis, args, dims, **p: jit_p.batch(axis, args, dims, **jit_params(p))
  return prim


closed_call_p = _jax_call_primitive("closed_call", lambda closed: closed)
call_p = _jax_call_primitive("call", as_closed)

