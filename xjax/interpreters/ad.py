"""Autodiff extension points (``jax.interpreters.ad``).

``primitive_jvps[p]`` and ``primitive_transposes[p]`` are ``p``'s own JVP and transpose rules:
JAX's signatures, ``jvp(primals, tangents, **params)`` and ``transpose(ct, *args, **params)``
with ``UndefinedPrimal`` for the linear arguments, are xjax's.  ``jvp`` and ``linearize``
take and return flat lists of values where JAX's take and return ``FlatTree``s.
"""
from __future__ import annotations

from typing import Any as _Any, Callable as _Callable, Sequence as _Sequence

from xjax._src.foundations import tree_util as _tree_util
from xjax._src.core.trace import current_trace as _current_trace
from xjax._src.interpreters.ad import (JVPTrace, JVPTracer, UndefinedPrimal, Zero,  # noqa: F401
                                       add_tangents, defbilinear, defjvp, defjvp2)
from xjax._src.interpreters.ad import jvp_flat as _jvp_flat
from xjax._src.interpreters.ad import linearize_nonzero as _linearize_nonzero
from xjax._src.interpreters.ad import deflinear as _deflinear
from xjax._src.interpreters.ad import instantiate as instantiate_zeros  # noqa: F401
from xjax._src.interpreters.ad import is_undefined as is_undefined_primal  # noqa: F401
from xjax._src.extend.dce_rules import dce_jaxpr_consts as _dce_jaxpr_consts
from xjax._src.interpreters.ad import zeros_of as zeros_like_aval  # noqa: F401
from xjax._src.extend.rule_registries import RuleRegistry as _RuleRegistry
from xjax._src.primitives.lax.elementwise import add_any_p as add_jaxvals_p  # noqa: F401

primitive_jvps = _RuleRegistry("ad.primitive_jvps", "jvp")
primitive_transposes = _RuleRegistry("ad.primitive_transposes", "transpose")
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


def _flat_outputs(fun: _Callable, has_aux: bool, auxs: list) -> _Callable:
  """``fun`` (a callable or WrappedFun) returning its output's leaves; with ``has_aux``
  it returns ``(out, aux)`` and ``aux``, traced values made plain, goes into ``auxs``."""
  call = getattr(fun, "call_wrapped", fun)

  def flat(*xs):
    ans = call(*xs)
    if has_aux:
      if not isinstance(ans, (list, tuple)) or len(ans) != 2:
        raise TypeError("expected function with aux output to return a two-element tuple, "
                        f"but got type {type(ans)} with value {ans!r}")
      ans, aux = ans
      trace = _current_trace()
      auxs.append(_tree_util.tree_map(
          lambda x: x.primal if isinstance(x, JVPTracer) and x._trace is trace else x, aux))
    return _tree_util.tree_leaves(ans)
  return flat


def jvp(fun: _Callable, primals: _Sequence[_Any], tangents: _Sequence[_Any], has_aux: bool = False,
        instantiate: bool | _Sequence[bool] = True, transform_stack: bool = True):
  """``fun(*primals)`` forward-differentiated along ``tangents`` (Zero for none): returns
  (output leaves, their tangents, *aux); symbolic zero tangents are made arrays where
  ``instantiate`` says."""
  auxs: list = []
  out_primals, out_tangents = _jvp_flat(_flat_outputs(fun, has_aux, auxs), list(primals),
                                        list(tangents))
  inst = [instantiate] * len(out_tangents) if isinstance(instantiate, bool) else instantiate
  out_tangents = [instantiate_zeros(t) if i else t for t, i in zip(out_tangents, inst)]
  return (out_primals, out_tangents, *auxs)


def linearize(traceable: _Callable, primals: _Sequence[_Any], has_aux: bool = False,
              is_vjp: bool = False):
  """``traceable(*primals)`` linearized: returns (output leaves, which output tangents are
  zero, the linear Jaxpr from the input tangents to the nonzero output tangents (its
  constvars take ``consts``), consts, *aux)."""
  auxs: list = []
  out_primals, nonzero, linear = _linearize_nonzero(_flat_outputs(traceable, has_aux, auxs),
                                                    list(primals))
  jaxpr, used_consts, _ = _dce_jaxpr_consts(linear.jaxpr, [True] * sum(nonzero),
                                            instantiate=True)
  consts = [c for c, u in zip(linear.consts, used_consts) if u]
  return (out_primals, [not nz for nz in nonzero], jaxpr, consts, *auxs)


def __getattr__(name):
  from xjax._src.compat.removed_names import missing_name
  raise missing_name(__name__, name)
