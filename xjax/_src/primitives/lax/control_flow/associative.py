"""``associative_scan``: parallel prefix scan by the odd/even recursion, built from slices,
concatenation and interior padding (no primitive of its own)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import shapes


def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
  """All prefix combinations ``fn(..fn(e[0], e[1]).., e[i])`` along ``axis`` of pytree
  ``elems``; ``fn`` must be associative and work elementwise on stacked slices."""
  if not callable(fn):
    raise TypeError(f"associative_scan: fn argument should be callable, got {fn!r}")
  leaves, tree = tree_util.tree_flatten(elems)
  if not leaves:
    return elems
  avals = [get_aval(x) for x in leaves]
  axis = _canonical_axis(axis, avals[0].ndim)
  sizes = {a.shape[axis] if a.ndim > axis else None for a in avals}
  if len(sizes) != 1 or None in sizes:
    raise ValueError("Array inputs to associative_scan must have the same first dimension. "
                     f"(saw: {[a.shape for a in avals]})")
  if reverse:
    leaves = [shapes.rev(x, (axis,)) for x in leaves]

  def combine(a, b):
    out = fn(tree_util.tree_unflatten(tree, a), tree_util.tree_unflatten(tree, b))
    out_leaves, out_tree = tree_util.tree_flatten(out)
    if len(out_leaves) != len(a):  # (another container of the same leaves is taken, as JAX)
      raise TypeError("associative_scan: fn must return a pytree with the same structure as "
                      f"elems, got {out_tree} for {tree}")
    return out_leaves

  def sl(x, start, stop, stride=1):
    return shapes.slice_in_dim(x, start, stop, stride, axis)

  def scan(xs):
    n = get_aval(xs[0]).shape[axis]
    if n < 2:
      return xs
    reduced = combine([sl(x, 0, n - 1, 2) for x in xs], [sl(x, 1, n, 2) for x in xs])
    odd = scan(reduced)
    n_odd = get_aval(odd[0]).shape[axis]
    if n % 2 == 0:
      even = combine([sl(o, 0, n_odd - 1) for o in odd], [sl(x, 2, n, 2) for x in xs])
    else:
      even = combine(odd, [sl(x, 2, n, 2) for x in xs])
    even = [shapes.concatenate([sl(x, 0, 1), e], axis) for x, e in zip(xs, even)]
    return [_interleave(e, o, axis) for e, o in zip(even, odd)]

  out = scan(leaves)
  if reverse:
    out = [shapes.rev(x, (axis,)) for x in out]
  return tree_util.tree_unflatten(tree, out)


def _canonical_axis(axis: int, ndim: int) -> int:
  if not -ndim <= axis < ndim:
    raise ValueError(f"associative_scan: axis {axis} is out of bounds for arrays of rank {ndim}")
  return axis % ndim


def _interleave(a, b, axis: int):
  """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (``a`` as long as ``b`` or one longer)."""
  aval = get_aval(a)
  n_a, n_b = aval.shape[axis], get_aval(b).shape[axis]
  zero = np.zeros((), aval.dtype)
  cfg_a = [(0, 0, 0)] * aval.ndim
  cfg_b = [(0, 0, 0)] * aval.ndim
  cfg_a[axis] = (0, n_b - n_a + 1, 1)
  cfg_b[axis] = (1, n_a - n_b, 1)
  pa, pb = shapes.pad(a, zero, cfg_a), shapes.pad(b, zero, cfg_b)
  return ew.bitwise_or(pa, pb) if aval.dtype == np.bool_ else ew.add(pa, pb)
