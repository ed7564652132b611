"""Lowering rules written as Python functions: traced at the operands' avals, then emitted
inline, or emitted once and spliced into each use with its values renamed (``Body``).

lax's compositions (``lax/primitive_builders.lowering_from``), HiPrimitives' ``to_lojax`` and the
extension API's ``mlir.lower_fun`` lower this way; the extension API also splices what a
rule built with the MLIR bindings through ``Body`` and ``splice``.
"""
from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence

from xjax._src.backend import lowering as lo
from xjax._src.core.avals import ShapedArray, physical_aval
from xjax._src.foundations.config import config
from xjax._src.interpreters.staging import trace_to_jaxpr


def trace_physical(fn: Callable, avals_in: Sequence[ShapedArray]):
  """``fn`` (returning a list) traced at ``avals_in``; operands of extended dtype (PRNG
  keys) reach ``fn`` as the arrays that store them."""
  return trace_to_jaxpr(fn, [physical_aval(a) for a in avals_in])


def inline_traced(ctx: lo.LoweringContext, fn: Callable, avals_in: Sequence[ShapedArray],
                  operands: Sequence[str]) -> list[str]:
  """Emits ``fn`` (returning a list) traced at ``avals_in`` inline; its results' names."""
  closed = trace_physical(fn, avals_in)
  return ctx.lower_jaxpr(closed.jaxpr, closed.consts, list(operands))


def check_count(what: str, got: int, n: int) -> None:
  if got != n:
    raise ValueError(f"The lowering rule of {what} returned {got} values; its abstract "
                     f"evaluation gives {n} results")


# ---------------------------------------------------------------------------------------
# Emitting once, splicing into each use

_SSA = re.compile(r"%[A-Za-z0-9_$.\-]+")


class Body(NamedTuple):
  """Operations emitted once, to splice with their values renamed: their lines, the names
  standing for the operands, the names of the results and their types (None: as claimed)."""
  lines: list
  args: list
  returned: list
  types: list | None = None


def splice(ctx: lo.LoweringContext, body: Body, operands: Sequence[str],
           avals_out: Sequence[ShapedArray]) -> list[str]:
  prefix = ctx.fresh().replace("%", "%b")
  names = dict(zip(body.args, operands))

  def rename(m):
    name = m.group(0)
    if name not in names:
      names[name] = f"{prefix}_{len(names)}"
    return names[name]

  for line in body.lines:
    ctx.lines.append(ctx.indent + _SSA.sub(rename, line))
  outs = [_SSA.sub(rename, r) for r in body.returned]
  for o, t, aval in zip(outs, body.types or avals_out, avals_out):  # what was emitted, if not as claimed
    ctx.declare(o, aval if lo.tensor_type(t) == lo.tensor_type(aval) else t)
  return outs


_CACHE_SIZE = 256


def cached(cache: dict, key, make: Callable):
  """``cache[key]``, made by ``make()`` when missing; ``make()`` itself when the key is
  unhashable (params holding arrays).  The cache is emptied when full."""
  try:
    hit = cache.get(key)
  except TypeError:
    return make()
  if hit is None:
    if len(cache) >= _CACHE_SIZE:
      cache.clear()
    hit = cache[key] = make()
  return hit


def params_key(params: dict) -> tuple:
  return tuple(sorted(params.items())), config.trace_state_key()


def traced_emitter(fun: Callable, multiple_results: bool = True) -> Callable:
  """``emit(ctx, avals_in, avals_out, operands, params)``: emits ``fun(*operands,
  **params)`` (returning a sequence when ``multiple_results``) traced at ``avals_in`` and
  gives its results' names.  What it emits is kept per avals and params, and spliced with
  its values renamed."""
  emitted: dict = {}

  def emit(ctx: lo.LoweringContext, avals_in: tuple, avals_out: list, operands, params: dict):
    key = (avals_in, params_key(params))
    try:
      body = emitted.get(key)
    except TypeError:  # unhashable params
      key, body = None, None
    if body is None:
      one = (lambda *xs: [fun(*xs, **params)]) if not multiple_results else (
          lambda *xs: list(fun(*xs, **params)))
      closed = trace_physical(one, avals_in)
      if closed.effects:  # inline, so the effects take this region's token
        return ctx.lower_jaxpr(closed.jaxpr, closed.consts, list(operands))
      body, reusable = _emit_apart(ctx, closed)
      if reusable and key is not None:
        cached(emitted, key, lambda: body)
    return splice(ctx, body, operands, avals_out)
  return emit


def _emit_apart(ctx: lo.LoweringContext, closed) -> tuple[Body, bool]:
  """``closed``'s operations emitted apart; whether they can be spliced into any module
  (they call no function of this one and run no host callback)."""
  n_callbacks = len(ctx.module.host_callbacks)
  sub = ctx.scratch()
  # Unique names: a rule emitted inside another's body must not retype the outer's arguments.
  args = [sub.fresh().replace("%", "%parg") for _ in closed.in_avals]
  for a, aval in zip(args, closed.in_avals):
    sub.declare(a, aval)
  returned = sub.lower_jaxpr(closed.jaxpr, closed.consts, args)
  # a function called (`@name`) may be one of this module's made before, not just now
  reusable = (len(ctx.module.host_callbacks) == n_callbacks
              and not any("@" in line for line in sub.lines))
  return Body(sub.lines, args, returned, [sub.aval_of(r) for r in returned]), reusable
