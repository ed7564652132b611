"""Shape primitives: broadcast_in_dim, reshape, transpose, squeeze, rev, slice,
concatenate and split (its transpose), pad, iota, dynamic_slice, dynamic_update_slice; and
full / expand_dims."""
from __future__ import annotations

import builtins
import math
import operator
from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.execution.array import Array
from xjax._src.execution.eager_primitives import apply_primitive
from xjax._src.backend.lowering import i64_array
from xjax._src.core.trace import Tracer
from xjax._src.core.avals import ShapedArray, tangent_aval, vma_of
from xjax._src.core.concrete import canonicalize_shape, dim_or_int
from xjax._src.core.dim_expr import is_symbolic_dim
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters import array_builders as build
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.operand_checks import check_same_dtypes
from xjax._src.primitives.lax.primitive_builders import (lowering_from, standard_primitive,
                                                         stored_dims)
from xjax._src.foundations.sharding import (NamedSharding, PartitionSpec, ShardingTypeError,
                                            type_sharding, typed_sharding)
from xjax._src.core.avals import mesh_of, spec_of


def _type_sharding(avals, parts):
  """The type sharding splitting each dimension as ``parts`` says (None: unsharded)."""
  if not builtins.any(p is not None for p in parts):
    return None
  return NamedSharding(mesh_of(avals), PartitionSpec(*parts))


def _axes_size(avals, part) -> int:
  mesh = mesh_of(avals)
  names = (part,) if isinstance(part, str) else part
  return int(np.prod([mesh.shape[n] for n in names]))


# Extended dtypes (PRNG keys) are stored with trailing dimensions; the physical lowerings
# below extend dimension-naming attributes over them.

def _with_stored_dims(dims: Sequence[int], aval: ShapedArray) -> tuple:
  """``dims`` (a permutation or list of result dims) followed by the stored trailing dims."""
  return (*dims, *range(aval.ndim, aval.ndim + len(stored_dims(aval))))


def _zero_indices(ctx, idxs: Sequence[str], aval: ShapedArray) -> list[str]:
  """Start indices for the stored trailing dims of a dynamic slice (zeros)."""
  dt = ctx.avals_in[-1].dtype if idxs else np.dtype(np.int32)
  zero = ctx.constant(np.zeros((), dt), ShapedArray((), dt))
  return [*idxs, *[zero] * len(stored_dims(aval))]


def _shape_tuple(shape, name: str) -> tuple:
  out = canonicalize_shape(shape)
  if any(d < 0 for d in out):
    raise TypeError(f"{name}: shape dimensions must be non-negative, got {out}")
  if any(type(d) is int and d > _MAX_DIM for d in out):
    raise TypeError(f"{name}: shape dimensions must fit in a 64-bit signed integer "
                    f"(at most 2**63 - 1), got {out}")
  return out


_MAX_DIM = 2**63 - 1


def operator_index(d):
  import operator
  return operator.index(d)


# ---------------------------------------------------------------------------------------
# broadcast_in_dim

def _broadcast_in_dim_abstract_eval(x, *, shape, broadcast_dimensions, sharding=None):
  if len(broadcast_dimensions) != x.ndim:
    raise TypeError("broadcast_in_dim broadcast_dimensions must have length equal to operand "
                    f"ndim; got broadcast_dimensions {broadcast_dimensions} for operand ndim "
                    f"{x.ndim}.")
  for i, d in enumerate(broadcast_dimensions):
    if not 0 <= d < len(shape):
      raise TypeError(f"broadcast_in_dim broadcast_dimensions must be in range for shape "
                      f"{shape}, got {broadcast_dimensions}")
    if x.shape[i] != 1 and x.shape[i] != shape[d]:
      raise TypeError(f"broadcast_in_dim operand dimension sizes must either be 1, or be "
                      f"equal to their corresponding dimensions in the target broadcast "
                      f"shape; got operand of shape {x.shape}, target broadcast shape {shape}, "
                      f"broadcast_dimensions {broadcast_dimensions} ")
  if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
    raise TypeError("broadcast_in_dim broadcast_dimensions must be strictly increasing; got "
                    f"broadcast_dimensions {broadcast_dimensions}")
  return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions, sharding=None):
  # reductions builds on shapes: a transpose sums the cotangent with it
  from xjax._src.primitives.lax.reductions import reduce_sum
  if type(ct) is Zero:
    return [Zero(x.aval)]
  sum_dims = tuple(i for i in range(len(shape)) if i not in broadcast_dimensions)
  unit_dims = tuple(i for i, d in enumerate(broadcast_dimensions)
                    if x.aval.shape[i] == 1 and shape[d] != 1)
  out = reduce_sum(ct, sum_dims + tuple(broadcast_dimensions[i] for i in unit_dims))
  if unit_dims:
    out = reshape(out, x.aval.shape)
  return [out]


def _broadcast_in_dim_batch(axis, args, dims, *, shape, broadcast_dimensions, sharding=None):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  new_shape = (axis.size,) + tuple(shape)
  new_dims = (0,) + tuple(np.add(1, broadcast_dimensions))  # (NumPy ints, as JAX's)
  if sharding is not None:  # the batch dimension split as the operand's
    sharding = typed_sharding(sharding.mesh, (spec_of(get_aval(x))[0], *sharding.spec))
  return broadcast_in_dim(x, new_shape, new_dims, out_sharding=sharding), 0


broadcast_in_dim_p = standard_primitive(
    "broadcast_in_dim", _broadcast_in_dim_abstract_eval,
    lambda ctx, x, *, shape, broadcast_dimensions, sharding=None: ctx.op(
        "stablehlo.broadcast_in_dim", [x], ctx.avals_out[0],
        {"broadcast_dimensions": i64_array(broadcast_dimensions)}))
broadcast_in_dim_p.physical_lowering = (
    lambda ctx, x, *, shape, broadcast_dimensions, sharding=None: broadcast_in_dim_p.lowering(
        ctx, x, shape=shape, broadcast_dimensions=(
            *broadcast_dimensions, *_with_stored_dims((), ctx.avals_out[0]))))
broadcast_in_dim_p.hidden_params = frozenset({"shape", "sharding"})


def _broadcast_in_dim_host(avals, out_avals, *, shape, broadcast_dimensions, sharding=None):
  kept = [1] * len(shape)
  for size, d in zip(avals[0].shape, broadcast_dimensions):
    kept[d] = size

  def kernel(x):  # (np.broadcast_to makes a view, slowly: a copy is quicker and contiguous)
    out = np.empty(shape, x.dtype)
    out[...] = x.reshape(kept)
    return out
  return kernel


broadcast_in_dim_p.host_kernel = _broadcast_in_dim_host
broadcast_in_dim_p.pp_params = lambda p: [(k, v) for k, v in sorted(p.items()) if v != ()]
ad.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)
broadcast_in_dim_p.batch = _broadcast_in_dim_batch


def _broadcast_in_dim_sharding(x, *, shape, broadcast_dimensions, sharding=None):
  """Each operand dimension keeps its split where it is not broadcast; new ones are whole."""
  if sharding is not None:
    return sharding
  parts = [None] * len(shape)
  for p, d, n in zip(spec_of(x), broadcast_dimensions, x.shape):
    if n == shape[d]:
      parts[d] = p
  return _type_sharding([x], parts)


broadcast_in_dim_p.sharding_rule = _broadcast_in_dim_sharding


def broadcast_in_dim(operand, shape: Sequence[int], broadcast_dimensions: Sequence[int],
                     out_sharding=None):
  shape = _shape_tuple(shape, "broadcast_in_dim")
  # (NumPy integers stay so, as in JAX, whose jaxprs print them as given)
  broadcast_dimensions = tuple(d if isinstance(d, np.integer) else int(d)
                               for d in broadcast_dimensions)
  aval = get_aval(operand)
  if aval.shape == shape and broadcast_dimensions == tuple(range(len(shape))) and not \
      isinstance(operand, (int, float, bool, complex)) and (
          out_sharding is None or aval._sharding == type_sharding(out_sharding, len(shape))):
    return operand
  if out_sharding is not None:  # the result's type sharding, a parameter as in JAX's jaxprs
    sharding = type_sharding(out_sharding, len(shape))
    if sharding is not None:
      return broadcast_in_dim_p.bind(operand, shape=shape,
                                     broadcast_dimensions=broadcast_dimensions,
                                     sharding=sharding)
  return broadcast_in_dim_p.bind(operand, shape=shape,
                                 broadcast_dimensions=broadcast_dimensions)


def broadcast(operand, sizes: Sequence[int], out_sharding=None):
  """Adds leading dimensions ``sizes``."""
  aval = get_aval(operand)
  sizes = _shape_tuple(sizes, "broadcast")
  dims = tuple(range(len(sizes), len(sizes) + aval.ndim))
  return broadcast_in_dim(operand, sizes + aval.shape, dims, out_sharding=out_sharding)


def full(shape, fill_value, dtype=None, *, sharding=None):
  """An array of ``shape`` filled with ``fill_value``."""
  # elementwise builds on shapes (broadcasting): the fill value is converted with it
  from xjax._src.primitives.lax.elementwise import convert_element_type
  shape = _shape_tuple(shape, "full")
  if np.shape(fill_value) if not hasattr(fill_value, "aval") else get_aval(fill_value).shape:
    raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                    f"{np.shape(fill_value)}.")
  if dtype is None:
    weak = dtypes.is_weakly_typed(fill_value)
    scalar_dtype = dtypes.python_scalar_dtypes.get(type(fill_value))
    # (a Python int out of range wraps in the conversion, as in JAX)
    dtype = (get_aval(fill_value).dtype if scalar_dtype is None
             else dtypes.canonicalize_dtype(scalar_dtype))
  else:
    weak = False
    dtype = dtypes.check_user_dtype_supported(dtype, "full")
    if dtypes.is_extended(dtype):  # e.g. zero PRNG keys for a scan's stacked outputs
      return dtype.full(shape, fill_value)
  value = convert_element_type(fill_value, dtype, weak)
  return (broadcast_in_dim(value, shape, (), out_sharding=sharding) if shape
          else _own(value, fill_value))


def _own(value, fill_value):
  """A 0-d ``full`` of its own: the 0-d Array of a host scalar is shared (array.scalar_array),
  so a caller donating or deleting it must not affect other holders (JAX's are distinct)."""
  return value.__copy__() if value is not fill_value and type(value) is Array else value


# ---------------------------------------------------------------------------------------
# reshape

def _reshape_abstract_eval(x, *, new_sizes, dimensions, sharding):
  if math.prod(new_sizes) != x.size:
    raise ValueError(f"reshape total size must be unchanged, got new_sizes {new_sizes} (of "
                    f"total size {math.prod(new_sizes)}) for shape "
                    f"{x.shape} (of total size {x.size}).")
  return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _reshape_lowering(ctx, x, *, new_sizes, dimensions, sharding):
  if dimensions is not None:
    aval = ctx.avals_in[0]
    t = ShapedArray(tuple(aval.shape[d] for d in dimensions), aval.dtype)
    x = ctx.op("stablehlo.transpose", [x], t, {"permutation": i64_array(dimensions)})
    return ctx.op("stablehlo.reshape", [x], ctx.avals_out[0], in_avals=[t])
  return ctx.op("stablehlo.reshape", [x], ctx.avals_out[0])


def _reshape_transpose(ct, x, *, new_sizes, dimensions, sharding):
  if type(ct) is Zero:
    return [Zero(x.aval)]
  if dimensions is None:
    return [reshape(ct, x.aval.shape)]
  perm_shape = tuple(x.aval.shape[d] for d in dimensions)
  return [transpose(reshape(ct, perm_shape), tuple(np.argsort(dimensions)))]


def _reshape_batch(axis, args, dims, *, new_sizes, dimensions, sharding):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  if dimensions is not None:
    x = transpose(x, (0,) + tuple(p + 1 for p in dimensions))
  return reshape(x, (axis.size,) + tuple(new_sizes)), 0


reshape_p = standard_primitive("reshape", _reshape_abstract_eval, _reshape_lowering)
reshape_p.host_kernel = lambda avals, out_avals, *, new_sizes, dimensions, sharding: (
    (lambda x: x.reshape(new_sizes)) if dimensions is None else None)
ad.deflinear(reshape_p, _reshape_transpose)
reshape_p.batch = _reshape_batch


def _reshape_sharding(x, *, new_sizes, dimensions, sharding):
  """As JAX: size-1 dimensions come and go unsharded; otherwise the reshape may split one
  dimension (its axes go to the pieces in order, each piece taking axes until they divide
  it) or merge one group of dimensions (their axes in order: a sharded dimension may not
  follow an unsharded one in the group); any other reshape of a sharded operand, or one
  with ``dimensions`` touching a sharded dimension, needs ``out_sharding``."""
  if sharding is not None:
    return sharding
  spec = spec_of(x)
  if 0 in x.shape or all(p is None for p in spec):  # (no elements, or nothing sharded)
    return None
  new_sizes = tuple(new_sizes)
  if [n for n in x.shape if n != 1] == [n for n in new_sizes if n != 1]:
    kept = iter(p for n, p in zip(x.shape, spec) if n != 1)
    return _type_sharding([x], [None if n == 1 else next(kept) for n in new_sizes])
  refuse = ShardingTypeError(_reshape_unsupported(x, new_sizes))
  split = _one_dimension_split(x.shape, new_sizes, refuse)
  parts = []
  if split is not None:     # one operand dimension becomes several
    for piece, p in zip(split, spec):
      if type(piece) is int:
        parts.append(p)
      elif p is None:
        parts += [None] * len(piece)
      elif dimensions is not None:
        raise refuse
      else:
        parts += _pieces_taking_axes(x, _axis_names([p]), piece, refuse)
    return _type_sharding([x], parts)
  merge = _one_dimension_split(new_sizes, x.shape, refuse)
  if merge is None:
    raise refuse
  specs = iter(spec)
  for n, group in zip(new_sizes, merge):   # one group of operand dimensions becomes one
    if type(group) is int:
      parts.append(next(specs))
      continue
    members = [next(specs) for _ in group]
    while members and members[-1] is None:
      members.pop()
    if not members:
      parts.append(None)
    elif dimensions is not None or None in members:
      raise refuse
    else:
      parts += _pieces_taking_axes(x, _axis_names(members), [n], refuse)
  return _type_sharding([x], parts)


def _axis_names(parts) -> list:
  return [a for p in parts for a in ((p,) if isinstance(p, str) else p)]


def _one_dimension_split(old, new, refuse):
  """Per dimension of ``old``, its size where ``new`` keeps it, or the sizes of ``new`` it
  becomes, where ``new`` splits one dimension of ``old`` (trailing size-1 dimensions both
  have aside; other size-1 dimensions of ``new`` join a split); None where ``new`` is no
  such split; ``refuse`` (raised) where it splits more than one."""
  if len(new) <= len(old):
    return None
  trailing = 0
  while old[len(old) - 1 - trailing] == 1 and new[len(new) - 1 - trailing] == 1:
    trailing += 1
  old, new = old[:len(old) - trailing], new[:len(new) - trailing]
  out, i, j = [], 0, 0
  while j < len(new):
    if i >= len(old):
      return None
    if old[i] == new[j]:
      out.append(old[i])
    else:
      if len(out) != sum(type(o) is int for o in out):
        raise refuse        # (a second dimension split)
      pieces = [new[j]]
      while math.prod(pieces) != old[i] or (j + 1 < len(new) and new[j + 1] == 1):
        if math.prod(pieces) > old[i]:
          return None
        if math.prod(pieces) == old[i] and i + 1 < len(old) and new[j + 1] == old[i + 1]:
          break
        j += 1
        if j >= len(new):
          return None
        pieces.append(new[j])
      out.append(pieces)
    i, j = i + 1, j + 1
  return out + [1] * trailing if len(out) == len(old) else None


def _pieces_taking_axes(x, axes, pieces, refuse) -> list:
  """Each piece's share of ``axes`` (in order): a piece takes axes while it is larger than
  one, each one's size dividing what is left of it (else ``refuse`` is raised)."""
  it, out = iter(axes), []
  for n in pieces:
    taken = []
    while n > 1 and (axis := next(it, None)) is not None:
      n, rest = divmod(n, _axes_size([x], axis))
      if rest:
        raise refuse
      taken.append(axis)
    out.append(None if not taken else taken[0] if len(taken) == 1 else tuple(taken))
  if next(it, None) is not None:
    raise refuse
  return out


def _reshape_unsupported(x, sizes) -> str:
  return ("This reshape is not supported. Please specify the sharding of the output via the "
          f"`out_sharding` argument of jax.lax.reshape. Got operand type: {x.str_short(False)}, "
          f"new sizes: {sizes}")


reshape_p.sharding_rule = _reshape_sharding


def reshape(operand, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None,
            out_sharding=None):
  new_sizes = _shape_tuple(new_sizes, "reshape")
  dims = None if dimensions is None else tuple(int(d) for d in dimensions)
  aval = get_aval(operand)
  if dims is not None and sorted(dims) != list(range(aval.ndim)):
    raise TypeError(f"reshape dimensions must be a permutation of operand dimensions, got "
                    f"dimensions {dims} for shape {aval.shape}.")
  if dims is not None and dims == tuple(range(aval.ndim)):
    dims = None
  if (aval.shape and aval.shape == new_sizes and dims is None and out_sharding is None
      and isinstance(operand, (Array, Tracer))):  # (a scalar is reshaped all the same, as JAX)
    return operand
  # sharding: the result's (None: the operand's layout), a parameter as in JAX's jaxprs
  return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims,
                        sharding=None if out_sharding is None else type_sharding(
                            out_sharding, len(new_sizes)))


# ---------------------------------------------------------------------------------------
# transpose

def _transpose_abstract_eval(x, *, permutation):
  if sorted(permutation) != list(range(x.ndim)):
    raise TypeError("transpose permutation isn't a permutation of operand dimensions, got "
                    f"permutation {permutation} for operand shape {x.shape}.")
  return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


transpose_p = standard_primitive(
    "transpose", _transpose_abstract_eval,
    lambda ctx, x, *, permutation: ctx.op("stablehlo.transpose", [x], ctx.avals_out[0],
                                          {"permutation": i64_array(permutation)}))
transpose_p.host_kernel = lambda avals, out_avals, *, permutation: (
    lambda x: x.transpose(permutation))
transpose_p.physical_lowering = lambda ctx, x, *, permutation: transpose_p.lowering(
    ctx, x, permutation=_with_stored_dims(permutation, ctx.avals_in[0]))
ad.deflinear(transpose_p, lambda ct, x, *, permutation: [
    Zero(x.aval) if type(ct) is Zero else transpose(ct, tuple(np.argsort(permutation)))])
transpose_p.batch = lambda axis, args, dims, *, permutation: (  # (batch dimension first,
    transpose(args[0], _batched_perm(permutation, dims[0])), 0)    # as JAX's rule)
transpose_p.sharding_rule = lambda x, *, permutation: _type_sharding(
    [x], [spec_of(x)[p] for p in permutation])


def _batched_perm(perm, bdim):
  return (bdim, *(p + (p >= bdim) for p in perm))


def transpose(operand, permutation: Sequence[int]):
  permutation = tuple(int(p) for p in permutation)
  if permutation == tuple(range(len(permutation))) and len(permutation) == get_aval(
      operand).ndim and not isinstance(operand, (int, float, bool, complex)):
    return operand
  return transpose_p.bind(operand, permutation=permutation)


# ---------------------------------------------------------------------------------------
# squeeze: drops size-1 dimensions (a reshape, kept as its own primitive as in JAX)

def _squeeze_abstract_eval(x, *, dimensions):
  for d in dimensions:
    if x.shape[d] != 1:
      raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                       f"one, got shape={x.shape} and dimensions={dimensions}")
  return x.update(shape=tuple(s for i, s in enumerate(x.shape) if i not in dimensions))


def _squeeze_transpose(ct, x, *, dimensions):
  return [Zero(x.aval) if type(ct) is Zero else expand_dims(ct, dimensions)]


def _squeeze_batch(axis, args, dims, *, dimensions):
  (x,), (d,) = args, dims
  x = batching.moveaxis(x, d, 0)
  return squeeze(x, tuple(i + 1 for i in dimensions)), 0


squeeze_p = standard_primitive(
    "squeeze", _squeeze_abstract_eval,
    lambda ctx, x, *, dimensions: ctx.op("stablehlo.reshape", [x], ctx.avals_out[0]))
squeeze_p.host_kernel = lambda avals, out_avals, *, dimensions: (
    lambda x: x.reshape(out_avals[0].shape))
ad.deflinear(squeeze_p, _squeeze_transpose)
squeeze_p.batch = _squeeze_batch
squeeze_p.sharding_rule = lambda x, *, dimensions: _type_sharding(
    [x], [p for d, p in enumerate(spec_of(x)) if d not in dimensions])


def squeeze(array, dimensions: Sequence[int]):
  """``array`` without the size-1 ``dimensions``."""
  ndim = get_aval(array).ndim
  dims = tuple(sorted({normalize_axis(d, ndim, "squeeze") for d in dimensions}))
  return squeeze_p.bind(array, dimensions=dims) if dims else array


def expand_dims(array, dimensions: Sequence[int]):
  aval = get_aval(array)
  ndim_out = aval.ndim + len(dimensions)
  dims = sorted(normalize_axis(d, ndim_out, "expand_dims") for d in dimensions)
  if len(set(dims)) != len(dims):
    raise ValueError(f"repeated axis in lax.expand_dims: {tuple(dimensions)}")
  shape = list(aval.shape)
  for d in dims:
    shape.insert(d, 1)
  kept = tuple(i for i in range(ndim_out) if i not in dims)
  return broadcast_in_dim(array, tuple(shape), kept)


def normalize_axis(axis: int, ndim: int, name: str) -> int:
  axis = operator_index(axis)
  if not -ndim <= axis < ndim:
    raise ValueError(f"{name}: axis {axis} is out of bounds for array of dimension {ndim}")
  return axis % ndim if ndim else 0


# ---------------------------------------------------------------------------------------
# rev

rev_p = standard_primitive(
    "rev", lambda x, *, dimensions: x,
    lambda ctx, x, *, dimensions: ctx.op("stablehlo.reverse", [x], ctx.avals_out[0],
                                         {"dimensions": i64_array(dimensions)}))
rev_p.host_kernel = lambda avals, out_avals, *, dimensions: lambda x: np.flip(x, dimensions)
ad.deflinear(rev_p, lambda ct, x, *, dimensions: [
    Zero(x.aval) if type(ct) is Zero else rev(ct, dimensions)])
rev_p.batch = lambda axis, args, dims, *, dimensions: (
    rev(args[0], tuple(d + (d >= dims[0]) for d in dimensions)), dims[0])


def rev(operand, dimensions: Sequence[int]):
  dims, nd = tuple(int(d) for d in dimensions), get_aval(operand).ndim
  if len(set(dims)) != len(dims):
    raise TypeError(f"rev dimensions must be unique, got {dims}.")
  if not all(0 <= d < nd for d in dims):
    raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions "
                    f"{dims} for operand ndim {nd}.")
  return rev_p.bind(operand, dimensions=dims)


# ---------------------------------------------------------------------------------------
# iota

def _iota_abstract_eval(*, dtype, shape, dimension, sharding=None):
  if not 0 <= dimension < len(shape):
    raise ValueError(f"iota dimension must be between 0 and len(shape), got dimension="
                     f"{dimension} for shape {shape}")
  return ShapedArray(shape, dtype, False)


iota_p = standard_primitive(
    "iota", _iota_abstract_eval,
    lambda ctx, *, dtype, shape, dimension, sharding=None: ctx.op(
        "stablehlo.iota", [], ctx.avals_out[0], {"iota_dimension": f"{dimension} : i64"},
        in_avals=[]))


iota_p.sharding_rule = lambda *, sharding=None, **params: sharding  # (the type asked for)


def _iota_host(avals, out_avals, *, dtype, shape, dimension, sharding=None):
  """The (immutable) result, made once."""
  line = [1] * len(shape)
  line[dimension] = shape[dimension]
  value = np.ascontiguousarray(np.broadcast_to(
      np.arange(shape[dimension], dtype=out_avals[0].dtype).reshape(line), shape))
  value.flags.writeable = False
  return lambda: value


iota_p.host_kernel = _iota_host


def iota(dtype, size: int, *, sharding=None):
  """``[0, 1, ..., size-1]``."""
  return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension: int, *, out_sharding=None):
  """Indices along ``dimension`` of an array of ``shape``, its type sharded as
  ``out_sharding`` says (over a mesh with Explicit axes)."""
  dtype = dtypes.check_user_dtype_supported(dtype, "broadcasted_iota")
  if dtype == np.bool_:
    raise TypeError("iota does not accept dtype bool. Accepted dtypes are subtypes of "
                    "integer, floating, complexfloating.")
  shape = _shape_tuple(shape, "broadcasted_iota")
  sharding = None if out_sharding is None else type_sharding(out_sharding, len(shape))
  return iota_p.bind(dtype=dtype, shape=shape, dimension=int(dimension), sharding=sharding)


# ---------------------------------------------------------------------------------------
# slice

def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
  if len(start_indices) != x.ndim or len(limit_indices) != x.ndim:
    raise ValueError(f"slice start_indices and limit_indices must have length equal to the "
                    f"number of dimensions of the operand, got {start_indices}, "
                    f"{limit_indices} for operand shape {x.shape}.")
  strides = strides or (1,) * x.ndim
  shape = []
  for s, l, st, d in zip(start_indices, limit_indices, strides, x.shape):
    if not 0 <= s <= l <= d:
      raise TypeError(f"slice indices must satisfy 0 <= start <= limit <= shape, got "
                      f"start_indices {start_indices}, limit_indices {limit_indices} for "
                      f"operand shape {x.shape}.")
    if st < 1:
      raise TypeError(f"slice strides must be positive, got {strides}")
    shape.append((l - s + st - 1) // st)
  return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides):
  strides = strides or (1,) * len(start_indices)
  return ctx.op("stablehlo.slice", [x], ctx.avals_out[0],
                {"start_indices": i64_array(start_indices),
                 "limit_indices": i64_array(limit_indices), "strides": i64_array(strides)})


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
  if type(ct) is Zero:
    return [Zero(x.aval)]
  shape = x.aval.shape
  strides = strides or (1,) * len(shape)
  out_shape = get_aval(ct).shape
  lo = start_indices
  # (NumPy integers, as JAX's rule computes them: its jaxprs print them so)
  hi = np.subtract(shape, [s + (o - 1) * st + 1 if o else s for s, o, st in
                           zip(start_indices, out_shape, strides)], dtype=np.int64)
  interior = (np.subtract(strides, 1) if any(st != 1 for st in strides)
              else (0,) * len(shape))
  zero = np.zeros((), get_aval(ct).dtype)[()]
  return [pad(ct, zero, list(zip(lo, hi, interior)))]


def _slice_batch(axis, args, dims, *, start_indices, limit_indices, strides):
  (x,), (d,) = args, dims
  starts = list(start_indices)
  limits = list(limit_indices)
  starts.insert(d, 0)
  limits.insert(d, axis.size)
  st = None if strides is None else [*strides[:d], 1, *strides[d:]]   # None stays None
  return slice(x, starts, limits, st), d


slice_p = standard_primitive("slice", _slice_abstract_eval, _slice_lowering)


def _slice_host(avals, out_avals, *, start_indices, limit_indices, strides):
  index = tuple(map(builtins.slice, start_indices, limit_indices,
                    strides or [None] * len(start_indices)))
  return lambda x: x[index]


slice_p.host_kernel = _slice_host


def _slice_impl(x, *, start_indices, limit_indices, strides):
  """Eager slicing, as JAX's: with unit strides, a dynamic slice whose start indices are
  operands, so one compiled program serves every slice of a shape (a loop over a dataset's
  batches compiles once). Traced, a slice stays a slice."""
  params = dict(start_indices=start_indices, limit_indices=limit_indices, strides=strides)
  if strides is not None:
    return apply_primitive(slice_p, x, **params)
  sizes = _slice_abstract_eval(get_aval(x), **params).shape  # (slice's errors, if any)
  return apply_primitive(dynamic_slice_p, x, *start_indices, slice_sizes=sizes)


slice_p.impl = _slice_impl
ad.deflinear(slice_p, _slice_transpose)
slice_p.batch = _slice_batch


def varying_shape_sharding(out_shape, x, what: str):
  """The split of a ``what`` result of ``out_shape`` made from ``x`` (slices, pads, windows):
  ``x``'s, dimension by dimension, which a resized dimension keeps only when its new size
  still divides among the devices of its mesh axes (JAX's ShardingTypeError otherwise)."""
  if x._sharding is None:  # (only another operand is split: a pad's value)
    return None
  mesh = x._sharding.mesh
  for d, (n, k, p) in enumerate(zip(x.shape, out_shape, spec_of(x))):
    if p is None or n == k:
      continue
    devices = int(np.prod([mesh.shape[a] for a in ((p,) if isinstance(p, str) else p)]))
    if k % devices:
      raise ShardingTypeError(
          f"{what} on sharded dims where out dim ({k}) is not divisible by mesh axes "
          f"({devices}) with spec ({p}) is not implemented. Got input type={x.str_short(short_dtypes=True)} "
          f"and output shape={tuple(out_shape)}")
  return x._sharding


slice_p.sharding_rule = lambda x, **params: varying_shape_sharding(
    slice_p.abstract_eval(x, **params).shape, x, "slicing")
slice_p.physical_lowering = lambda ctx, x, *, start_indices, limit_indices, strides: (
    _slice_lowering(ctx, x, start_indices=(*start_indices, *[0] * len(stored_dims(ctx.avals_in[0]))),
                    limit_indices=(*limit_indices, *stored_dims(ctx.avals_in[0])),
                    strides=strides and (*strides, *[1] * len(stored_dims(ctx.avals_in[0])))))


def slice(operand, start_indices, limit_indices, strides=None):
  start_indices = tuple(map(dim_or_int, start_indices))
  limit_indices = tuple(map(dim_or_int, limit_indices))
  strides = None if strides is None else tuple(int(s) for s in strides)  # kept as given
  return slice_p.bind(operand, start_indices=start_indices, limit_indices=limit_indices,
                      strides=strides)


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
  aval = get_aval(operand)
  axis = normalize_axis(axis, aval.ndim, "slice_in_dim")
  size = aval.shape[axis]
  start = 0 if start_index is None else dim_or_int(start_index)
  limit = size if limit_index is None else dim_or_int(limit_index)
  start = start + size if start < 0 else start
  limit = limit + size if limit < 0 else limit
  starts = [0] * aval.ndim
  limits = list(aval.shape)
  starts[axis], limits[axis] = start, limit
  strides = [1] * aval.ndim   # (given, as JAX's: its slice prints them)
  strides[axis] = operator.index(stride)
  return slice(operand, starts, limits, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
  aval = get_aval(operand)
  axis = normalize_axis(axis, aval.ndim, "index_in_dim")
  size = aval.shape[axis]
  index = dim_or_int(index)
  wrapped = index + size if index < 0 else index
  if not 0 <= wrapped < size:
    raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
  out = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
  return out if keepdims else squeeze(out, (axis,))


# ---------------------------------------------------------------------------------------
# concatenate

def _concatenate_abstract_eval(*xs, dimension):
  if not xs:
    raise TypeError("concatenate requires at least one operand")
  check_same_dtypes("concatenate", xs)
  nd = xs[0].ndim
  if any(x.ndim != nd for x in xs):
    raise TypeError("Cannot concatenate arrays with different numbers of dimensions: got "
                    f"{', '.join(str(x.shape) for x in xs)}.")
  if not 0 <= dimension < nd:
    raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for shapes "
                    f"{', '.join(str(x.shape) for x in xs)}.")
  for x in xs:
    if x.ndim != nd or any(a != b for i, (a, b) in enumerate(zip(x.shape, xs[0].shape))
                           if i != dimension):
      raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other "
                      f"than the one being concatenated: concatenating along dimension "
                      f"{dimension} for shapes {', '.join(str(x.shape) for x in xs)}.")
  shape = list(xs[0].shape)
  shape[dimension] = sum(x.shape[dimension] for x in xs)
  return ShapedArray(tuple(shape), xs[0].dtype, all(x.weak_type for x in xs))


def _concatenate_transpose(ct, *xs, dimension):
  """One ``split`` of the cotangent into every operand's piece, as JAX's (a piece for a
  defined operand is left unused)."""
  if type(ct) is Zero:
    return [Zero(x.aval) if ad.is_undefined(x) else None for x in xs]
  sizes = [(x.aval if ad.is_undefined(x) else get_aval(x)).shape[dimension] for x in xs]
  pieces = split(ct, tuple(sizes), dimension)
  return [p if ad.is_undefined(x) else None for p, x in zip(pieces, xs)]


def _concatenate_batch(axis, args, dims, *, dimension):
  # Every operand batched at 0 (unbatched ones broadcast there), as JAX's rule.
  xs = [batching.matchaxis(x, d, 0, axis.size, axis.explicit_mesh_axis)
        for x, d in zip(args, dims)]
  return concatenate(xs, dimension + 1), 0


concatenate_p = standard_primitive(
    "concatenate", _concatenate_abstract_eval,
    lambda ctx, *xs, dimension: ctx.op("stablehlo.concatenate", list(xs), ctx.avals_out[0],
                                       {"dimension": f"{dimension} : i64"}))
concatenate_p.host_kernel = lambda avals, out_avals, *, dimension: (
    lambda *xs: np.concatenate(xs, axis=dimension))
ad.deflinear(concatenate_p, _concatenate_transpose)
concatenate_p.batch = _concatenate_batch


def same_sharding(xs):
  """JAX's rule for joining operands (``concatenate``, ``stack``): they must all carry the
  same type sharding, which is the result's (before any new dimension)."""
  if builtins.any(spec_of(x) != spec_of(xs[0]) for x in xs[1:]):
    mesh = mesh_of(xs)
    raise ShardingTypeError("All operands should have the same sharding. Got shardings "
                            + ", ".join(str(x._sharding or typed_sharding(mesh, [None] * x.ndim))
                                        for x in xs))
  return xs[0]._sharding


def _concatenate_sharding(*xs, dimension):
  return same_sharding(xs)


concatenate_p.sharding_rule = _concatenate_sharding


def concatenate(operands: Sequence, dimension: int):
  operands = list(operands)
  if not operands:
    raise ValueError("concatenate requires a non-empty sequence of arrays")
  if len(operands) == 1:
    return operands[0]
  return concatenate_p.bind(*operands, dimension=int(dimension))


def _linear_jvp(prim):
  """The JVP of a primitive linear in all its operands: itself on the tangents."""
  def jvp(primals, tangents, **params):
    out = prim.bind(*primals, **params)
    if all(type(t) is Zero for t in tangents):
      outs = out if prim.multiple_results else [out]
      zeros = [Zero(tangent_aval(get_aval(o))) for o in outs]
      return out, zeros if prim.multiple_results else zeros[0]
    return out, prim.bind(*[ad.instantiate(t) for t in tangents], **params)
  return jvp


def _instantiated(cts) -> list:
  return [ad.instantiate(c) for c in cts]


# ---------------------------------------------------------------------------------------
# split

def _split_abstract_eval(x, *, sizes, axis):
  if not 0 <= axis < x.ndim:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
  if any(s < 0 for s in sizes):
    raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
  if sum(sizes) != x.shape[axis]:
    raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                     f"operand shape {list(x.shape)}")
  return [x.update(shape=x.shape[:axis] + (dim_or_int(s),) + x.shape[axis + 1:]) for s in sizes]


def _split_pieces(x, *, sizes, axis):
  starts = np.cumsum((0,) + tuple(sizes))
  return [slice_in_dim(x, dim_or_int(a), dim_or_int(a) + s, axis=axis)
          for a, s in zip(starts, sizes)]


def _split_batch(axis_data, args, dims, *, sizes, axis):
  (x,), (d,) = args, dims
  outs = split_p.bind(x, sizes=sizes, axis=axis + (d <= axis))
  return outs, [d] * len(outs)


split_p = standard_primitive("split", _split_abstract_eval, lowering_from(_split_pieces),
                             multiple_results=True)
split_p.host_kernel = lambda avals, out_avals, *, sizes, axis: (
    lambda x: np.split(x, np.cumsum(sizes[:-1]), axis) if sizes else [])
split_p.jvp = _linear_jvp(split_p)
split_p.transpose = lambda cts, x, *, sizes, axis: [concatenate(_instantiated(cts), axis)]
split_p.batch = _split_batch
split_p.sharding_rule = lambda x, *, sizes, axis: [  # (JAX's message shows a NumPy size)
    varying_shape_sharding(x.shape[:axis] + (np.int64(n),) + x.shape[axis + 1:], x, "split")
    for n in sizes]


def split(operand, sizes: Sequence[int], axis: int = 0) -> list:
  """Splits ``operand`` along ``axis`` into pieces of the given ``sizes``."""
  aval = get_aval(operand)
  axis = normalize_axis(axis, aval.ndim, "split")
  sizes = tuple(s if isinstance(s, (int, np.integer)) or is_symbolic_dim(s)
                else operator.index(s) for s in sizes)  # (kept as given, as JAX prints them)
  return split_p.bind(operand, sizes=sizes, axis=axis)


# ---------------------------------------------------------------------------------------
# pad

def _pad_abstract_eval(x, padding_value, *, padding_config):
  if x.dtype != padding_value.dtype:
    raise TypeError("pad operand and padding_value must be same dtype: got "
                    f"{x.dtype.name} and {padding_value.dtype.name}.")
  if padding_value.shape:
    raise ValueError("padding_value must be a scalar; got "
                     f"np.shape(padding_value)={padding_value.shape}")
  if len(padding_config) != x.ndim:
    raise ValueError("length of padding_config must equal the number of axes of operand, "
                     f"got padding_config {padding_config} for operand shape {x.shape}")
  shape = []
  for d, (lo, hi, interior) in zip(x.shape, padding_config):
    if interior < 0:
      raise ValueError(f"interior padding in padding_config must be nonnegative, got "
                       f"padding_config {padding_config}")
    size = lo + hi + d + max(d - 1, 0) * interior
    if size < 0:
      raise ValueError(f"Dimension size after padding is not at least 0, got result shape "
                       f"with negative size for padding_config {padding_config} and "
                       f"operand shape {x.shape}")
    shape.append(dim_or_int(size))
  return ShapedArray(tuple(shape), x.dtype, x.weak_type and padding_value.weak_type)


def _pad_lowering(ctx, x, pv, *, padding_config):
  lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
  return ctx.op("stablehlo.pad", [x, pv], ctx.avals_out[0],
                {"edge_padding_low": i64_array(lo), "edge_padding_high": i64_array(hi),
                 "interior_padding": i64_array(interior)})


def _pad_transpose(ct, x, pv, *, padding_config):
  # reductions builds on shapes: a transpose sums the cotangent with it
  from xjax._src.primitives.lax.reductions import reduce_sum
  if type(ct) is Zero:
    return [Zero(x.aval) if ad.is_undefined(x) else None,
            Zero(pv.aval) if ad.is_undefined(pv) else None]
  # The operand's share: pad by the negated edges (a strong zero, as JAX), then stride over
  # the interior; the padding value's is the rest of the cotangent's sum.
  unpadded = pad(ct, np.zeros((), get_aval(ct).dtype),
                 [(-lo, -hi, 0) for lo, hi, _ in padding_config])
  operand_ct = slice(unpadded, [0] * len(padding_config), get_aval(unpadded).shape,
                     [i + 1 for _, _, i in padding_config])
  out_x = operand_ct if ad.is_undefined(x) else None
  out_pv = None
  if ad.is_undefined(pv):
    total = reduce_sum(ct, tuple(range(get_aval(ct).ndim)))
    inner = reduce_sum(operand_ct, tuple(range(get_aval(operand_ct).ndim)))
    # elementwise builds on shapes: the padding value's cotangent is a difference
    from xjax._src.primitives.lax.elementwise import sub
    out_pv = sub(total, inner)
  return [out_x, out_pv]


def _pad_batch(axis, args, dims, *, padding_config):
  (x, pv), (xd, pvd) = args, dims
  if pvd is not None:  # pad with zeros, then select the per-example value where padded
    # elementwise builds on shapes: a batched padding value is selected in
    from xjax._src.primitives.lax.elementwise import select_n
    x = batching.bdim_to_front(x, xd, axis.size)
    aval = get_aval(x)
    cfg = [(0, 0, 0)] + list(padding_config)
    out = pad(x, full_like(x, 0, shape=()), cfg)
    shape = get_aval(out).shape
    inside = pad(full(aval.shape[1:], True, np.bool_), full((), False, np.bool_),
                 padding_config)
    inside = broadcast_in_dim(inside, shape, tuple(range(1, len(shape))))
    pv = broadcast_in_dim(batching.moveaxis(pv, pvd, 0), shape, (0,))
    return select_n(inside, pv, out), 0
  cfg = list(padding_config)
  cfg.insert(xd, (0, 0, 0))
  return pad(x, pv, cfg), xd


pad_p = standard_primitive("pad", _pad_abstract_eval, _pad_lowering)
ad.deflinear(pad_p, _pad_transpose)
pad_p.batch = _pad_batch
pad_p.sharding_rule = lambda x, padding_value, **params: varying_shape_sharding(
    pad_p.abstract_eval(x, padding_value, **params).shape, x, "padding")


def pad(operand, padding_value, padding_config):
  """Pads with low/high (may be negative) and interior padding per dimension."""
  cfg = tuple(tuple(d if isinstance(d, (int, np.integer)) else operator.index(d)
                    for d in dims) for dims in padding_config)  # (kept as given, as JAX)
  return pad_p.bind(operand, padding_value, padding_config=cfg)


# ---------------------------------------------------------------------------------------
# dynamic_slice / dynamic_update_slice (start indices are clamped to stay in bounds)

def _check_indices(name, x, idxs):
  if len(idxs) != x.ndim:
    raise TypeError(f"{name} requires len(start_indices) == operand.ndim, got "
                    f"{len(idxs)} indices for operand of shape {x.shape}")
  for i in idxs:
    if i.shape or not dtypes.is_integer(i.dtype):
      raise TypeError(f"{name} start indices must be scalar integers, got {i.str_short(short_dtypes=True)}")


def _dynamic_slice_abstract_eval(x, *idxs, slice_sizes):
  _check_indices("dynamic_slice", x, idxs)
  for s, d in zip(slice_sizes, x.shape):
    if not 0 <= s <= d:
      raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                      f"slice_sizes {slice_sizes} for operand shape {x.shape}")
  return ShapedArray(tuple(slice_sizes), x.dtype, x.weak_type)


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
  x, *idxs = primals
  out = dynamic_slice_p.bind(x, *idxs, slice_sizes=slice_sizes)
  t = tangents[0]
  if type(t) is Zero:
    return out, Zero(get_aval(out))
  return out, dynamic_slice_p.bind(t, *idxs, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, x, *idxs, slice_sizes):
  if type(ct) is Zero:
    return [Zero(x.aval)] + [None] * len(idxs)
  zeros = full(x.aval.shape, 0, x.aval.dtype)
  return [dynamic_update_slice_p.bind(zeros, ct, *idxs)] + [None] * len(idxs)


dynamic_slice_p = standard_primitive(
    "dynamic_slice", _dynamic_slice_abstract_eval,
    lambda ctx, x, *idxs, slice_sizes: ctx.op("stablehlo.dynamic_slice", [x, *idxs],
                                              ctx.avals_out[0],
                                              {"slice_sizes": i64_array(slice_sizes)}))
dynamic_slice_p.jvp = _dynamic_slice_jvp


def _dynamic_slice_host(avals, out_avals, *, slice_sizes):
  """Start indices clamped to keep the slice inside the operand, as XLA does."""
  dims = avals[0].shape

  def kernel(x, *starts):
    starts = [builtins.min(builtins.max(int(i), 0), d - n)
              for i, d, n in zip(starts, dims, slice_sizes)]
    return x[tuple(builtins.slice(i, i + n) for i, n in zip(starts, slice_sizes))]
  return kernel


dynamic_slice_p.host_kernel = _dynamic_slice_host
dynamic_slice_p.transpose = _dynamic_slice_transpose
dynamic_slice_p.sharding_rule = lambda x, *idxs, slice_sizes: varying_shape_sharding(
    slice_sizes, x, "dynamic_slice")
dynamic_slice_p.physical_lowering = lambda ctx, x, *idxs, slice_sizes: dynamic_slice_p.lowering(
    ctx, x, *_zero_indices(ctx, idxs, ctx.avals_in[0]),
    slice_sizes=(*slice_sizes, *stored_dims(ctx.avals_in[0])))


def _dynamic_update_slice_abstract_eval(x, update, *idxs):
  _check_indices("dynamic_update_slice", x, idxs)
  if x.dtype != update.dtype:
    raise TypeError("dynamic_update_slice update must have the same dtype as the operand, "
                    f"got {update.dtype.name} and {x.dtype.name}")
  if update.ndim != x.ndim or any(u > d for u, d in zip(update.shape, x.shape)):
    raise TypeError("dynamic_update_slice update shape must be smaller than operand shape, "
                    f"got update shape {update.shape} for operand shape {x.shape}.")
  # weak only when every operand is, indices included (lax's normalised indices are strong)
  return x.update(weak_type=all(a.weak_type for a in (x, update, *idxs)))


def _dynamic_update_slice_jvp(primals, tangents):
  x, upd, *idxs = primals
  tx, tu = tangents[0], tangents[1]
  out = dynamic_update_slice_p.bind(x, upd, *idxs)
  if type(tx) is Zero and type(tu) is Zero:
    return out, Zero(get_aval(out))
  tx, tu = ad.instantiate(tx), ad.instantiate(tu)
  return out, dynamic_update_slice_p.bind(tx, tu, *idxs)


def _dynamic_update_slice_transpose(ct, x, upd, *idxs):
  upd_aval = upd.aval if ad.is_undefined(upd) else get_aval(upd)
  if type(ct) is Zero:
    return [Zero(x.aval) if ad.is_undefined(x) else None,
            Zero(upd_aval) if ad.is_undefined(upd) else None] + [None] * len(idxs)
  ct_x = None
  if ad.is_undefined(x):
    zeros = full(upd_aval.shape, 0, upd_aval.dtype)
    ct_x = dynamic_update_slice_p.bind(ct, zeros, *idxs)
  ct_u = dynamic_slice_p.bind(ct, *idxs, slice_sizes=upd_aval.shape) if ad.is_undefined(
      upd) else None
  return [ct_x, ct_u] + [None] * len(idxs)


dynamic_update_slice_p = standard_primitive(
    "dynamic_update_slice", _dynamic_update_slice_abstract_eval,
    lambda ctx, x, upd, *idxs: ctx.op("stablehlo.dynamic_update_slice", [x, upd, *idxs],
                                      ctx.avals_out[0]))
dynamic_update_slice_p.jvp = _dynamic_update_slice_jvp
dynamic_update_slice_p.transpose = _dynamic_update_slice_transpose


def _dynamic_update_slice_sharding(x, update, *idxs):
  """The operand's split, which the update must share (JAX's ShardingTypeError)."""
  if spec_of(x) != spec_of(update):
    mesh = mesh_of([x, update])
    types: dict = {}
    for name, kind in zip(mesh.axis_names, mesh.axis_types):
      types.setdefault(kind, []).append(name)
    axes = "({%s})" % ", ".join(f"{k!r}: {tuple(v)!r}" for k, v in types.items())
    raise ShardingTypeError(
        "dynamic_update_slice operand sharding must be equal to update sharding, got operand "
        f"sharding {x.str_short(False)}{axes} and update sharding "
        f"{update.str_short(False)}{axes}.")
  return x._sharding


dynamic_update_slice_p.sharding_rule = _dynamic_update_slice_sharding
dynamic_update_slice_p.physical_lowering = lambda ctx, x, upd, *idxs: (
    dynamic_update_slice_p.lowering(ctx, x, upd, *_zero_indices(ctx, idxs, ctx.avals_in[0])))


def _index_scalars(start_indices, name, operand, allow_negative_indices=True):
  """The start indices as scalars of one integer type; a negative traced index counts from
  the end unless ``allow_negative_indices`` (a bool, or one per index) says it cannot be
  negative (then no wrapping select is emitted, as scan's own indexing does in JAX)."""
  shape = get_aval(operand).shape
  if len(start_indices) != len(shape):
    raise ValueError(f"Length of slice indices must match number of operand dimensions "
                     f"({len(start_indices)} vs {shape})")
  # elementwise builds on shapes: negative traced indices wrap with it
  from xjax._src.primitives.lax.elementwise import add, convert_element_type, lt, select_n
  wraps = ([allow_negative_indices] * len(shape) if isinstance(allow_negative_indices, bool)
           else list(allow_negative_indices))
  if len(wraps) != len(shape):
    raise ValueError(f"Length of allow_negative_indices must match number of operand "
                     f"dimensions ({len(wraps)} vs {shape})")
  out, strong = [], []
  for i, dim, wrap in zip(start_indices, shape, wraps):
    aval = get_aval(i)
    if aval.shape:
      raise TypeError(f"start indices must be scalars, got shape {aval.shape}")
    if not dtypes.is_integer(aval.dtype):
      raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                      f"{aval.dtype.name}")
    if isinstance(i, (int, np.integer)):  # negative indices count from the end
      i = int(i) + dim if int(i) < 0 else int(i)
      out.append(np.asarray(i, np.int32)[()] if -2**31 <= i < 2**31 else
                 np.asarray(i, np.int64)[()])
      continue
    if not aval.weak_type:
      strong.append(aval.dtype)
    if wrap and not dtypes.is_unsigned(aval.dtype):  # JAX's ``select(i < 0, i + d, i)``,
      # whose ``+`` (NumPy's) makes a weak index strong
      negative = lt(i, np.zeros((), aval.dtype))
      strong_i = convert_element_type(i, aval.dtype) if aval.weak_type else i
      size = (convert_element_type(dim.dimension_as_value(), aval.dtype) if is_symbolic_dim(dim)
              else np.asarray(dim, aval.dtype))   # (dimension_values' rule, below shapes)
      i = select_n(negative, i, add(strong_i, size))
    out.append(i)
  if len(set(strong)) > 1 or np.dtype(np.bool_) in strong:
    names = ", ".join(dict.fromkeys(np.dtype(d).name for d in strong))
    raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                    f"{names}")
  if len({get_aval(i).dtype for i in out}) > 1:
    target = strong[0] if strong else (
        np.int64 if any(get_aval(j).dtype == np.int64 for j in out) else np.int32)
    out = [convert_element_type(i, target) for i in out]
  return out


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
  sizes = _shape_tuple(slice_sizes, "dynamic_slice")
  idxs = _index_scalars(start_indices, "dynamic_slice", operand, allow_negative_indices)
  return dynamic_slice_p.bind(operand, *idxs, slice_sizes=sizes)


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
  idxs = _index_scalars(start_indices, "dynamic_update_slice", operand,
                        allow_negative_indices)
  return dynamic_update_slice_p.bind(operand, update, *idxs)


def _in_dim(operand, index, axis: int, name: str, allow_negative_indices: bool):
  """Start indices (and which may be negative) that are 0 but ``index`` on ``axis``."""
  ndim = get_aval(operand).ndim
  axis = normalize_axis(axis, ndim, name)
  starts, wraps = [0] * ndim, [False] * ndim
  starts[axis], wraps[axis] = index, allow_negative_indices
  return axis, starts, wraps


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
  axis, starts, wraps = _in_dim(operand, start_index, axis, "dynamic_slice_in_dim",
                                allow_negative_indices)
  sizes = list(get_aval(operand).shape)
  sizes[axis] = dim_or_int(slice_size)
  return dynamic_slice(operand, starts, sizes, allow_negative_indices=wraps)


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
  out = dynamic_slice_in_dim(operand, index, 1, axis,
                             allow_negative_indices=allow_negative_indices)
  return out if keepdims else squeeze(out, (normalize_axis(axis, get_aval(operand).ndim,
                                                           "dynamic_index_in_dim"),))


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
  _, starts, wraps = _in_dim(operand, start_index, axis, "dynamic_update_slice_in_dim",
                             allow_negative_indices)
  return dynamic_update_slice(operand, update, starts, allow_negative_indices=wraps)


def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True):
  aval = get_aval(operand)
  axis = normalize_axis(axis, aval.ndim, "dynamic_update_index_in_dim")
  if get_aval(update).ndim == aval.ndim - 1:
    update = expand_dims(update, (axis,))
  return dynamic_update_slice_in_dim(operand, update, index, axis,
                                     allow_negative_indices=allow_negative_indices)


def broadcast_to_aval(t, shape):
  """``t`` broadcast to ``shape``, where each of its dimensions is 1 or already matches."""
  t_aval = get_aval(t)
  if t_aval.shape == tuple(shape):
    return t
  if t_aval.ndim == 0:
    return broadcast_in_dim(t, tuple(shape), ())
  keep = tuple(i for i, d in enumerate(t_aval.shape) if d == shape[i])
  squeezed = reshape(t, tuple(t_aval.shape[i] for i in keep))
  return broadcast_in_dim(squeezed, tuple(shape), keep)


def empty(shape, dtype, *, out_sharding=None):
  """An array of ``shape`` and ``dtype`` whose contents are unspecified (zeros here)."""
  return full(shape, 0, dtype)


def shape_as_value(shape):
  """``shape`` as an int32 array: a NumPy one (a constant), an Array for ``()`` (JAX's)."""
  # elementwise builds on shapes (broadcasting): the shape is converted with it
  from xjax._src.primitives.lax.elementwise import convert_element_type
  if not len(shape):
    return full((0,), np.int32(0))
  return convert_element_type(np.asarray(shape, np.int32).reshape(-1), np.int32)


def broadcast_shapes(*shapes_):
  """The NumPy broadcast of ``shapes_`` (ValueError when incompatible)."""
  shapes_ = [tuple(s) for s in shapes_]
  if not shapes_:
    return ()
  rank = max(len(s) for s in shapes_)
  padded = [(1,) * (rank - len(s)) + s for s in shapes_]
  out = []
  for dims in zip(*padded):
    sizes = {d for d in dims if d != 1}
    if len(sizes) > 1:
      raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes_)}")
    out.append(sizes.pop() if sizes else 1)
  return tuple(out)


def user_broadcast_shapes(*shapes_):
  """``lax.broadcast_shapes`` as users call it: each shape checked as JAX checks it (integer
  dimensions, none negative: TypeError), a single shape returned as it was given."""
  for s in shapes_:
    dims = canonicalize_shape(s)
    if any(not is_symbolic_dim(d) and d < 0 for d in dims):
      raise TypeError("Only non-negative indices are allowed when broadcasting static "
                      f"shapes, but got shape {s!r}.")
  return shapes_[0] if len(shapes_) == 1 else broadcast_shapes(*shapes_)


def broadcast_to_rank(x, rank: int):
  """Prepends size-1 dimensions so that ``x`` has at least ``rank`` dimensions."""
  nd = get_aval(x).ndim
  return x if nd >= rank else expand_dims(x, tuple(range(rank - nd)))


def broadcast_like(arr, like_arr):
  """``arr`` broadcast (NumPy-style) to the shape of ``like_arr``."""
  a, like = get_aval(arr), get_aval(like_arr)
  shape = broadcast_shapes(a.shape, like.shape)
  x = broadcast_to_rank(arr, len(shape))
  return broadcast_to_aval(x, shape)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
  """Merges dimensions ``[start_dimension, stop_dimension)`` into one."""
  shape = get_aval(operand).shape
  lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
  if hi < lo:
    raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                     f"[{start_dimension}:{stop_dimension}]")
  size = math.prod(shape[lo:hi])
  return reshape(operand, shape[:lo] + (size,) + shape[hi:])



def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
  """An array like ``x`` (its shape and dtype, unless given) filled with ``fill_value``;
  in a shard_map body, varying over the manual axes ``x`` varies over (as JAX's)."""
  # elementwise builds on shapes (broadcasting): the fill value is converted with it
  from xjax._src.primitives.lax.elementwise import convert_element_type
  aval = get_aval(x)
  if sharding is None and (shape is None or tuple(shape) == aval.shape):
    sharding = aval._sharding  # (typed as x, over Explicit mesh axes)
  shape = aval.shape if shape is None else shape
  if dtype is not None or not aval.weak_type:  # (a 64-bit dtype narrows without a warning,
    # as JAX's full_like)
    dtype = aval.dtype if dtype is None else dtypes.canonicalize_dtype(
        dtypes.dtype(dtype), allow_extended_dtype=True)
    out = full(shape, fill_value, dtype, sharding=sharding)
  else:  # weak: the fill converted first (on the host for a scalar: a weak literal, as JAX)
    value = convert_element_type(fill_value, aval.dtype, True)
    out = full(shape, value, sharding=sharding) if shape else _own(value, fill_value)
  return varying_like(out, aval)


def varying_like(out, aval):
  """``out`` cast to vary over the manual axes values of type ``aval`` vary over."""
  return build.pvary(out, aval._vma) if vma_of(aval) else out
