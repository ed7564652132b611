"""Nested lists and tuples of IR values or types (``jax.interpreters.mlir.ir_tree_registry``):
a small pytree registry of its own, in which lists, tuples and the result lists of MLIR
operations are nodes and everything else (None included) is a leaf."""
from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable, Sequence

from xjax._src.backend import mlir_modules


class IrTreeDef:
  """The structure of a flattened IR tree: ``unflatten(leaves)`` rebuilds one like it."""
  __slots__ = ("_spec", "num_leaves")

  def __init__(self, spec, num_leaves: int) -> None:
    self._spec, self.num_leaves = spec, num_leaves

  def unflatten(self, leaves: Iterable) -> Any:
    leaves = list(leaves)
    if len(leaves) != self.num_leaves:
      raise ValueError(f"Too {'few' if len(leaves) < self.num_leaves else 'many'} leaves "
                       f"for PyTreeDef; expected {self.num_leaves}, got {len(leaves)}")
    it = iter(leaves)

    def build(spec):
      if spec is None:
        return next(it)
      _, rebuild, aux, children = spec
      return rebuild(aux, [build(c) for c in children])
    return build(self._spec)

  def __repr__(self) -> str:
    def fmt(spec):
      if spec is None:
        return "*"
      inner = ", ".join(map(fmt, spec[3]))
      return f"({inner})" if spec[0] is tuple else f"[{inner}]"
    return f"PyTreeDef({fmt(self._spec)})"


def _as_list(_, children) -> list:
  return list(children)


class IrTreeRegistry:
  """Node types with their ``to_iterable(x) -> (children, aux)`` and
  ``from_iterable(aux, children)``; MLIR's ``OpResultList`` is one (rebuilt as a list),
  registered when first flattening."""

  def __init__(self) -> None:
    self._nodes: dict[type, tuple[Callable, Callable]] = {
        list: (lambda x: (x, None), _as_list),
        tuple: (lambda x: (x, None), lambda _, c: tuple(c)),
    }
    self._result_lists = False

  def register_node(self, type_: type, to_iterable: Callable, from_iterable: Callable,
                    to_iterable_with_keys: Callable | None = None) -> None:
    self._nodes[type_] = (to_iterable, from_iterable)

  def flatten(self, tree: Any, leaf_predicate: Callable | None = None
              ) -> tuple[list, IrTreeDef]:
    if not self._result_lists:
      self._result_lists = True
      self._nodes.setdefault(mlir_modules.mlir_bindings("ir").OpResultList,
                             (lambda r: (list(r), None), _as_list))
    leaves: list = []

    def walk(x):
      node = self._nodes.get(type(x))
      if node is None or (leaf_predicate is not None and leaf_predicate(x)):
        leaves.append(x)
        return None
      children, aux = node[0](x)
      return (type(x), node[1], aux, [walk(c) for c in children])
    spec = walk(tree)
    return leaves, IrTreeDef(spec, len(leaves))


ir_tree_registry = IrTreeRegistry()


def unflatten_ir_values_like_types(xs: Iterable, ys: Sequence) -> list:
  """The values ``xs`` nested as the types ``ys`` are (deprecated in JAX)."""
  warnings.warn("jax.interpreters.mlir.unflatten_ir_values_like_types is deprecated. "
                "Use treedef.unflatten instead.", DeprecationWarning, stacklevel=2)
  return ir_tree_registry.flatten(ys)[1].unflatten(xs)
