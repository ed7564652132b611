"""Indexing of mutable refs: an index expression (``ref[1, :, i]``) split into a static
``Indexer`` (a parameter of the state primitives, hashable, printed as JAX prints it) and the
dynamic operands it refers to (integer arrays or traced indices).

Reading and updating a value through an indexer is NumPy indexing and ``.at[]`` updates on
the value (methods the numpy layer installs on arrays and tracers), so refs index exactly as
arrays do.
"""
from __future__ import annotations

import functools
import operator

import numpy as np

from xjax._src.execution.basearray import Array
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax._src.primitives.state.dslice import Slice

_WHOLE: tuple = ()


class Indexer:
  """Static index entries, one per position: ``("int", k)``, ``("slice", start, stop,
  step)``, ``("dyn",)`` (the next dynamic operand), ``("none",)`` (a new axis) or
  ``("ds", start, size, stride)`` (a ``jax.ds`` slice; a None start is the next dynamic
  operand).  No entries means the whole ref (``ref[...]``)."""
  __slots__ = ("entries",)

  def __init__(self, entries: tuple = _WHOLE) -> None:
    self.entries = tuple(entries)

  @property
  def whole(self) -> bool:
    return not self.entries

  def __eq__(self, other) -> bool:
    return type(other) is Indexer and self.entries == other.entries

  def __hash__(self) -> int:
    return hash(self.entries)

  def __repr__(self) -> str:
    return f"Indexer({self.entries})"

  def numpy_index(self, dyn) -> tuple:
    """The index expression with ``dyn`` put back in place of the dynamic entries."""
    dyn = iter(dyn)
    out = []
    for e in self.entries:
      kind = e[0]
      if kind == "ds":
        out.append(Slice(next(dyn) if e[1] is None else e[1], e[2], e[3]))
      else:
        out.append(e[1] if kind == "int" else slice(*e[1:]) if kind == "slice" else
                   next(dyn) if kind == "dyn" else None)
    return tuple(out)

  @property
  def has_ds(self) -> bool:
    return any(e[0] == "ds" for e in self.entries)

  def pretty(self, shape, dyn_names) -> str:
    """``1,:`` / ``c,2:4`` / ``...``: the index as JAX prints it in jaxprs."""
    if self.whole:
      return "..."
    names, dims, parts = iter(dyn_names), iter(shape), []
    for e in self.entries:
      kind = e[0]
      if kind == "none":
        parts.append("None")
        continue
      n = next(dims, None)
      if kind == "int":
        parts.append(str(e[1]))
      elif kind == "dyn":
        parts.append(next(names))
      elif kind == "ds":  # JAX prints start:start+size, whatever the stride
        start = next(names) if e[1] is None else e[1]
        parts.append(f"{start}:{start}+{e[2]}" if e[1] is None else f"{start}:{start + e[2]}")
      else:
        start, stop, step = slice(*e[1:]).indices(n)
        parts.append(":" if (start, stop, step) == (0, n, 1) else
                     f"{start}:{stop}" if step == 1 else f"{start}:{stop}:{step}")
    return ",".join(parts)


WHOLE = Indexer()


def _static_int(x) -> bool:
  return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _static_slice_part(x) -> bool:
  return x is None or _static_int(x)


def parse(idx, shape) -> tuple[Indexer, list]:
  """(Indexer, dynamic operands) of the index expression ``idx`` into a ref of ``shape``."""
  if idx is Ellipsis or (isinstance(idx, tuple) and not idx):
    return WHOLE, []
  items = idx if isinstance(idx, tuple) else (idx,)
  ellipses = sum(1 for x in items if x is Ellipsis)
  if ellipses > 1:
    raise IndexError("an index can only have a single ellipsis ('...')")
  used = sum(1 for x in items if x is not None and x is not Ellipsis)
  if used > len(shape):
    raise IndexError(f"Too many indices for a ref of shape {tuple(shape)}: {used} non-None/"
                     "Ellipsis indices.")
  full = (slice(None),) * (len(shape) - used)
  if ellipses:
    at = next(i for i, x in enumerate(items) if x is Ellipsis)
    items = items[:at] + full + items[at + 1:]
  else:
    items = items + full
  entries, dyn, dim = [], [], 0
  for x in items:
    if x is None:
      entries.append(("none",))
      continue
    if _static_int(x):
      k, n = operator.index(x), shape[dim]
      if not -n <= k < n:
        raise ValueError(f"Out of bound indexer: idx={k}, dim={n}.")
      entries.append(("int", k % n))
    elif isinstance(x, slice):
      parts = (x.start, x.stop, x.step)
      if not all(map(_static_slice_part, parts)):
        raise IndexError(f"Ref slice indices must be static Python integers; got {x} "
                         "(index with an integer array or a traced integer instead).")
      entries.append(("slice",) + tuple(None if p is None else operator.index(p)
                                        for p in parts))
    elif type(x) is Slice:
      if x.is_dynamic_size:
        raise TypeError(f"jax.ds needs a static size, got {x.size!r}.")
      size, n = operator.index(x.size), shape[dim]
      if x.is_dynamic_start:
        dyn.append(x.start)
        start = None
      else:
        start = operator.index(x.start)
        if start and start >= n:
          raise ValueError(f"Out of bound slice: start={start}, dim={n}.")
        if start and size and start + (size - 1) * x.stride >= n:
          raise ValueError(f"Out of bound slice: start={start}, size={size}, "
                           f"stride={x.stride}, dim={n}.")
      entries.append(("ds", start, size, x.stride))
    elif isinstance(x, (Array, np.ndarray)) or hasattr(x, "__jax_array__"):
      entries.append(("dyn",))
      dyn.append(x)
    else:
      raise TypeError(f"Ref indices must be integers, slices, None, Ellipsis or integer "
                      f"arrays; got {x!r} of type {type(x).__name__}.")
    dim += 1
  return Indexer(entries), dyn


def read(value, indexer: Indexer, dyn):
  """``value[index]``."""
  return value if indexer.whole else value[indexer.numpy_index(dyn)]


def updated(value, indexer: Indexer, dyn, x, accumulate: bool):
  """``value`` with ``x`` stored (or added, when ``accumulate``) at the index."""
  if indexer.whole:
    return value + x if accumulate else x
  at = value.at[indexer.numpy_index(dyn)]
  # jax.ds windows are written as dynamic_update_slice writes them: clamped into bounds
  mode = "clip" if indexer.has_ds else None
  return at.add(x, mode=mode) if accumulate else at.set(x, mode=mode)


@functools.lru_cache(maxsize=1024)
def read_aval(inner_aval, indexer: Indexer, dyn_avals: tuple):
  """The abstract value of ``value[index]`` for a value of ``inner_aval``."""
  if indexer.whole:
    return inner_aval
  closed = trace_to_jaxpr(lambda x, *d: [read(x, indexer, d)], [inner_aval, *dyn_avals])
  return closed.out_avals[0]
