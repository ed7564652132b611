"""``pallas_call``: a kernel written on refs, run over a grid.  ``pallas_call_p`` carries the
kernel's jaxpr (on refs to blocks) and the grid mapping; interpret mode evaluates it with
xjax's primitives: a while loop over the grid that slices each operand's block out, runs the
kernel with its refs discharged to values, and writes the blocks back, as JAX's interpreter
does (operands padded to whole blocks, outputs starting uninitialized: NaN for floats, the
least integer for integers).  Under vmap the batch becomes a leading grid dimension hidden
from the kernel; forward-mode differentiation runs the kernel's JVP as a kernel on the
primal and tangent refs, which reverse mode cannot split (as in JAX)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from xjax._src.core import varying
from xjax._src.backend import clients
from xjax._src.core.avals import ShapedArray
from xjax._src.core.jaxpr import ClosedJaxpr, eval_jaxpr
from xjax._src.core.trace import Primitive
from xjax._src.core.values import get_aval
from xjax._src.foundations import dtypes
from xjax._src.foundations.tree_util import tree_flatten, tree_unflatten
from xjax._src.interpreters import batching
from xjax._src.interpreters.ad import Zero, instantiate, jvp_flat
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.primitives.lax.control_flow.loops import while_loop
from xjax._src.primitives.lax.elementwise import convert_element_type, select
from xjax._src.primitives.lax.shapes import (dynamic_slice, dynamic_update_slice, full,
                                             pad as lax_pad, reshape, slice as lax_slice)
from xjax._src.primitives.lax.primitive_builders import lowering_from
from xjax._src.primitives.state.discharge import eval_discharged
from xjax._src.primitives.state.primitives import ref_get, ref_set
from xjax._src.primitives.state.types import AbstractRef
from xjax._src.libraries.pallas.grid import grid_env
from xjax._src.libraries.pallas.specs import (
    BlockSpec, GridSpec, Squeezed, block_dims, no_block_spec)

_I32 = np.dtype("int32")


@dataclasses.dataclass(frozen=True, eq=False)
class BlockMapping:
  """How one operand (input, output or neither) is cut into the kernel's blocks:
  ``block_shape`` (``Blocked``/``Squeezed`` dimensions), ``index_map`` (a jaxpr from the
  grid indices to block indices) and the whole array's type."""
  block_shape: tuple
  index_map: ClosedJaxpr
  array_aval: ShapedArray

  def __repr__(self) -> str:
    return f"BlockMapping(block_shape={self.block_shape})"

  @property
  def ref_aval(self) -> AbstractRef:
    shape = tuple(d.block_size for d in self.block_shape if not isinstance(d, Squeezed))
    return AbstractRef(ShapedArray(shape, self.array_aval.dtype))


@dataclasses.dataclass(frozen=True, eq=False)
class GridMapping:
  """The grid, the block mappings of the inputs then the outputs, the scratch buffers'
  types, and the grid dimensions vmap added (hidden from the kernel's ``program_id``)."""
  grid: tuple
  block_mappings: tuple
  num_inputs: int
  scratch_avals: tuple = ()
  vmapped_dims: tuple = ()

  def __repr__(self) -> str:
    return f"GridMapping(grid={self.grid}, block_mappings={self.block_mappings})"


def _index_map(spec, grid: tuple, ndim: int, what: str) -> ClosedJaxpr:
  fn = spec.index_map if isinstance(spec, BlockSpec) else None

  def blocks(*ids):
    if fn is None:
      return [np.int32(0)] * ndim
    out = fn(*ids)
    out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if len(out) != ndim:
      raise ValueError(f"Index map function for {what} must return {ndim} values to match "
                       f"the block shape; it returned {len(out)}.")
    return [convert_element_type(i, _I32) for i in out]
  with grid_env(None, grid):
    return trace_to_jaxpr(blocks, [ShapedArray((), _I32)] * len(grid))


def _mapping(spec, aval, grid: tuple, what: str) -> BlockMapping:
  spec = BlockSpec() if spec is None or spec is no_block_spec else spec
  if not isinstance(spec, BlockSpec):
    raise TypeError(f"the block spec for {what} must be a pl.BlockSpec, got {spec!r}")
  dims = block_dims(spec, aval.shape, what)
  return BlockMapping(dims, _index_map(spec, grid, len(dims), what),
                      ShapedArray(aval.shape, aval.dtype))


def _per_leaf(specs, tree, n: int, what: str) -> list:
  """The block spec of each of ``n`` leaves of ``tree`` (operands or outputs): ``specs`` is
  one spec for all or a tree of them matching a prefix of ``tree``."""
  if specs is no_block_spec:
    return [no_block_spec] * n
  leaf = lambda s: s is None or s is no_block_spec or isinstance(s, BlockSpec)
  out: list = []
  parts = tree_unflatten(tree, list(range(n)))
  _zip_prefix(specs, parts, leaf, out, what)
  return out


def _zip_prefix(spec, part, leaf, out: list, what: str) -> None:
  if leaf(spec):
    out.extend([spec] * len(tree_flatten(part)[0]))
    return
  seqs = (tuple, list)
  same = (isinstance(spec, seqs) and isinstance(part, seqs)) or (
      isinstance(spec, dict) and isinstance(part, dict) and spec.keys() == part.keys())
  if not same or len(spec) != len(part):
    raise ValueError(f"the block specs for {what} ({spec!r}) do not match their structure")
  if isinstance(spec, dict):
    spec, part = [spec[k] for k in sorted(spec)], [part[k] for k in sorted(spec)]
  for s, p in zip(spec, part):
    _zip_prefix(s, p, leaf, out, what)


def pallas_call(kernel, out_shape, *, grid_spec=None, grid=(), in_specs=no_block_spec,
                out_specs=no_block_spec, scratch_shapes=(), input_output_aliases=None,
                debug=False, interpret=False, name=None, compiler_params=None,
                cost_estimate=None, backend=None, metadata=None):
  """Returns a function running ``kernel(*input_refs, *output_refs, *scratch_refs)`` once
  for each point of ``grid`` on the blocks ``in_specs``/``out_specs`` select, returning
  arrays shaped as ``out_shape``.  Only ``interpret=True`` runs (on CPU as in JAX, and on
  every backend in xjax)."""
  if grid_spec is not None:
    if not isinstance(grid_spec, GridSpec):
      raise NotImplementedError(f"{type(grid_spec).__name__} is a TPU/GPU grid spec; xjax's "
                                "interpret mode takes pl.GridSpec.")
    grid, in_specs, out_specs = grid_spec.grid, grid_spec.in_specs, grid_spec.out_specs
    scratch_shapes = grid_spec.scratch_shapes
  grid = (grid,) if isinstance(grid, (int, np.integer)) else tuple(grid)
  for g in grid:
    if not isinstance(g, (int, np.integer)):
      raise NotImplementedError(f"a grid of traced sizes ({grid}) is not supported by xjax's "
                                "interpret mode; give Python ints.")
  grid = tuple(int(g) for g in grid)
  if backend not in (None, "triton", "mosaic_tpu", "mosaic_gpu"):
    raise ValueError(f"Unsupported backend: {backend}")
  out_leaves, out_tree = tree_flatten(out_shape)
  out_avals = tuple(ShapedArray(tuple(o.shape), dtypes.canonicalize_dtype(o.dtype))
                    for o in out_leaves)
  scratch_avals = tuple(ShapedArray(tuple(s.shape), dtypes.canonicalize_dtype(s.dtype))
                        for s in scratch_shapes)
  aliases = tuple(sorted((input_output_aliases or {}).items()))
  fname = name or getattr(kernel, "__name__", "kernel")

  def wrapped(*args):
    leaves, in_tree = tree_flatten(args)
    avals = [get_aval(x) for x in leaves]
    for i, o in aliases:
      if not 0 <= i < len(avals) or not 0 <= o < len(out_avals):
        raise ValueError(f"input_output_aliases {dict(aliases)} names an input or output "
                         "that does not exist.")
      if (avals[i].shape, avals[i].dtype) != (out_avals[o].shape, out_avals[o].dtype):
        raise ValueError(
            f"input_output_aliases contains the mapping '{i}:{o}' referring to input{i} with "
            f"abstract value {avals[i].str_short(short_dtypes=True)} and to output{o} with a different "
            f"abstract value {out_avals[o].str_short(short_dtypes=True)}.")
    mappings = [_mapping(s, a, grid, f"input {k}") for k, (s, a) in enumerate(
        zip(_per_leaf(in_specs, in_tree, len(leaves), "the inputs"), avals))]
    mappings += [_mapping(s, a, grid, f"output {k}") for k, (s, a) in enumerate(
        zip(_per_leaf(out_specs, out_tree, len(out_avals), "the outputs"), out_avals))]
    gm = GridMapping(grid, tuple(mappings), len(leaves), scratch_avals)
    ref_avals = [m.ref_aval for m in mappings] + [AbstractRef(a) for a in scratch_avals]

    def body(*refs):
      ins = tree_unflatten(in_tree, refs[:len(leaves)])
      outs = tree_unflatten(out_tree, refs[len(leaves):len(leaves) + len(out_avals)])
      outs = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
      got = kernel(*ins, *outs, *refs[len(leaves) + len(out_avals):])
      if got is not None:
        raise ValueError(f"The kernel function {fname} of a pallas_call should return None "
                         f"(it writes its outputs through their refs); it returned {got!r}.")
      return []
    with grid_env(None, grid):
      jaxpr = trace_to_jaxpr(body, ref_avals)
    outs = pallas_call_p.bind(
        *leaves, jaxpr=jaxpr, grid_mapping=gm, input_output_aliases=aliases,
        interpret=bool(interpret), debug=debug, name=name, compiler_params=compiler_params,
        cost_estimate=cost_estimate, out_avals=out_avals, metadata=metadata)
    return tree_unflatten(out_tree, outs)
  return wrapped


# ---------------------------------------------------------------------------------------
# Interpret mode

def uninitialized_value(shape, dtype):
  """What an unwritten output or padding holds: NaN, the least integer, or False."""
  dtype = np.dtype(dtype)
  if dtypes.issubdtype(dtype, np.inexact):
    fill = np.nan
  elif dtypes.issubdtype(dtype, np.integer):
    fill = dtypes.iinfo(dtype).min
  elif dtype == np.bool_:
    fill = False
  else:
    raise NotImplementedError(f"Pallas interpret mode has no uninitialized value of {dtype}")
  return full(shape, fill, dtype)


def _padded(x, mapping: BlockMapping):
  """``x`` padded at the end of each blocked dimension to a whole number of blocks."""
  pad = [(0, -n % d.block_size if not isinstance(d, Squeezed) else 0, 0)
         for n, d in zip(x.shape, mapping.block_shape)]
  if not any(p[1] for p in pad):
    return x
  return lax_pad(x, uninitialized_value((), x.dtype), pad)


def _block_window(mapping: BlockMapping, ids):
  """(start indices, slice sizes) of the block at grid indices ``ids``."""
  index_map = mapping.index_map
  blocks = eval_jaxpr(index_map.jaxpr, index_map.consts, *ids)
  starts = [b if isinstance(d, Squeezed) else b * d.block_size
            for b, d in zip(blocks, mapping.block_shape)]
  sizes = [1 if isinstance(d, Squeezed) else d.block_size for d in mapping.block_shape]
  return starts, sizes


def _next_indices(grid: tuple, ids: list) -> list:
  out, carry = [], np.bool_(True)
  for i, n in reversed(list(zip(ids, grid))):
    bumped = select(carry, i + 1, i)
    wrap = bumped == n
    out.append(select(wrap, np.int32(0), bumped))
    carry = carry & wrap
  return out[::-1]


def _interpret(*args, jaxpr, grid_mapping, input_output_aliases, interpret, debug, name,
               compiler_params, cost_estimate, out_avals, metadata):
  gm = grid_mapping
  if debug:
    print(f"\nThe kernel jaxpr of pallas_call {name or ''}:\n{jaxpr}")
  aliased = dict((o, i) for i, o in input_output_aliases)
  outs = [args[aliased[o]] if o in aliased else uninitialized_value(a.shape, a.dtype)
          for o, a in enumerate(out_avals)]
  values = [_padded(x, m) for x, m in zip([*args, *outs], gm.block_mappings)]
  scratch = [uninitialized_value(a.shape, a.dtype) for a in gm.scratch_avals]
  hidden = set(gm.vmapped_dims)
  sizes = tuple(n for d, n in enumerate(gm.grid) if d not in hidden)

  def step(ids, values, scratch):
    windows = [_block_window(m, ids) for m in gm.block_mappings]
    blocks = [reshape(dynamic_slice(x, starts, sz), m.ref_aval.shape)
              for x, m, (starts, sz) in zip(values, gm.block_mappings, windows)]
    local = [i for d, i in enumerate(ids) if d not in hidden]
    with grid_env(local, sizes):
      finals = eval_discharged(jaxpr, [*blocks, *scratch])
    new = [dynamic_update_slice(x, reshape(b, sz), starts)
           for x, b, (starts, sz) in zip(values, finals, windows)]
    return new, finals[len(values):]

  if math.prod(gm.grid) == 1:
    values, scratch = step([np.int32(0)] * len(gm.grid), values, scratch)
  elif math.prod(gm.grid) > 1:
    n, k = len(gm.grid), len(values)

    def body(carry):
      i, ids, rest = carry[0], list(carry[1:n + 1]), list(carry[n + 1:])
      vals, scr = step(ids, rest[:k], rest[k:])
      return (i + 1, *_next_indices(gm.grid, ids), *vals, *scr)
    carry = while_loop(lambda c: c[0] < math.prod(gm.grid), body,
                           (np.int32(0), *[np.int32(0)] * n, *values, *scratch))
    values = list(carry[n + 1:n + 1 + k])
  results = values[gm.num_inputs:]
  return [x if x.shape == a.shape else lax_slice(x, (0,) * x.ndim, a.shape)
          for x, a in zip(results, out_avals)]


def _lower(ctx, *args, interpret, **params):
  if not interpret:
    if clients.default_backend() == "cpu":
      raise ValueError("Only interpret mode is supported on CPU backend.")
    raise NotImplementedError("compiling Pallas kernels with Triton or Mosaic is not "
                              "supported by xjax; pass interpret=True to pallas_call.")
  return _interpret_lowering(ctx, *args, interpret=interpret, **params)


_interpret_lowering = lowering_from(_interpret)


# ---------------------------------------------------------------------------------------
# vmap: the batch becomes a leading grid dimension the kernel does not see

def _batched_map(m: BlockMapping, size: int, batched: bool, grid: tuple) -> BlockMapping:
  old = m.index_map

  def index_map(b, *ids):
    inner = eval_jaxpr(old.jaxpr, old.consts, *ids)
    return [b, *inner] if batched else inner
  closed = trace_to_jaxpr(index_map, [ShapedArray((), _I32)] * (len(grid) + 1))
  if not batched:
    return BlockMapping(m.block_shape, closed, m.array_aval)
  return BlockMapping((Squeezed(), *m.block_shape), closed,
                      ShapedArray((size, *m.array_aval.shape), m.array_aval.dtype))


def _batch(axis, args, dims, *, grid_mapping, input_output_aliases, out_avals, **params):
  gm, size = grid_mapping, axis.size
  aliased_in = {i for i, _ in input_output_aliases}
  args = list(args)
  dims = list(dims)
  for k, (x, d) in enumerate(zip(args, dims)):
    if d is None and k in aliased_in:   # its output is batched: it must be too
      args[k], dims[k] = batching.matchaxis(x, None, 0, size), 0
    elif d is not None:
      args[k], dims[k] = batching.moveaxis(x, d, 0), 0
  batched = [d is not None for d in dims] + [True] * len(out_avals)
  grid = (size, *gm.grid)
  mappings = tuple(_batched_map(m, size, b, gm.grid)
                   for m, b in zip(gm.block_mappings, batched))
  new_gm = GridMapping(grid, mappings, gm.num_inputs, gm.scratch_avals,
                       (0, *(d + 1 for d in gm.vmapped_dims)))
  new_avals = tuple(ShapedArray((size, *a.shape), a.dtype) for a in out_avals)
  outs = pallas_call_p.bind(*args, grid_mapping=new_gm,
                            input_output_aliases=input_output_aliases, out_avals=new_avals,
                            **params)
  return outs, [0] * len(outs)


# ---------------------------------------------------------------------------------------
# JVP: the kernel's JVP, run on the primal and tangent refs together

def _jvp(primals, tangents, *, jaxpr, grid_mapping, input_output_aliases, out_avals,
         **params):
  gm = grid_mapping
  n_in, n_out, n_scr = gm.num_inputs, len(out_avals), len(gm.scratch_avals)
  ref_avals = [v.aval for v in jaxpr.jaxpr.invars]
  n = len(ref_avals)
  inexact = [dtypes.issubdtype(a.dtype, np.inexact) for a in ref_avals]
  tan_at = [k for k in range(n) if inexact[k]]

  def kernel(*refs):
    vals = [ref_get(r, ...) for r in refs[:n]]
    tans = [Zero(ref_avals[k].inner_aval) for k in range(n)]
    for k, r in zip(tan_at, refs[n:]):
      tans[k] = ref_get(r, ...)
    finals, final_tans = jvp_flat(lambda *v: eval_discharged(jaxpr, v), vals, tans)
    for r, v in zip(refs[:n], finals):
      ref_set(r, ..., v)
    for k, r in zip(tan_at, refs[n:]):
      ref_set(r, ..., instantiate(final_tans[k]))
    return []
  new_jaxpr = trace_to_jaxpr(kernel, ref_avals + [ref_avals[k] for k in tan_at])
  ms = gm.block_mappings
  tan_ms = tuple(ms[k] for k in tan_at if k < n_in + n_out)
  tan_in = [k for k in tan_at if k < n_in]
  tan_out = [k - n_in for k in tan_at if n_in <= k < n_in + n_out]
  n_tin = len(tan_in)
  # operands: primal inputs, tangent inputs; outputs: primal outputs, tangent outputs
  mappings = (ms[:n_in] + tan_ms[:n_tin] + ms[n_in:n_in + n_out] + tan_ms[n_tin:])
  scr = tuple(gm.scratch_avals) + tuple(ref_avals[k].inner_aval for k in tan_at
                                        if k >= n_in + n_out)
  new_gm = GridMapping(gm.grid, mappings, n_in + n_tin, scr, gm.vmapped_dims)
  # the kernel takes [ins, outs, scratch, tangents of each]; reorder to the call's order
  order = (list(range(n_in)) + [n + j for j in range(n_tin)]
           + list(range(n_in, n_in + n_out)) + [n + n_tin + j for j in range(len(tan_out))]
           + list(range(n_in + n_out, n)) + list(range(n + n_tin + len(tan_out),
                                                         n + len(tan_at))))
  permuted = _permuted(new_jaxpr, order)
  aliases = tuple(input_output_aliases) + tuple(
      (n_in + tan_in.index(i), n_out + tan_out.index(o))
      for i, o in input_output_aliases if i in tan_in and o in tan_out)
  tan_ins = [instantiate(tangents[k]) for k in tan_in]
  outs = pallas_call_p.bind(
      *primals, *tan_ins, jaxpr=permuted, grid_mapping=new_gm, input_output_aliases=aliases,
      out_avals=tuple(out_avals) + tuple(out_avals[o] for o in tan_out), **params)
  out_tans = [Zero(a) for a in out_avals]
  for j, o in enumerate(tan_out):
    out_tans[o] = outs[n_out + j]
  return outs[:n_out], out_tans


def _permuted(closed: ClosedJaxpr, order: list) -> ClosedJaxpr:
  """``closed`` taking its inputs in ``order`` (position k takes input ``order[k]``)."""
  avals = [closed.jaxpr.invars[k].aval for k in order]

  def call(*refs):
    inner = [None] * len(refs)
    for pos, k in enumerate(order):
      inner[k] = refs[pos]
    return eval_jaxpr(closed.jaxpr, closed.consts, *inner)
  return trace_to_jaxpr(call, avals)


pallas_call_p = Primitive("pallas_call", multiple_results=True)
pallas_call_p.vma_rule = varying.from_bodies
pallas_call_p.abstract_eval = lambda *avals, out_avals, **params: list(out_avals)
pallas_call_p.lowering = _lower
pallas_call_p.batch = _batch
pallas_call_p.jvp = _jvp
