"""Memory layouts of arrays (``jax.experimental.layout``): descriptions that JAX code builds
and passes around.  A layout never changes an array's values; xjax keeps XLA's default
(row-major) layouts, so a layout constraint is satisfied as the identity."""
from __future__ import annotations

from dataclasses import dataclass

from xjax._src.foundations.sharding import NamedSharding, SingleDeviceSharding


@dataclass(frozen=True)
class Layout:
  """The order of an array's dimensions in memory, most major first, and its tiling."""
  major_to_minor: tuple
  tiling: tuple | None = None
  sub_byte_element_size_in_bits: int = 0

  def __post_init__(self) -> None:
    object.__setattr__(self, "major_to_minor", tuple(self.major_to_minor))


class Format:
  """An array's layout together with its sharding (either may be left unspecified)."""

  def __init__(self, layout=None, sharding=None) -> None:
    if isinstance(layout, Layout) and not isinstance(sharding, (NamedSharding,
                                                                SingleDeviceSharding)):
      raise ValueError(
          f"Sharding has to be concrete when layout is of type {type(layout)}. Please pass a "
          "`xjax.sharding.NamedSharding` or `xjax.sharding.SingleDeviceSharding` to the "
          f"sharding argument. Got sharding {sharding}")
    self.layout, self.sharding = layout, sharding

  def __eq__(self, other) -> bool:
    return (isinstance(other, Format) and other.layout == self.layout
            and other.sharding == self.sharding)

  def __hash__(self) -> int:
    return hash((self.layout, self.sharding))

  def __repr__(self) -> str:
    return f"Format(layout={self.layout!r}, sharding={self.sharding!r})"


def with_layout_constraint(x, layout):
  """``x``, asked to have ``layout`` in memory (values are the same in every layout)."""
  return x
