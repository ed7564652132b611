"""Products of BCOO arrays, on their arrays: `bcoo_dot_general` (sparse by dense),
`bcoo_dot_general_sampled` (a dense product read at given indices: the transpose of the
former in its sparse operand) and `bcoo_spdot_general` (sparse by sparse), each with its
shape rule, lowering (gathers, a batched `dot_general` and scatters per stored entry),
JVP, transpose and batching rules."""
from __future__ import annotations

import math

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters import ad
from xjax._src.interpreters.ad import Zero
from xjax._src.api.transformations import vjp
from xjax._src.primitives.lax.dot import dot_general
from xjax._src.primitives.lax.primitive_builders import lowering_from, standard_primitive
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.sparse.batched import broadcast_batch, nfold_vmap
from xjax._src.libraries.sparse.bcoo_layout import (_front, _zero_tangent, bcoo_extract_p,
                                                    layout)


def _dims(dimension_numbers):
  (lc, rc), (lb, rb) = dimension_numbers
  return tuple(map(int, lc)), tuple(map(int, rc)), tuple(map(int, lb)), tuple(map(int, rb))


def _check_dimensions(lc, lb, n_batch):
  if any(d >= n_batch for d in lb):
    raise NotImplementedError("bcoo_dot_general batch dimensions must be among the batch "
                              "dimensions in the sparse representation.")
  if any(d < n_batch for d in lc):
    raise NotImplementedError("bcoo_dot_general: contracting over a batch dimension of the "
                              "sparse representation is not supported; use "
                              "bcoo_update_layout to make it a sparse dimension")


def _out_dtype(lhs_dtype, rhs_dtype, preferred_element_type):
  return np.dtype(preferred_element_type) if preferred_element_type is not None else (
      dtypes.result_type(lhs_dtype, rhs_dtype))


# ---------------------------------------------------------------------------------------
# bcoo_dot_general

def _dot_one(data, indices, rhs, *, lc, rc, sparse_shape, dtype):
  """Unbatched sparse (data (nse,)+dense, indices (nse, n_sparse)) by dense `rhs`,
  contracting lhs dimensions `lc` (sparse then dense numbering) with rhs's `rc`."""
  n_sparse = indices.shape[1]
  pairs_sparse = [(k, r) for k, r in zip(lc, rc) if k < n_sparse]
  pairs_dense = [(k - n_sparse, r) for k, r in zip(lc, rc) if k >= n_sparse]
  gathered_rhs = [r for _, r in pairs_sparse]
  rest = [r for r in range(rhs.ndim) if r not in gathered_rhs]
  nse = indices.shape[0]
  if pairs_sparse:
    moved = jnp.moveaxis(rhs, gathered_rhs, list(range(len(gathered_rhs))))
    g = moved.at[tuple(indices[:, k] for k, _ in pairs_sparse)].get(mode="fill", fill_value=0)
  else:
    g = jnp.broadcast_to(rhs, (nse,) + rhs.shape)
  prod = dot_general(
      data.astype(dtype), g.astype(dtype),
      (([1 + k for k, _ in pairs_dense], [1 + rest.index(r) for _, r in pairs_dense]),
       ([0], [0])), preferred_element_type=dtype)
  free = [k for k in range(n_sparse) if k not in {k for k, _ in pairs_sparse}]
  if not free:
    bound = jnp.asarray(sparse_shape, indices.dtype)
    inside = jnp.all((indices >= 0) & (indices < bound), axis=1)
    return jnp.where(inside.reshape((nse,) + (1,) * (prod.ndim - 1)), prod, 0).sum(0)
  out = jnp.zeros(tuple(sparse_shape[k] for k in free) + prod.shape[1:], dtype)
  return out.at[tuple(indices[:, k] for k in free)].add(prod, mode="drop")


def _dot_general_impl(data, indices, rhs, *, dimension_numbers, preferred_element_type,
                      lhs_spinfo):
  lc, rc, lb, rb = _dims(dimension_numbers)
  n_batch, n_sparse, _, _ = layout(data.shape, indices.shape, lhs_spinfo.shape)
  data, indices = broadcast_batch(n_batch, data, indices, shape=lhs_spinfo.shape)
  free_batch = [d for d in range(n_batch) if d not in lb]
  order = list(lb) + free_batch
  data = data.transpose(order + list(range(n_batch, data.ndim)))
  indices = indices.transpose(order + [n_batch, n_batch + 1])
  rest = [r for r in range(rhs.ndim) if r not in rb]
  rhs = rhs.transpose(list(rb) + rest)
  core = lambda d, i, r: _dot_one(
      d, i, r, lc=[k - n_batch for k in lc], rc=[rest.index(r_) for r_ in rc],
      sparse_shape=lhs_spinfo.shape[n_batch:n_batch + n_sparse],
      dtype=_out_dtype(data.dtype, rhs.dtype, preferred_element_type))
  core = nfold_vmap(core, len(free_batch), in_axes=(0, 0, None))
  return nfold_vmap(core, len(lb))(data, indices, rhs)


def _dot_general_abstract_eval(data, indices, rhs, *, dimension_numbers,
                               preferred_element_type, lhs_spinfo):
  lc, rc, lb, rb = _dims(dimension_numbers)
  shape = lhs_spinfo.shape
  n_batch, _, _, _ = layout(data.shape, indices.shape, shape)
  _check_dimensions(lc, lb, n_batch)
  if any(shape[a] != rhs.shape[b] for a, b in zip(lc + lb, rc + rb)) or (
      len(lc) != len(rc) or len(lb) != len(rb)):
    raise TypeError(f"bcoo_dot_general requires contracting and batch dimensions of equal "
                    f"sizes, got lhs shape {shape}, rhs shape {rhs.shape} and "
                    f"dimension_numbers {dimension_numbers}")
  out = ([shape[d] for d in lb] + [s for d, s in enumerate(shape) if d not in lc + lb]
         + [s for d, s in enumerate(rhs.shape) if d not in rc + rb])
  return ShapedArray(tuple(out), _out_dtype(data.dtype, rhs.dtype, preferred_element_type))


def pullback(fn, args, index: int, ct):
  """The cotangent of argument `index` (an UndefinedPrimal) of `fn`, linear in it."""
  args = list(args)
  x = args[index].aval
  args[index] = jnp.zeros(x.shape, x.dtype)
  _, pull = vjp(lambda v: fn(*args[:index], v, *args[index + 1:]), args[index])
  return pull(ct)[0]


def linear_transpose_rule(impl, linear: tuple):
  """The transpose rule of a primitive linear in each operand of `linear` (positions)
  and lowered as `impl`: each undefined operand's cotangent is `impl`'s pullback."""
  def transpose(ct, *args, **params):
    fn = lambda *xs: impl(*xs, **params)
    out = [None] * len(args)
    for k in linear:
      if ad.is_undefined(args[k]):
        out[k] = Zero(args[k].aval) if type(ct) is Zero else pullback(fn, args, k, ct)
    return out
  return transpose


def _dot_general_batch(axis, args, dims, *, dimension_numbers, preferred_element_type,
                       lhs_spinfo):
  lc, rc, lb, rb = _dims(dimension_numbers)
  data, indices = _front(args[:2], dims[:2], axis.size)
  rhs, rhs_dim = args[2], dims[2]
  up = lambda ds: tuple(d + 1 for d in ds)
  spinfo = lhs_spinfo._replace(shape=(axis.size,) + lhs_spinfo.shape)
  if rhs_dim is None:
    dn = ((up(lc), rc), (up(lb), rb))
    out_dim = len(lb)
  else:
    rhs = jnp.moveaxis(rhs, rhs_dim, 0)
    dn = ((up(lc), up(rc)), ((0,) + up(lb), (0,) + up(rb)))
    out_dim = 0
  out = bcoo_dot_general_p.bind(data, indices, rhs, dimension_numbers=dn,
                                preferred_element_type=preferred_element_type,
                                lhs_spinfo=spinfo)
  return out, out_dim


def _bilinear_jvp(prim, linear):
  """The JVP of a primitive linear in each operand of `linear` separately."""
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    acc = None
    for k in linear:
      if type(tangents[k]) is not Zero:
        args = list(primals)
        args[k] = tangents[k]
        term = prim.bind(*args, **params)
        acc = term if acc is None else acc + term
    return out, (_zero_tangent(out) if acc is None else acc)
  return jvp


bcoo_dot_general_p = standard_primitive("bcoo_dot_general", _dot_general_abstract_eval,
                                        lowering_from(_dot_general_impl))
bcoo_dot_general_p.jvp = _bilinear_jvp(bcoo_dot_general_p, (0, 2))
bcoo_dot_general_p.transpose = linear_transpose_rule(_dot_general_impl, (0, 2))
bcoo_dot_general_p.batch = _dot_general_batch


# ---------------------------------------------------------------------------------------
# bcoo_dot_general_sampled

def _sampled_impl(A, B, indices, *, dimension_numbers):
  dense = dot_general(A, B, dimension_numbers)
  return bcoo_extract_p.bind(indices, dense, assume_unique=True)


def _sampled_abstract_eval(A, B, indices, *, dimension_numbers):
  lc, rc, lb, rb = _dims(dimension_numbers)
  out = ([A.shape[d] for d in lb] + [s for d, s in enumerate(A.shape) if d not in lc + lb]
         + [s for d, s in enumerate(B.shape) if d not in rc + rb])
  n_batch, n_sparse = indices.ndim - 2, indices.shape[-1]
  return ShapedArray(tuple(out[:n_batch]) + (indices.shape[-2],)
                     + tuple(out[n_batch + n_sparse:]), dtypes.result_type(A.dtype, B.dtype))


def _sampled_batch(axis, args, dims, *, dimension_numbers):
  A, B, indices = _front(args, dims, axis.size)
  lc, rc, lb, rb = _dims(dimension_numbers)
  up = lambda ds: tuple(d + 1 for d in ds)
  dn = ((up(lc), up(rc)), ((0,) + up(lb), (0,) + up(rb)))
  return bcoo_dot_general_sampled_p.bind(A, B, indices, dimension_numbers=dn), 0


bcoo_dot_general_sampled_p = standard_primitive(
    "bcoo_dot_general_sampled", _sampled_abstract_eval, lowering_from(_sampled_impl))
bcoo_dot_general_sampled_p.jvp = _bilinear_jvp(bcoo_dot_general_sampled_p, (0, 1))
bcoo_dot_general_sampled_p.transpose = linear_transpose_rule(_sampled_impl, (0, 1))
bcoo_dot_general_sampled_p.batch = _sampled_batch


# ---------------------------------------------------------------------------------------
# bcoo_spdot_general

def _spdot_one(ld, li, rd, ri, *, lc, rc, lhs_sparse, rhs_sparse, dtype):
  nl, nr = li.shape[0], ri.shape[0]
  inside = lambda i, s: jnp.all((i >= 0) & (i < jnp.asarray(s, i.dtype)), axis=1)
  match = inside(li, lhs_sparse)[:, None] & inside(ri, rhs_sparse)[None, :]
  for a, b in zip(lc, rc):
    match = match & (li[:, None, a] == ri[None, :, b])
  lfree = [k for k in range(li.shape[1]) if k not in lc]
  rfree = [k for k in range(ri.shape[1]) if k not in rc]
  out_shape = tuple(lhs_sparse[k] for k in lfree) + tuple(rhs_sparse[k] for k in rfree)
  data = jnp.where(match, ld.astype(dtype)[:, None] * rd.astype(dtype)[None, :], 0)
  idx = jnp.concatenate([jnp.broadcast_to(li[:, None, lfree], (nl, nr, len(lfree))),
                         jnp.broadcast_to(ri[None, :, rfree], (nl, nr, len(rfree)))], axis=2)
  idx = jnp.where(match[..., None], idx, jnp.asarray(out_shape, idx.dtype))
  data, idx = data.reshape(nl * nr), idx.reshape(nl * nr, len(out_shape))
  if nl * nr <= math.prod(out_shape):
    return data, idx
  # more products than positions: one entry per position, in row-major order
  dense = jnp.zeros(out_shape, dtype).at[tuple(idx[:, k] for k in range(len(out_shape)))].add(
      data, mode="drop")
  grid = np.indices(out_shape).reshape(len(out_shape), -1).T.astype(idx.dtype)
  return dense.reshape(-1), jnp.asarray(grid)


def _spdot_check(lhs_data, lhs_indices, rhs_data, rhs_indices, lhs_spinfo, rhs_spinfo,
                 dimension_numbers):
  lc, rc, lb, rb = _dims(dimension_numbers)
  ln_batch, _, ln_dense, _ = layout(lhs_data.shape, lhs_indices.shape, lhs_spinfo.shape)
  rn_batch, _, rn_dense, _ = layout(rhs_data.shape, rhs_indices.shape, rhs_spinfo.shape)
  if ln_dense or rn_dense:
    raise NotImplementedError("bcoo_spdot_general: operands with dense dimensions")
  if lb != tuple(range(ln_batch)) or rb != tuple(range(rn_batch)):
    raise NotImplementedError("bcoo_spdot_general: the batch dimensions of the product must "
                              "be exactly the batch dimensions of both operands, in order")
  if any(lhs_spinfo.shape[a] != rhs_spinfo.shape[b] for a, b in zip(lc + lb, rc + rb)):
    raise TypeError(f"bcoo_spdot_general: incompatible shapes {lhs_spinfo.shape} and "
                    f"{rhs_spinfo.shape} for dimension_numbers {dimension_numbers}")
  return lc, rc, ln_batch


def _spdot_impl(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_spinfo, rhs_spinfo,
                dimension_numbers, preferred_element_type):
  lc, rc, n_batch = _spdot_check(lhs_data, lhs_indices, rhs_data, rhs_indices, lhs_spinfo,
                                 rhs_spinfo, dimension_numbers)
  ls = lhs_spinfo.shape[n_batch:]
  rs = rhs_spinfo.shape[n_batch:]
  dtype = _out_dtype(lhs_data.dtype, rhs_data.dtype, preferred_element_type)
  args = broadcast_batch(n_batch, lhs_data, lhs_indices, rhs_data, rhs_indices,
                         shape=lhs_spinfo.shape)
  fn = lambda a, b, c, d: _spdot_one(a, b, c, d, lc=[k - n_batch for k in lc],
                                     rc=[k - n_batch for k in rc], lhs_sparse=ls,
                                     rhs_sparse=rs, dtype=dtype)
  return nfold_vmap(fn, n_batch)(*args)


def _spdot_abstract_eval(lhs_data, lhs_indices, rhs_data, rhs_indices, *, lhs_spinfo,
                         rhs_spinfo, dimension_numbers, preferred_element_type):
  lc, rc, n_batch = _spdot_check(lhs_data, lhs_indices, rhs_data, rhs_indices, lhs_spinfo,
                                 rhs_spinfo, dimension_numbers)
  batch = tuple(lhs_spinfo.shape[:n_batch])
  lfree = [s for d, s in enumerate(lhs_spinfo.shape) if d >= n_batch and d not in lc]
  rfree = [s for d, s in enumerate(rhs_spinfo.shape) if d >= n_batch and d not in rc]
  nse = min(lhs_indices.shape[-2] * rhs_indices.shape[-2], math.prod(lfree + rfree))
  dtype = _out_dtype(lhs_data.dtype, rhs_data.dtype, preferred_element_type)
  return [ShapedArray(batch + (nse,), dtype),
          ShapedArray(batch + (nse, len(lfree) + len(rfree)), lhs_indices.dtype)]


def _spdot_jvp(primals, tangents, **params):
  ld, li, rd, ri = primals
  outs = bcoo_spdot_general_p.bind(*primals, **params)
  acc = None
  for k in (0, 2):
    if type(tangents[k]) is not Zero:
      args = list(primals)
      args[k] = tangents[k]
      term = bcoo_spdot_general_p.bind(*args, **params)[0]
      acc = term if acc is None else acc + term
  return outs, [_zero_tangent(outs[0]) if acc is None else acc, _zero_tangent(outs[1])]


def _spdot_transpose(cts, *args, **params):
  first = lambda *xs: _spdot_impl(*xs, **params)[0]
  return linear_transpose_rule(first, (0, 2))(cts[0], *args)


def _spdot_batch(axis, args, dims, *, lhs_spinfo, rhs_spinfo, dimension_numbers,
                 preferred_element_type):
  args = _front(args, dims, axis.size)
  lc, rc, lb, rb = _dims(dimension_numbers)
  up = lambda ds: tuple(d + 1 for d in ds)
  return bcoo_spdot_general_p.bind(
      *args, lhs_spinfo=lhs_spinfo._replace(shape=(axis.size,) + lhs_spinfo.shape),
      rhs_spinfo=rhs_spinfo._replace(shape=(axis.size,) + rhs_spinfo.shape),
      dimension_numbers=((up(lc), up(rc)), ((0,) + up(lb), (0,) + up(rb))),
      preferred_element_type=preferred_element_type), [0, 0]


bcoo_spdot_general_p = standard_primitive("bcoo_spdot_general", _spdot_abstract_eval,
                                          lowering_from(_spdot_impl), multiple_results=True)
bcoo_spdot_general_p.jvp = _spdot_jvp
bcoo_spdot_general_p.transpose = _spdot_transpose
bcoo_spdot_general_p.batch = _spdot_batch
