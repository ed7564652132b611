"""jit's fast path: a call's key made by walking its arguments once (uncommitted Arrays,
Python scalars and NumPy arrays and scalars in the common containers), looked up in the
jitted function's table of UncommittedCalls and HostCalls.  Whether the fast path is on
follows the config flags."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.foundations.config import config
from xjax._src.foundations.sharding import PLACING, placing_listeners
from xjax._src.execution.array import Array


# jit's fast path is off while jit is disabled, results are checked for NaN/Inf,
# execution is forbidden or ``set_mesh`` places results.
_FAST_FLAGS = ("jax_disable_jit", "jax_debug_nans", "jax_debug_infs", "jax_no_execution")


def _plain_dispatch_now() -> bool:
  return not PLACING[0] and not any(config._read(name) for name in _FAST_FLAGS)


plain_dispatch = [_plain_dispatch_now()]
for _flag in _FAST_FLAGS:
  config.on_change(_flag, lambda _: plain_dispatch.__setitem__(0, _plain_dispatch_now()))
# (and while ``set_mesh`` places results: they must be placed on its mesh)
placing_listeners.append(lambda: plain_dispatch.__setitem__(0, _plain_dispatch_now()))


_SCALAR_TYPES = (bool, int, float, complex)
_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1  # larger ints take the checked path
_END = object()  # closes a node's children in a fast-path key
_NUMPY = object()  # starts a NumPy leaf's entry: (_NUMPY, dtype, shape)
_NUMPY_KINDS = frozenset("biufc")  # NumPy's own numbers (ml_dtypes' take the checked path)


class _UnhashableAux:
  """A node's unhashable aux data in a fast-path key: hashed by its type, compared by value
  (as a PyTreeDef holding it compares)."""
  __slots__ = ("value",)

  def __init__(self, value) -> None:
    self.value = value

  def __hash__(self) -> int:
    return hash(type(self.value))

  def __eq__(self, other) -> bool:
    if type(other) is not _UnhashableAux or type(other.value) is not type(self.value):
      return False
    try:
      return bool(self.value == other.value)
    except Exception:  # e.g. arrays, whose comparison has no single truth value
      return False


def leaf_key(x):
  """A leaf's entry in a fast-path key (see ``fast_walk``), or None for other leaves."""
  kind = type(x)
  if kind is Array:
    return None if x._committed else x.aval
  if kind in _SCALAR_TYPES and (kind is not int or _INT32_MIN <= x <= _INT32_MAX):
    return kind
  if kind is np.ndarray or isinstance(x, np.generic):  # (read afresh, copied, every call)
    dtype = x.dtype
    if dtype.kind in _NUMPY_KINDS and type(dtype).__module__ == "numpy.dtypes":
      return (_NUMPY, dtype, x.shape)
  return None


def fast_walk(xs, key: list, leaves: list) -> bool:
  """Appends the signature of the arguments ``xs`` on jit's fast path to ``key`` and their
  leaves to ``leaves``; False when a leaf is not an uncommitted Array, a Python scalar or a
  NumPy number array or scalar.
  The key (after the trace token) lists the arguments' structure in prefix order: each
  leaf's aval (a Python scalar's type, or a NumPy value's dtype and shape, from which its
  aval follows), each node's type and aux data, then its children and ``_END``."""
  for x in xs:
    kind = type(x)
    if kind is Array:  # (leaf_key's first case, inlined: the hot one)
      if x._committed:
        return False
      key.append(x.aval)
      leaves.append(x)
    elif kind in _SCALAR_TYPES or kind is np.ndarray or isinstance(x, np.generic):
      leaf = leaf_key(x)
      if leaf is None:
        return False
      key.append(leaf)
      leaves.append(x)
    elif kind is dict:   # the common containers, as their nodes flatten them
      try:
        names = sorted(x)
      except TypeError:  # the checked path explains
        return False
      key.append(dict)
      key.append(tuple(names))
      if not fast_walk([x[k] for k in names], key, leaves):
        return False
      key.append(_END)
    elif kind is tuple or kind is list:
      key.append(kind)
      key.append(None)
      if not fast_walk(x, key, leaves):
        return False
      key.append(_END)
    else:
      flatten = tree_util.node_flattener(kind)
      if flatten is None:  # another kind of leaf: the checked path takes it
        return False
      children, aux = flatten(x)
      if aux is not None:
        try:
          hash(aux)
        except TypeError:
          aux = _UnhashableAux(aux)
      key.append(kind)
      key.append(aux)
      if not fast_walk(children, key, leaves):
        return False
      key.append(_END)
  return True
