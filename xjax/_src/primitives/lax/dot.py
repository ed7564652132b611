"""``dot_general``: contractions with batch dimensions (matmul, einsum, tensordot)."""
from __future__ import annotations

import enum

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.config import config
from xjax._src.backend import clients
from xjax._src.core.avals import ShapedArray, result_sharding, spec_of
from xjax._src.foundations.sharding import (NamedSharding, PartitionSpec, ShardingTypeError,
                                            cotangent_sharding, out_sharding_param,
                                            type_sharding)
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.backend.lowering import i64_array
from xjax._src.primitives.lax import dot_algorithms, shapes
from xjax._src.primitives.lax.dot_algorithms import (DotAlgorithm, DotAlgorithmPreset,  # noqa: F401
                                                     PrecisionLike)
from xjax._src.primitives.lax.primitive_builders import standard_primitive
from xjax._src.primitives.lax.elementwise import convert_element_type


def _dims_list(dims) -> str:
  return "[" + ", ".join(str(int(d)) for d in dims) + "]"


def _dot_abstract_eval(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding=None):
  (lc, rc), (lb, rb) = dimension_numbers
  for name, dims, aval in (("lhs contracting", lc, lhs), ("rhs contracting", rc, rhs),
                           ("lhs batch", lb, lhs), ("rhs batch", rb, rhs)):
    if any(not 0 <= d < aval.ndim for d in dims):
      raise TypeError(f"dot_general requires {name} dimensions to be in range for the "
                      f"operand of shape {aval.shape}, got {tuple(dims)}.")
  if len(lc) != len(rc) or len(lb) != len(rb):
    raise TypeError("dot_general requires equal numbers of lhs and rhs contracting and batch "
                    f"dimensions, got {dimension_numbers}.")
  for a, b in zip(lc, rc):
    if lhs.shape[a] != rhs.shape[b]:
      raise TypeError("dot_general requires contracting dimensions to have the same shape, "
                      f"got {tuple(lhs.shape[d] for d in lc)} and "
                      f"{tuple(rhs.shape[d] for d in rc)}.")
  for a, b in zip(lb, rb):
    if lhs.shape[a] != rhs.shape[b]:
      raise TypeError("dot_general requires lhs batch dimensions and rhs batch dimensions to "
                      f"have the same shape, got {tuple(lhs.shape[d] for d in lb)} and "
                      f"{tuple(rhs.shape[d] for d in rb)}.")
  batch = tuple(lhs.shape[d] for d in lb)
  lfree = tuple(d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb)
  rfree = tuple(d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb)
  dtype = preferred_element_type if preferred_element_type is not None else (
      dtypes.promote_types(lhs.dtype, rhs.dtype))  # mixed operands promote (as JAX)
  weak = lhs.weak_type and rhs.weak_type  # JAX's rule: whatever preferred_element_type is
  return ShapedArray(batch + lfree + rfree, dtype, weak)


_PRECISION = {None: "DEFAULT", "DEFAULT": "DEFAULT", "HIGH": "HIGH", "HIGHEST": "HIGHEST",
              "default": "DEFAULT", "high": "HIGH", "highest": "HIGHEST", "bfloat16": "DEFAULT",
              "tensorfloat32": "HIGH", "float32": "HIGHEST", "fastest": "DEFAULT"}


def _dot_lowering(ctx, lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                  out_sharding=None, permutation=None):
  (lc, rc), (lb, rb) = dimension_numbers
  la, ra = ctx.avals_in
  out = final = ctx.avals_out[0]
  lhs_type = rhs_type = out.dtype
  algorithm = None
  if dot_algorithms.is_algorithm(precision):  # operands in the algorithm's types
    lhs_type, rhs_type, acc = dot_algorithms.compute_types(
        precision, la.dtype, ra.dtype, out.dtype, clients.default_backend())
    out = out.update(dtype=acc)
    algorithm = dot_algorithms.algorithm_attr(precision, lhs_type, rhs_type)
  elif out.dtype.kind != "c" and "c" in (la.dtype.kind, ra.dtype.kind):
    # complex operands, a real result type: the complex product's real part (as JAX)
    lhs_type = rhs_type = np.result_type(la.dtype, ra.dtype)
    out = out.update(dtype=lhs_type)
  lhs, la = _convert(ctx, lhs, la, lhs_type)
  rhs, ra = _convert(ctx, rhs, ra, rhs_type)
  if _is_outer_product(la, ra, lc, out):
    lhs, la, lb = _drop_dims(ctx, lhs, la, lc, lb)
    rhs, ra, rb = _drop_dims(ctx, rhs, ra, rc, rb)
    result = _outer_product_lowering(ctx, lhs, rhs, la, ra, lb, rb, out, permutation)
  else:
    assert permutation is None, "only an outer product is lowered transposed"
    attr = (f"#stablehlo.dot<lhs_batching_dimensions = {_dims_list(lb)}, "
            f"rhs_batching_dimensions = {_dims_list(rb)}, "
            f"lhs_contracting_dimensions = {_dims_list(lc)}, "
            f"rhs_contracting_dimensions = {_dims_list(rc)}>")
    p = precision if not isinstance(precision, tuple) else precision[0]
    p = _PRECISION.get(str(p).split(".")[-1] if p is not None else None, "DEFAULT")
    attrs = {"dot_dimension_numbers": attr,
             "precision_config": f"[#stablehlo<precision {p}>, #stablehlo<precision {p}>]"}
    if algorithm is not None:
      attrs["algorithm"] = algorithm
    result = ctx.op("stablehlo.dot_general", [lhs, rhs], out, attrs, in_avals=[la, ra])
  return _convert(ctx, result, out, final.dtype)[0]


def _is_outer_product(la, ra, lc, out) -> bool:
  """Whether a dot_general is lowered as a (batched) outer product: it contracts only
  size-1 dimensions, so each element is one product."""
  return all(la.shape[d] == 1 for d in lc) and out.dtype != np.bool_ and la.dtype == ra.dtype


def _dot_lowering_transposed(ctx, lhs, rhs, *, permutation, dimension_numbers, precision,
                             preferred_element_type, out_sharding=None):
  """An outer product's result made directly in a transposed layout (the broadcasts place
  the operands' dimensions there): the per-example weight gradients of ``vmap(grad)``."""
  la, ra = ctx.avals_in
  if (dot_algorithms.is_algorithm(precision) or out_sharding is not None
      or "c" in (la.dtype.kind, ra.dtype.kind)
      or not _is_outer_product(la, ra, dimension_numbers[0][0], ctx.avals_out[0])):
    return None
  return _dot_lowering(ctx, lhs, rhs, dimension_numbers=dimension_numbers,
                       precision=precision, preferred_element_type=preferred_element_type,
                       permutation=tuple(permutation))


def _convert(ctx, x, aval, dtype):
  """``x`` (of ``aval``) converted to ``dtype``, and its new aval."""
  if aval.dtype == dtype:
    return x, aval
  if aval.dtype.kind == "c" and np.dtype(dtype).kind != "c":  # the real part, converted
    real = aval.update(dtype=dtypes.finfo(aval.dtype).dtype)
    x, aval = ctx.op("stablehlo.real", [x], real, in_avals=[aval]), real
    if aval.dtype == dtype:
      return x, aval
  new = aval.update(dtype=dtype)
  return ctx.op("stablehlo.convert", [x], new, in_avals=[aval]), new


def _drop_dims(ctx, x, aval, drop, batch):
  """Reshapes away size-1 contracting dims; renumbers the batch dims."""
  if not drop:
    return x, aval, batch
  keep = [i for i in range(aval.ndim) if i not in drop]
  new = ShapedArray(tuple(aval.shape[i] for i in keep), aval.dtype)
  x = ctx.op("stablehlo.reshape", [x], new, in_avals=[aval])
  return x, new, [keep.index(b) for b in batch]


def _outer_product_lowering(ctx, lhs, rhs, la, ra, lb, rb, out, permutation=None):
  """A dot_general without contraction (or contracting only size-1 dims) is an outer
  product, possibly batched: emitted as a broadcast multiply, since XLA's CPU dot emitter
  is several times slower for it (vmap of grad makes these from every matmul). With a
  ``permutation``, ``out`` is the product transposed by it."""
  nb = len(lb)
  lfree = [i for i in range(la.ndim) if i not in lb]
  rfree = [i for i in range(ra.ndim) if i not in rb]
  where = (list(range(out.ndim)) if permutation is None  # product dim -> result dim
           else [permutation.index(d) for d in range(out.ndim)])

  def place(x, aval, batch, free, first_free):
    target = dict(zip(batch, where[:nb]))
    target.update(zip(free, where[first_free:first_free + len(free)]))
    perm = sorted(range(aval.ndim), key=target.__getitem__)
    if perm != list(range(aval.ndim)):
      x = ctx.op("stablehlo.transpose", [x], aval.update(shape=tuple(
          aval.shape[p] for p in perm)), {"permutation": i64_array(perm)}, in_avals=[aval])
      aval = aval.update(shape=tuple(aval.shape[p] for p in perm))
    return ctx.op("stablehlo.broadcast_in_dim", [x], out,
                  {"broadcast_dimensions": i64_array([target[p] for p in perm])},
                  in_avals=[aval])

  a = place(lhs, la, lb, lfree, nb)
  b = place(rhs, ra, rb, rfree, nb + len(lfree))
  return ctx.op("stablehlo.multiply", [a, b], out)


def _ranges_like(*xs):
  start = 0
  for x in xs:
    yield tuple(range(start, start + len(x)))
    start += len(x)


def _remaining(original, *removed_lists):
  removed = set().union(*[set(r) for r in removed_lists])
  return [i for i in original if i not in removed]


def _dot_transpose_lhs(ct, x, y, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding=None, swap_ans=False):
  """The cotangent of ``x``: ``ct`` contracted with ``y`` (with the product's
  ``preferred_element_type``, as JAX), arranged in x's dimension order and cast to x's
  dtype."""
  if preferred_element_type is None and get_aval(y).dtype != get_aval(ct).dtype:
    y = convert_element_type(y, get_aval(ct).dtype)
  (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
  x_aval = x.aval
  x_kept = _remaining(range(x_aval.ndim), x_contract, x_batch)
  y_kept = _remaining(range(get_aval(y).ndim), y_contract, y_batch)
  if swap_ans:
    ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
  else:
    ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
  dims = ((ans_y, y_kept), (ans_batch, y_batch))
  x_contract_sorted_by_y = list(np.take(x_contract, np.argsort(y_contract)))
  out_axes = np.argsort(list(x_batch) + x_kept + x_contract_sorted_by_y)
  out = dot_general_p.bind(ct, y, dimension_numbers=_canon(dims), precision=precision,
                           preferred_element_type=preferred_element_type,
                           out_sharding=_presharded(x_aval, out_axes))
  out = shapes.transpose(out, tuple(int(a) for a in out_axes))
  if get_aval(out).dtype != x_aval.dtype:
    out = convert_element_type(out, x_aval.dtype, x_aval.weak_type)
  return out


def _presharded(x_aval, out_axes):
  """The type sharding that, once transposed by ``out_axes``, is ``x_aval``'s (None when it
  is unsharded outside a mesh): the cotangent takes its primal's sharding, as in JAX."""
  sharding = cotangent_sharding(x_aval)
  if sharding is None:
    return None
  spec = [None] * x_aval.ndim
  for i, a in enumerate(out_axes):
    spec[int(a)] = sharding.spec[i]
  return NamedSharding(sharding.mesh, PartitionSpec(*spec))


def _dot_transpose_rhs(ct, x, y, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding=None):
  (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
  swapped = ((y_contract, x_contract), (y_batch, x_batch))
  return _dot_transpose_lhs(ct, y, x, dimension_numbers=swapped, precision=precision,
                            preferred_element_type=preferred_element_type, swap_ans=True)


def _canon(dims):
  (a, b), (c, d) = dims
  return ((tuple(int(i) for i in a), tuple(int(i) for i in b)),
          (tuple(int(i) for i in c), tuple(int(i) for i in d)))


def _dot_batch(axis, args, dims, *, dimension_numbers, precision, preferred_element_type,
               out_sharding=None):
  (lhs, rhs), (ld, rd) = args, dims
  (lc, rc), (lb, rb) = dimension_numbers
  if ld is not None and rd is not None:
    lhs = batching.moveaxis(lhs, ld, 0)
    rhs = batching.moveaxis(rhs, rd, 0)
    shift = lambda ds: tuple(d + 1 for d in ds)
    dn = ((shift(lc), shift(rc)), ((0,) + shift(lb), (0,) + shift(rb)))
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                             preferred_element_type=preferred_element_type, out_sharding=None)
    return out, 0
  if ld is not None:
    # The batch dim becomes a free lhs dim; it lands after the batch dims in the output.
    bump = lambda ds: tuple(d + (d >= ld) for d in ds)
    dn = ((bump(lc), rc), (bump(lb), rb))
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                             preferred_element_type=preferred_element_type, out_sharding=None)
    free_before = sum(1 for i in range(ld) if i not in bump(lc) and i not in bump(lb))
    return out, len(lb) + free_before
  bump = lambda ds: tuple(d + (d >= rd) for d in ds)
  dn = ((lc, bump(rc)), (lb, bump(rb)))
  out = dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                           preferred_element_type=preferred_element_type, out_sharding=None)
  lhs_free = get_aval(lhs).ndim - len(lc) - len(lb)
  free_before = sum(1 for i in range(rd) if i not in bump(rc) and i not in bump(rb))
  return out, len(lb) + lhs_free + free_before


dot_general_p = standard_primitive("dot_general", _dot_abstract_eval, _dot_lowering)
dot_general_p.lower_transposed = _dot_lowering_transposed
dot_general_p.hidden_params = frozenset({"out_sharding"})


def _dot_sharding(lhs, rhs, *, dimension_numbers, out_sharding=None, **params):
  """JAX's rule: batch dimensions (the lhs's split), then the free ones, keep their
  operands' splits; batch or contracting dimensions split differently on the two sides are
  an error, and contracting ones split on both make the result's ambiguous
  (``out_sharding`` says it)."""
  if out_sharding is not None:
    return type_sharding(out_sharding, lhs.ndim + rhs.ndim - 2 * len(dimension_numbers[0][0])
                         - len(dimension_numbers[1][0]))
  (lc, rc), (lb, rb) = dimension_numbers
  ls, rs = spec_of(lhs), spec_of(rhs)
  lcs, rcs = tuple(ls[d] for d in lc), tuple(rs[d] for d in rc)
  for what, l_spec, r_spec in (
      ("lhs batch dimensions and rhs batch dimensions to have the consistent sharding",
       tuple(ls[d] for d in lb), tuple(rs[d] for d in rb)),
      ("contracting dimensions to have consistent sharding", lcs, rcs)):
    if any(a is not None and b is not None and a != b for a, b in zip(l_spec, r_spec)):
      raise ShardingTypeError(f"dot_general requires {what}, got {l_spec} and {r_spec}.")
  if any(a is not None and b is not None for a, b in zip(lcs, rcs)):
    raise ShardingTypeError(
        "Contracting dimensions are sharded and it is ambiguous how the output should be "
        "sharded. Please specify the output sharding via the `out_sharding` parameter. Got "
        f"lhs_contracting_spec={lcs} and rhs_contracting_spec={rcs}")
  batch = [ls[a] for a in lb]
  parts = (batch + [p for d, p in enumerate(ls) if d not in lc and d not in lb]
           + [p for d, p in enumerate(rs) if d not in rc and d not in rb])
  out = _dot_abstract_eval(lhs, rhs, dimension_numbers=dimension_numbers, precision=None,
                           preferred_element_type=None)
  return result_sharding("dot_general", [lhs, rhs], out.shape, out.dtype, parts)


dot_general_p.sharding_rule = _dot_sharding


def _dot_pp_params(params):
  """As JAX prints them: dimension numbers as lists, e.g. ``(([1], [0]), ([], []))``,
  precisions as a pair of ``Precision``s or the algorithm."""
  (lc, rc), (lb, rb) = params["dimension_numbers"]
  dn = f"(({list(lc)}, {list(rc)}), ({list(lb)}, {list(rb)}))"
  shown = {k: v for k, v in params.items() if v is not None}  # None params are not printed
  if "precision" in shown:
    shown["precision"] = precision_repr(shown["precision"])
  return sorted({**shown, "dimension_numbers": dn}.items())


def precision_repr(p) -> str:
  """A ``precision`` parameter as JAX prints it: a pair of ``Precision``s, an algorithm,
  or None."""
  if p is None or dot_algorithms.is_algorithm(p):
    return str(p)
  pair = p if isinstance(p, tuple) else (p, p)
  return "(" + ", ".join(f"Precision.{Precision(q)}" for q in pair) + ")"


dot_general_p.pp_params = _dot_pp_params
ad.defbilinear(dot_general_p, _dot_transpose_lhs, _dot_transpose_rhs)
dot_general_p.batch = _dot_batch


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
  """General contraction: ``dimension_numbers = ((lhs_contract, rhs_contract),
  (lhs_batch, rhs_batch))``; output dims are batch, lhs free, rhs free."""
  dn = _canon(dimension_numbers)
  pet = None if preferred_element_type is None else (  # None stays None, as JAX prints it
      dtypes.check_user_dtype_supported(preferred_element_type, "dot"))
  return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=_precision(precision),
                            preferred_element_type=pet,
                            out_sharding=out_sharding_param(out_sharding))


def _precision(precision):
  """The ``precision`` parameter: None, a Precision name or a pair of them, or a dot
  algorithm (``DotAlgorithm``, ``DotAlgorithmPreset`` or a preset's name). None takes
  ``jax_default_matmul_precision`` (``jax.default_matmul_precision``) when that is set."""
  if precision is None:
    precision = config._read("jax_default_matmul_precision")
    if precision is None:
      return None
  if dot_algorithms.is_algorithm(precision):
    return precision
  if isinstance(precision, Precision):
    return str(precision)
  if isinstance(precision, str):
    if precision in _PRECISION_STRINGS:
      return precision
    if precision in DotAlgorithmPreset.__members__:
      return DotAlgorithmPreset[precision]
  elif isinstance(precision, (tuple, list)) and len(precision) == 2:
    if all(isinstance(p, Precision) for p in precision):
      return tuple(str(p) for p in precision)
    if all(isinstance(p, str) for p in precision):
      bad = [p for p in precision if p not in _PRECISION_STRINGS]
      if not bad:
        return tuple(str(Precision(p)) for p in precision)
      precision = bad[0]
  raise ValueError(
      "Precision argument must be one of:\n- None,\n"
      f"- a string in {list(_PRECISION_STRINGS)},\n"
      "- a lax.Precision value,\n- a tuple of two lax.Precision values or strings,\n"
      "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
      f"- a lax.DotAlgorithm value;\nbut got {precision}.")


_PRECISION_STRINGS = ("highest", "float32", "high", "bfloat16_3x", "tensorfloat32", "default",
                      "bfloat16", "fastest")


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None,
        out_sharding=None):
  """``dot_general`` with ``dimension_numbers`` defaulting to the vector/matrix product of
  rank-1 and rank-2 operands (the last axis of ``lhs`` against the first of ``rhs``)."""
  if dimension_numbers is None:
    ls, rs = np.shape(lhs), np.shape(rhs)
    if not (1 <= len(ls) <= 2 and 1 <= len(rs) <= 2 and ls[-1] == rs[0]):
      raise ValueError("jax.lax.dot: dimension_numbers must be specified when not performing "
                       "simple un-batched matrix-matrix, matrix-vector, or vector-vector "
                       f"products; got lhs_shape={ls} rhs_shape={rs}")
    dimension_numbers = (((len(ls) - 1,), (0,)), ((), ()))
  return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                     out_sharding)


DotDimensionNumbers = tuple  # ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))


class Precision(enum.Enum):
  """Matmul/convolution precision: DEFAULT (fastest), HIGH, HIGHEST (most accurate)."""
  DEFAULT = 0
  HIGH = 1
  HIGHEST = 2

  @classmethod
  def _missing_(cls, value):
    names = {"default": cls.DEFAULT, "fastest": cls.DEFAULT, "bfloat16": cls.DEFAULT,
             "high": cls.HIGH, "bfloat16_3x": cls.HIGH, "tensorfloat32": cls.HIGH,
             "highest": cls.HIGHEST, "float32": cls.HIGHEST}
    return names.get(value.lower()) if isinstance(value, str) else None

  def __str__(self) -> str:
    return self.name

  def __repr__(self) -> str:
    return f"Precision.{self.name}"


def batch_matmul(lhs, rhs, precision=None):
  """Batched matrix product over all leading dimensions of equal-rank operands."""
  la, ra = get_aval(lhs), get_aval(rhs)
  if min(la.ndim, ra.ndim) < 2:
    raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {la.ndim}, "
                     f"{ra.ndim}")
  if la.ndim != ra.ndim:
    raise ValueError(f"Arguments to batch_matmul must have same ndim, got {la.ndim}, "
                     f"{ra.ndim}")
  batch = tuple(range(la.ndim - 2))
  dn = (((la.ndim - 1,), (ra.ndim - 2,)), (batch, batch))
  return dot_general(lhs, rhs, dn, precision=precision)
