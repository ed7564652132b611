"""Container types that ``vmap`` batches with their own functions
(``jax.interpreters.batching.register_vmappable``).

A registered ``data_type`` is a leaf of vmap's arguments and results, mapped according to
an ``in_axes``/``out_axes`` entry of its ``spec_type``.  Entering the map,
``to_elt(cont, get_idx, x, spec)`` gives the per-element view of ``x``, calling
``cont(value, spec)`` on the values inside it (an int or None spec for an array, or another
vmappable's spec); ``get_idx()`` is the index along the mapped axis.  Leaving it,
``from_elt(cont, axis_size, elt, spec)`` makes the batched container, calling
``cont(axis_size, value, spec)`` on each value inside.  ``make_iota(axis_size)`` gives the
indices for axis sizes of ``axis_size_type``.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.execution.array import make_array
from xjax._src.core.trace import Tracer, current_trace, new_trace, set_current_trace
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.shapes import iota
from xjax._src.interpreters.batching import (AxisData, BatchTrace, BatchTracer, _bound_axis,
                                             matchaxis)

vmappables: dict[type, tuple[type, type]] = {}   # data type -> (spec type, axis size type)
spec_types: set[type] = set()
_to_elt: dict[type, Callable] = {}
_from_elt: dict[type, Callable] = {}
_make_iota: dict[type, Callable] = {}


def register_vmappable(data_type: type, spec_type: type, axis_size_type: type,
                       to_elt: Callable, from_elt: Callable, make_iota: Callable | None) -> None:
  vmappables[data_type] = (spec_type, axis_size_type)
  if spec_type is not int:   # ints are every vmap's specs: they do not call for vmap_call
    spec_types.add(spec_type)
  _to_elt[data_type] = to_elt
  _from_elt[data_type] = from_elt
  if make_iota is not None:
    _make_iota[axis_size_type] = make_iota


def unregister_vmappable(data_type: type) -> None:
  """``data_type`` is an ordinary value again (its spec type stays accepted in axes)."""
  vmappables.pop(data_type, None)
  _to_elt.pop(data_type, None)
  _from_elt.pop(data_type, None)


def is_vmappable(x) -> bool:
  return type(x) in vmappables


def is_spec(a) -> bool:
  """Whether ``a`` is an axis spec other than an int: None or a registered spec type."""
  return a is None or type(a) in spec_types


def involved(args, kwargs, in_axes, out_axes) -> bool:
  """Whether a vmap call has a registered container among its arguments or a spec of a
  registered type among its axes (then ``vmap_call`` maps it)."""
  if not vmappables:
    return False
  return (any(is_vmappable(x) for x in tree_util.tree_leaves((args, kwargs),
                                                             is_leaf=is_vmappable))
          or any(type(a) in spec_types for a in tree_util.tree_leaves((in_axes, out_axes),
                                                                      is_leaf=is_spec)))


def flatten_axes(name: str, values, axes, kind: str = "in_axes") -> list:
  """The axis spec for each leaf of ``values`` (registered containers are leaves), from
  ``axes``, a prefix tree of it (None and registered specs are leaves)."""
  count = lambda sub: len(tree_util.tree_leaves(sub, is_leaf=is_vmappable))  # noqa: E731
  if is_spec(axes) or isinstance(axes, int):
    return [axes] * count(values)
  structure = tree_util.tree_structure(axes, is_leaf=is_spec)
  try:
    subtrees = structure.flatten_up_to(values)
  except (ValueError, TypeError):
    raise ValueError(f"{name} {kind.split('[')[0]} specification must be a tree prefix of "
                     f"the corresponding value; \n  got specification {axes} for {kind}, whose "
                     f"value has the tree structure "
                     f"{tree_util.tree_structure(values, is_leaf=is_vmappable)}.") from None
  leaves = tree_util.tree_leaves(axes, is_leaf=is_spec)
  return [a for a, sub in zip(leaves, subtrees) for _ in range(count(sub))]


def _axis_size(leaves, specs, axis_size) -> int:
  sizes = {np.shape(x)[s] for x, s in zip(leaves, specs)  # containers with a shape count
           if isinstance(s, int) and (not is_vmappable(x) or hasattr(x, "shape"))
           and -np.ndim(x) <= s < np.ndim(x)}
  if axis_size is not None:
    sizes.add(int(axis_size))
  if len(sizes) > 1:
    raise ValueError(f"vmap got inconsistent sizes for array axes to be mapped: "
                     f"{sorted(sizes)}")
  if not sizes:
    raise ValueError("vmap must have at least one non-None value in in_axes or axis_size "
                     "must be specified")
  return sizes.pop()


def to_elt(trace: BatchTrace, get_idx: Callable, x, spec):
  """``x`` entering ``trace``'s map along ``spec``: a BatchTracer for an array mapped along
  an int axis, ``x`` itself for a None spec, a registered vmappable's own view."""
  handler = _to_elt.get(type(x))
  if handler is not None:
    return handler(partial(to_elt, trace, get_idx), get_idx, x, spec)
  if spec is None:
    return x
  if not isinstance(spec, int):
    get_aval(x)  # a value of no JAX type fails as in a plain vmap
    raise TypeError(f"vmap in_axes: a spec of type {type(spec).__name__} was given for a "
                    f"value of type {type(x).__name__}, which is not a registered vmappable")
  x = x if isinstance(x, Tracer) else make_array(x)
  ndim = get_aval(x).ndim
  if not -ndim <= spec < ndim:
    raise ValueError(f"vmap was requested to map its argument along axis {spec}, which "
                     f"implies that its rank should be at least {max(spec + 1, -spec)}, but "
                     f"is only {ndim} (its shape is {get_aval(x).shape})")
  return BatchTracer(trace, x, spec % ndim)


def from_elt(trace: BatchTrace, axis_size, i: int, x, spec, sum_match=False):
  """Output ``i`` of ``trace``'s map, ``x``, leaving it along ``spec``: a registered
  vmappable by its own rule, an array moved (or broadcast) to that axis."""
  handler = _from_elt.get(type(x))
  if handler is not None:
    return handler(lambda size, elt, s: from_elt(trace, size, i, elt, s, sum_match),
                   axis_size, x, spec)
  val, bdim = trace.lift(x)
  if spec is None:
    if bdim is not None and sum_match:
      return val.sum(bdim)
    if bdim is not None:
      raise ValueError(f"vmap out_axes of output {i}: got axis spec None but output was "
                       f"batched on axis {bdim}")
    return val
  val = val if isinstance(val, Tracer) else make_array(val)
  ndim = get_aval(val).ndim + (bdim is None)
  return matchaxis(val, bdim, spec % ndim, axis_size)


def vmap_call(fun: Callable, in_axes, out_axes, axis_name, axis_size, args, kwargs,
              spmd_axis_name=None, sum_match=False):
  """``vmap(fun, in_axes, out_axes, axis_name, axis_size)(*args, **kwargs)`` with
  registered containers among the arguments, results or axes."""
  leaves, in_tree = tree_util.tree_flatten((args, kwargs), is_leaf=is_vmappable)
  specs = flatten_axes("vmap", (args, kwargs), (in_axes, 0))
  size = _axis_size(leaves, specs, axis_size)
  axis = AxisData(size, axis_name, None if spmd_axis_name is None else tuple(
      spmd_axis_name) if isinstance(spmd_axis_name, tuple) else (spmd_axis_name,))
  trace = BatchTrace(current_trace(), axis)
  index: list = []

  def get_idx():
    if not index:
      index.append(BatchTracer(trace, make_iota(size), 0))
    return index[0]

  with new_trace(trace), _bound_axis(axis):
    with set_current_trace(trace.parent):
      ins = [to_elt(trace, get_idx, x, s) for x, s in zip(leaves, specs)]
    call_args, call_kwargs = tree_util.tree_unflatten(in_tree, ins)
    out = fun(*call_args, **call_kwargs)
    out_leaves, out_tree = tree_util.tree_flatten(out, is_leaf=is_vmappable)
    out_specs = flatten_axes("vmap", out, out_axes, "out_axes")
    results = [from_elt(trace, size, i, o, s, sum_match)
               for i, (o, s) in enumerate(zip(out_leaves, out_specs))]
  return tree_util.tree_unflatten(out_tree, results)


def make_iota(axis_size):
  """The indices ``0..axis_size-1`` along the mapped axis (int32), or what the axis size
  type's registered ``make_iota`` gives."""
  handler = _make_iota.get(type(axis_size))
  if handler is not None:
    return handler(axis_size)
  return iota(np.int32, int(axis_size))

