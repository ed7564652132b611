"""`custom_gradient` (a function returning its value and its VJP) and `fwd_and_bwd`
(reusable forward and backward passes)."""
from __future__ import annotations

import operator
from typing import Callable, Sequence

from xjax._src.api.transformations import vjp
from xjax._src.core.jaxpr import eval_jaxpr
from xjax._src.primitives.custom_derivatives import custom_vjp
from xjax._src.api.jit import jit
from xjax._src.api.make_jaxpr import make_jaxpr
from xjax._src.foundations.tree_util import register_pytree_node, tree_flatten, tree_unflatten
from xjax._src.foundations.wrapping import wraps


class _StagedRule:
  """A VJP rule staged to a jaxpr; its constants are the pytree's leaves (residuals)."""

  def __init__(self, jaxpr, consts, out_tree):
    self.jaxpr, self.consts, self.out_tree = jaxpr, consts, out_tree

  def __call__(self, ct):
    ct_leaves, _ = tree_flatten(ct)
    return tree_unflatten(self.out_tree, eval_jaxpr(self.jaxpr, self.consts, *ct_leaves))


register_pytree_node(_StagedRule, lambda r: (r.consts, (r.jaxpr, r.out_tree)),
                     lambda aux, consts: _StagedRule(aux[0], list(consts), aux[1]))


def custom_gradient(fun: Callable) -> Callable:
  """``fun(*args) -> (value, vjp)``, where ``vjp(ct)`` returns one cotangent per argument,
  becomes a function returning ``value`` whose reverse-mode derivative is ``vjp``."""
  @custom_vjp
  def wrapped(*args):
    value, _ = fun(*args)
    return value

  def fwd(*args):
    value, rule = fun(*args)
    closed, out_shape = make_jaxpr(rule, return_shape=True)(value)
    _, out_tree = tree_flatten(out_shape)
    return value, _StagedRule(closed.jaxpr, list(closed.consts), out_tree)

  def bwd(rule, ct):
    cts = rule(ct)
    return tuple(cts) if isinstance(cts, (tuple, list)) else (cts,)
  wrapped.defvjp(fwd, bwd)
  return wraps(fun)(lambda *args: wrapped(*args))


def fwd_and_bwd(fun: Callable, argnums: int | Sequence[int], has_aux: bool = False,
                jitted: bool = True) -> tuple[Callable, Callable]:
  """``fwd(*args) -> (out, residuals[, aux])`` and ``bwd(residuals, ct)`` -> cotangents of
  the ``argnums`` arguments.  The residuals are the arguments themselves: ``bwd``
  recomputes the forward pass inside its own (compiled once) program."""
  single = isinstance(argnums, int)
  nums = (operator.index(argnums),) if single else tuple(operator.index(a) for a in argnums)

  def pullback(args):
    def partial_fun(*dyn):
      full = list(args)
      for i, v in zip(nums, dyn):
        full[i] = v
      return fun(*full)
    return vjp(partial_fun, *[args[i] for i in nums], has_aux=has_aux)

  def fwd(*args):
    out = pullback(args)
    return (out[0], args, out[2]) if has_aux else (out[0], args)

  def bwd(residuals, outgrad):
    g = pullback(tuple(residuals))[1](outgrad)
    return g[0] if single else g
  return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)
