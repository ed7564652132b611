"""``round`` with a rounding method (away from zero, or to nearest even)."""
from __future__ import annotations

import enum

from xjax._src.interpreters import ad
from xjax._src.primitives.lax.elementwise import (broadcasting_sharding_rule, elementwise_batch,
                                                  _nary_abstract_eval)
from xjax._src.primitives.lax.operand_checks import dtype_checker
from xjax._src.primitives.lax.primitive_builders import standard_primitive


class RoundingMethod(enum.IntEnum):
  AWAY_FROM_ZERO = 0
  TO_NEAREST_EVEN = 1


def _round_lowering(ctx, x, *, rounding_method):
  op = ("stablehlo.round_nearest_afz" if rounding_method == RoundingMethod.AWAY_FROM_ZERO
        else "stablehlo.round_nearest_even")
  return ctx.op(op, [x], ctx.avals_out[0])


round_p = standard_primitive("round", _nary_abstract_eval("round", dtype_checker("float")),
                             _round_lowering)
round_p.batch = elementwise_batch(round_p)
round_p.sharding_rule = broadcasting_sharding_rule("round")
ad.zero_jvp(round_p)


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
  return round_p.bind(x, rounding_method=RoundingMethod(int(rounding_method)))


def round_half_even(x):
  return round(x, RoundingMethod.TO_NEAREST_EVEN)
