"""Effects: what a primitive does besides computing its outputs.

An equation's effects (``Primitive.effects(**params)``) are collected into its jaxpr's
``effects``.  Effectful equations are never dropped as dead code; *ordered* ones also run in
program order (the lowering threads a token through them, see backend/lowering.py).
"""
from __future__ import annotations


class Effect:
  __slots__ = ("name", "ordered")

  def __init__(self, name: str, ordered: bool) -> None:
    self.name = name
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


debug_effect = DebugEffect()
ordered_debug_effect = OrderedDebugEffect()
io_effect = Effect("IO", ordered=False)
ordered_io_effect = Effect("OrderedIO", ordered=True)


def has_ordered(effects) -> bool:
  return any(e.ordered for e in effects)
