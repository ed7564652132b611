"""Vectorization: the batching trace behind ``vmap``.

Each value carries (value, batch dimension or ``None`` when unbatched).  A primitive with a
batched input runs its ``batch`` rule, ``rule(axis, args, dims, **params) -> (out, out_dim)``,
which should keep batch dimensions where they are when it can.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Sequence

import numpy as np

from xjax._src.core import leaks
from xjax._src.core.avals import ShapedArray, spec_of, vma_of
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, eval_jaxpr
from xjax._src.core.jaxpr_cache import cached_on_jaxpr, frozen
from xjax._src.core.trace import Trace, Tracer, current_trace, new_trace, set_current_trace
from xjax._src.core.values import get_aval
from xjax._src.foundations.sharding import get_abstract_mesh, typed_sharding
from xjax._src.interpreters import array_builders as build
from xjax._src.interpreters.staging import trace_to_jaxpr

not_mapped = None


class AxisData:
  """The vmapped axis: its size, (optional) name for collectives, ``spmd_name``: the
  mesh axes (a tuple, or None) that split the batch dimension of the sharding
  constraints made under it (``vmap(spmd_axis_name=...)``), and ``explicit_mesh_axis``:
  the Explicit mesh axes (a tuple, or None) that split the mapped inputs (JAX's name)."""
  __slots__ = ("size", "name", "spmd_name", "explicit_mesh_axis")

  def __init__(self, size: int, name, spmd_name: tuple | None = None,
               explicit_mesh_axis: tuple | None = None) -> None:
    self.size = size
    self.name = name
    self.spmd_name = spmd_name
    self.explicit_mesh_axis = explicit_mesh_axis


class BatchTracer(Tracer):
  __slots__ = ("val", "bdim")

  def __init__(self, trace: "BatchTrace", val, bdim) -> None:
    self._trace = trace
    self.val = val
    self.bdim = bdim

  @property
  def aval(self) -> ShapedArray:
    aval = get_aval(self.val)
    if self.bdim is None:
      return aval
    shape = aval.shape[:self.bdim] + aval.shape[self.bdim + 1:]
    sharding = getattr(aval, "_sharding", None)  # (refs' types have none)
    if sharding is None:
      return aval.update(shape=shape)
    spec = sharding.spec  # the batch dimension's split is the batch's, not the type's
    return aval.update(shape=shape, sharding=sharding.update(
        spec=spec[:self.bdim] + spec[self.bdim + 1:]))

  @property
  def batch_dim(self):
    """The axis of ``val`` that is mapped (None: unmapped)."""
    return self.bdim

  def get_referent(self):
    return self.val.get_referent() if isinstance(self.val, Tracer) else self.val

  def jax_repr(self) -> str:
    return f"VmapTracer(aval={self.aval}, batched={get_aval(self.val)})"


class BatchTrace(Trace):
  __slots__ = ("axis",)

  def __init__(self, parent: Trace, axis: AxisData) -> None:
    super().__init__(parent)
    self.axis = axis

  def __repr__(self) -> str:
    return "BatchTrace"

  def lift(self, x):
    if isinstance(x, BatchTracer) and x._trace is self:
      return x.val, x.bdim
    return x, None

  def process_primitive(self, prim, args, params):
    vals, dims = zip(*map(self.lift, args)) if args else ((), ())
    handles_axis = self.axis.name is not None and _uses_axis(prim, params, self.axis.name)
    if all(d is None for d in dims) and not handles_axis and not prim.ref_allocating:
      with set_current_trace(self.parent):
        return prim.bind(*vals, **params)
    if prim.batch is None:
      raise NotImplementedError(f"Batching rule for '{prim.name}' not implemented")
    with set_current_trace(self.parent):
      out, out_dim = prim.batch(self.axis, list(vals), list(dims), **params)
    if prim.multiple_results:
      return [BatchTracer(self, o, d) for o, d in zip(out, out_dim)]
    return BatchTracer(self, out, out_dim)


def _uses_axis(prim, params, name) -> bool:
  """Whether ``prim`` (or a jaxpr among its params) runs a collective over axis ``name``."""
  if prim.is_collective:   # (psum, pmax and pmin name theirs in ``axes``, as JAX)
    names = params.get("axes", params.get("axis_name"))
    return name in (names if isinstance(names, tuple) else (names,))
  for p in params.values():
    for jaxpr in (p if isinstance(p, (tuple, list)) else (p,)):
      jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
      if isinstance(jaxpr, Jaxpr) and any(_uses_axis(e.primitive, e.params, name)
                                          for e in jaxpr.eqns):
        return True
  return False


class _AxisEnv(threading.local):
  def __init__(self) -> None:
    self.sizes: list[tuple[Any, int]] = []


_axis_env = _AxisEnv()


@contextmanager
def _bound_axis(axis: AxisData):
  """Makes ``axis``'s name known (to ``axis_size``) while a function is batched over it."""
  _axis_env.sizes.append((axis.name, axis.size))
  try:
    yield
  finally:
    _axis_env.sizes.pop()


def axis_size(name) -> int:
  """The size of the innermost vmapped axis called ``name``; NameError if none is."""
  for bound, size in reversed(_axis_env.sizes):
    if name is not None and bound == name:
      return size
  raise NameError(f"unbound axis name: {name}")


def axis_names() -> list:
  """The names of the vmapped axes now bound, outermost first."""
  return [name for name, _ in _axis_env.sizes if name is not None]


def batch_flat(fun: Callable, args: Sequence[Any], in_dims: Sequence, axis: AxisData):
  """Runs ``fun`` on batched ``args``; returns (outs, out_dims) with dims as produced."""
  trace = BatchTrace(current_trace(), axis)
  with new_trace(trace), _bound_axis(axis):
    ins = [x if d is None else BatchTracer(trace, x, d) for x, d in zip(args, in_dims)]
    outs = fun(*ins)
    pairs = [trace.lift(o) for o in outs]
  if leaks.checking():
    del ins, outs
    leaks.check_no_leaks(trace, "vmap")
  return [v for v, _ in pairs], [d for _, d in pairs]


# ---------------------------------------------------------------------------------------
# Helpers for rules

def moveaxis(x, src: int, dst: int):
  """``x`` with axis ``src`` moved to ``dst`` (either may be negative)."""
  if src == dst:
    return x
  ndim = get_aval(x).ndim
  src, dst = src % ndim, dst % ndim
  if src == dst:
    return x
  perm = [i for i in range(ndim) if i != src]
  perm.insert(dst, src)
  return build.transpose(x, perm)


def bdim_to_front(x, bdim, size: int, mesh_axis: tuple | None = None):
  """``x`` with its batch dimension first (broadcast when unbatched, split over the Explicit
  ``mesh_axis`` the mapped inputs are split over, if any, as JAX)."""
  if bdim is None:
    aval = get_aval(x)
    # (NumPy integers, as JAX's rule makes them: its jaxprs print them so)
    return build.broadcast_in_dim(x, (size,) + aval.shape, tuple(np.arange(1, aval.ndim + 1)),
                                  _split_along(aval, mesh_axis))
  return moveaxis(x, bdim, 0)


def _split_along(aval, mesh_axis):
  """The type sharding of ``aval`` stacked along a new leading dimension split over
  ``mesh_axis`` (None without one)."""
  if not mesh_axis:
    return None
  sharding = getattr(aval, "_sharding", None)
  mesh = sharding.mesh if sharding is not None else get_abstract_mesh()
  if mesh.empty:
    return None
  return typed_sharding(mesh, (mesh_axis[0] if len(mesh_axis) == 1 else mesh_axis,
                               *spec_of(aval)))


def matchaxis(x, src, dst, size: int, mesh_axis: tuple | None = None):
  """Moves (or broadcasts, when unbatched) ``x``'s batch dimension to ``dst``."""
  if src is None:
    return moveaxis(bdim_to_front(x, None, size, mesh_axis), 0, dst)
  return moveaxis(x, src, dst)


def _batch_key(axis, in_batched, instantiate=False):
  return (axis.size, axis.name, axis.spmd_name, axis.explicit_mesh_axis, frozen(in_batched),
          frozen(instantiate),
          tuple(_axis_env.sizes))


def _stacked(aval, size: int, mesh_axis: tuple | None) -> ShapedArray:
  """The type of ``size`` values of type ``aval`` stacked along a new leading axis, split
  over the Explicit ``mesh_axis`` the mapped inputs are split over (if any)."""
  sharding = getattr(aval, "_sharding", None)
  split = _split_along(aval, mesh_axis)
  if split is None and sharding is not None:
    split = sharding.update(spec=(None, *sharding.spec))
  return ShapedArray((size,) + aval.shape, aval.dtype, aval.weak_type, sharding=split,
                     vma=vma_of(aval))


def _stacked_at(aval, size: int, dim: int, mesh_axis: tuple | None) -> ShapedArray:
  """``_stacked``, the new axis at ``dim``."""
  stacked = _stacked(aval, size, mesh_axis)
  if dim == 0:
    return stacked
  perm = [*range(1, dim + 1), 0, *range(dim + 1, stacked.ndim)]
  shape = tuple(stacked.shape[p] for p in perm)
  sharding = getattr(stacked, "_sharding", None)
  if sharding is not None:
    sharding = sharding.update(spec=tuple(sharding.spec[p] for p in perm))
  return ShapedArray(shape, stacked.dtype, stacked.weak_type, sharding=sharding,
                     vma=stacked._vma)


@cached_on_jaxpr(lambda axis, in_dims, out_dims: _batch_key(axis, in_dims, out_dims))
def batch_closed_jaxpr_axes(closed: ClosedJaxpr, axis: AxisData, in_dims: Sequence,
                            out_dims: Sequence) -> ClosedJaxpr:
  """A jaxpr over inputs batched at ``in_dims`` (None: unbatched), its outputs batched at
  ``out_dims`` (broadcast there if need be; None: the output comes out unbatched)."""
  avals = [a if d is None else _stacked_at(a, axis.size, d, axis.explicit_mesh_axis)
           for a, d in zip(closed.in_avals, in_dims)]

  def fun(*args):
    outs, dims = batch_flat(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                            args, list(in_dims), axis)
    assert all(t is not None or d is None for d, t in zip(dims, out_dims))
    return [o if t is None else matchaxis(o, d, t, axis.size, axis.explicit_mesh_axis)
            for o, d, t in zip(outs, dims, out_dims)]
  return trace_to_jaxpr(fun, avals)


@cached_on_jaxpr(lambda axis, in_dims: _batch_key(axis, in_dims))
def batch_closed_jaxpr_in_place(closed: ClosedJaxpr, axis: AxisData, in_dims: Sequence):
  """(a jaxpr over inputs batched at ``in_dims``, the dimensions its outputs come out
  batched at, None where unbatched): nothing moved, as JAX batches its ``jit``'s body."""
  avals = [a if d is None else _stacked_at(a, axis.size, d, axis.explicit_mesh_axis)
           for a, d in zip(closed.in_avals, in_dims)]
  result = {}

  def fun(*args):
    outs, result["dims"] = batch_flat(
        lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs), args, list(in_dims), axis)
    return outs
  jaxpr = trace_to_jaxpr(fun, avals)
  return jaxpr, result["dims"]


@cached_on_jaxpr(_batch_key)
def batch_closed_jaxpr(closed: ClosedJaxpr, axis: AxisData, in_batched: Sequence[bool],
                       instantiate: bool | Sequence[bool] = False):
  """A jaxpr over inputs batched at dimension 0 (where ``in_batched``); outputs batched
  at 0 where the returned flags say so (always, where ``instantiate``)."""
  n_out = len(closed.out_avals)
  inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
  avals = [_stacked(a, axis.size, axis.explicit_mesh_axis) if b else a for a, b in zip(closed.in_avals, in_batched)]
  result = {}

  def fun(*args):
    dims = [0 if b else None for b in in_batched]
    outs, out_dims = batch_flat(lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                                args, dims, axis)
    batched = [d is not None or i for d, i in zip(out_dims, inst)]
    result["batched"] = batched
    return [matchaxis(o, d, 0, axis.size, axis.explicit_mesh_axis) if b else o
            for o, d, b in zip(outs, out_dims, batched)]

  jaxpr = trace_to_jaxpr(fun, avals)
  return jaxpr, result["batched"]
