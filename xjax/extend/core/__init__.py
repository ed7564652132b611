"""``jax.extend.core``: primitives, the jaxpr IR, and the trace context."""
import weakref as _weakref
from collections.abc import Set as _Set
from contextlib import contextmanager as _contextmanager
from typing import Any as _Any, Callable as _Callable

import numpy as _np

from xjax._src.foundations import dtypes as _dtypes
from xjax._src.extend.call_primitive import CallPrimitive, call_impl  # noqa: F401
from xjax._src.core.avals import ShapedArray as _ShapedArray, tangent_aval as _tangent_aval
from xjax._src.core.effects import Effect  # noqa: F401
from xjax._src.core.concrete import concrete_or_error as _concrete
from xjax._src.core.jaxpr import (ClosedJaxpr, DropVar, Jaxpr, JaxprEqn,  # noqa: F401
                                  Literal, Var, jaxpr_as_fun)
from xjax._src.core.trace import Primitive, set_current_trace  # noqa: F401
from xjax._src.core.trace import current_trace as _current_trace, eval_trace as _eval_trace
from xjax._src.core.typecheck import check_jaxpr, jaxprs_in_params  # noqa: F401
from xjax._src.core.values import is_valid_value as _is_valid_value
from xjax._src.foundations.errors import (InconclusiveDimensionOperation,  # noqa: F401
                                          JaxprTypeError)
from xjax._src.interpreters import batching as _batching
from xjax._src.interpreters.staging import DebugInfo  # noqa: F401
from xjax._src.interpreters.staging import DynamicJaxprTrace as _DynamicJaxprTrace
from xjax._src.primitives.lax.token_classes import AbstractToken, Token  # noqa: F401
from xjax.extend.core import primitives  # noqa: F401

no_effects = frozenset()
Effects = _Set[Effect]
find_top_trace = lambda args=(): _current_trace()   # noqa: E731  (xjax's traces are dynamic)


def _active_traces():
  trace = _current_trace()
  while trace is not None:
    yield trace
    trace = trace.parent


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:
  """Whether a staging trace (jit, make_jaxpr, a control-flow body) is active."""
  return any(type(t) is _DynamicJaxprTrace for t in _active_traces())  # not linearize's


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:
  return any(isinstance(t, _batching.BatchTrace) for t in _active_traces())


def unsafe_get_axis_names_DO_NOT_USE() -> list:
  """The names of the vmapped axes now bound."""
  return _batching.axis_names()


def nonempty_axis_env_DO_NOT_USE() -> bool:
  """Whether a named axis (of ``vmap(axis_name=...)``, ``shard_map``, ``pmap``) is bound."""
  return bool(_batching.axis_names())


class TraceTag:
  """What identifies one run of a transformation: equal only to itself."""
  __slots__ = ("__weakref__",)


# The types whose values are arrays as they are (NumPy arrays and scalars).
array_types = {_np.ndarray, *(dt.type for dt in _dtypes._SUPPORTED if dt != _dtypes.float0)}


@_contextmanager
def take_current_trace():
  """The current trace, with the bottom (eager) trace current inside the block."""
  trace = _current_trace()
  with set_current_trace(_eval_trace):
    yield trace


class _OpaqueTraceState:
  """Which trace is current, comparable for equality (haiku checks that it is unchanged)."""
  __slots__ = ("_trace",)

  def __init__(self, trace) -> None:
    self._trace = _weakref.ref(trace)

  def __eq__(self, other) -> bool:
    return isinstance(other, _OpaqueTraceState) and self._trace() is other._trace()

  def __hash__(self) -> int:
    return id(self._trace())


def get_opaque_trace_state(convention=None) -> _OpaqueTraceState:
  return _OpaqueTraceState(_current_trace())


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=no_effects, source_info=None,
                  ctx=None) -> JaxprEqn:
  return JaxprEqn(primitive, list(invars), list(outvars), dict(params), effects, source_info,
                  ctx)


def gensym(suffix: str = "") -> _Callable[[_ShapedArray], Var]:
  """A maker of fresh variables of a given aval."""
  return Var


def concrete_or_error(force: _Callable | None, val: _Any, context: str = ""):
  """``force`` applied to ``val``'s concrete value; ConcretizationTypeError when traced."""
  value = _concrete(val, context or "given")
  return value if force is None else force(value)


def valid_jaxtype(x) -> bool:
  return _is_valid_value(x)


def primal_dtype_to_tangent_dtype(dtype):
  return _tangent_aval(_ShapedArray((), dtype)).dtype


def mapped_aval(size: int, axis: int | None, aval: _ShapedArray) -> _ShapedArray:
  """``aval`` with its mapped dimension ``axis`` (of ``size``) removed."""
  if axis is None:
    return aval
  if aval.shape[axis] != size:
    raise ValueError(f"mapped_aval: axis {axis} of {aval} has size {aval.shape[axis]}, "
                     f"not {size}")
  return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size: int, axis: int | None, aval: _ShapedArray,
                  explicit_mesh_axis=None) -> _ShapedArray:
  """``aval`` with a dimension of ``size`` inserted at ``axis``."""
  if axis is None:
    return aval
  return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


def subjaxprs(jaxpr: Jaxpr):
  """The jaxprs held by ``jaxpr``'s equations (not recursively)."""
  for eqn in jaxpr.eqns:
    yield from jaxprs_in_params(eqn.params)

