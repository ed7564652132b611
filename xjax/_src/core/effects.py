"""Effects: what a primitive does besides computing its outputs.

An equation's effects (``Primitive.effects(**params)``) are collected into its jaxpr's
``effects``.  Effectful equations are never dropped as dead code; *ordered* ones also run in
program order (the lowering threads a token through them, see backend/lowering.py).
"""
from __future__ import annotations


class Effect:
  """An effect (JAX's ``jax.extend.core.Effect``): subclass it and bind instances through a
  primitive's ``effects`` rule (or ``def_effectful_abstract_eval``)."""
  __slots__ = ("name", "ordered")

  def __init__(self, name: str | None = None, ordered: bool = False) -> None:
    self.name = type(self).__name__ if name is None else name
    self.ordered = ordered

  def __repr__(self) -> str:
    return self.name


class DebugEffect(Effect):
  """A host call for debugging (``debug.callback``, ``debug.print``), in any order."""
  __slots__ = ()

  def __init__(self) -> None:
    super().__init__("Debug", ordered=False)


class OrderedDebugEffect(Effect):
  """A host call for debugging that keeps program order (``ordered=True``)."""
  __slots__ = ()

  def __init__(self) -> None:
    super().__init__("OrderedDebug", ordered=True)


class IOEffect(Effect):
  """A host call with side effects (``io_callback``)."""
  __slots__ = ()


debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()
io_effect = IOEffect("IO", ordered=False)
ordered_io_effect = IOEffect("OrderedIO", ordered=True)


def has_ordered(effects) -> bool:
  return any(e.ordered for e in effects)


class EffectTypeSet:
  """A set of effect types: an effect is in it when it is an instance of one of them."""

  def __init__(self) -> None:
    self._types: set[type] = set()

  def __repr__(self) -> str:
    return f"EffectTypeSet({self._types})"

  def add_type(self, effect_type: type) -> None:
    self._types.add(effect_type)

  def contains(self, effect: Effect) -> bool:
    return isinstance(effect, tuple(self._types))

  def filter_in(self, effects) -> list:
    return [e for e in effects if self.contains(e)]

  def filter_not_in(self, effects) -> list:
    return [e for e in effects if not self.contains(e)]


# The effects that cond, while_loop and scan bodies may have (the lowering threads a token
# through them); a library adds its own effect types here (flax nnx does at import).
control_flow_allowed_effects = EffectTypeSet()
for _t in (DebugEffect, OrderedDebugEffect, IOEffect):
  control_flow_allowed_effects.add_type(_t)


def check_control_flow_effects(name: str, effects) -> None:
  """NotImplementedError when a body of control-flow primitive ``name`` has an effect
  whose type is not in ``control_flow_allowed_effects``, as JAX."""
  disallowed = control_flow_allowed_effects.filter_not_in(effects)
  if disallowed:
    raise NotImplementedError(f"Effects not supported in `{name}`: {disallowed}")
