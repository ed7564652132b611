"""`jax._src.tree_util`: the live table of pytree node types, keyed by type (flax nnx asks
``type(x) in _registry``; jaxlie flattens one level with ``_registry[type(x)].to_iter(x)``
and rebuilds with ``.from_iter(aux, children)``), and ``flatten_one_level`` (orbax)."""
from __future__ import annotations

import collections.abc
from typing import Any, Callable, NamedTuple

from xjax._src.compat.jax_private_compat import missing
from xjax._src.foundations import tree_util as _tree_util
from xjax._src.foundations.tree_util import prefix_errors  # noqa: F401  (flax's tests)


class _RegistryEntry(NamedTuple):
  to_iter: Callable[[Any], tuple]
  from_iter: Callable[[Any, Any], Any]


class _Registry(collections.abc.Mapping):
  """The registered node types (a view: later registrations show), each as its entry."""

  def __getitem__(self, t: type) -> _RegistryEntry:
    node = _tree_util._registry[t]
    return _RegistryEntry(lambda x: _children_aux(node, x),
                          lambda aux, children: node.unflatten(aux, list(children)))

  def __iter__(self):
    return iter(_tree_util._registry)

  def __len__(self) -> int:
    return len(_tree_util._registry)


def _children_aux(node, x) -> tuple:
  children, aux = node.flatten(x)
  return tuple(children), aux


_registry = _Registry()


def flatten_one_level(tree) -> tuple:
  """(children, aux data) of a pytree node (namedtuples included); ValueError for a leaf,
  as JAX."""
  node = _tree_util._node_of(type(tree))
  if node is None:
    raise ValueError(f"can't tree-flatten type: {type(tree)}")
  return _children_aux(node, tree)


def __getattr__(name: str):
  raise missing("jax._src.tree_util", name)
