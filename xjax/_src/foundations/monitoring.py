"""Named events and the listeners that receive them (``jax.monitoring``).

Code marks a point with ``record_event`` (or a duration, a time span, a scalar); every
listener registered for that kind of record is called with the event name, the value(s)
and the keyword metadata.  xjax records JAX's compile-time events (``COMPILE_EVENTS``)
around tracing, lowering and XLA compilation, as libraries listening for them expect.
"""
from __future__ import annotations

import time
from typing import Callable

# The compile-time events JAX records (each as a scalar at the start, then a duration and
# a time span at the end, with ``fun_name`` metadata).
JAXPR_TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
JAXPR_TO_MLIR_MODULE_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

_event_listeners: list[Callable] = []
_duration_listeners: list[Callable] = []
_time_span_listeners: list[Callable] = []
_scalar_listeners: list[Callable] = []


def record_event(event: str, **kwargs: str | int) -> None:
  """Calls every event listener with ``(event, **kwargs)``.  Pass the same keyword names
  in the same order every time an event is recorded."""
  for listener in _event_listeners:
    listener(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs: str | int) -> None:
  """Calls every duration listener with ``(event, duration, **kwargs)`` (seconds)."""
  for listener in _duration_listeners:
    listener(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float,
                           **kwargs: str | int) -> None:
  """Calls every time-span listener with ``(event, start_time, end_time, **kwargs)``
  (seconds since the epoch)."""
  for listener in _time_span_listeners:
    listener(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value: float | int, **kwargs: str | int) -> None:
  """Calls every scalar listener with ``(event, value, **kwargs)``."""
  for listener in _scalar_listeners:
    listener(event, value, **kwargs)


def register_event_listener(callback: Callable) -> None:
  """``callback(event, **kwargs)`` is called by ``record_event``."""
  _event_listeners.append(callback)


def register_event_duration_secs_listener(callback: Callable) -> None:
  """``callback(event, duration_secs, **kwargs)`` is called by
  ``record_event_duration_secs``."""
  _duration_listeners.append(callback)


def register_event_time_span_listener(callback: Callable) -> None:
  """``callback(event, start_time, end_time, **kwargs)`` is called by
  ``record_event_time_span``."""
  _time_span_listeners.append(callback)


def register_scalar_listener(callback: Callable) -> None:
  """``callback(event, value, **kwargs)`` is called by ``record_scalar``."""
  _scalar_listeners.append(callback)


def _unregister(listeners: list, callback: Callable, kind: str) -> None:
  if callback not in listeners:  # JAX asserts
    raise AssertionError(f"{callback!r} is not a registered {kind} listener")
  listeners.remove(callback)


def unregister_event_listener(callback: Callable) -> None:
  """Removes a listener added with ``register_event_listener``."""
  _unregister(_event_listeners, callback, "event")


def unregister_event_duration_listener(callback: Callable) -> None:
  """Removes a listener added with ``register_event_duration_secs_listener``."""
  _unregister(_duration_listeners, callback, "event duration")


def unregister_event_time_span_listener(callback: Callable) -> None:
  """Removes a listener added with ``register_event_time_span_listener``."""
  _unregister(_time_span_listeners, callback, "event time span")


def unregister_scalar_listener(callback: Callable) -> None:
  """Removes a listener added with ``register_scalar_listener``."""
  _unregister(_scalar_listeners, callback, "scalar")


def clear_event_listeners() -> None:
  """Removes every event, duration and time-span listener (scalar listeners stay, as in
  JAX 0.10.2)."""
  for listeners in (_event_listeners, _duration_listeners, _time_span_listeners):
    listeners.clear()


class timed:
  """``with timed(EVENT, fun_name): ...`` records ``EVENT`` as JAX does for a compile
  stage: a scalar (the start time) on entry, then a duration and a time span on exit."""
  __slots__ = ("event", "fun_name", "start")

  def __init__(self, event: str, fun_name: str) -> None:
    self.event = event
    self.fun_name = fun_name

  def __enter__(self) -> None:
    self.start = time.time()
    record_scalar(self.event, self.start, fun_name=self.fun_name)

  def __exit__(self, *exc) -> None:
    end = time.time()
    record_event_duration_secs(self.event, end - self.start, fun_name=self.fun_name)
    record_event_time_span(self.event, self.start, end, fun_name=self.fun_name)
