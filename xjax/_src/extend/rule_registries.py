"""JAX's rule tables (``ad.primitive_jvps``, ``batching.primitive_batchers``, ...) as views
onto the rule slots of xjax's primitives: one set of rules, reachable two ways.

Writing ``registry[prim] = rule`` stores the rule (adapted to xjax's signature where JAX's
differs) in ``prim``'s slot, so xjax's transformations use it; reading gives back the rule
in JAX's signature, for xjax's own primitives too.
"""
from __future__ import annotations

from typing import Callable

from xjax._src.core.trace import Primitive
from xjax._src.interpreters.batching import AxisData


class RuleRegistry:
  """A mapping from primitives to one of their rule slots (``attr``).

  ``to_slot(prim, rule)`` adapts a rule given in JAX's signature to xjax's; ``from_slot``
  the other way.  Rules stored through the view remember the rule they came from, so a
  round trip gives back the same object (views sharing a slot in other signatures adapt
  the stored slot instead).
  """

  def __init__(self, name: str, attr: str,
               to_slot: Callable[[Primitive, Callable], Callable] | None = None,
               from_slot: Callable[[Primitive, Callable], Callable] | None = None) -> None:
    self.name = name
    self.attr = attr
    self._to_slot = to_slot
    self._from_slot = from_slot

  def _check(self, prim) -> None:
    if not isinstance(prim, Primitive):
      raise TypeError(f"{self.name} is keyed by primitives, got {prim!r}")

  def __setitem__(self, prim: Primitive, rule: Callable) -> None:
    self._check(prim)
    slot = rule if self._to_slot is None else self._to_slot(prim, rule)
    if slot is not rule:
      slot._jax_rule = (self.name, rule)   # given back by this view (others adapt the slot)
    setattr(prim, self.attr, slot)

  def __getitem__(self, prim: Primitive) -> Callable:
    self._check(prim)
    slot = getattr(prim, self.attr)
    if slot is None:
      raise KeyError(prim)
    stored_by, original = getattr(slot, "_jax_rule", (None, None))
    if stored_by == self.name:
      return original
    return slot if self._from_slot is None else self._from_slot(prim, slot)

  def __delitem__(self, prim: Primitive) -> None:
    self[prim]  # KeyError when absent
    setattr(prim, self.attr, None)

  def __contains__(self, prim) -> bool:
    return isinstance(prim, Primitive) and getattr(prim, self.attr) is not None

  def get(self, prim, default=None):
    return self[prim] if prim in self else default

  def pop(self, prim, *default):
    if prim not in self and default:
      return default[0]
    rule = self[prim]
    del self[prim]
    return rule

  def update(self, other=(), **kw) -> None:
    items = other.items() if hasattr(other, "items") else other
    for prim, rule in items:
      self[prim] = rule

  def __repr__(self) -> str:
    return f"<{self.name}: a view onto each primitive's '{self.attr}' rule>"


# -- batching: JAX's ``rule(batched_args, batch_dims, **params)`` vs xjax's
#    ``rule(axis, args, dims, **params)``

def batcher_to_slot(prim: Primitive, rule: Callable) -> Callable:
  def batch(axis, args, dims, **params):
    return rule(args, dims, **params)
  return batch


def batcher_from_slot(prim: Primitive, slot: Callable) -> Callable:
  def rule(batched_args, batch_dims, **params):
    return slot(axis_of(batched_args, batch_dims), list(batched_args), list(batch_dims),
                **params)
  return rule


def axis_of(args, dims) -> AxisData:
  """The (unnamed) vmapped axis of a JAX-style batching call: its size read off the
  first batched argument."""
  for x, d in zip(args, dims):
    if d is not None:
      return AxisData(x.shape[d], None)
  raise ValueError("a batching rule was called with no batched argument")


# -- batching with the axis spelled out (``batching.axis_primitive_batchers``):
#    ``rule(axis_size, axis_name, trace_type, batched_args, batch_dims, **params)``

def axis_batcher_to_slot(prim: Primitive, rule: Callable) -> Callable:
  def batch(axis, args, dims, **params):
    return rule(axis.size, axis.name, None, args, dims, **params)
  return batch


def axis_batcher_from_slot(prim: Primitive, slot: Callable) -> Callable:
  def rule(axis_size, axis_name, trace_type, batched_args, batch_dims, **params):
    return slot(AxisData(axis_size, axis_name), list(batched_args), list(batch_dims),
                **params)
  return rule
