"""Batched sparse layouts: leading batch dimensions of `data` and `indices` (either may have
size 1 where the other is larger), and running a per-batch function over them."""
from __future__ import annotations

from functools import partial
from typing import Callable

from xjax._src.api.transformations import vmap
from xjax._src.libraries.numpy import namespace as jnp


def nfold_vmap(fun: Callable, n: int, in_axes=0) -> Callable:
  """`fun` mapped over the leading `n` dimensions of its mapped arguments."""
  for _ in range(n):
    fun = vmap(fun, in_axes=in_axes)
  return fun


def broadcast_batch(n_batch: int, *arrays, shape=None):
  """`arrays` with their leading `n_batch` dimensions broadcast against each other, and to
  the batch dimensions of `shape` (the array's) when given: a BCOO's data and indices may
  hold size 1 for a batch dimension they share across it."""
  if not n_batch:
    return arrays
  shapes = [a.shape[:n_batch] for a in arrays] + ([tuple(shape[:n_batch])] if shape else [])
  batch = tuple(max(sizes) for sizes in zip(*shapes))
  return tuple(jnp.broadcast_to(a, batch + a.shape[n_batch:]) for a in arrays)


def vmapped_batch_rule(impl: Callable, multiple_results: bool = False) -> Callable:
  """The batching rule of a primitive lowered as `impl`: `impl` mapped over the batched
  operands, the results batched along their first dimension."""
  def rule(axis, args, dims, **params):
    out = vmap(partial(impl, **params), in_axes=tuple(dims), axis_size=axis.size)(*args)
    return out, ([0] * len(out) if multiple_results else 0)
  return rule
