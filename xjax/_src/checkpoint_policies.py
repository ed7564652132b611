"""``jax.checkpoint_policies``: predicates naming which residuals ``checkpoint`` may save.

A policy is called as ``policy(prim, *avals, **params) -> bool``.  xjax's ``checkpoint``
always recomputes, so a policy changes memory use only, never values.
"""
from __future__ import annotations


def everything_saveable(*_, **__) -> bool:
  return True


def nothing_saveable(*_, **__) -> bool:
  return False


def dots_saveable(prim, *_, **__) -> bool:
  return getattr(prim, "name", None) in ("dot_general", "conv_general_dilated")


checkpoint_dots = dots_saveable


def dots_with_no_batch_dims_saveable(prim, *_, **params) -> bool:
  if getattr(prim, "name", None) != "dot_general":
    return False
  (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
  return not lhs_b and not rhs_b


checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable


def save_only_these_names(*names):
  """Policy saving only values tagged with one of ``names``."""
  names = frozenset(names)
  return lambda prim, *_, **params: params.get("name") in names


def save_any_names_but_these(*names):
  """Policy saving every tagged value except those named in ``names``."""
  names = frozenset(names)
  return lambda prim, *_, **params: "name" in params and params["name"] not in names


save_anything_except_these_names = save_any_names_but_these


def save_from_both_policies(policy_1, policy_2):
  """Policy saving what either policy saves."""
  return lambda *args, **params: policy_1(*args, **params) or policy_2(*args, **params)
