"""einsum as JAX computes it: opt_einsum plans the pairwise contractions; each becomes one
``dot_general`` (or, for a lone operand, reductions), so results, jaxprs and rounding are
JAX's, also for chains of three or more operands."""
from __future__ import annotations

import collections
import functools

import numpy as np
import opt_einsum

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.core.dim_expr import is_symbolic_dim
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.api.explicit_sharding import auto_axes
from xjax._src.primitives.lax.dot import dot_general
from xjax._src.primitives.lax.elementwise import (bitwise_and, convert_element_type, eq,
                                                     select_n)
from xjax._src.primitives.lax.reductions import reduce_or, reduce_sum
from xjax._src.primitives.lax.shapes import (broadcast_in_dim, broadcasted_iota, full_like,
                                             squeeze, transpose)
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.linalg_basic import _before_transpose, contraction_types


class _Unoptimized(opt_einsum.paths.PathOptimizer):
  """``optimize=False``: contract the operands in the order given."""

  def __call__(self, inputs, *args, **kwargs):
    return [(0, 1)] * (len(inputs) - 1)


def _path_type(optimize):
  return "optimal" if optimize is True else _Unoptimized() if optimize is False else optimize


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=None, out_sharding=None):
  """Einstein summation over ``operands`` as ``subscripts`` says (or NumPy's interleaved
  ``operand, sublist, ...`` form), contracted pairwise in the order ``optimize`` picks."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
  operands = tuple(op.__jax_array__() if hasattr(op, "__jax_array__") else op
                   for op in (subscripts, *operands))
  if not isinstance(subscripts, str) and isinstance(optimize, (str, bool)):
    # NumPy's interleaved form as subscripts, planned as the string form is
    subscripts, rest = opt_einsum.parser.convert_interleaved_input(operands)
    operands = (subscripts, *rest)
  if isinstance(subscripts, str) and isinstance(optimize, (str, bool)):
    # (symbolic dimensions plan as 8, as JAX: the path only orders the contractions)
    shapes = tuple(tuple(8 if is_symbolic_dim(d) else d for d in opt_einsum.parser.get_shape(op))
                   for op in operands[1:])
    contractions = _plan(subscripts, shapes, optimize)
    operands = operands[1:]
  else:  # the interleaved form, or an explicit path
    operands, contractions = opt_einsum.contract_path(
        *operands, einsum_call=True, use_blas=True, optimize=_path_type(optimize))
    contractions = tuple((a, frozenset(b), c) for a, b, c, *_ in contractions)
  operands = arraylike("einsum", *operands)
  statics = dict(precision=precision, preferred_element_type=preferred_element_type,
                 _dot_general=_dot_general or dot_general)
  if len(contractions) > 1 and out_sharding is not None:
    mesh = getattr(out_sharding, "mesh", None)
    axes = getattr(mesh, "explicit_axes", None)
    return auto_axes(_contract_all, axes=axes, out_sharding=out_sharding)(
        list(operands), contractions=contractions, **statics, out_sharding=None)
  return _contract_all(list(operands), contractions=contractions, **statics,
                       out_sharding=out_sharding)


@functools.lru_cache(maxsize=1024)
def _plan(subscripts: str, shapes: tuple, optimize):
  """opt_einsum's contractions for operands of these shapes (planned once per signature:
  the planning costs more than a small einsum's run)."""
  _, contractions = opt_einsum.contract_path(subscripts, *shapes, shapes=True, einsum_call=True,
                                             use_blas=True, optimize=_path_type(optimize))
  return tuple((a, frozenset(b), c) for a, b, c, *_ in contractions)


def _removechars(s: str, chars) -> str:
  return s.translate(str.maketrans(dict.fromkeys(chars)))


def _delta(shape, axes):
  """The boolean mask of the positions whose indices along ``axes`` are all equal."""
  base = tuple(shape[a] for a in axes)
  iotas = [broadcasted_iota(np.uint32, base, i) for i in range(len(base))]
  eyes = [eq(i, j) for i, j in zip(iotas[:-1], iotas[1:])]
  mask = eyes[0]
  for e in eyes[1:]:
    mask = bitwise_and(mask, e)
  return broadcast_in_dim(mask, shape, tuple(axes))


@compiled_when_eager(static_argnames=("contractions", "precision", "preferred_element_type",
                                      "_dot_general", "out_sharding"))
def _contract_all(operands, contractions, precision, preferred_element_type, _dot_general,
                  out_sharding):
  """Runs opt_einsum's ``contractions`` (operand positions, contracted labels, the step's
  own subscripts) one after another on the list ``operands``."""
  pet, out_dtype, out_weak = contraction_types("einsum", preferred_element_type, *operands)

  def total(x, axes):
    if dtypes.result_type(x, pet) != get_aval(x).dtype:
      x = convert_element_type(x, pet, False)
    add = reduce_or if get_aval(x).dtype == np.bool_ else reduce_sum
    return add(x, tuple(axes))

  def sum_uniques(x, names, uniques):
    if uniques:
      x = total(x, [names.index(n) for n in uniques])
      names = _removechars(names, uniques)
    return x, names

  def sum_repeats(x, names, counts, keep):
    for name, count in counts.items():
      if count > 1:
        axes = [i for i, n in enumerate(names) if n == name]
        x = select_n(_delta(get_aval(x).shape, axes), full_like(x, 0), x)
        if name not in keep:
          x, names = total(x, axes), names.replace(name, "")
        else:
          x, names = total(x, axes[:-1]), names.replace(name, "", count - 1)
    return x, names

  def drop_lone_ones(x, names, other_shape, other_names):
    """Squeezes the size-1 dimensions whose label has a longer counterpart in the other
    operand (broadcasting)."""
    shape = get_aval(x).shape
    drop = [i for i, j in enumerate(map(other_names.find, names))
            if shape[i] == 1 and j != -1 and other_shape[j] != 1]
    return squeeze(x, drop), "".join(n for i, n in enumerate(names) if i not in drop)

  operands = list(operands)
  for positions, contracted, step in contractions:
    contracted = sorted(contracted)
    inputs, result = step.split("->")
    inputs = inputs.split(",")
    if len(positions) == 1:
      x = operands.pop(positions[0])
      names, = inputs
      counts = collections.Counter(names)
      x, names = sum_uniques(x, names, [n for n in contracted if counts[n] == 1])
      x, names = sum_repeats(x, names, counts, result)
    elif len(positions) == 2:
      lhs, rhs = map(operands.pop, positions)
      lnames, rnames = inputs
      lhs, lnames = drop_lone_ones(lhs, lnames, get_aval(rhs).shape, rnames)
      rhs, rnames = drop_lone_ones(rhs, rnames, get_aval(lhs).shape, lnames)
      lcounts, rcounts = collections.Counter(lnames), collections.Counter(rnames)
      lhs, lnames = sum_uniques(lhs, lnames, [n for n in contracted
                                              if lcounts[n] == 1 and rcounts[n] == 0])
      rhs, rnames = sum_uniques(rhs, rnames, [n for n in contracted
                                              if rcounts[n] == 1 and lcounts[n] == 0])
      lhs, lnames = sum_repeats(lhs, lnames, lcounts, result + rnames)
      rhs, rnames = sum_repeats(rhs, rnames, rcounts, result + lnames)
      contracted = [n for n in contracted if n in set(lnames) | set(rnames)]
      batch = "".join(n for n in result if n in set(lnames) & set(rnames))
      lbatch, rbatch = (tuple(lnames.find(n) for n in batch), tuple(rnames.find(n) for n in batch))
      lcont = tuple(lnames.index(n) for n in contracted)
      rcont = tuple(rnames.index(n) for n in contracted)
      lfree = _removechars(lnames, batch + "".join(contracted))
      rfree = _removechars(rnames, batch + "".join(contracted))
      # (rhs, lhs) first: opt_einsum contracts right to left, so that order most often
      # needs no transpose afterwards
      names = batch + rfree + lfree
      if names == result:
        args, dims = (rhs, lhs), ((rcont, lcont), (rbatch, lbatch))
      else:
        names = batch + lfree + rfree
        args, dims = (lhs, rhs), ((lcont, rcont), (lbatch, rbatch))
      perm = tuple(names.index(n) for n in result)
      sharding = {} if out_sharding is None else {
          "out_sharding": _before_transpose(out_sharding, perm)}
      x = _dot_general(*args, dims, precision, preferred_element_type=pet, **sharding)
    else:
      raise NotImplementedError(
          "jax.numpy.einsum does not support simultaneous contraction of 3 or more "
          "operands. Typically this means you've passed an unsupported path to the einsum "
          "optimize parameter.")
    if names != result:
      x = transpose(x, tuple(names.index(n) for n in result))
    operands.append(x)
  return convert_element_type(operands[0], out_dtype, out_weak)


def einsum_path(subscripts, /, *operands, optimize="auto"):
  """opt_einsum's contraction path for an einsum: ``(path, info)``, the pairwise steps and
  a printable report of their costs."""
  if isinstance(optimize, bool):
    optimize = "optimal" if optimize else _Unoptimized()
  return opt_einsum.contract_path(subscripts, *operands, optimize=optimize)
