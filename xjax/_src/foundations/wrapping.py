"""Wrapping user callables: `functools.wraps` that copies what it can.

A transformed callable takes the name, docstring and attributes of the one it wraps.  What a
library hands over need not be a function: an equinox Module's `__name__` may be a field's
placeholder rather than a string.  As JAX does, an attribute that cannot be copied is left
out instead of failing the transformation.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable


def update_wrapper(wrapper, wrapped, updated=functools.WRAPPER_UPDATES):
  """`functools.update_wrapper`, skipping attributes that cannot be read or set."""
  for attr in functools.WRAPPER_ASSIGNMENTS:
    try:
      setattr(wrapper, attr, getattr(wrapped, attr))
    except (AttributeError, TypeError):
      pass
  for attr in updated:
    try:
      getattr(wrapper, attr).update(getattr(wrapped, attr, {}))
    except (AttributeError, TypeError):
      pass
  wrapper.__wrapped__ = wrapped
  return wrapper


def wraps(wrapped) -> Callable:
  """`functools.wraps` on `update_wrapper`."""
  return lambda wrapper: update_wrapper(wrapper, wrapped)


def with_keyword(fn: Callable, name: str, apply: Callable[[Any, Any], Any]) -> Callable:
  """``fn`` taking one more keyword-only argument, ``name`` (default None): the result is
  ``apply(fn(...), value)`` (JAX's ``device=`` and ``out_sharding=`` placement keywords)."""
  @functools.wraps(fn)
  def call(*args, **kwargs):
    value = kwargs.pop(name, None)
    return apply(fn(*args, **kwargs), value)
  sig = inspect.signature(fn)
  call.__signature__ = sig.replace(parameters=[*sig.parameters.values(), inspect.Parameter(
      name, inspect.Parameter.KEYWORD_ONLY, default=None)])
  return call
