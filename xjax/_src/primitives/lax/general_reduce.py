"""``lax.reduce`` with a user computation: traced to a jaxpr and lowered as
``stablehlo.reduce`` (the monoid cases go to the dedicated reductions)."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.core.jaxpr import eval_jaxpr
from xjax._src.core.trace import Tracer
from xjax._src.primitives.lax.primitive_builders import standard_primitive
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import reductions as r
from xjax._src.primitives.lax import shapes
from xjax._src.primitives.lax.elementwise import convert_element_type
from xjax._src.primitives.lax.reductions import lower_reduce


# ---------------------------------------------------------------------------------------
# reduce with a traced computation

def _reduce_abstract_eval(*args, computation, jaxpr, dimensions):
  n = len(args) // 2
  operands, inits = args[:n], args[n:]
  shape = operands[0].shape
  for x, init in zip(operands, inits):
    if x.shape != shape:
      raise ValueError(f"reduce operands must have the same shape, got "
                       f"{', '.join(str(o.shape) for o in operands)}")
    if init.shape:
      raise ValueError(f"reduce found non-scalar initial value: {[i.shape for i in inits]}")
    if init.dtype != x.dtype:
      raise TypeError(f"reduce init values must be scalars of the operands' dtypes, got "
                      f"{init.str_short(short_dtypes=True)} for an operand of dtype {x.dtype.name}")
  if any(not 0 <= d < len(shape) for d in dimensions) or len(set(dimensions)) != len(dimensions):
    raise ValueError(f"reduce: invalid dimensions {dimensions} for operand shape {shape}")
  out_shape = tuple(s for i, s in enumerate(shape) if i not in dimensions)
  # (weak where the operand and its init both are, as JAX's)
  return [ShapedArray(out_shape, x.dtype, x.weak_type and i.weak_type)
          for x, i in zip(operands, inits)]


def _reduce_lowering(ctx, *args, computation, jaxpr, dimensions):
  n = len(args) // 2

  def body(sub, accs, xs):
    return sub.lower_jaxpr(jaxpr.jaxpr, jaxpr.consts, list(accs) + list(xs))
  outs = lower_reduce(ctx, args[:n], args[n:], dimensions, body, list(ctx.avals_out))
  return outs if isinstance(outs, list) else [outs]


def _reduce_batch(axis, args, dims, *, computation, jaxpr, dimensions):
  n = len(args) // 2
  if any(d is not None for d in dims[n:]):
    raise NotImplementedError("reduce with batched init values is not supported")
  xs = [batching.matchaxis(x, d, 0, axis.size) for x, d in zip(args[:n], dims[:n])]
  outs = reduce_p.bind(*xs, *args[n:], computation=computation, jaxpr=jaxpr,
                       dimensions=tuple(d + 1 for d in dimensions))
  return outs, [0] * n


def _reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
  """Differentiates a generic reduce as JAX does: the reduced dimensions moved to the front
  and flattened, then halved until one row is left, each step combining the first half with
  the second (padded at its end with the init values when shorter) through ``jaxpr``. JVP
  sees through the tree, and both results come from it (a computation that is not
  associative gives the tree's values, as JAX's)."""
  n = len(primals) // 2
  xs, inits = list(primals[:n]), list(primals[n:])
  txs = [ad.instantiate(t) for t in tangents[:n]]
  tinits = [ad.instantiate(t) for t in tangents[n:]]
  shape = get_aval(xs[0]).shape
  rest = [i for i in range(len(shape)) if i not in dimensions]
  rest_shape = tuple(shape[i] for i in rest)
  count = math.prod([shape[d] for d in dimensions])
  order = tuple(dimensions) + tuple(rest)
  rows = lambda x: shapes.reshape(x, (count,) + rest_shape, dimensions=order)
  xs, txs = [rows(x) for x in xs], [rows(t) for t in txs]
  if count == 0:
    return ([shapes.broadcast_in_dim(i, rest_shape, ()) for i in inits],
            [shapes.broadcast_in_dim(t, rest_shape, ()) for t in tinits])
  combine = lambda *args: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *args)
  pad = [(0, 0, 0)] * len(rest_shape)
  while count > 1:
    first = (count + 1) // 2
    head = lambda vs: [shapes.slice_in_dim(v, 0, first, 1, 0) for v in vs]
    tail = lambda vs, fill: [
        shapes.pad(shapes.slice_in_dim(v, first, count, 1, 0), f, [(0, 1, 0)] + pad)
        if count % 2 else shapes.slice_in_dim(v, first, count, 1, 0) for v, f in zip(vs, fill)]
    xs, txs = ad.jvp_flat(combine, head(xs) + tail(xs, inits),
                          head(txs) + tail(txs, tinits))
    txs = [ad.instantiate(t) for t in txs]
    count = first
  return ([shapes.squeeze(x, (0,)) for x in xs], [shapes.squeeze(t, (0,)) for t in txs])


reduce_p = standard_primitive("reduce", _reduce_abstract_eval, _reduce_lowering,
                              multiple_results=True)
reduce_p.batch = _reduce_batch
reduce_p.sharding_rule = lambda *avals, computation, jaxpr, dimensions: [
    r.reduced_sharding_rule(x, axes=dimensions) for x in avals[:len(avals) // 2]]
reduce_p.jvp = _reduce_jvp
# (the user's computation printed as JAX prints it: ``<function add at 0xXXXXXXXXXXXX>``)
reduce_p.pp_params = lambda p: sorted((k, str(v) if k == "computation" else v)
                                      for k, v in p.items())


def _monoid_reduction(computation, init):
  """The dedicated (differentiable) reduction JAX picks for lax.add/mul/max/min and the
  bitwise and/or/xor (of booleans and integers) when the init is a concrete scalar equal to
  the identity of the init's own dtype; None otherwise."""
  name, fn = _MONOIDS.get(computation, (None, None))
  if fn is None or isinstance(init, Tracer) or np.shape(init) != ():
    return None
  dtype = get_aval(init).dtype
  if name in ("and", "or", "xor") and not (dtype == np.bool_ or dtypes.is_integer(dtype)):
    return None
  return fn if np.equal(np.asarray(init), r._identity(name, dtype)) else None


_MONOIDS = {ew.add: ("add", r.reduce_sum), ew.mul: ("mul", r.reduce_prod),
            ew.max: ("max", r.reduce_max), ew.min: ("min", r.reduce_min),
            ew.bitwise_and: ("and", r.reduce_and), ew.bitwise_or: ("or", r.reduce_or),
            ew.bitwise_xor: ("xor", r.reduce_xor)}


def trace_on_inits(computation, init_tree, init_avals) -> None:
  """Traces ``computation`` on two sets of arguments of the inits' types, as JAX does before
  it checks them against the operands (so the computation's own TypeError comes first)."""
  k = len(init_avals)
  trace_to_jaxpr(lambda *a: tree_util.tree_leaves(computation(
      tree_util.tree_unflatten(init_tree, a[:k]), tree_util.tree_unflatten(init_tree, a[k:]))),
      init_avals + init_avals)


def reduce(operands, init_values, computation, dimensions: Sequence[int], out_sharding=None):
  """Reduces ``operands`` (an array or a pytree of arrays) over ``dimensions`` with
  ``computation(accumulators, values)``, starting from ``init_values``. As in JAX,
  ``out_sharding`` (the result's split) applies to a sum; the other monoids refuse it and a
  computation of the user's own does not take it."""
  flat_ops, tree = tree_util.tree_flatten(operands)
  flat_inits, init_tree = tree_util.tree_flatten(init_values)
  if tree != init_tree:
    raise ValueError("reduce operands and init_values must have the same structure")
  dims = tuple(int(d) for d in dimensions)
  fn = _monoid_reduction(computation, flat_inits[0]) if len(flat_ops) == 1 else None
  if fn is not None:
    if fn is r.reduce_sum:
      out = fn(flat_ops[0], dims, out_sharding=out_sharding)
    elif out_sharding is not None:
      raise NotImplementedError("lax.reduce: out_sharding is supported for sums (lax.add "
                                "with init 0) only, as in JAX; reshard the result instead.")
    else:
      out = fn(flat_ops[0], dims)
    # (weak only when both the operand and the init are, as JAX's)
    weak = get_aval(flat_ops[0]).weak_type and dtypes.is_weakly_typed(flat_inits[0])
    return tree_util.tree_unflatten(tree, [convert_element_type(out, get_aval(out).dtype,
                                                                weak_type=weak)])
  avals = [ShapedArray((), get_aval(x).dtype) for x in flat_ops]
  init_avals = [get_aval(i) for i in flat_inits]
  if any(i.dtype != a.dtype for i, a in zip(init_avals, avals)):  # (a Python float is
    # float64 under x64, a Python int int32: JAX checks them as they are)
    # JAX traces the computation on the inits' types first: its error comes first.
    trace_on_inits(computation, init_tree, init_avals)
    raise TypeError("reduce operand dtypes should match corresponding initial value dtypes, "
                    f"got operands={[get_aval(x) for x in flat_ops]} and "
                    f"initial_values={init_avals}")
  n = len(flat_ops)

  def flat_computation(*args):
    out = computation(tree_util.tree_unflatten(tree, args[:n]),
                      tree_util.tree_unflatten(tree, args[n:]))
    out_flat, out_tree = tree_util.tree_flatten(out)
    if out_tree != tree:
      raise TypeError("reduce computation must return the structure of its operands")
    return out_flat
  jaxpr = trace_to_jaxpr(flat_computation, avals + avals)
  # (the inits as they are, weak types kept, as JAX binds them; Python scalars as literals)
  inits = [convert_element_type(i, a.dtype, weak_type=True) if type(i) in (bool, int, float)
           else i for i, a in zip(flat_inits, avals)]
  outs = reduce_p.bind(*flat_ops, *inits, computation=computation, jaxpr=jaxpr,
                       dimensions=dims)
  return tree_util.tree_unflatten(tree, outs)
