"""Collectives that move data between chosen members of a named axis: ``pbroadcast``
(XLA's collective-broadcast), ``psend``/``precv`` (send and receive) and
``ragged_all_to_all``.

They trace, differentiate and batch as in JAX, but none runs on CPU, where JAX 0.10.2 runs
none of them either: XLA:CPU implements neither collective-broadcast nor ragged-all-to-all
(``ragged_all_to_all`` is emitted as JAX emits it, and compiling it fails in the runtime as
in JAX), and JAX lowers ``psend``/``precv`` on GPU only.
"""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import current_trace, eval_trace
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax import cumulative, elementwise, shapes
from xjax._src.primitives.lax import gather_scatter as gs
from xjax._src.primitives.lax.parallel import (_collective, _mesh_positions, _names, _rest,
                                               all_to_all, axis_index_p, check_bound, psum_p)
from xjax._src.primitives.lax.tokens import abstract_token

# ---------------------------------------------------------------------------------------
# pbroadcast: every member gets member ``source``'s value.


def _not_on_cpu(name: str):
  def lowering(ctx, *args, **params):
    raise NotImplementedError(f"MLIR translation rule for primitive '{name}' not found for "
                              "platform cpu (JAX lowers it on GPU only)")
  return lowering


def _pbroadcast_batch(axis, args, dims, *, axis_name, source):
  (x,), (d,) = args, dims
  rest = _rest(axis, axis_name)
  if rest is None:  # another (outer) axis: per batch element
    return pbroadcast_p.bind(x, axis_name=axis_name, source=source), d
  if rest:
    raise NotImplementedError("pbroadcast batcher only supports a single axis")
  if not 0 <= source < axis.size:
    raise ValueError(f"pbroadcast source {source} is not a member of the axis "
                     f"{axis.name!r} of size {axis.size}")
  if d is None:
    return x, None
  picked = shapes.slice_in_dim(x, source, source + 1, axis=d)
  return shapes.concatenate([picked] * axis.size, d), d


def _pbroadcast_transpose(ct, x, *, axis_name, source):
  """The source gets every member's cotangent, the others nothing."""
  total = psum_p.bind(ad.instantiate(ct), axes=_names(axis_name), axis_index_groups=None)
  aval = get_aval(total)
  is_source = elementwise.eq(axis_index_p.bind(axis_name=axis_name), np.int32(source))
  return [elementwise.select_n(is_source, shapes.full(aval.shape, 0, aval.dtype), total)]


pbroadcast_p = _collective("pbroadcast", lambda x, **_: x, _not_on_cpu("pbroadcast"))
pbroadcast_p.batch = _pbroadcast_batch
ad.deflinear(pbroadcast_p, _pbroadcast_transpose)


def pbroadcast(x, axis_name, source):
  """Every member of the named axis gets member ``source``'s ``x`` (a pytree)."""
  check_bound(axis_name, "ppermute")   # (JAX names ppermute here too)
  return tree_util.tree_map(
      lambda leaf: pbroadcast_p.bind(leaf, axis_name=axis_name, source=source), x)


# ---------------------------------------------------------------------------------------
# psend / precv: point-to-point transfers along ``perm``'s (source, destination) pairs,
# ordered by the token psend returns.

def _transfer_batch(prim):
  def rule(axis, args, dims, *, axis_name, **params):
    if _rest(axis, axis_name) is not None:
      raise NotImplementedError(f"{prim.name} under vmap over its own axis "
                                f"{axis.name!r}")
    return prim.bind(*args, axis_name=axis_name, **params), None
  return rule


psend_p = _collective("psend", lambda x, **_: abstract_token,
                      lambda ctx, *a, **p: _gpu_only("psend"))
psend_p.batch = _transfer_batch(psend_p)
precv_p = _collective("precv", lambda token, *, out_shape, **_: out_shape,
                      lambda ctx, *a, **p: _gpu_only("precv"))
precv_p.batch = _transfer_batch(precv_p)


def _gpu_only(name: str):
  raise NotImplementedError(f"{name} is currently only implemented on GPU")


def _perm(perm) -> tuple:
  return tuple(tuple(int(i) for i in pair) for pair in perm)


def psend(x, axis_name, perm):
  """Sends ``x`` (a pytree) from each ``perm`` source to its destination; returns the
  token a matching ``precv`` takes."""
  check_bound(axis_name, "psend")
  names = _names(axis_name)
  return tree_util.tree_map(
      lambda leaf: psend_p.bind(leaf, axis_name=names, perm=_perm(perm)), x)


def precv(token, out_shape, axis_name, perm):
  """Receives a value of ``out_shape`` (a ShapeDtypeStruct) sent by a matching ``psend``."""
  return precv_p.bind(token, out_shape=ShapedArray(out_shape.shape, out_shape.dtype),
                      axis_name=_names(axis_name), perm=_perm(perm))


# ---------------------------------------------------------------------------------------
# ragged_all_to_all: slices of ragged arrays sent between the members (see its docstring).

_RAGGED_ARGS = ("input_offsets", "send_sizes", "output_offsets", "recv_sizes")


def _ragged_abstract_eval(operand, output, *offsets_and_sizes, axis_name, axis_index_groups):
  for name, aval in zip(_RAGGED_ARGS, offsets_and_sizes):
    if not dtypes.is_integer(aval.dtype):
      raise ValueError(f"ragged_all_to_all {name} must be integer type.")
    if len(aval.shape) != 1 or aval.shape[0] < 1:
      raise ValueError(f"ragged_all_to_all {name} must be rank 1 with positive dimension "
                       f"size, but got shape {aval.shape}")
  return output.update(weak_type=False)


def _ragged_lowering(ctx, *args, axis_name, axis_index_groups):
  _, groups, _ = _mesh_positions(ctx, axis_name)
  rows = ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups)
  config = (f"{{channel_id = {ctx.module.next_channel()} : i64, replica_groups = "
            f"dense<[{rows}]> : tensor<{groups.shape[0]}x{groups.shape[1]}xi64>}}")
  return ctx.op("stablehlo.custom_call", list(args), ctx.avals_out[0], {
      "call_target_name": '"ragged_all_to_all"', "api_version": "4 : i32",
      "backend_config": config})


def _ragged_unmapped(*args, **params):
  raise RuntimeError("ragged_all_to_all must be used within a mapped context like vmap or "
                     "shard_map.")


def _ragged_jvp(primals, tangents, **params):
  operand, output, *rest = primals
  out = ragged_all_to_all_p.bind(operand, output, *rest, **params)
  d_operand, d_output = tangents[:2]
  if type(d_operand) is Zero and type(d_output) is Zero:
    return out, Zero(get_aval(out))
  return out, ragged_all_to_all_p.bind(ad.instantiate(d_operand), ad.instantiate(d_output),
                                       *rest, **params)


def _ragged_transpose(ct, operand, output, input_offsets, send_sizes, output_offsets,
                      recv_sizes, *, axis_name, axis_index_groups):
  """The operand's cotangent comes back along the reversed transfers; the output's is
  ``ct`` where nothing was received."""
  if type(ct) is Zero:
    return [Zero(operand.aval) if ad.is_undefined(operand) else None,
            Zero(output.aval) if ad.is_undefined(output) else None] + [None] * 4
  received_at = all_to_all(output_offsets, axis_name, 0, 0, tiled=True)
  sent_from = all_to_all(input_offsets, axis_name, 0, 0, tiled=True)
  aval = get_aval(ct)
  operand_ct = ragged_all_to_all_p.bind(
      ct, ad.zeros_of(operand.aval), received_at, recv_sizes, sent_from, send_sizes,
      axis_name=axis_name, axis_index_groups=axis_index_groups)
  n = aval.shape[0]
  dn = gs.ScatterDimensionNumbers((), (0,), (0,))
  edges = gs.scatter_add(shapes.full((n,), 0, np.int32),
                         shapes.expand_dims(received_at, (1,)),
                         shapes.full(get_aval(received_at).shape, 1, np.int32), dn,
                         mode=gs.GatherScatterMode.FILL_OR_DROP)
  edges = gs.scatter_add(edges, shapes.expand_dims(elementwise.add(received_at, recv_sizes),
                                                   (1,)),
                         shapes.full(get_aval(recv_sizes).shape, -1, np.int32), dn,
                         mode=gs.GatherScatterMode.FILL_OR_DROP)
  inside = elementwise.ne(cumulative.cumsum_p.bind(edges, axis=0, reverse=False),
                         np.int32(0))
  inside = shapes.broadcast_in_dim(inside, aval.shape, (0,))
  output_ct = elementwise.select_n(inside, ct, shapes.full(aval.shape, 0, aval.dtype))
  return [operand_ct, output_ct] + [None] * 4


def _ragged_batch(axis, args, dims, *, axis_name, axis_index_groups):
  if axis.name in _names(axis_name):
    raise NotImplementedError("ragged_all_to_all under vmap over its own axis "
                              f"{axis.name!r} is not supported (as in JAX).")
  if axis_index_groups:
    raise NotImplementedError("ragged_all_to_all with axis_index_groups under vmap")
  n = axis.size
  operand, output = (batching.bdim_to_front(x, d, n) for x, d in zip(args[:2], dims[:2]))
  rows_in, rows_out = get_aval(operand).shape[1], get_aval(output).shape[1]

  def per_slice(x, d):  # [slices, batch]
    x = batching.bdim_to_front(x, d, n)
    return shapes.transpose(x, (1, 0))

  offs_in, sizes_in, offs_out, sizes_out = map(per_slice, args[2:], dims[2:])
  shift = lambda offs, rows: elementwise.add(offs, shapes.broadcast_in_dim(
      elementwise.mul(shapes.iota(get_aval(offs).dtype, n),
                      np.asarray(rows, get_aval(offs).dtype)[()]), get_aval(offs).shape, (1,)))
  merge = lambda x: shapes.reshape(x, (get_aval(x).shape[0] * get_aval(x).shape[1],)
                                   + get_aval(x).shape[2:])
  merged = [merge(x) for x in (operand, output, shift(offs_in, rows_in), sizes_in,
                               shift(offs_out, rows_out), sizes_out)]
  out = ragged_all_to_all_p.bind(*merged, axis_name=axis_name,
                                 axis_index_groups=axis_index_groups)
  return shapes.reshape(out, (n, rows_out) + get_aval(out).shape[1:]), 0


ragged_all_to_all_p = _collective("ragged_all_to_all", _ragged_abstract_eval,
                                  _ragged_lowering, impl=_ragged_unmapped)
ragged_all_to_all_p.jvp = _ragged_jvp
ragged_all_to_all_p.transpose = _ragged_transpose
ragged_all_to_all_p.batch = _ragged_batch


def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets,
                      recv_sizes, *, axis_name, axis_index_groups=None):
  """Sends ``operand[input_offsets[i]:][:send_sizes[i]]`` to member ``i // (K / n)`` of the
  named axis (of size n, K slices), which writes it into its ``output`` at the
  ``output_offsets[i]`` it was given; returns ``output`` with what this member received
  (``recv_sizes`` rows at each offset)."""
  if current_trace() is not eval_trace:  # (eagerly its evaluation raises JAX's error)
    check_bound(axis_name, "ragged_all_to_all")
  if axis_index_groups is not None:
    axis_index_groups = tuple(tuple(int(i) for i in g) for g in axis_index_groups)
  return ragged_all_to_all_p.bind(operand, output, input_offsets, send_sizes,
                                  output_offsets, recv_sizes, axis_name=_names(axis_name),
                                  axis_index_groups=axis_index_groups)
