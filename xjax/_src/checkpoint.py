"""``checkpoint`` (``remat``): trade memory for recomputation in reverse mode.

The body is bound as the ``checkpoint`` call primitive.  Its partial-evaluation rule saves
no intermediate values: the known part yields only the known outputs, and the staged
(backward) part takes the known inputs and recomputes the primal before its tangent work.
"""
from __future__ import annotations

from typing import Callable

from xjax._src import dispatch, tree_util
from xjax._src.errors import api_boundary
from xjax._src.array import Array, make_array
from xjax._src.core.jaxpr import ClosedJaxpr, closed_with_consts_as_args, eval_jaxpr
from xjax._src.core.trace import Tracer
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.interpreters.staging import fun_name, trace_to_jaxpr
from xjax._src.wrapping import wraps


def _hoist(closed: ClosedJaxpr):
  jaxpr, consts = closed_with_consts_as_args(closed)
  return ClosedJaxpr(jaxpr, ()), consts


def checkpoint(fun: Callable, *, prevent_cse: bool = True, policy=None,
               static_argnums=()) -> Callable:
  """``fun`` whose intermediates are recomputed, not stored, for reverse mode."""
  static = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)

  @api_boundary
  @wraps(fun)
  def wrapped(*args):
    n = len(args)
    st = {i % n for i in static}
    dyn = [a for i, a in enumerate(args) if i not in st]
    leaves, in_tree = tree_util.tree_flatten(dyn)
    leaves = [x if isinstance(x, (Array, Tracer)) else make_array(x) for x in leaves]
    out_tree = []

    def flat(*xs):
      it = iter(tree_util.tree_unflatten(in_tree, xs))
      full = [args[i] if i in st else next(it) for i in range(n)]
      outs, tree = tree_util.tree_flatten(fun(*full))
      out_tree.append(tree)
      return outs

    jaxpr, consts = _hoist(trace_to_jaxpr(flat, [get_aval(x) for x in leaves]))
    outs = checkpoint_p.bind(*consts, *leaves, jaxpr=jaxpr, prevent_cse=prevent_cse,
                             name=fun_name(fun))
    return tree_util.tree_unflatten(out_tree[0], outs)
  return wrapped


remat = checkpoint


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
  """``fun`` unchanged in value; JAX uses ``name`` only to label its staged computation."""
  del name
  return wraps(fun)(lambda *args, **kwargs: fun(*args, **kwargs))


def _jvp(primals, tangents, *, jaxpr, **params):
  nonzeros = [type(t) is not Zero for t in tangents]
  jvp_jaxpr, out_nz = ad.jvp_closed_jaxpr(jaxpr, nonzeros, instantiate_out=False)
  jvp_jaxpr, consts = _hoist(jvp_jaxpr)
  nz_t = [t for t in tangents if type(t) is not Zero]
  outs = checkpoint_p.bind(*consts, *primals, *nz_t, jaxpr=jvp_jaxpr, **params)
  n = len(jaxpr.out_avals)
  it = iter(outs[n:])
  return outs[:n], [next(it) if nz else Zero(ad.tangent_aval(a))
                    for nz, a in zip(out_nz, jaxpr.out_avals)]


def _partial_eval(trace, args, params):
  jaxpr = params["jaxpr"]
  unknowns = [trace.is_unknown(x) for x in args]
  known, unknown, out_unknowns, num_res = ad.partial_eval_jaxpr(jaxpr, unknowns)
  known_args = [x for x, u in zip(args, unknowns) if not u]
  unknown_args = [x for x, u in zip(args, unknowns) if u]
  n_known = len(known.out_avals) - num_res
  known_outs = []
  if n_known:
    known_h, kconsts = _hoist(known)
    known_outs = checkpoint_p.bind(*kconsts, *known_args, jaxpr=known_h, **_rest(params))

  def recompute(*xs):
    k, u = xs[:len(known_args)], xs[len(known_args):]
    res = eval_jaxpr(known.jaxpr, known.consts, *k)[n_known:]
    return eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *u)

  remat_jaxpr, rconsts = _hoist(trace_to_jaxpr(
      recompute, [get_aval(x) for x in known_args] + [x.aval for x in unknown_args]))
  staged = trace.stage(checkpoint_p, list(rconsts) + known_args + unknown_args,
                       dict(params, jaxpr=remat_jaxpr))
  it_k, it_u = iter(known_outs[:n_known]), iter(staged)
  return [next(it_u) if u else next(it_k) for u in out_unknowns]


def _rest(params):
  return {k: v for k, v in params.items() if k != "jaxpr"}


def _transpose(cts, *args, jaxpr, **params):
  linear = [ad.is_undefined(x) for x in args]
  ct_jaxpr, consts = _hoist(ad.transpose_closed_jaxpr(jaxpr, linear))
  nonlin = [x for x in args if not ad.is_undefined(x)]
  cts = [ad.instantiate(c) for c in cts]
  outs = checkpoint_p.bind(*consts, *nonlin, *cts, jaxpr=ct_jaxpr, **params)
  it = iter(outs)
  return [next(it) if l else None for l in linear]


def _batch(axis, args, dims, *, jaxpr, **params):
  in_batched = [d is not None for d in dims]
  args = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(args, dims)]
  batched, out_batched = batching.batch_closed_jaxpr(jaxpr, axis, in_batched)
  batched, consts = _hoist(batched)
  outs = checkpoint_p.bind(*consts, *args, jaxpr=batched, **params)
  return outs, [0 if b else None for b in out_batched]


checkpoint_p = dispatch.call_primitive("checkpoint")
checkpoint_p.jvp = _jvp
checkpoint_p.partial_eval = _partial_eval
checkpoint_p.transpose = _transpose
checkpoint_p.batch = _batch
