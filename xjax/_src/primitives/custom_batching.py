"""``custom_vmap``: a function with its own vectorization rule, and ``sequential_vmap``.

Calling a ``custom_vmap`` function under a transformation traces it to a jaxpr and binds
the ``custom_vmap_call`` primitive, which carries the user's rule as a flat Python
callable.  Evaluation and lowering run the body; the batching rule runs the user's rule
instead of batching the body.  The JVP of a call is another call: of the body's JVP, with
the rule's JVP as its rule (so ``vmap`` of ``jvp`` still uses the rule).  Reverse mode of
the call itself is not supported, as in JAX: wrap it in ``custom_vjp``, or ``vmap`` first.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable

from xjax._src.execution.compiled_jaxprs import call_primitive
from xjax._src.foundations import tree_util
from xjax._src.foundations.errors import api_boundary
from xjax._src.core.trace import Tracer, current_trace, eval_trace
from xjax._src.core.values import get_aval
from xjax._src.primitives.custom_derivatives import _as_array as as_array, forward_to_fun
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.higher_order import hoist, trace_hoisted
from xjax._src.interpreters.staging import fun_name
from xjax._src.primitives.lax.control_flow.loops import map as lax_map
from xjax._src.foundations.wrapping import update_wrapper


class custom_vmap:
  """A function whose ``vmap`` runs a rule set with ``def_vmap``:
  ``rule(axis_size, in_batched, *args) -> (out, out_batched)``, where ``in_batched`` is a
  list (one pytree of bools per argument), the batched arguments carry the batch axis
  first, and ``out_batched`` says which outputs do."""

  def __init__(self, fun: Callable[..., Any]) -> None:
    update_wrapper(self, fun)
    self.fun = fun
    self.vmap_rule = None

  __getattr__ = forward_to_fun

  def def_vmap(self, vmap_rule: Callable[..., tuple[Any, Any]]) -> Callable[..., tuple[Any, Any]]:
    """Sets the vectorization rule; returns it unchanged."""
    self.vmap_rule = vmap_rule
    return vmap_rule

  @api_boundary
  def __call__(self, *args, **kwargs):
    name = fun_name(self.fun)
    try:
      bound = inspect.signature(self.fun).bind(*args, **kwargs)
      bound.apply_defaults()
      if bound.kwargs:
        raise TypeError(f"keyword-only arguments {sorted(bound.kwargs)}")
      args = bound.args
    except TypeError as e:
      raise TypeError("The input arguments to the custom_vmap-decorated function "
                      f"{name} could not be resolved to positional-only arguments. "
                      f"Binding failed with the error:\n{e}") from e
    if not self.vmap_rule:
      raise AttributeError(f"No batching rule defined for custom_vmap function {name} "
                           "using def_vmap.")
    leaves, in_tree = tree_util.tree_flatten(args)
    leaves = [as_array(x) for x in leaves]
    if current_trace() is eval_trace and not any(isinstance(x, Tracer) for x in leaves):
      # nothing to vectorize or stage: the function runs as it is
      return self.fun(*tree_util.tree_unflatten(in_tree, leaves))
    out_trees = []

    def flat(*xs):
      outs, tree = tree_util.tree_flatten(self.fun(*tree_util.tree_unflatten(in_tree, xs)))
      out_trees.append(tree)
      return [as_array(o) for o in outs]

    jaxpr, consts = trace_hoisted(flat, [get_aval(x) for x in leaves])
    out_tree = out_trees[0]
    rule = _flat_rule(self.vmap_rule, in_tree, out_tree)
    outs = custom_vmap_p.bind(*consts, *leaves, call=jaxpr, rule=rule,
                              num_consts=len(consts), in_tree=in_tree, out_tree=out_tree)
    return tree_util.tree_unflatten(out_tree, outs)


def _flat_rule(rule, in_tree, out_tree):
  """The user's rule on flat lists: ``(axis_size, in_batched, args) -> (outs, out_batched)``."""
  rule_name = getattr(rule, "__name__", "<unnamed rule>")

  def flat(axis_size, in_batched, args):
    out, out_batched = rule(axis_size, list(tree_util.tree_unflatten(in_tree, in_batched)),
                            *tree_util.tree_unflatten(in_tree, args))
    outs, tree = tree_util.tree_flatten(out)
    flags, flags_tree = tree_util.tree_flatten(out_batched)
    if tree != flags_tree:
      raise ValueError("structure of output value and output batching specification "
                       f"returned by custom vmap rule ({rule_name}) do not match.\n"
                       f"Output values: {tree}\nBatching spec: {flags_tree}")
    if tree != out_tree:
      raise ValueError(f"structure of output returned by custom vmap rule ({rule_name}) does "
                       "not match that of original custom-vmapped function.\n"
                       f"Original output: {out_tree}\nRule output: {tree}")
    return [as_array(o) for o in outs], [bool(b) for b in flags]

  flat.__name__ = rule_name   # printed in jaxprs as the user's rule
  return flat


# ---------------------------------------------------------------------------------------
# The custom_vmap_call primitive's rules

def _batch(axis, args, dims, *, call, rule, num_consts, in_tree, out_tree):
  if any(d is not None for d in dims[:num_consts]):
    raise ValueError("A custom_vmap function closes over a value that an enclosing vmap "
                     "batches; pass that value to the function as an argument instead.")
  args = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(args, dims)]
  outs, out_batched = rule(axis.size, [d is not None for d in dims[num_consts:]],
                           args[num_consts:])
  for o, b, a in zip(outs, out_batched, call.out_avals):
    shape = get_aval(o).shape
    if b and shape[:1] != (axis.size,):
      raise ValueError(f"custom vmap rule ({rule.__name__}) marked an output as batched but "
                       f"returned a value of shape {shape}, whose leading axis is not the "
                       f"batch axis of size {axis.size} (the function's output has shape "
                       f"{a.shape}).")
  return outs, [0 if b else None for b in out_batched]


def _jvp(primals, tangents, *, call, rule, num_consts, in_tree, out_tree):
  k = num_consts
  tangents = [ad.instantiate(t) for t in tangents[k:]]
  jvp_call, consts = hoist(ad.jvp_closed_jaxpr(call, [False] * k + [True] * len(tangents))[0])
  jvp_in_tree = tree_util.treedef_tuple((in_tree, in_tree))
  jvp_out_tree = tree_util.treedef_tuple((out_tree, out_tree))
  outs = custom_vmap_p.bind(*consts, *primals, *tangents, call=jvp_call,
                            rule=_jvp_of_rule(rule, k), num_consts=len(consts) + k,
                            in_tree=jvp_in_tree, out_tree=jvp_out_tree)
  n = len(outs) // 2
  return outs[:n], outs[n:]


def _jvp_of_rule(rule, num_primal_consts):
  """The rule of a JVP call: the rule's JVP where primals and tangents are batched alike,
  and an ordinary vmap over the axis only one of them has."""
  def jvp_rule(axis_size, in_batched, args):
    n = len(args) // 2
    consts, primals, tangents = (args[:num_primal_consts], args[num_primal_consts:n],
                                 args[n:])
    pb, tb = in_batched[:n][num_primal_consts:], in_batched[n:]
    both = [p and t for p, t in zip(pb, tb)]
    extra = ([0 if p and not t else None for p, t in zip(pb, tb)] +
             [0 if t and not p else None for p, t in zip(pb, tb)])
    box = []

    def on_primals(*ps):
      outs, out_batched = rule(axis_size, [False] * len(consts) + both, [*consts, *ps])
      box.append(out_batched)
      return outs

    def jvp(*xs):
      out_p, out_t = ad.jvp_flat(on_primals, xs[:len(primals)], xs[len(primals):])
      return [*out_p, *[ad.instantiate(t) for t in out_t]]

    outs, dims = batching.batch_flat(jvp, [*primals, *tangents], extra,
                                     batching.AxisData(axis_size, None))
    outs = [batching.moveaxis(o, d, 0) if d is not None else o for o, d in zip(outs, dims)]
    m = len(outs) // 2
    flags = [b or d is not None for b, d in zip(box[0] * 2, dims)]
    return outs, flags[:m] + flags[m:]

  jvp_rule.__name__ = rule.__name__
  return jvp_rule


custom_vmap_p = call_primitive("custom_vmap_call", "call")
custom_vmap_p.batch = _batch
custom_vmap_p.jvp = _jvp
custom_vmap_p.hidden_params = frozenset({"num_consts"})


# ---------------------------------------------------------------------------------------
# sequential_vmap

def sequential_vmap(f: Callable) -> custom_vmap:
  """``f`` whose ``vmap`` is a loop (``lax.map``) calling ``f`` once per batch element, for
  functions that cannot take a batch dimension."""
  f = custom_vmap(f)

  @f.def_vmap
  def rule(axis_size, in_batched, *args):
    del axis_size
    args = list(args)
    mapped = tree_util.tree_map(lambda b, x: x if b else None, in_batched, args)

    def one(elements):
      return f(*tree_util.tree_map(lambda b, e, x: e if b else x, in_batched, elements, args))

    out = lax_map(one, mapped)
    return out, tree_util.tree_map(lambda _: True, out)

  return f
