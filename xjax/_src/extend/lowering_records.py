"""The records JAX's lowering API passes around (``jax.interpreters.mlir``): parameters, axis
contexts, shape-polymorphism state, effect tokens and results.  xjax lowers without most of
what they configure (one program per device, static shapes); they are accepted and read
where they mean something to it."""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, NamedTuple, Protocol, Sequence, Union

from xjax._src.core.effects import Effect, EffectTypeSet

# Channel types of XLA's send/recv operations.
DEVICE_TO_DEVICE_TYPE = 1
SEND_TO_HOST_TYPE = 2
RECV_FROM_HOST_TYPE = 3

MeshAxisName = Any
LoweringRule = Callable[..., Sequence[Any]]

# The effect types a jaxpr may have and still be lowered.  xjax threads a token through any
# effect, so every Effect is lowerable; libraries may still add their types, as with JAX.
lowerable_effects = EffectTypeSet()
lowerable_effects.add_type(Effect)


class ConstantHandler(Protocol):
  def __call__(self, val: Any, aval: Any) -> Any:
    """The IR value(s) of the constant ``val`` (of abstract value ``aval``, or None)."""


@dataclasses.dataclass(frozen=True)
class LoweringParameters:
  """How a module is lowered; ``override_lowering_rules`` (pairs of primitive and rule) take
  precedence over the primitives' own rules."""
  override_lowering_rules: tuple | None = None
  global_constant_computation: bool = False
  for_export: bool = False
  export_ignore_forward_compatibility: bool = False
  hoist_constants_as_args: bool = False


class ShapePolyLoweringState:
  """The dimension variables a module is lowered with (xjax's shapes are static: none),
  preceded by the platform index when lowering for several platforms."""

  def __init__(self, dim_vars: tuple[str, ...],
               lowering_platforms: tuple[str, ...] | None) -> None:
    self.has_platform_index_argument = (lowering_platforms is not None
                                        and len(lowering_platforms) > 1)
    if self.has_platform_index_argument:
      dim_vars = ("_platform_index", *dim_vars)
    self.dim_vars = tuple(dim_vars)
    self.uses_dim_vars = bool(self.dim_vars)


@dataclasses.dataclass(frozen=True)
class SPMDAxisContext:
  """A program partitioned over ``mesh``, with ``manual_axes`` lowered manually."""
  mesh: Any
  manual_axes: frozenset = frozenset()


@dataclasses.dataclass(frozen=True)
class ShardingContext:
  """A program over ``num_devices`` devices (``device_assignment``, when known)."""
  num_devices: int
  device_assignment: tuple | None = None
  abstract_mesh: Any = None

  def __post_init__(self) -> None:
    if self.device_assignment is not None and len(self.device_assignment) != self.num_devices:
      raise ValueError(f"ShardingContext: {len(self.device_assignment)} devices assigned, "
                       f"num_devices={self.num_devices}")


AxisContext = Union[SPMDAxisContext, ShardingContext]


class LoweringResult(NamedTuple):
  """What ``lower_jaxpr_to_module`` returns: the ``ir.Module`` and the host callbacks its
  custom calls run (pass them to the compiler with it)."""
  module: Any
  keepalive: Any
  host_callbacks: list
  shape_poly_state: ShapePolyLoweringState


class TokenSet:
  """Effect tokens by effect, in insertion order (immutable)."""
  __slots__ = ("_tokens",)

  def __init__(self, tokens: dict | None = None) -> None:
    self._tokens = dict(tokens) if tokens is not None else {}

  def __len__(self) -> int:
    return len(self._tokens)

  def get(self, effect):
    return self._tokens[effect]

  @classmethod
  def create(cls, effects: Sequence) -> "TokenSet":
    """A fresh token for each of ``effects``, in the module being lowered."""
    # user_lowering lowers with these records; a token is made in its current module
    from xjax._src.extend.user_lowering import create_token
    return cls({e: create_token() for e in effects})

  def items(self) -> tuple:
    return tuple(self._tokens.items())

  def effects(self) -> set:
    return set(self._tokens)

  def subset(self, effects: Sequence) -> "TokenSet":
    return TokenSet({e: self._tokens[e] for e in effects})

  def update_tokens(self, tokens: "TokenSet") -> "TokenSet":
    """These effects, with the tokens ``tokens`` has for them."""
    return TokenSet({e: tokens._tokens.get(e, t) for e, t in self._tokens.items()})
