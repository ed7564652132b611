"""Building primitives: ``standard_primitive``, lowering rules emitting one StableHLO op
(``hlo_op``) or a lax composition (``lowering_from``), and how values are stored."""
from __future__ import annotations

from typing import Callable

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Primitive
from xjax._src.primitives.traced_lowering import inline_traced


def standard_primitive(name: str, abstract_eval: Callable, lowering: Callable,
                       multiple_results: bool = False) -> Primitive:
  """A primitive evaluated eagerly through its own lowering (a cached compiled program)."""
  prim = Primitive(name, multiple_results)
  prim.abstract_eval = abstract_eval
  prim.lowering = lowering
  prim.types_cached = True
  return prim


def stored_dims(aval: ShapedArray) -> tuple:
  """The trailing dimensions with which values of ``aval`` are stored: the physical shape of
  an extended dtype (a PRNG key's ``(2,)``), ``()`` for numbers."""
  return aval.dtype.physical_shape if dtypes.is_extended(aval.dtype) else ()


def hlo_op(op_name: str, attrs: Callable[..., dict] | None = None):
  """A lowering rule emitting one StableHLO op on the operands, producing avals_out."""
  def lower(ctx, *operands, **params):
    a = attrs(ctx, **params) if attrs is not None else None
    out = ctx.avals_out if len(ctx.avals_out) != 1 else ctx.avals_out[0]
    return ctx.op(op_name, list(operands), out, a)
  return lower


def lowering_from(fn: Callable) -> Callable:
  """A lowering rule that emits ``fn`` (written with lax functions) traced at the operands'
  avals: for primitives XLA has no single op for. Operands of extended dtype (PRNG keys)
  reach ``fn`` as the arrays that store them."""
  def lower(ctx, *operands, **params):
    listed = []  # whether fn returned a list: a multiple-results primitive's, even of one

    def emitted(*xs):
      out = fn(*xs, **params)
      listed.append(isinstance(out, (tuple, list)))
      return list(out) if listed[-1] else [out]
    outs = inline_traced(ctx, emitted, ctx.avals_in, operands)
    return outs if listed[-1] else outs[0]
  return lower
