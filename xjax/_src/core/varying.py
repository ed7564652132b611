"""The manual mesh axes a value varies over (JAX's "vma"), inside ``shard_map``.

In a ``shard_map`` body that checks them (``check_vma=True``, the default), each value's
type records the manual mesh axes along which it may differ from device to device
(``ShapedArray._vma``, printed ``f32[2]{V:i}``): a block split over ``i`` varies over
``i``; a replicated block, a constant, ``jnp.zeros`` vary over none. The types follow
three kinds of rule:

- most primitives take operands that vary alike and give results that vary as they do:
  where operands differ, those varying over fewer axes are first cast with ``pvary`` (an
  equation in the jaxpr, as JAX's ``auto_pcast`` inserts it), at ``Primitive.bind``;
- a collective's ``vma_rule`` gives its results' axes (``psum`` removes the axes it sums
  over, ``axis_index`` varies over its axis, ``pvary`` adds its axes);
- primitives that call jaxprs (``cond``, ``scan``, ``jit``, ...; their ``vma_rule`` is
  ``from_bodies``) take their results' types from their bodies.

``shard_map`` then checks that each output varies only over axes its ``out_specs`` splits
it over, and reverse mode follows the types: ``pvary``'s transpose sums over its axes.
"""
from __future__ import annotations

from typing import Callable

from xjax._src.foundations.config import config
from xjax._src.core.avals import ShapedArray, ordered_axes, varying_types, vma_of

# How many shard_map bodies that check varying axes are being traced or transformed now:
# while any is, ``Primitive.bind`` casts operands to vary alike.
regions = [0]
_manual: list = []  # the manual axes of each of those bodies, innermost last

# Set by the wiring (docs/design.md §1): ``cast(x, axes)`` is ``x`` cast to vary over the
# manual axes ``axes`` too (``pvary``, which lax defines).
cast: Callable | None = None


class checking:
  """The context of a shard_map body whose values' types record the axes among
  ``manual_axes`` they vary over."""

  def __init__(self, manual_axes) -> None:
    self._axes = frozenset(manual_axes)

  def __enter__(self):
    regions[0] += 1
    _manual.append(self._axes)
    varying_types[0] = True

  def __exit__(self, *exc):
    regions[0] -= 1
    _manual.pop()


def manual_axes() -> frozenset:
  """The manual axes of the checked shard_map bodies being traced (none outside them)."""
  return frozenset().union(*_manual)


def from_bodies(*avals, **params):
  """The ``vma_rule`` of a primitive that calls jaxprs (a call, a loop, a branch): its
  results vary as its bodies' do, as its shape rule gives them (never called)."""
  raise AssertionError("from_bodies marks a rule; the shape rule's types are kept")


def _vma_of(x) -> frozenset:
  return vma_of(getattr(x, "aval", None))


def match_operands(prim, args):
  """``args`` with those that vary over fewer manual axes than the others cast to vary
  over all of them (JAX's auto_pcast, unless ``jax_auto_pcast`` is off), for a primitive
  with the standard rule."""
  if prim.vma_rule is not None or not config._read("jax_auto_pcast"):
    return args
  vmas = [_vma_of(x) for x in args]
  every = frozenset().union(*vmas)
  if all(v == every for v in vmas):
    return args
  return tuple(x if v == every else cast(x, ordered_axes(every - v))
               for x, v in zip(args, vmas))


def with_result_vma(prim, avals, out, params):
  """``out`` (the shape rule's result types) with the axes the results vary over."""
  rule = prim.vma_rule
  if rule is from_bodies:
    return out
  if rule is None:
    given = [vma_of(a) for a in avals]
    vma = frozenset().union(*given)
    if any(v != vma for v in given) and not config._read("jax_auto_pcast"):
      raise ValueError(f"Primitive {prim.name} requires varying manual axes to match, but "
                       f"got {given}. Please open an issue at "
                       "https://github.com/jax-ml/jax/issues and as a temporary workaround "
                       "pass the check_vma=False argument to `jax.shard_map`")
    vmas = [vma] * len(out) if prim.multiple_results else vma
  else:
    vmas = rule(*avals, **params)
  if not prim.multiple_results:
    return _typed(out, vmas)
  return [_typed(o, v) for o, v in zip(out, vmas)]


def _typed(aval, vma):
  if type(aval) is not ShapedArray or aval._vma == vma:
    return aval
  return aval.update(vma=vma)


def active(avals) -> bool:
  """Whether types of operands ``avals`` need the rules: in a checked body, or an
  operand varies."""
  return regions[0] > 0 or any(map(vma_of, avals))
