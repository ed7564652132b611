"""``pmap`` on one device: a compiled ``vmap`` with the named axis.

The mapped axis may be no larger than the number of devices (JAX's check), and collectives
over ``axis_name`` give JAX's values; but the members run together on one device (the results
are not sharded over several devices).  Real multi-device pmap belongs to the parallel issue;
see docs/differences.md.
"""
from __future__ import annotations

import functools
from typing import Callable

from xjax._src import tree_util
from xjax._src.api import vmap
from xjax._src.backend import runtime
from xjax._src.core.values import get_aval
from xjax._src.jit import jit


def pmap(fun: Callable, axis_name=None, *, in_axes=0, out_axes=0,
         static_broadcasted_argnums=(), devices=None, backend=None, axis_size=None,
         donate_argnums=()) -> Callable:
  """Maps ``fun`` over axis ``in_axes`` of its arguments, one member per device."""
  static = (static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int) else (
      tuple(static_broadcasted_argnums))
  available = len(devices) if devices is not None else len(runtime.local_devices(backend=backend))

  @functools.wraps(fun)
  def mapped(*args, **kwargs):
    dyn = [a for i, a in enumerate(args) if i not in static]
    axes = in_axes
    if isinstance(in_axes, (tuple, list)) and static:
      axes = tuple(ax for i, ax in enumerate(in_axes) if i not in static)
    size = axis_size if axis_size is not None else _mapped_size(dyn, axes, kwargs)
    if size > available:
      raise ValueError(f"compiling computation that requires {size} logical devices, but only "
                       f"{available} XLA devices are available (num_replicas={size})")

    def body(*dyn_args, **kw):
      it = iter(dyn_args)
      full = [args[i] if i in static else next(it) for i in range(len(args))]
      return fun(*full, **kw)
    inner = vmap(body, in_axes=axes, out_axes=out_axes, axis_name=axis_name, axis_size=size)
    return jit(inner)(*dyn, **kwargs)
  return mapped


def _mapped_size(args, in_axes, kwargs) -> int:
  axes = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
  for arg, ax in [*zip(args, axes), *((v, 0) for v in kwargs.values())]:
    for leaf, leaf_ax in zip(tree_util.tree_leaves(arg), _broadcast(ax, arg)):
      if leaf_ax is not None:
        return get_aval(leaf).shape[leaf_ax]
  raise ValueError("pmap needs at least one mapped argument (or axis_size)")


def _broadcast(ax, arg) -> list:
  if isinstance(ax, int) or ax is None:
    return [ax] * len(tree_util.tree_leaves(arg))
  return tree_util.tree_leaves(ax, is_leaf=lambda x: x is None)  # a pytree of axes
