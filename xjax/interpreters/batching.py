"""Vectorization extension points (``jax.interpreters.batching``).

``primitive_batchers[p] = rule`` takes JAX's signature ``rule(batched_args, batch_dims,
**params) -> (out, out_dim)`` and stores it, adapted, as ``p``'s batching rule;
``fancy_primitive_batchers`` holds rules taking the axis first, ``rule(axis_data, args,
dims, **params)``, which is xjax's own signature; ``axis_primitive_batchers`` rules take
``(axis_size, axis_name, trace_type, batched_args, batch_dims, **params)``.
"""
from xjax._src.interpreters.batching import bdim_to_front as _bdim_to_front
from xjax._src.interpreters.batching import matchaxis as _matchaxis
from xjax._src.extend import rule_registries as _registries
from xjax._src.primitives.lax.elementwise import elementwise_batch as _elementwise_batch
from xjax._src.api.vmappable import register_vmappable, unregister_vmappable  # noqa: F401

_Registry = _registries.RuleRegistry
primitive_batchers = _Registry("batching.primitive_batchers", "batch",
                               _registries.batcher_to_slot, _registries.batcher_from_slot)
fancy_primitive_batchers = _Registry("batching.fancy_primitive_batchers", "batch")
axis_primitive_batchers = _Registry("batching.axis_primitive_batchers", "batch",
                                    _registries.axis_batcher_to_slot,
                                    _registries.axis_batcher_from_slot)


def bdim_at_front(x, bdim, size: int):
  """``x`` with its batch dimension first (broadcast to ``size`` when unbatched)."""
  return _bdim_to_front(x, bdim, size)


def broadcast(x, size: int, axis: int, mesh_axis=None):
  """``x`` broadcast along a new dimension ``axis`` of ``size``."""
  return _matchaxis(x, None, axis, size)


def defvectorized(prim) -> None:
  """A primitive that acts independently on every element along any leading dimension:
  it is batched by applying it to the batched operands as they are."""
  def batch(axis, args, dims, **params):
    out_dim = next(d for d in dims if d is not None)
    args = [_matchaxis(x, d, out_dim, axis.size) for x, d in zip(args, dims)]
    out = prim.bind(*args, **params)
    return out, ([out_dim] * len(out) if prim.multiple_results else out_dim)
  prim.batch = batch


def defbroadcasting(prim) -> None:
  """An elementwise primitive over operands of equal rank (or rank 0)."""
  prim.batch = _elementwise_batch(prim)


def defreducer(prim) -> None:
  """A reduction over the dimensions in its ``axes`` parameter."""
  def batch(axis, args, dims, *, axes, **params):
    args = [_bdim_to_front(x, d, axis.size) for x, d in zip(args, dims)]
    out = prim.bind(*args, axes=tuple(a + 1 for a in axes), **params)
    return out, ([0] * len(out) if prim.multiple_results else 0)
  prim.batch = batch


def __getattr__(name):
  from xjax._src.compat.removed_names import missing_name
  raise missing_name(__name__, name)
