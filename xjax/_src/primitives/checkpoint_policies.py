"""``jax.checkpoint_policies``: which values ``checkpoint`` saves for the backward pass.

A policy is called on each equation of the forward (primal) part of a checkpointed
function as ``policy(prim, *in_avals, **params)`` and answers True / ``Saveable`` (save its
outputs), False / ``Recompute`` (recompute them in the backward pass if needed) or an
``Offloadable(src, dst)`` (saved; xjax keeps the value where it is).
"""
from __future__ import annotations

import dataclasses
import types

from xjax._src.primitives.checkpoint import Offloadable, Recompute, Saveable, name_p
from xjax._src.primitives.lax.windowed import conv_general_dilated_p
from xjax._src.primitives.lax.dot import dot_general_p


def everything_saveable(*_, **__) -> bool:
  """Save every value: the same memory use as without ``checkpoint``."""
  return True


def nothing_saveable(*_, **__) -> bool:
  """Save nothing but the inputs: recompute everything (``checkpoint``'s default)."""
  return False


def _no_batch_dims(params) -> bool:
  (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
  return not lhs_b and not rhs_b


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
  """Save the results of matrix multiplications (and convolutions), or only of those
  without batch dimensions."""
  only_if_no_batch_dims: bool

  def __call__(self, prim, *_, **params) -> bool:
    if self.only_if_no_batch_dims:
      return prim is dot_general_p and _no_batch_dims(params)
    return prim is dot_general_p or prim is conv_general_dilated_p


dots_saveable = checkpoint_dots = DotsSaveable(False)
dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = DotsSaveable(True)


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
  """Like ``dots_with_no_batch_dims_saveable``, with the saved values offloaded from memory
  ``offload_src`` to ``offload_dst``."""
  def policy(prim, *_, **params):
    if prim is dot_general_p and _no_batch_dims(params):
      return Offloadable(src=offload_src, dst=offload_dst)
    return Recompute
  return policy


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
  """Save only values tagged by ``checkpoint_name`` with one of ``saveable_names``."""
  saveable_names: frozenset

  def __call__(self, prim, *_, **params) -> bool:
    return prim is name_p and params["name"] in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
  """Save every value tagged by ``checkpoint_name`` except those named in ``names``."""
  names: frozenset

  def __call__(self, prim, *_, **params) -> bool:
    return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names_which_can_be_saved):
  """Save only the named values (``checkpoint_name``) whose name is given."""
  return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))


def save_any_names_but_these(*names_not_to_save):
  """Save only named values (``checkpoint_name``), except those whose name is given."""
  return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_anything_except_these_names(*names_not_to_save):
  """Meant to save everything but the given names; in JAX 0.10.2 it saves everything, and
  xjax does the same."""
  del names_not_to_save
  return everything_saveable


def save_and_offload_only_these_names(*, names_which_can_be_saved,
                                      names_which_can_be_offloaded, offload_src, offload_dst):
  """Save the named values of the first list and offload those of the second."""
  saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
  both = saved & offloaded
  if both:
    raise ValueError(
        "The names should be exclusive and should not intersect in "
        "`names_which_can_be_saved` and `names_which_can_be_offloaded`. Got "
        f"names_which_can_be_saved={saved}, names_which_can_be_offloaded={offloaded} and the "
        f"intersection={both}")

  def policy(prim, *_, **params):
    if prim is name_p and params["name"] in saved:
      return Saveable
    if prim is name_p and params["name"] in offloaded:
      return Offloadable(src=offload_src, dst=offload_dst)
    return Recompute
  return policy


def save_from_both_policies(policy_1, policy_2):
  """Save what either policy saves (both must answer with bools)."""
  def policy(prim, *args, **params):
    out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
    if not (isinstance(out1, bool) and isinstance(out2, bool)):
      raise ValueError(
          f"The return value of the policies should be a boolean. Got: {out1} and {out2}. "
          "Please write a custom policy function directly, rather than using this helper "
          "function.")
    return out1 or out2
  return policy


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=checkpoint_dots,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=checkpoint_dots_with_no_batch_dims,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names)
