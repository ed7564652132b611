"""Autodiff extension points (``jax.interpreters.ad``).

``primitive_jvps[p]`` and ``primitive_transposes[p]`` are ``p``'s own JVP and transpose rules:
JAX's signatures, ``jvp(primals, tangents, **params)`` and ``transpose(ct, *args, **params)``
with ``UndefinedPrimal`` for the linear arguments, are xjax's.
"""
from xjax._src.interpreters.ad import (JVPTrace, JVPTracer, UndefinedPrimal, Zero,  # noqa: F401
                                       add_tangents, defjvp, defjvp2)
from xjax._src.interpreters.ad import deflinear as _deflinear
from xjax._src.interpreters.ad import instantiate as instantiate_zeros  # noqa: F401
from xjax._src.interpreters.ad import is_undefined as is_undefined_primal  # noqa: F401
from xjax._src.interpreters.ad import zeros_of as zeros_like_aval  # noqa: F401
from xjax._src.interpreters.rule_registries import RuleRegistry
from xjax._src.lax.elementwise import add_any_p as add_jaxvals_p  # noqa: F401

primitive_jvps = RuleRegistry("ad.primitive_jvps", "jvp")
primitive_transposes = RuleRegistry("ad.primitive_transposes", "transpose")
add_jaxvals = add_tangents


def get_primitive_transpose(p):
  try:
    return primitive_transposes[p]
  except KeyError:
    raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for '{p}' "
                              "not implemented") from None


def _zero_cotangents(args):
  return [Zero(x.aval) if is_undefined_primal(x) else None for x in args]


def deflinear2(prim, transpose_rule) -> None:
  """A primitive linear in all its inputs; ``transpose_rule(ct, *args, **params)``."""
  def transpose(ct, *args, **params):
    return _zero_cotangents(args) if type(ct) is Zero else transpose_rule(ct, *args, **params)
  _deflinear(prim, transpose)


def deflinear(prim, transpose_rule) -> None:
  """A primitive linear in all its inputs; ``transpose_rule(ct, **params)``."""
  deflinear2(prim, lambda ct, *args, **params: transpose_rule(ct, **params))


def defbilinear(prim, lhs_rule, rhs_rule) -> None:
  """A primitive linear in each of its two inputs; ``lhs_rule(ct, x, y, **params)`` gives
  the cotangent of ``x`` (an UndefinedPrimal), ``rhs_rule`` that of ``y``."""
  defjvp(prim, lambda g, x, y, **params: prim.bind(g, y, **params),
         lambda g, x, y, **params: prim.bind(x, g, **params))

  def transpose(ct, x, y, **params):
    if is_undefined_primal(x):
      return (Zero(x.aval) if type(ct) is Zero else lhs_rule(ct, x, y, **params)), None
    return None, (Zero(y.aval) if type(ct) is Zero else rhs_rule(ct, x, y, **params))
  prim.transpose = transpose
