"""The in-memory budget of compiled programs.

jit keeps one compiled program per function and argument signature; a long-running process
that compiles thousands would otherwise hold every executable, and the device buffers of
its constants, for as long as the function lives.  The budget bounds how many compiled
programs stay loaded (``max_entries``) and how many bytes of constant buffers they keep on
devices (``max_bytes``).  Past either bound it unloads the least recently used programs:
an unloaded program keeps only its jaxpr and is compiled again (through the persistent
compilation cache, so usually loaded from disk) when next called.

Recency is tracked the cheap way (CLOCK, "second chance"): each call sets a ``used`` flag,
and eviction skips, and clears, flagged programs once.  XLA does not report the code size
of CPU executables, so code is bounded by the entry count alone.
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict


class ExecutableBudget:
  """Loaded compiled programs (objects with ``nbytes``, ``take_used()`` -- whether it ran
  since last asked -- and ``unload()``), held weakly, bounded by count and bytes."""

  def __init__(self, max_entries: int, max_bytes: int) -> None:
    self.max_entries = max_entries
    self.max_bytes = max_bytes
    self._loaded: OrderedDict = OrderedDict()  # id -> (weakref, nbytes), oldest first
    self._bytes = 0
    self._lock = threading.Lock()

  def admit(self, program) -> None:
    """Counts a program that has just been loaded, unloading others if over budget."""
    key = id(program)
    with self._lock:
      self._loaded[key] = (weakref.ref(program, lambda ref: self._forget(key, ref)),
                           program.nbytes)
      self._bytes += program.nbytes
      evicted = self._evict(key)
    for victim in evicted:  # outside the lock: unloading drops runtime objects
      victim.unload()

  def release(self, program) -> None:
    """Stops counting ``program`` (it unloaded itself)."""
    with self._lock:
      entry = self._loaded.pop(id(program), None)
      if entry is not None:
        self._bytes -= entry[1]

  def _forget(self, key: int, ref) -> None:
    with self._lock:
      entry = self._loaded.get(key)
      if entry is not None and entry[0] is ref:
        del self._loaded[key]
        self._bytes -= entry[1]

  def _evict(self, newest: int) -> list:
    """Unloads, oldest first, until within budget; never the program just admitted."""
    victims = []
    while len(self._loaded) > 1 and (len(self._loaded) > self.max_entries
                                     or self._bytes > self.max_bytes):
      key, (ref, nbytes) = next(iter(self._loaded.items()))
      program = ref()
      if key == newest or (program is not None and program.take_used()):
        self._loaded.move_to_end(key)  # a second chance
        continue
      del self._loaded[key]
      self._bytes -= nbytes
      if program is not None:
        victims.append(program)
    return victims

  def stats(self) -> tuple[int, int]:
    """(programs loaded, bytes of their constant buffers)."""
    with self._lock:
      return len(self._loaded), self._bytes


# 2,048 executables is about 0.7 GB of host memory for small CPU programs.
budget = ExecutableBudget(max_entries=2048, max_bytes=1 << 30)
