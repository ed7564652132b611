"""The hijax extension API (``jax.experimental.hijax``): primitives written as classes
(``HiPrimitive``) and JAX's high-level types (``HiType``, ``MutableHiType``, with their
quasi-dynamic data ``AvalQDD`` / ``AvalMutableQDD``).

A ``HiPrimitive``'s methods are its rules: ``impl`` (eager evaluation), ``abstract_eval``
(returning ``(avals, effects)``), ``to_lojax`` (its lowering: traced at the operands' types
and inlined), ``jvp``, ``transpose`` and, when defined, ``batch``; on array operands it runs
through every transformation.  Values of a high-level type (``register_hitype``) work eagerly:
``typeof`` gives their type, their HiPrimitives run, and methods a type declares with
``aval_method``/``aval_property`` apply to its traced values.  xjax's transformations do not
carry such values (JAX lowers them to arrays with ``lo_ty``/``lower_val``): staging a
HiPrimitive on one, or passing one to ``jit``, raises NotImplementedError.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import (Primitive, Tracer, aval_method,  # noqa: F401
                                  aval_property, current_trace, eval_trace)
from xjax._src.core.values import get_aval, pytype_aval_mappings
from xjax._src.primitives.state.types import AbstractRef
from xjax._src.primitives.traced_lowering import check_count, traced_emitter

_DOCS = "see docs/differences.md, 'jax.experimental.hijax'"


class AbstractValue(abc.ABC):
  """The type of a traceable value: an array's ShapedArray, a ref's AbstractRef, or a
  high-level type (a HiType or MutableHiType subclass)."""


AbstractValue.register(ShapedArray)
AbstractValue.register(AbstractRef)


def _not_supported(what: str) -> NotImplementedError:
  return NotImplementedError(
      f"{what}: xjax's transformations (jit, grad, vmap, ...) carry arrays and mutable refs, "
      f"not values of high-level types (jax.experimental.hijax), which work eagerly only; "
      f"{_DOCS}.")


def is_high(aval) -> bool:
  """Whether ``aval`` is a high-level type (or one with its quasi-dynamic data)."""
  return isinstance(aval, (HiType, MutableHiType, AvalQDD, AvalMutableQDD))


def check_low(avals, where: str) -> None:
  """NotImplementedError when a value of a high-level type reaches ``where``."""
  for a in avals:
    if is_high(a):
      raise _not_supported(f"{where} was given a value of type {a}")


# ---------------------------------------------------------------------------------------
# Quasi-dynamic data: type information of a mutable value that its mutations may change

class QuasiDynamicData:
  """The base of a mutable high-level type's changing type information."""


class MutableQuasiDynamicData:
  """A QDD cell: its initial value and, after ``update``, its current one."""

  def __init__(self, val) -> None:
    self.init_val = val
    self.cur_val = val

  def update(self, val) -> None:
    self.cur_val = val

  def __repr__(self) -> str:
    return f"MutableQuasiDynamicData(init_val={self.init_val}, cur_val={self.cur_val})"


@dataclass(frozen=True)
class AvalQDD:
  """A mutable high-level type with its quasi-dynamic data."""
  aval: Any
  qdd: Any
  is_high = True
  has_qdd = True


@dataclass(frozen=True)
class AvalMutableQDD:
  """A mutable high-level type with the QDD cell that operations on it update."""
  aval: Any
  mutable_qdd: MutableQuasiDynamicData


def cur_qdd(x):
  """The current quasi-dynamic data of the mutable high-level value ``x``."""
  if isinstance(x, Tracer):
    raise _not_supported("cur_qdd of a traced value")
  return x.cur_qdd()


def register_hitype(val_cls: type, typeof_fn) -> None:
  """Makes ``typeof_fn(value)`` the type of values of class ``val_cls``."""
  pytype_aval_mappings[val_cls] = typeof_fn


# ---------------------------------------------------------------------------------------
# High-level types: the interfaces a subclass implements

def _must_override(obj, name: str) -> NotImplementedError:
  return NotImplementedError(f"{type(obj).__name__} must override {name}")


class HiType(AbstractValue):
  """An immutable high-level type, lowered to a list of array types (``lo_ty``)."""
  is_high = True
  has_qdd = False

  def lo_ty(self) -> list:
    raise _must_override(self, "lo_ty")

  def lower_val(self, hi_val) -> list:
    raise _must_override(self, "lower_val")

  def raise_val(self, *lo_vals):
    raise _must_override(self, "raise_val")

  def to_tangent_aval(self):
    raise _must_override(self, "to_tangent_aval")

  def to_ct_aval(self):
    return self.to_tangent_aval()

  def vspace_zero(self):
    raise _must_override(self, "vspace_zero")

  def vspace_add(self, x, y):
    raise _must_override(self, "vspace_add")

  def dec_rank(self, size, spec):
    raise _must_override(self, "dec_rank")

  def inc_rank(self, size, spec):
    raise _must_override(self, "inc_rank")

  def leading_axis_spec(self):
    raise _must_override(self, "leading_axis_spec")


class MutableHiType(AbstractValue):
  """A mutable high-level type: what it lowers to depends on its current QDD."""
  is_high = True
  has_qdd = True
  is_writer = False
  type_state = aval_method(cur_qdd)

  def lo_ty_qdd(self, state, /) -> list:
    raise _must_override(self, "lo_ty_qdd")

  def lo_ty(self):
    raise NotImplementedError("mutable high-level types use lo_ty_qdd instead of lo_ty")

  def new_from_loval(self, state, /, *vals):
    raise _must_override(self, "new_from_loval")

  def read_loval(self, state, val, /) -> list:
    raise _must_override(self, "read_loval")

  def update_from_loval(self, state, val, /, *lo_vals) -> None:
    raise _must_override(self, "update_from_loval")

  def to_tangent_aval(self):
    raise _must_override(self, "to_tangent_aval")

  def to_ct_aval(self):
    return self.to_tangent_aval()


class HiPspec:
  """How a high-level type is partitioned over a mesh (its array parts' specs)."""

  def to_lo(self) -> tuple:
    raise _must_override(self, "to_lo")

  def to_tangent_spec(self):
    raise _must_override(self, "to_tangent_spec")

  def to_ct_spec(self):
    raise _must_override(self, "to_ct_spec")


# ---------------------------------------------------------------------------------------
# Primitives as classes

class HiPrimitive(Primitive):
  """A primitive whose rules are its methods: ``abstract_eval(*avals, **params) ->
  (avals, effects)``, ``impl`` (optional: otherwise eager evaluation compiles
  ``to_lojax``), ``to_lojax(*values, **params)`` (the lowering, in terms of other
  operations), ``jvp(primals, tangents, **params)``, ``transpose(cts, *args, **params)``
  and optionally ``batch(axis_data, args, dims, **params)``."""

  def __init__(self, name: str) -> None:
    super().__init__(name, type(self).multiple_results)
    cls = type(self)
    rule = cls.abstract_eval.__get__(self)

    def with_effects(*avals, **params):
      out, effects = rule(*avals, **params)
      check_low(out if self.multiple_results else [out], f"primitive '{self.name}'")
      return out, frozenset(effects)
    self.effectful_abstract_eval = with_effects
    self.abstract_eval = lambda *avals, **params: with_effects(*avals, **params)[0]
    self.lowering = self._traced_lowering(traced_emitter(self.to_lojax, self.multiple_results))
    self.jvp = cls.jvp.__get__(self)
    self.transpose = cls.transpose.__get__(self)
    if getattr(cls, "batch", None) is not None:
      self.batch = cls.batch.__get__(self)

  def _traced_lowering(self, emit):
    """The lowering rule emitting ``to_lojax`` traced at the operands' types."""
    def lower(ctx, *operands, **params):
      outs = emit(ctx, tuple(ctx.avals_in), list(ctx.avals_out), operands, params)
      check_count(f"primitive '{self.name}'", len(outs), len(ctx.avals_out))
      return outs if self.multiple_results else outs[0]
    return lower

  def bind(self, *args, **params):
    if current_trace() is not eval_trace:
      check_low([get_aval(x) for x in args], f"primitive '{self.name}' under a transformation")
    return super().bind(*args, **params)

  def is_high(self, *avals, **params) -> bool:
    return True

  def is_effectful(self, params) -> bool:
    return False

  def abstract_eval(self, *avals, **params):
    raise _must_override(self, "abstract_eval")

  def to_lojax(self, *args, **params):
    raise _must_override(self, "to_lojax")

  def jvp(self, primals, tangents, **params):
    raise _must_override(self, "jvp")

  def transpose(self, *args, **params):
    raise _must_override(self, "transpose")


class VJPHiPrimitive:
  """JAX's primitives defined by ``expand``/``vjp_fwd``/``vjp_bwd`` methods: not supported
  by xjax (use ``jax.custom_vjp``)."""

  def __init__(self, *args, **kwargs) -> None:
    raise NotImplementedError(f"VJPHiPrimitive is not supported by xjax: define the "
                              f"operation with jax.custom_vjp instead ({_DOCS}).")


class TransformedRef:
  """JAX's view of a ref through indexing transforms (``ref.at[...]``): not supported by
  xjax (index the ref directly)."""

  def __init__(self, *args, **kwargs) -> None:
    raise NotImplementedError(f"TransformedRef (ref.at[...]) is not supported by xjax: index "
                              f"the ref directly, ref[idx] / ref[idx] = x ({_DOCS}).")
