"""``ragged_dot_general``: a dot product whose lhs has one *ragged* dimension cut into
consecutive groups by ``group_sizes``. Three modes, by the kind of the ragged dimension:

1. non-contracting (``ragged_dot``): ``[b,m,k] x [g,b,k,n] -> [b,m,n]``, rows of group i
   multiplied by the i-th rhs slice (rows past the groups give zeros);
2. contracting: ``[b,m,k] x [b,k,n] -> [g,b,m,n]``, one product per group of k;
3. batch: ``[b,m,k] x [b,k,n] -> [b,m,n]``, an ordinary dot_general.

``group_sizes`` has shape ``[g]`` or ``[b..., x..., g]`` (x: the lhs dimensions of the
ragged kind outer to the ragged one). Lowered densely (as XLA's CPU backend has no ragged
dot): the ragged operand is expanded to ``[g, ...]`` with a group mask, then contracted."""
from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import UndefinedPrimal
from xjax._src.primitives.lax import dot, elementwise as ew, shapes
from xjax._src.primitives.lax.cumulative import cumsum
from xjax._src.primitives.lax.reductions import reduce_sum
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
  """The dot dimension numbers ``((lhs_contract, rhs_contract), (lhs_batch,
  rhs_batch))``, the lhs ragged dimension and the rhs group dimension (mode 1 only)."""
  dot_dimension_numbers: tuple
  lhs_ragged_dimensions: tuple
  rhs_group_dimensions: tuple

  def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
    object.__setattr__(self, "dot_dimension_numbers",
                       tuple(tuple(tuple(int(d) for d in s) for s in t)
                             for t in dot_dimension_numbers))
    object.__setattr__(self, "lhs_ragged_dimensions",
                       tuple(int(d) for d in lhs_ragged_dimensions))
    object.__setattr__(self, "rhs_group_dimensions",
                       tuple(int(d) for d in rhs_group_dimensions))


_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])
NONCONTRACTING, CONTRACTING, BATCH = "noncontracting", "contracting", "batch"


def _remaining(n: int, *removed) -> list:
  gone = set().union(*map(set, removed))
  return [i for i in range(n) if i not in gone]


def _mode(ndim: int, dn: RaggedDotDimensionNumbers) -> tuple[str, int]:
  (lc, _), (lb, _) = dn.dot_dimension_numbers
  r = dn.lhs_ragged_dimensions[0]
  if r in lc:
    return CONTRACTING, r
  if r in lb:
    return BATCH, r
  return NONCONTRACTING, r


def _prefix(mode: str, ndim: int, r: int, batch, contract) -> list:
  """The operand dimensions that ``group_sizes`` has before its group dimension."""
  batch, contract = list(batch), list(contract)
  if mode == NONCONTRACTING:
    free = _remaining(ndim, batch, contract)
    return batch + free[:free.index(r)]
  if mode == CONTRACTING:
    return batch + contract[:contract.index(r)]
  return batch[:batch.index(r)]


# ---------------------------------------------------------------------------------------
# Shape rule

def _abstract_eval(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers, precision,
                   preferred_element_type, group_offset, out_sharding):
  dn = ragged_dot_dimension_numbers
  if len(dn.lhs_ragged_dimensions) != 1:
    raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
  _check_in_range(dn.lhs_ragged_dimensions[0], lhs.ndim, "lhs ragged dimension", "lhs")
  mode, r = _mode(lhs.ndim, dn)
  (lc, rc), (lb, rb) = dn.dot_dimension_numbers
  if not dtypes.is_integer(group_sizes.dtype):
    raise TypeError("ragged_dot_general requires that group_sizes.dtype is subtype of "
                    "np.integer.")
  if group_sizes.ndim == 0:
    raise TypeError("expected rank of group_sizes to be >=1.")
  if group_sizes.ndim != 1:
    want = tuple(lhs.shape[i] for i in _prefix(mode, lhs.ndim, r, lb, lc))
    want += (group_sizes.shape[-1],)
    if group_sizes.shape != want:
      raise TypeError(f"expected group_sizes to have shape {want}, got {group_sizes.shape}.")
  groups = group_sizes.shape[-1]
  rg = dn.rhs_group_dimensions
  if mode != NONCONTRACTING and rg:
    raise TypeError("ragged_dot_general requires zero group dimensions in the rhs when lhs "
                    "ragged dimension is contracting or batch.")
  if mode == NONCONTRACTING:
    if len(rg) != 1:
      raise TypeError("ragged_dot_general requires exactly one rhs group dimension when lhs "
                      "ragged dimension is noncontracting.")
    _check_in_range(rg[0], rhs.ndim, "rhs group dimension", "rhs")
    if rg[0] in rb or rg[0] in rc:
      raise TypeError("ragged_dot_general requires rhs group dimension numbers to be "
                      "distinct from contracting and batch dimensions.")
    if rhs.shape[rg[0]] != groups:
      raise TypeError(f"expected rhs group dimension size to be {groups}, got "
                      f"{rhs.shape[rg[0]]}.")
  rhs_rest = rhs.update(shape=tuple(d for i, d in enumerate(rhs.shape) if i not in rg))
  renumber = lambda dims: tuple(d - sum(g < d for g in rg) for d in dims)
  out = dot._dot_abstract_eval(
      lhs, rhs_rest, dimension_numbers=((lc, renumber(rc)), (lb, renumber(rb))),
      precision=precision, preferred_element_type=preferred_element_type)
  return out.update(shape=((groups,) if mode == CONTRACTING else ()) + out.shape,
                    weak_type=False)


def _check_in_range(dim, rank, dim_name, arg_name):
  if not 0 <= dim < rank:
    raise TypeError(f"ragged_dot_general requires {dim_name} numbers to be nonnegative and "
                    f"less than the number of axes of the {arg_name} value, got {dim} for "
                    f"{arg_name} of rank {rank}.")


# ---------------------------------------------------------------------------------------
# The dense computation (the lowering)

def _group_mask(shape, dim: int, gs, prefix: Sequence[int]):
  """A boolean ``[g, *shape]``: slice i is true where dimension ``dim`` is in group i."""
  gs_shape = get_aval(gs).shape
  ends = cumsum(gs, axis=len(gs_shape) - 1)
  starts = ew.sub(ends, gs)
  grid = gs_shape + (shape[dim],)
  pos = shapes.broadcasted_iota(get_aval(gs).dtype, grid, len(gs_shape))
  bounds = lambda b: shapes.broadcast_in_dim(b, grid, tuple(range(len(gs_shape))))
  mask = ew.bitwise_and(ew.le(bounds(starts), pos), ew.lt(pos, bounds(ends)))
  target = [1 + p for p in prefix] + [0, 1 + dim]  # where each mask dimension goes
  mask = shapes.transpose(mask, tuple(int(i) for i in np.argsort(target)))
  return shapes.broadcast_in_dim(mask, (gs_shape[-1],) + tuple(shape), tuple(sorted(target)))


def _expand(x, mask):
  """``x`` as ``[g, *x.shape]``, slice i holding group i's part (zeros elsewhere)."""
  full = get_aval(mask).shape
  xb = shapes.broadcast_in_dim(x, full, tuple(range(1, len(full))))
  return ew.select(mask, xb, shapes.full_like(xb, 0))


def _group_sizes_for(gs, lhs_shape, prefix):
  """``group_sizes`` of shape ``[prefix..., g]`` (a ``[g]`` one is broadcast)."""
  gs_aval = get_aval(gs)
  if gs_aval.ndim != 1 or not prefix:
    return gs
  sizes = tuple(lhs_shape[i] for i in prefix) + gs_aval.shape
  return shapes.broadcast_in_dim(gs, sizes, (len(prefix),))


def _inc(dims) -> list:
  return [d + 1 for d in dims]


def _dense_plan(la, ra, gs, dn):
  """The dense dot_general computing the ragged dot: ``(lhs_mask, rhs_mask, dims)``; an
  operand with a mask is expanded with it (``_expand``) first."""
  mode, r = _mode(la.ndim, dn)
  (lc, rc), (lb, rb) = dn.dot_dimension_numbers
  if mode == BATCH:
    return None, None, dn.dot_dimension_numbers
  prefix = _prefix(mode, la.ndim, r, lb, lc)
  gs = _group_sizes_for(gs, la.shape, prefix)
  lmask = _group_mask(la.shape, r, gs, prefix)
  if mode == NONCONTRACTING:
    dims = ((_inc(lc) + [0], list(rc) + [dn.rhs_group_dimensions[0]]), (_inc(lb), list(rb)))
    return lmask, None, dims
  rr = rc[lc.index(r)]
  rmask = _group_mask(ra.shape, rr, gs, _prefix(mode, ra.ndim, rr, rb, rc))
  return lmask, rmask, ((_inc(lc), _inc(rc)), ([0] + _inc(lb), [0] + _inc(rb)))


def _dense(lhs, rhs, gs, *, ragged_dot_dimension_numbers, precision, preferred_element_type,
           group_offset=None, out_sharding=None):
  lmask, rmask, dims = _dense_plan(get_aval(lhs), get_aval(rhs), gs,
                                   ragged_dot_dimension_numbers)
  el = lhs if lmask is None else _expand(lhs, lmask)
  er = rhs if rmask is None else _expand(rhs, rmask)
  return dot.dot_general_p.bind(el, er, dimension_numbers=dot._canon(dims),
                                precision=precision,
                                preferred_element_type=preferred_element_type,
                                out_sharding=None)


# ---------------------------------------------------------------------------------------
# Derivatives

def _cotangent(of_lhs: bool):
  """The transpose rule giving the cotangent of the lhs (or of the rhs)."""
  def rule(ct, x, y, gs, *, ragged_dot_dimension_numbers, precision, preferred_element_type,
           group_offset, out_sharding):
    _no_offset(group_offset)
    dn = ragged_dot_dimension_numbers
    xa = x.aval if ad.is_undefined(x) else get_aval(x)
    ya = y.aval if ad.is_undefined(y) else get_aval(y)
    kw = dict(precision=precision, preferred_element_type=preferred_element_type)
    if _mode(xa.ndim, dn)[0] == NONCONTRACTING:
      return (_ragged_grad_x(ct, y, gs, dn, xa, ya, kw) if of_lhs
              else _ragged_grad_y(ct, x, gs, dn, xa, ya, kw))
    return _dense_transpose(ct, x, y, gs, dn, xa, ya, kw)[0 if of_lhs else 1]
  return rule


def _ragged_grad_x(ct, y, gs, dn, xa, ya, kw):
  """Mode 1, d/dlhs: a mode-1 ragged dot of the cotangent with the rhs."""
  (xc, yc), (xb, yb) = dn.dot_dimension_numbers
  r, yg = dn.lhs_ragged_dimensions[0], list(dn.rhs_group_dimensions)
  x_kept = _remaining(xa.ndim, xc, xb)
  y_kept = _remaining(ya.ndim, yc, yb, yg)
  nb, nx = len(xb), len(x_kept)
  ans_batch, ans_y = list(range(nb)), list(range(nb + nx, nb + nx + len(y_kept)))
  dims = RaggedDotDimensionNumbers(((ans_y, y_kept), (ans_batch, yb)),
                                   [nb + x_kept.index(r)], yg)
  out = ragged_dot_general_p.bind(ct, y, gs, ragged_dot_dimension_numbers=dims,
                                  group_offset=None, out_sharding=None, **kw)
  xc_by_y = list(np.take(xc, np.argsort(yc)))
  return _arranged(out, list(xb) + x_kept + xc_by_y, xa)


def _ragged_grad_y(ct, x, gs, dn, xa, ya, kw):
  """Mode 1, d/drhs: a mode-2 (contracting) ragged dot of the lhs with the cotangent."""
  (xc, yc), (xb, yb) = dn.dot_dimension_numbers
  r, yg = dn.lhs_ragged_dimensions[0], list(dn.rhs_group_dimensions)
  x_kept = _remaining(xa.ndim, xc, xb)
  nb = len(xb)
  ans_batch, ans_x = list(range(nb)), list(range(nb, nb + len(x_kept)))
  dims = RaggedDotDimensionNumbers(((x_kept, ans_x), (xb, ans_batch)), [r], [])
  out = ragged_dot_general_p.bind(x, ct, gs, ragged_dot_dimension_numbers=dims,
                                  group_offset=None, out_sharding=None, **kw)
  yc_by_x = list(np.take(yc, np.argsort(xc)))
  return _arranged(out, yg + list(yb) + yc_by_x + _remaining(ya.ndim, yc, yb, yg), ya)


def _arranged(out, unsorted_axes, aval):
  out = shapes.transpose(out, tuple(int(i) for i in np.argsort(unsorted_axes)))
  if get_aval(out).dtype != aval.dtype:
    out = ew.convert_element_type(out, aval.dtype)
  return out


def _dense_transpose(ct, x, y, gs, dn, xa, ya, kw):
  """Modes 2 and 3: the transpose of the dense computation (a dot_general of the masked
  expansions, whose transpose sums the masked cotangent over the groups)."""
  lmask, rmask, dims = _dense_plan(xa, ya, gs, dn)

  def operand(v, aval, mask):
    if ad.is_undefined(v):
      return v if mask is None else UndefinedPrimal(aval.update(
          shape=get_aval(mask).shape))
    return v if mask is None else _expand(v, mask)
  cts = dot.dot_general_p.transpose(ct, operand(x, xa, lmask), operand(y, ya, rmask),
                                    dimension_numbers=dot._canon(dims), **kw)

  def fold(c, mask, aval):
    if c is None:
      return None
    if mask is not None:
      c = reduce_sum(ew.select(mask, c, shapes.full_like(c, 0)), (0,))
    return c if get_aval(c).dtype == aval.dtype else ew.convert_element_type(c, aval.dtype)
  return fold(cts[0], lmask, xa), fold(cts[1], rmask, ya)


def _no_offset(group_offset):
  if group_offset is not None:
    raise NotImplementedError("Unimplemented group_offset support.")


# ---------------------------------------------------------------------------------------
# Batching: the mapped axis becomes a leading batch dimension of both operands

def _batch(axis, args, dims, *, ragged_dot_dimension_numbers, **params):
  lhs, rhs, gs = args
  ld, rd, gd = dims
  dn = ragged_dot_dimension_numbers
  size = axis.size
  lhs = batching.matchaxis(lhs, ld, 0, size)
  rhs = batching.matchaxis(rhs, rd, 0, size)
  (lc, rc), (lb, rb) = dn.dot_dimension_numbers
  new = RaggedDotDimensionNumbers(((_inc(lc), _inc(rc)), ([0] + _inc(lb), [0] + _inc(rb))),
                                  _inc(dn.lhs_ragged_dimensions),
                                  _inc(dn.rhs_group_dimensions))
  gs_aval = get_aval(gs)
  if gd is not None or gs_aval.ndim > 1:
    gs = batching.matchaxis(gs, gd, 0, size)
    la = get_aval(lhs)
    mode, r = _mode(la.ndim, new)
    (nlc, _), (nlb, _) = new.dot_dimension_numbers
    prefix = _prefix(mode, la.ndim, r, nlb, nlc)
    if get_aval(gs).ndim == 2 and len(prefix) > 1:  # per-example [g]: over the prefix
      sizes = tuple(la.shape[i] for i in prefix) + (get_aval(gs).shape[-1],)
      gs = shapes.broadcast_in_dim(gs, sizes, (0, len(prefix)))
  out = ragged_dot_general_p.bind(lhs, rhs, gs, ragged_dot_dimension_numbers=new, **params)
  return out, 1 if _mode(get_aval(lhs).ndim, new)[0] == CONTRACTING else 0


ragged_dot_general_p = standard_primitive("ragged_dot_general", _abstract_eval,
                                          lowering_from(_dense))
ad.defbilinear(ragged_dot_general_p, _cotangent(of_lhs=True), _cotangent(of_lhs=False))
ragged_dot_general_p.batch = _batch


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers,
                       precision=None, preferred_element_type=None, group_offset=None,
                       out_sharding=None):
  """The ragged dot product of the module docstring's three modes."""
  if not isinstance(ragged_dot_dimension_numbers, RaggedDotDimensionNumbers):
    raise TypeError("ragged_dot_general expects a lax.RaggedDotDimensionNumbers, got "
                    f"{ragged_dot_dimension_numbers!r}")
  _no_offset(group_offset)
  if out_sharding is not None:
    raise NotImplementedError("ragged_dot_general: out_sharding is not supported by xjax.")
  pet = None if preferred_element_type is None else dtypes.canonicalize_dtype(
      dtypes.dtype(preferred_element_type))
  return ragged_dot_general_p.bind(
      lhs, rhs, group_sizes, ragged_dot_dimension_numbers=ragged_dot_dimension_numbers,
      precision=dot._precision(precision), preferred_element_type=pet, group_offset=None,
      out_sharding=None)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
  """``[m, k] x [g, k, n] -> [m, n]``: rows of group i (``group_sizes[i]`` consecutive
  rows) multiplied by ``rhs[i]``."""
  return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision,
                            preferred_element_type, group_offset, out_sharding)
