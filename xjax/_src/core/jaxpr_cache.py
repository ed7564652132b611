"""Caches keyed by a jaxpr's identity: transformations of a jaxpr, and what is compiled
from it, are computed once per (jaxpr, static parameters) and reused on every later call.

The jaxpr is held weakly, so an entry lives exactly as long as the jaxpr it was made
from (a jit cache entry, a control-flow body); each owner keeps its most recent
``per_owner`` results.  This is what makes ``grad(jit(f))(x)``, ``vmap(jit(f))`` and the
rules of control-flow primitives reuse their jaxprs and executables instead of
re-tracing and re-compiling on every call.  A lock guards only the tables: two threads
missing the same key both compute it (no lock is held while tracing or compiling).
"""
from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from typing import Any, Callable

from xjax._src.foundations.config import config


def frozen(x):
  """``x`` with lists turned into tuples (flags passed as lists become hashable)."""
  if isinstance(x, (list, tuple)):
    return tuple(frozen(v) for v in x)
  return x


class WeakLRU:
  """owner (a jaxpr, a user function) -> bounded LRU of {key: value}; entries vanish with
  their owner.  ``get`` and ``put`` raise TypeError for an owner that cannot be weakly
  referenced or a key that cannot be hashed."""

  def __init__(self, per_owner: int) -> None:
    self.per_owner = per_owner
    self._table: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
    self._lock = threading.Lock()

  def get(self, owner, key):
    with self._lock:
      entries = self._table.get(owner)
      if entries is None or key not in entries:
        return None
      entries.move_to_end(key)
      return entries[key]

  def put(self, owner, key, value) -> None:
    with self._lock:
      entries = self._table.get(owner)
      if entries is None:
        entries = self._table[owner] = OrderedDict()
      entries[key] = value
      if len(entries) > self.per_owner:
        entries.popitem(last=False)

  def size(self) -> int:
    """The number of cached values over all live jaxprs."""
    with self._lock:
      return sum(len(e) for e in self._table.values())

  def clear(self) -> None:
    with self._lock:
      self._table.clear()


def bounded_put(table: dict, key, value, maxsize: int) -> None:
  """``table[key] = value``, first dropping the oldest entry when ``table`` is full (safe
  against other threads doing the same)."""
  if len(table) >= maxsize:
    try:
      table.pop(next(iter(table)), None)
    except (StopIteration, RuntimeError):  # emptied or resized by another thread
      pass
  table[key] = value


_tables: list[WeakLRU] = []


def cached_on_jaxpr(key: Callable[..., Any] | None = None, per_owner: int = 32):
  """Caches ``fun(closed, *args, **kwargs)`` on ``closed`` (weakly) and
  ``key(*args, **kwargs)`` (default: the arguments, lists frozen) and the tracing config.
  Lists in a tuple result are copied on each hit, so callers may not mutate the cache."""
  def wrap(fun):
    table = WeakLRU(per_owner)
    _tables.append(table)

    @functools.wraps(fun)
    def cached(closed, *args, **kwargs):
      k = (key(*args, **kwargs) if key is not None else
           (frozen(list(args)), frozen(sorted(kwargs.items()))), config._trace_key)
      try:
        hit = table.get(closed, k)
      except TypeError:  # an unhashable parameter: compute without caching
        return fun(closed, *args, **kwargs)
      if hit is None:
        hit = fun(closed, *args, **kwargs)
        table.put(closed, k, hit)
      if isinstance(hit, tuple):
        return tuple(list(v) if isinstance(v, list) else v for v in hit)
      return hit

    cached.cache_table = table
    return cached
  return wrap


def cache_size() -> int:
  """Values held by every jaxpr-keyed cache (for tests and stress checks)."""
  return sum(t.size() for t in _tables)


def clear_caches() -> None:
  for t in _tables:
    t.clear()
