"""``jax.ds``: a slice given by a start (static, or a traced integer) and a static size,
for indexing arrays (``x[ds(i, 2)]``) and refs (``ref[ds(i, 2)] = ...``)."""
from __future__ import annotations

import operator

from xjax._src.foundations import tree_util
from xjax._src.core.trace import Tracer


def is_static_int(x) -> bool:
  """Whether ``x`` is known now as an integer (a Python or NumPy int, or a concrete 0-d
  integer array), as opposed to a traced value."""
  if isinstance(x, Tracer) or isinstance(x, bool):
    return False
  try:
    operator.index(x)
  except TypeError:
    return False
  return True


@tree_util.register_pytree_node_class
class Slice:
  """``size`` elements from ``start`` on, ``stride`` apart; a traced ``start`` is a pytree
  leaf, static parts are the node's aux data."""
  __slots__ = ("start", "size", "stride")
  __match_args__ = ("start", "size", "stride")

  def __init__(self, start, size, stride: int = 1) -> None:
    if stride < 0:
      raise ValueError("`stride` must be >= 0.")
    self.start, self.size, self.stride = start, size, stride

  is_dynamic_start = property(lambda self: not is_static_int(self.start))
  is_dynamic_size = property(lambda self: not is_static_int(self.size))

  def __eq__(self, other) -> bool:
    return type(other) is Slice and (self.start, self.size, self.stride) == (
        other.start, other.size, other.stride)

  __hash__ = None

  def __repr__(self) -> str:
    return f"Slice(start={self.start!r}, size={self.size!r}, stride={self.stride!r})"

  def tree_flatten(self):
    dyn_start, dyn_size = self.is_dynamic_start, self.is_dynamic_size
    return ((self.start if dyn_start else None, self.size if dyn_size else None),
            (None if dyn_start else self.start, None if dyn_size else self.size, self.stride))

  @classmethod
  def tree_unflatten(cls, aux, children) -> "Slice":
    start, size = (c if c is not None else a for c, a in zip(children, aux[:2]))
    return cls(start, size, aux[2])

  @classmethod
  def from_slice(cls, slc: slice, size: int) -> "Slice":
    start, stop, step = slc.indices(size)
    if step < 1:
      raise ValueError(f"slice must have a step >= 1 (found: {step})")
    return cls(start, max(0, (stop - start + step - 1) // step), step)


def dslice(start, size=None, stride=None):
  """``dslice(i, n)`` selects ``i:i+n`` (``i`` may be traced, ``n`` is static);
  ``dslice(i, n, s)`` every ``s``-th of ``n`` elements from ``i``; ``dslice(n)`` is ``:n``
  and ``dslice(None)`` is ``:``, as for the builtin ``slice``."""
  if start is None:
    return slice(None)
  if stride is None:
    stride = 1
  if not isinstance(stride, int):
    raise ValueError("Non-static stride in `dslice`")
  if size is None:
    start, size = 0, start
  return Slice(start, size, stride)


ds = dslice
