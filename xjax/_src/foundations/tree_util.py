"""Pytrees: nested containers of leaves, flattened to a list of leaves and a `PyTreeDef`.

A pytree node is a tuple, list, dict, None, namedtuple, OrderedDict, defaultdict or a registered
type; anything else is a leaf. `PyTreeDef` describes the nesting so the leaves can be put back.
`jit` flattens its arguments on every call and keys its cache on the treedef, so flattening,
hashing and comparing treedefs are kept cheap: node types are resolved by one dict lookup, and a
treedef is a nested tuple whose hash and equality run in C.

Internally a treedef's *spec* is `None` for a leaf, or `(node, aux, child_specs)` where `node` is
the `_Node` describing the container type and `aux` its static data (dict keys, user aux data).
"""

from __future__ import annotations

import collections
import dataclasses
import difflib
import functools
import itertools
import operator
import textwrap
from typing import Any, Callable, Hashable, Iterable, Sequence, TypeVar

from xjax._src.foundations import pytree_proto

T = TypeVar("T")
Typ = TypeVar("Typ", bound=type)
KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]


# ---------------------------------------------------------------------------------------------
# Key path entries

class _KeyEntryBase:
    """An immutable, hashable key naming one child of a pytree node."""
    __slots__ = ("_v",)

    def __init__(self, *args: Any, **kwargs: Any):
        field = self.__match_args__[0]    # the one field, by position or by name
        if len(args) + len(kwargs) != 1 or (kwargs and field not in kwargs):
            raise TypeError(f"{type(self).__name__}() takes exactly one argument, {field!r}")
        object.__setattr__(self, "_v", args[0] if args else kwargs[field])

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other):
        return type(other) is type(self) and self._v == other._v

    def __hash__(self):
        return hash((type(self), self._v))

    def __repr__(self):
        return f"{type(self).__name__}({self.__match_args__[0]}={self._v!r})"

    def __reduce__(self):
        return (type(self), (self._v,))


class SequenceKey(_KeyEntryBase):
    """The index of a child of a tuple or list: prints as `[0]`."""
    __slots__ = ()
    __match_args__ = ("idx",)
    idx = property(lambda self: self._v)

    def __str__(self):
        return f"[{self._v!r}]"


class DictKey(_KeyEntryBase):
    """The key of a child of a dict: prints as `['a']`."""
    __slots__ = ()
    __match_args__ = ("key",)
    key = property(lambda self: self._v)

    def __str__(self):
        return f"[{self._v!r}]"


class GetAttrKey(_KeyEntryBase):
    """The attribute holding a child (namedtuple fields, dataclasses): prints as `.name`."""
    __slots__ = ()
    __match_args__ = ("name",)
    name = property(lambda self: self._v)

    def __str__(self):
        return f".{self._v}"


class FlattenedIndexKey(_KeyEntryBase):
    """The position of a child of a registered node that does not name its children."""
    __slots__ = ()
    __match_args__ = ("key",)
    key = property(lambda self: self._v)

    def __str__(self):
        return f"[<flat index {self._v}>]"


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Render a key path: `[0]['a'].x`, or with `simple=True` just the bare keys (`0/a/x`)."""
    if simple:
        return separator.join(str(k._v) if isinstance(k, _KeyEntryBase) else str(k) for k in keys)
    return separator.join(map(str, keys))


# ---------------------------------------------------------------------------------------------
# Node types and the registry

class _Node:
    """How one container type flattens, unflattens (children as a list) and prints."""
    __slots__ = ("type", "flatten", "unflatten", "flatten_with_keys", "fmt")

    def __init__(self, type, flatten, unflatten, flatten_with_keys, fmt):
        self.type = type
        self.flatten = flatten                       # x -> (iterable of children, aux)
        self.unflatten = unflatten                   # (aux, list of children) -> x
        self.flatten_with_keys = flatten_with_keys   # x -> ((key, child) pairs, aux), or None
        self.fmt = fmt                               # (aux, child strings) -> repr text

    def keyed(self, x):
        """Flatten one level, pairing each child with its key."""
        if self.flatten_with_keys is not None:
            return self.flatten_with_keys(x)
        children, aux = self.flatten(x)
        return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux

    def __reduce__(self):  # nodes pickle by type, so unpickling finds the local registration
        return (_node_for_pickled_type, (self.type,))

    def __repr__(self):
        return f"<pytree node {self.type.__name__}>"


def _custom_fmt(label: str):
    return lambda aux, cs: f"CustomNode({label}[{aux}], [{', '.join(cs)}])"


def _sorted_keys(d: dict) -> list:
    try:
        return sorted(d)
    except Exception as e:
        raise ValueError("Comparator raised exception while sorting pytree dictionary keys.\n"
                         "Pytree dict keys must be sortable (children are ordered by key), "
                         f"but sorting the keys {list(d)} failed: {e}") from e


def _dict_flatten(d):
    keys = _sorted_keys(d)
    return [d[k] for k in keys], tuple(keys)


def _dict_flatten_with_keys(d):
    keys = _sorted_keys(d)
    return [(DictKey(k), d[k]) for k in keys], tuple(keys)


def _seq_flatten_with_keys(s):
    return [(SequenceKey(i), c) for i, c in enumerate(s)], None


def _defaultdict_flatten(d):
    keys = _sorted_keys(d)
    return [d[k] for k in keys], (d.default_factory, tuple(keys))


def _defaultdict_flatten_with_keys(d):
    keys = _sorted_keys(d)
    return [(DictKey(k), d[k]) for k in keys], (d.default_factory, tuple(keys))


_TUPLE = _Node(tuple, lambda t: (t, None), lambda _, cs: tuple(cs), _seq_flatten_with_keys,
               lambda _, cs: f"({', '.join(cs)}{',' if len(cs) == 1 else ''})")
_LIST = _Node(list, lambda l: (l, None), lambda _, cs: cs, _seq_flatten_with_keys,
              lambda _, cs: f"[{', '.join(cs)}]")
_DICT = _Node(dict, _dict_flatten, lambda keys, cs: dict(zip(keys, cs)), _dict_flatten_with_keys,
              lambda keys, cs: "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(keys, cs)) + "}")
_NONE = _Node(type(None), lambda _: ((), None), lambda _, cs: None, lambda _: ((), None),
              lambda _, cs: "None")

_registry: dict[type, _Node] = {node.type: node for node in (_TUPLE, _LIST, _DICT, _NONE)}
_PROTO_KINDS = {_LIST: pytree_proto.LIST, _NONE: pytree_proto.NONE, _TUPLE: pytree_proto.TUPLE,
                _DICT: pytree_proto.DICT}   # the nodes PyTreeDefProto holds
_registry[collections.OrderedDict] = _Node(
    collections.OrderedDict,
    lambda d: (list(d.values()), tuple(d)),
    lambda keys, cs: collections.OrderedDict(zip(keys, cs)),
    lambda d: ([(DictKey(k), v) for k, v in d.items()], tuple(d)),
    _custom_fmt("OrderedDict"))
_registry[collections.defaultdict] = _Node(
    collections.defaultdict, _defaultdict_flatten,
    lambda aux, cs: collections.defaultdict(aux[0], zip(aux[1], cs)),
    _defaultdict_flatten_with_keys, _custom_fmt("defaultdict"))

_namedtuple_nodes: dict[type, _Node] = {}   # one node per namedtuple class, so specs compare by identity
_node_cache: dict[type, _Node | None] = {}  # type -> node, or None for leaf types
_MISS = object()


def _namedtuple_node(t: type) -> _Node:
    node = _namedtuple_nodes.get(t)
    if node is None:
        node = _namedtuple_nodes[t] = _Node(
            t, lambda x: (x, None), lambda _, cs: t(*cs),
            lambda x: ([(GetAttrKey(f), c) for f, c in zip(x._fields, x)], None),
            lambda _, cs: f"CustomNode(namedtuple[{t.__name__}], [{', '.join(cs)}])")
    return node


def _resolve(t: type) -> _Node | None:
    """Find the node for type `t` (None: a leaf type) and remember it."""
    node = _registry.get(t)
    if node is None and issubclass(t, tuple) and hasattr(t, "_fields"):
        node = _namedtuple_node(t)
    if len(_node_cache) > 4096:  # bound the memory held by dynamically created leaf types
        _node_cache.clear()
    _node_cache[t] = node
    return node


def _node_of(t: type) -> _Node | None:
    node = _node_cache.get(t, _MISS)
    return _resolve(t) if node is _MISS else node


def node_flattener(t: type) -> Callable[[Any], tuple[Iterable[Any], Any]] | None:
    """How a node of type `t` flattens one level (``x -> (children, aux)``), or None where
    `t` is a leaf type: one cached lookup, for hot paths that walk trees themselves."""
    node = _node_of(t)
    return None if node is None else node.flatten


def _node_for_pickled_type(t: type) -> _Node:
    node = _node_of(t)
    if node is None:
        raise ValueError(f"Cannot unpickle a PyTreeDef: {t} is not registered as a pytree node.")
    return node


def _register(nodetype: type, flatten, unflatten, flatten_with_keys) -> None:
    if nodetype in _registry:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.\n"
                         "A type can be registered as a pytree node only once.")
    _registry[nodetype] = _Node(nodetype, flatten, unflatten, flatten_with_keys,
                                _custom_fmt(getattr(nodetype, "__name__", str(nodetype))))
    _node_cache.pop(nodetype, None)


def register_pytree_node(nodetype: type[T],
                         flatten_func: Callable[[T], tuple[Iterable[Any], Any]],
                         unflatten_func: Callable[[Any, tuple], T],
                         flatten_with_keys_func: Callable[[T], tuple[Iterable[tuple[Any, Any]], Any]]
                         | None = None) -> None:
    """Make `nodetype` a pytree node: `flatten_func(x) -> (children, aux)` and
    `unflatten_func(aux, children_tuple) -> x`; children get `FlattenedIndexKey`s unless
    `flatten_with_keys_func(x) -> (((key, child), ...), aux)` names them."""
    for name, f in (("flatten_func", flatten_func), ("unflatten_func", unflatten_func)):
        if not callable(f):  # a TypeError, checked before the registry (as JAX)
            raise TypeError(f"register_pytree_node: {name} must be callable, got {f!r}")
    _register(nodetype, flatten_func, lambda aux, cs: unflatten_func(aux, tuple(cs)),
              flatten_with_keys_func)


def register_pytree_with_keys(nodetype: type[T],
                              flatten_with_keys: Callable[[T], tuple[Iterable[tuple[Any, Any]], Any]],
                              unflatten_func: Callable[[Any, tuple], T],
                              flatten_func: Callable[[T], tuple[Iterable[Any], Any]] | None = None
                              ) -> None:
    """Like `register_pytree_node`, but the primary flatten function returns (key, child) pairs."""
    if flatten_func is None:
        def flatten_func(x):
            pairs, aux = flatten_with_keys(x)
            return [c for _, c in pairs], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls: Typ) -> Typ:
    """Class decorator: register `cls` using its `tree_flatten` method and `tree_unflatten`
    classmethod."""
    register_pytree_node(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: Typ) -> Typ:
    """Class decorator: register `cls` using its `tree_flatten_with_keys` method, its
    `tree_unflatten` classmethod and, when defined, its `tree_flatten` method."""
    flatten = operator.methodcaller("tree_flatten") if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, operator.methodcaller("tree_flatten_with_keys"),
                              cls.tree_unflatten, flatten)
    return cls


def register_static(cls: Typ) -> Typ:
    """Register `cls` as a node with no children: instances are static data (aux) of the
    treedef, so `jit` treats them like static arguments. Instances must be hashable."""
    register_pytree_node(cls, lambda x: ((), x), lambda aux, _: aux)
    return cls


def register_dataclass(nodetype: Typ, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> Typ:
    """Register a dataclass-like type: `data_fields` are children, `meta_fields` static aux data.

    With both omitted, `nodetype` must be a dataclass; fields whose metadata has `static=True`
    (see `xjax.tree.static`) are meta fields and all others data fields. Unflattening calls
    `nodetype(**fields)`. Usable as a class decorator.
    """
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass: {nodetype} is not a dataclass, so data_fields "
                            f"and meta_fields must be given.")
        fields = dataclasses.fields(nodetype)
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    elif data_fields is None or meta_fields is None:
        raise TypeError(f"register_dataclass: give both data_fields and meta_fields, or neither; "
                        f"got data_fields={data_fields!r}, meta_fields={meta_fields!r}.")
    data_fields, meta_fields = list(data_fields), list(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        expected = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = set(data_fields) | set(meta_fields)
        problems = []
        if expected - given:
            problems.append(f"missing {sorted(expected - given)} (list fields to skip in "
                            f"drop_fields)")
        if given - expected:
            problems.append(f"unexpected {sorted(given - expected)}")
        if problems:
            raise ValueError(f"register_dataclass({nodetype.__name__}): data_fields and "
                             f"meta_fields must name exactly the dataclass fields with init=True "
                             f"that are not in drop_fields: " + "; ".join(problems) + ".")
    overlap = set(data_fields) & set(meta_fields)
    if overlap:
        raise ValueError(f"register_dataclass({nodetype.__name__}): fields {sorted(overlap)} are "
                         f"in both data_fields and meta_fields.")

    def flatten(x):
        return [getattr(x, f) for f in data_fields], tuple(getattr(x, f) for f in meta_fields)

    def flatten_with_keys(x):
        return ([(GetAttrKey(f), getattr(x, f)) for f in data_fields],
                tuple(getattr(x, f) for f in meta_fields))

    def unflatten(aux, children):
        return nodetype(**dict(zip(meta_fields, aux)), **dict(zip(data_fields, children)))

    _register(nodetype, flatten, unflatten, flatten_with_keys)
    return nodetype


def static(**kwargs) -> Any:
    """A `dataclasses.field` marked `static=True`, making it a meta field for
    `register_dataclass`."""
    kwargs["metadata"] = {"static": True, **kwargs.get("metadata", {})}
    return dataclasses.field(**kwargs)


def is_tree_node(typ: type) -> bool:
    """Whether instances of `typ` are pytree nodes (rather than leaves)."""
    return isinstance(typ, type) and _node_of(typ) is not None


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Hashable]:
    """The children and aux data of the node `tree`; ValueError if `tree` is a leaf."""
    node = _node_of(type(tree))
    if node is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    children, aux = node.flatten(tree)
    return tuple(children), aux


def equality_errors(tree1: Any, tree2: Any, is_leaf: Callable[[Any], bool] | None = None,
                    leaf_name: str | None = None) -> Iterable[tuple[KeyPath, str, str, str]]:
    """How two pytrees' structures differ (JAX's ``equality_errors``): per difference, its
    key path, what each tree has there, and why they disagree; the first difference on
    each path from the root.  ``leaf_name`` describes a leaf facing a node (JAX's
    ``equality_errors_pytreedef`` says "pytree leaf"); by default, its type."""
    yield from _equality_errors((), tree1, tree2, is_leaf, leaf_name)


def _equality_errors(path, t1, t2, is_leaf, leaf_name=None):
    leaf = lambda t: (is_leaf is not None and is_leaf(t)) or _node_of(type(t)) is None
    if leaf(t1) and leaf(t2):
        return
    if type(t1) != type(t2):
        what = lambda t: leaf_name if leaf_name is not None and leaf(t) else str(type(t))
        yield path, what(t1), what(t2), "their Python types differ"
        return
    if isinstance(t1, (list, tuple)) and len(t1) != len(t2):
        yield (path, f"{type(t1).__name__} of length {len(t1)}",
               f"{type(t2).__name__} of length {len(t2)}", "the lengths do not match")
        return
    node = _node_of(type(t1))
    (pairs1, meta1), (pairs2, meta2) = node.keyed(t1), node.keyed(t2)
    pairs1, pairs2 = list(pairs1), list(pairs2)
    if node is _DICT:
        meta1, meta2 = tuple(meta1), tuple(meta2)
    if len(pairs1) != len(pairs2):
        try:
            keys = {k for k, _ in pairs1} ^ {k for k, _ in pairs2}
            diff = " ".join(repr(k.key) for k in keys)
        except Exception:
            diff = ""
        yield (path, f"{type(t1)} with {len(pairs1)} child{'ren' if len(pairs1) > 1 else ''}",
               f"{type(t2)} with {len(pairs2)} child{'ren' if len(pairs2) > 1 else ''}",
               "the numbers of children do not match"
               + (diff and f", with the symmetric difference of key sets: {{{diff}}}"))
        return
    if meta1 != meta2:
        yield (path, f"{type(t1)} with pytree metadata {meta1}",
               f"{type(t2)} with pytree metadata {meta2}", "the pytree node metadata does not match")
        return
    for (k, c1), (_, c2) in zip(pairs1, pairs2):
        yield from _equality_errors((*path, k), c1, c2, is_leaf, leaf_name)


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple[Any, Any]], Hashable]:
    """Like `flatten_one_level`, with children paired with their keys."""
    node = _node_of(type(tree))
    if node is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    pairs, aux = node.keyed(tree)
    return tuple(pairs), aux


class PyTreeRegistry:
    """The registry of pytree node types as an object (`jax.tree_util.default_registry`):
    xjax has one, which the module's functions use."""

    def flatten(self, tree: Any, leaf_predicate: Callable[[Any], bool] | None = None
                ) -> tuple[list[Any], "PyTreeDef"]:
        return tree_flatten(tree, leaf_predicate)

    def flatten_with_path(self, tree: Any, leaf_predicate: Callable[[Any, Any], bool] | None = None
                          ) -> tuple[list[tuple[KeyPath, Any]], "PyTreeDef"]:
        return tree_flatten_with_path(tree, leaf_predicate, is_leaf_takes_path=True)

    def flatten_one_level(self, tree: Any) -> tuple[Iterable[Any], Any] | None:
        """The children and aux data of the node `tree`; None for a leaf."""
        return None if _node_of(type(tree)) is None else flatten_one_level(tree)

    def flatten_one_level_with_keys(self, tree: Any) -> tuple[Iterable[tuple[Any, Any]], Any] | None:
        """Like `flatten_one_level`, with children paired with their keys."""
        return None if _node_of(type(tree)) is None else flatten_one_level_with_keys(tree)

    def is_node(self, type: type) -> bool:
        return is_tree_node(type)

    def register_node(self, type: type, to_iterable: Callable, from_iterable: Callable,
                      to_iterable_with_keys: Callable | None = None) -> None:
        register_pytree_node(type, to_iterable, from_iterable, to_iterable_with_keys)

    def register_dataclass_node(self, type: type, data_fields: Sequence[str],
                                meta_fields: Sequence[str], /) -> None:
        register_dataclass(type, data_fields, meta_fields)


default_registry = PyTreeRegistry()


# ---------------------------------------------------------------------------------------------
# PyTreeDef

def _count_leaves(spec) -> int:
    return 1 if spec is None else sum(_count_leaves(s) for s in spec[2])


def _count_nodes(spec) -> int:
    return 1 if spec is None else 1 + sum(_count_nodes(s) for s in spec[2])


def _fmt(spec) -> str:
    return "*" if spec is None else spec[0].fmt(spec[1], [_fmt(s) for s in spec[2]])


def _strip_aux(spec):
    return None if spec is None else (spec[0], len(spec[2]), tuple(map(_strip_aux, spec[2])))


def _build(spec, next_leaf):
    node, aux, specs = spec
    return node.unflatten(aux, [next_leaf() if s is None else _build(s, next_leaf) for s in specs])


def _compose(spec, inner):
    return inner if spec is None else (spec[0], spec[1], tuple(_compose(s, inner) for s in spec[2]))


class PyTreeDef:
    """The structure of a pytree: its nodes and their static data, without the leaves.

    Treedefs compare equal when their structures and aux data are equal. Both hashing and
    equality run on the nested-tuple spec in C, since `jit` keys its cache on treedefs. A spec
    holding unhashable aux data is hashed without its aux data (should such a treedef equal one
    with hashable aux data, the two hash apart: at worst a cache miss).
    """
    __slots__ = ("_spec", "_num_leaves", "_hash")

    def __init__(self, spec, num_leaves: int):
        self._spec = spec
        self._num_leaves = num_leaves
        self._hash = None

    @property
    def num_leaves(self) -> int:
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        return _count_nodes(self._spec)

    def __eq__(self, other):
        if self is other:
            return True
        if type(other) is not PyTreeDef:
            return NotImplemented
        return self._num_leaves == other._num_leaves and self._spec == other._spec

    def __hash__(self):
        h = self._hash
        if h is None:
            try:
                h = hash(self._spec)
            except TypeError:
                h = hash(_strip_aux(self._spec))
            self._hash = h
        return h

    def __repr__(self):
        return f"PyTreeDef({_fmt(self._spec)})"

    def __reduce__(self):
        return (PyTreeDef, (self._spec, self._num_leaves))

    def serialize_using_proto(self) -> bytes:
        """This structure as jaxlib's ``PyTreeDefProto`` message (built-in nodes only: tuples,
        lists, None and dicts with string keys)."""
        nodes, strings = [], {}

        def go(spec):
            if spec is None:
                nodes.append((pytree_proto.LEAF, 0, ()))
                return
            node, aux, children = spec
            kind = _PROTO_KINDS.get(node)
            if kind is None:
                raise ValueError("User-defined nodes are not supported when serializing pytrees "
                                 "as protocol buffers. You should either convert the "
                                 "user-defined nodes to another type or use pickle instead.")
            for c in children:
                go(c)
            keys = ()
            if node is _DICT:
                if not all(type(k) is str for k in aux):
                    raise ValueError("Only string keys are supported in proto pytree "
                                     "serialization.")
                keys = [strings.setdefault(k, len(strings)) for k in aux]
            nodes.append((kind, len(children), keys))
        go(self._spec)
        return pytree_proto.encode(nodes, list(strings))

    @staticmethod
    def deserialize_using_proto(registry: "PyTreeRegistry", data: bytes) -> "PyTreeDef":
        """The structure ``serialize_using_proto`` wrote (ValueError if ``data`` is not one)."""
        if not isinstance(registry, PyTreeRegistry):
            raise TypeError(f"deserialize_using_proto: expected a PyTreeRegistry, got {registry!r}")
        nodes, strings = pytree_proto.decode(data)
        by_kind = {kind: node for node, kind in _PROTO_KINDS.items()}
        stack: list = []
        for kind, arity, keys in nodes:
            if kind == pytree_proto.LEAF and not arity:
                stack.append(None)
                continue
            if kind not in by_kind:
                raise ValueError("Malformed pytree proto (invalid node type)")
            node = by_kind[kind]
            if (arity > len(stack) or (node is _NONE and arity) or any(
                    k >= len(strings) for k in keys)
                    or len(keys) != (arity if node is _DICT else 0)):
                raise ValueError(pytree_proto.DECODE_ERROR)
            children = tuple(stack[len(stack) - arity:])
            del stack[len(stack) - arity:]
            stack.append((node, tuple(strings[k] for k in keys) if node is _DICT else None,
                          children))
        if len(stack) != 1:
            raise RuntimeError("PyTreeDef traversal did not yield a singleton.")
        return PyTreeDef(stack[0], _count_leaves(stack[0]))

    @staticmethod
    def from_node_data_and_children(registry: "PyTreeRegistry", node_data,
                                    children: Iterable["PyTreeDef"]) -> "PyTreeDef":
        """The treedef whose root is ``node_data`` (as ``node_data()`` gives it; None: a leaf)
        over the ``children`` treedefs."""
        children = list(children)
        if not all(isinstance(c, PyTreeDef) for c in children):
            raise TypeError("from_node_data_and_children: children must be PyTreeDefs, got "
                            f"{children!r}")
        if node_data is None:
            return PyTreeDef(None, 1)
        nodetype, aux = node_data
        node = _node_of(nodetype)
        if node is None:
            raise ValueError(f"from_node_data_and_children: {nodetype} is not registered as a "
                             "pytree node.")
        spec = (node, tuple(aux) if node is _DICT else aux, tuple(c._spec for c in children))
        return PyTreeDef(spec, sum(c._num_leaves for c in children))

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Rebuild the pytree with this structure from `leaves` (in flattening order)."""
        if type(leaves) is not list:
            leaves = list(leaves)
        if len(leaves) != self._num_leaves:
            first = (f"Too many leaves for PyTreeDef; expected {self._num_leaves}."
                     if len(leaves) > self._num_leaves else
                     f"Too few leaves for PyTreeDef; expected {self._num_leaves}, got "
                     f"{len(leaves)}")   # (JAX's first line: code matches on it)
            raise ValueError(f"{first}\nCannot unflatten {self!r}: it has {self._num_leaves} "
                             f"leaves, but {len(leaves)} were given.")
        if self._spec is None:
            return leaves[0]
        return _build(self._spec, iter(leaves).__next__)

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """The subtrees of `tree` sitting where this treedef has leaves; `tree` must have this
        structure down to them (ValueError otherwise)."""
        return _up_to(self, tree, "tree", None,
                      f"flatten_up_to: the tree does not match {self!r}")

    def children(self) -> list[PyTreeDef]:
        """Treedefs of the root's children ([] for a leaf)."""
        if self._spec is None:
            return []
        return [PyTreeDef(s, _count_leaves(s)) for s in self._spec[2]]

    def node_data(self) -> tuple[type, Any] | None:
        """`(node type, aux data)` of the root, or None for a leaf. Dict keys come as a list."""
        if self._spec is None:
            return None
        node, aux, _ = self._spec
        return node.type, (list(aux) if node is _DICT else aux)

    def walk(self, f_node: Callable[[tuple, Any], Any], f_leaf: Callable[[Any], Any] | None,
             leaves: Iterable[Any]) -> Any:
        """Folds `leaves` (in flattening order) up this structure: `f_leaf(leaf)` at each
        leaf (the leaf itself when `f_leaf` is None), `f_node(children's results, node
        data)` at each node: a dict's keys, a namedtuple's class, a custom node's aux data."""
        it = iter(leaves)
        out = _fold(self._spec, it, f_node, f_leaf)
        if next(it, _MISSING) is not _MISSING:
            raise ValueError("Too many leaves for PyTreeDef")
        return out

    def from_iterable_tree(self, xs: Any) -> Any:
        """The pytree of this structure whose nodes' children are taken, in order, from the
        nested iterables `xs` (its leaves from `xs`'s elements at this treedef's leaves)."""
        leaves = []
        _collect_iterable(self._spec, xs, leaves)
        return self.unflatten(leaves)

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """The treedef obtained by replacing every leaf of this one with `inner`."""
        return PyTreeDef(_compose(self._spec, inner._spec), self._num_leaves * inner._num_leaves)


_LEAF = PyTreeDef(None, 1)
_MISSING = object()


# (The recursions below are module functions: nested recursive ones would make reference
# cycles keeping the leaves, tracers among them, alive until the next garbage collection.)

def _fold(spec, it, f_node, f_leaf):
    """`PyTreeDef.walk` below ``spec``, taking its leaves from the iterator ``it``."""
    if spec is None:
        x = next(it, _MISSING)
        if x is _MISSING:
            raise ValueError("Too few leaves for PyTreeDef")
        return x if f_leaf is None else f_leaf(x)
    node, aux, kids = spec
    results = tuple([_fold(k, it, f_node, f_leaf) for k in kids])
    if node is _DICT:
        aux = list(aux)
    elif _namedtuple_nodes.get(node.type) is node:
        aux = node.type     # (JAX's walk passes a namedtuple's class)
    return f_node(results, aux)


def _collect_iterable(spec, x, leaves: list) -> None:
    """`PyTreeDef.from_iterable_tree`'s leaves: ``x``'s elements at ``spec``'s leaves."""
    if spec is None:
        leaves.append(x)
        return
    items = list(x)
    if len(items) != len(spec[2]):
        raise ValueError("Arity mismatch between trees")
    for k, item in zip(spec[2], items):
        _collect_iterable(k, item, leaves)


# ---------------------------------------------------------------------------------------------
# Flattening

def _flatten_into(node: _Node, x, leaves: list):
    """Flatten node `x` (whose node is `node`), appending leaves; return its spec."""
    children, aux = node.flatten(x)
    specs = []
    for c in children:
        child_node = _node_cache.get(type(c), _MISS)
        if child_node is _MISS:
            child_node = _resolve(type(c))
        if child_node is None:
            leaves.append(c)
            specs.append(None)
        else:
            specs.append(_flatten_into(child_node, c, leaves))
    return node, aux, tuple(specs)


def _flatten_general(tree, is_leaf, with_path: bool, is_leaf_takes_path: bool = False):
    """Flatten honouring `is_leaf` and/or recording key paths (the slower path)."""
    leaves = []
    spec = _walk(tree, () if with_path else None, is_leaf, with_path, is_leaf_takes_path, leaves)
    return leaves, PyTreeDef(spec, len(leaves))


def _walk(x, path, is_leaf, with_path: bool, takes_path: bool, leaves: list):
    """`_flatten_general`'s recursion."""
    if is_leaf is not None and (is_leaf(path, x) if takes_path else is_leaf(x)):
        node = None
    else:
        node = _node_of(type(x))
    if node is None:
        leaves.append((path, x) if with_path else x)
        return None
    if with_path:
        pairs, aux = node.keyed(x)
        return node, aux, tuple([_walk(c, (*path, k), is_leaf, True, takes_path, leaves)
                                 for k, c in pairs])
    children, aux = node.flatten(x)
    return node, aux, tuple([_walk(c, None, is_leaf, False, takes_path, leaves)
                             for c in children])


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Any], PyTreeDef]:
    """Flatten `tree` into its leaves (left to right, dicts by sorted key) and its structure.

    `is_leaf(x)` returning True makes `x` a leaf even if it is a node.
    """
    if is_leaf is not None:
        return _flatten_general(tree, is_leaf, False)
    node = _node_of(type(tree))
    if node is None:
        return [tree], _LEAF
    leaves = []
    spec = _flatten_into(node, tree, leaves)
    return leaves, PyTreeDef(spec, len(leaves))


def unflattener(treedef: PyTreeDef) -> Callable[[list], Any]:
    """A function building trees of `treedef`'s structure from a list of exactly its number of
    leaves, which it may keep (pass a fresh list).  A one-level structure (a tuple, list or
    dict of leaves) is built directly by its node; a nested one of moderate size by one
    compiled expression (`_compiled_builder`), without `unflatten`'s work per node and leaf."""
    spec = treedef._spec
    if spec is None:
        return treedef.unflatten
    if all(s is None for s in spec[2]):
        return functools.partial(spec[0].unflatten, spec[1])
    if treedef.num_nodes <= _COMPILED_NODES:
        builder = _compiled_builder(spec)
        if builder is not None:
            return builder
    return treedef.unflatten


_COMPILED_NODES = 1000  # larger structures are built by `unflatten`
_COMPILED_DEPTH = 40    # as are deeper ones (Python's parser limits an expression's nesting)


def _compiled_builder(spec) -> Callable[[list], Any] | None:
    """`lambda l: <spec's tree with leaf i as l[i]>`, compiled once: tuples, lists, dicts and
    None are written as displays, other nodes as calls of their unflatten function on their aux
    data (both held as names).  None for a structure nested deeper than `_COMPILED_DEPTH`."""
    names: dict[str, Any] = {}
    leaf = itertools.count().__next__   # the next leaf's position

    def name(value) -> str:
        key = f"_{len(names)}"
        names[key] = value
        return key

    def source(spec, depth: int) -> str:
        if spec is None:
            return f"l[{leaf()}]"
        if depth > _COMPILED_DEPTH:
            raise RecursionError
        node, aux, specs = spec
        children = [source(s, depth + 1) for s in specs]
        if node is _TUPLE:
            return "(" + "".join(c + ", " for c in children) + ")"
        if node is _LIST:
            return "[" + ", ".join(children) + "]"
        if node is _DICT:
            return "{" + ", ".join(f"{name(k)}: {c}" for k, c in zip(aux, children)) + "}"
        if node is _NONE:
            return "None"
        return f"{name(node.unflatten)}({name(aux)}, [{', '.join(children)}])"

    try:
        return eval("lambda l: " + source(spec, 0), names)
    except RecursionError:
        return None


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a pytree from its structure and leaves."""
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of `tree`, in flattening order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The treedef of `tree`."""
    return tree_flatten(tree, is_leaf)[1]


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """Like `tree_flatten`, with each leaf paired with its key path.

    With `is_leaf_takes_path`, `is_leaf` is called as `is_leaf(path, x)`.
    """
    return _flatten_general(tree, is_leaf, True, is_leaf_takes_path)


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    """The (key path, leaf) pairs of `tree`."""
    return _flatten_general(tree, is_leaf, True, is_leaf_takes_path)[0]


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """Whether the treedef has a single node: a leaf, or a childless node such as None."""
    return treedef.num_nodes == 1


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """Treedefs of the root's children."""
    return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The treedef of a tuple whose children have the given treedefs."""
    treedefs = list(treedefs)
    for t in treedefs:
        if not isinstance(t, PyTreeDef):
            raise TypeError(f"treedef_tuple expects PyTreeDefs, got {type(t)}")
    return PyTreeDef((_TUPLE, None, tuple(t._spec for t in treedefs)),
                     sum(t._num_leaves for t in treedefs))


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Whether every element of `iterable` is a leaf (None is not: it is a childless node)."""
    if is_leaf is None:
        return all(_node_of(type(x)) is None for x in iterable)
    return all(is_leaf(x) or _node_of(type(x)) is None for x in iterable)


# ---------------------------------------------------------------------------------------------
# Matching a tree against a structure

class _Mismatch(Exception):
    """Raised inside `_flatten_up_to`; records where the structures first differ."""

    def __init__(self, spec, value):
        self.spec, self.value, self.path = spec, value, []

    def message(self, name: str, op: str | None, what: str = "") -> str:
        """The error's text. Code matches on JAX's wording, so it is JAX's: with ``op`` (the
        operation's name), that of JAX's Python-level prefix errors; without, JAX's
        ``PyTreeDef.flatten_up_to`` first line followed by ``what`` and where they differ."""
        path = keystr(tuple(reversed(self.path)))
        node, aux, specs = self.spec
        if op is not None:
            msg = self._prefix_text(op, name, path)
        else:
            msg = (f"{self._flatten_up_to_line()}\n{what}: at key path {name}{path}, expected "
                   f"{_describe_spec(self.spec)} but got {_describe_value(self.value)}.")
            if node is _DICT and type(self.value) is dict:
                diff = set(aux).symmetric_difference(self.value)
                msg += f" Keys in only one of them: {sorted(diff, key=repr)}."
        if node is _NONE:
            msg += ("\nNone is a pytree node with no children, not a leaf, so it only matches "
                    "None; to treat None as a leaf pass is_leaf=lambda x: x is None.")
        return msg

    def _prefix_text(self, op: str, name: str, path: str) -> str:
        node, aux, specs = self.spec
        where = f"{op} {name}" if op else name
        prefix = f"At that key path, the prefix pytree {where} has a subtree of type"
        if _node_of(type(self.value)) is not node:
            return (f"pytree structure error: different types at key path\n    {where}{path}"
                    f"\n{prefix}\n    {node.type}\nbut at the same key path the full pytree "
                    f"has a subtree of different type\n    {type(self.value)}.")
        children, value_aux = node.flatten(self.value)
        n = len(list(children))
        if node is _TUPLE or node is _LIST:
            kind = node.type.__name__
            return (f"pytree structure error: different lengths of {kind} at key path\n    "
                    f"{where}{path}\n{prefix} {kind} of length {len(specs)}, but the full "
                    f"pytree has a subtree of the same type but of length {n}.")
        if n != len(specs):
            try:   # (the prefix's node rebuilt with None children, to read its keys)
                ours = _child_keys(node, _build(self.spec, itertools.repeat(None).__next__))
            except Exception:
                ours = list(range(len(specs)))
            theirs = _child_keys(node, self.value)
            only = [k for k in ours if k not in theirs] + [k for k in theirs if k not in ours]
            return (f"pytree structure error: different numbers of pytree children at key path"
                    f"\n    {where}{path}\n{prefix}\n    {node.type}\nwith {len(ours)} "
                    f"child keys\n    {' '.join(map(str, ours))}\nbut at the same key path the "
                    f"full pytree has a subtree of the same type but with {len(theirs)} child "
                    f"keys\n    {' '.join(map(str, theirs))}\nso the symmetric difference on key "
                    f"sets is\n    {' '.join(map(str, only))}")
        ours, theirs = (tuple(a) if node is _DICT else a for a in (aux, value_aux))
        diff = textwrap.indent("\n".join(difflib.ndiff([repr(ours)], [repr(theirs)])), "    ")
        return (f"pytree structure error: different pytree metadata at key path\n    "
                f"{where}{path}\n{prefix}\n    {node.type}\nwith metadata\n    {ours!r}\n"
                f"but at the same key path the full pytree has a subtree of the same type but "
                f"with metadata\n    {theirs!r}\nso the diff in the metadata at these pytree "
                f"nodes is\n{diff}")

    def _flatten_up_to_line(self) -> str:
        node, aux, specs = self.spec
        if node is _DICT and type(self.value) is dict:
            return (f"Dict key mismatch; expected keys: {list(aux)}; present keys: "
                    f"{sorted(self.value, key=repr)}.")
        kind = node.type.__name__ if node is not _NONE else "None"
        if _node_of(type(self.value)) is not node:
            return f"Expected {kind}, got {self.value!r}."
        children, value_aux = node.flatten(self.value)
        n = len(list(children))
        if node is _TUPLE or node is _LIST:
            return (f"{kind.capitalize()} arity mismatch: {n} != {len(specs)}; {kind}: "
                    f"{self.value!r}.")
        return f"Mismatch custom node data: {aux!r} != {value_aux!r}."


def _child_keys(node: _Node, x) -> list:
    """The keys of a node's children as plain values (a dict's keys, positions, names)."""
    return [getattr(k, "_v", k) for k, _ in node.keyed(x)[0]]


def _describe(node: _Node, aux, n: int) -> str:
    if node is _TUPLE or node is _LIST:
        return f"a {node.type.__name__} of length {n}"
    if node is _DICT:
        return f"a dict with keys {list(aux)}"
    if node is _NONE:
        return "None"
    return f"a node of type {node.type.__qualname__} with {n} children and node data {aux!r}"


def _describe_spec(spec) -> str:
    return _describe(spec[0], spec[1], len(spec[2]))


def _describe_value(x) -> str:
    node = _node_of(type(x))
    if node is None:
        return f"a leaf of type {type(x).__name__}"
    children, aux = node.flatten(x)
    return _describe(node, aux, len(list(children)))


def _flatten_up_to(spec, x, out: list) -> None:
    if spec is None:
        out.append(x)
        return
    node, aux, specs = spec
    if _node_of(type(x)) is not node:
        raise _Mismatch(spec, x)
    children, x_aux = node.flatten(x)
    if type(children) is not list and type(children) is not tuple:
        children = list(children)
    if len(children) != len(specs) or x_aux != aux:
        raise _Mismatch(spec, x)
    i = 0
    try:
        for s, c in zip(specs, children):
            if s is None:
                out.append(c)
            else:
                _flatten_up_to(s, c, out)
            i += 1
    except _Mismatch as m:
        m.path.append(node.keyed(x)[0][i][0])
        raise


def prefix_errors(prefix_tree: Any, full_tree: Any,
                  is_leaf: Callable[[Any], bool] | None = None) -> list[Callable[[str], ValueError]]:
    """Every place where ``prefix_tree`` is not a prefix of ``full_tree`` (below a mismatch
    nothing more is looked at), each as a function of the prefix's name (``"in_axes"``)
    giving the ValueError JAX's prefix errors raise."""
    errors = []

    def walk(spec, x, path):
        if spec is None:
            return
        node, aux, specs = spec
        children = None
        if _node_of(type(x)) is node:
            children, x_aux = node.flatten(x)
            children = list(children)
            if len(children) != len(specs) or x_aux != aux:
                children = None
        if children is None:
            mismatch = _Mismatch(spec, x)
            mismatch.path = list(reversed(path))
            errors.append(lambda name, m=mismatch: ValueError(m.message(name, "")))
            return
        for (key, _), s, c in zip(node.keyed(x)[0], specs, children):
            walk(s, c, path + [key])

    walk(tree_structure(prefix_tree, is_leaf)._spec, full_tree, [])
    return errors


def _up_to(treedef: PyTreeDef, tree, name: str, op: str | None, what: str = "") -> list:
    """`treedef.flatten_up_to(tree)`, reporting a mismatch as coming from JAX's operation
    `op` (see `_Mismatch.message`)."""
    out = []
    try:
        _flatten_up_to(treedef._spec, tree, out)
    except _Mismatch as m:
        raise ValueError(m.message(name, op, what)) from None
    return out


# ---------------------------------------------------------------------------------------------
# Tree utilities

def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply `f` to the leaves of `tree` (and the matching subtrees of each of `rest`, which
    must have `tree`'s structure down to its leaves), keeping `tree`'s structure."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten(map(f, leaves))
    others = [_up_to(treedef, r, "tree", "tree_map") for r in rest]
    return treedef.unflatten(map(f, leaves, *others))


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """Like `tree_map`, calling `f(key_path, leaf, *other_subtrees)`."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    others = [_up_to(treedef, r, "tree", "tree_map_with_path") for r in rest]
    return treedef.unflatten(f(p, x, *xs) for (p, x), *xs in zip(pairs, *others))


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Whether every leaf of `tree` is truthy."""
    return all(tree_leaves(tree, is_leaf))


class _Unspecified:
    __slots__ = ()

    def __repr__(self):
        return "<unspecified>"


_UNSPECIFIED = _Unspecified()


def tree_reduce(function: Callable[[T, Any], T], tree: Any,
                initializer: Any = _UNSPECIFIED,
                is_leaf: Callable[[Any], bool] | None = None) -> T:
    """`functools.reduce` over the leaves of `tree`."""
    if initializer is _UNSPECIFIED:
        return functools.reduce(function, tree_leaves(tree, is_leaf))
    return functools.reduce(function, tree_leaves(tree, is_leaf), initializer)


def _reduce_halves(operation, xs):
    if len(xs) == 1:
        return xs[0]
    mid = len(xs) // 2
    return operation(_reduce_halves(operation, xs[:mid]), _reduce_halves(operation, xs[mid:]))


def tree_reduce_associative(operation: Callable[[T, T], T], tree: Any, *,
                            identity: Any = _UNSPECIFIED,
                            is_leaf: Callable[[Any], bool] | None = None) -> T:
    """Reduce the leaves with an associative `operation` as a balanced binary tree (the left
    half has `n // 2` leaves); `identity` is returned only when there are no leaves."""
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _UNSPECIFIED:
            raise TypeError("tree_reduce_associative: the tree has no leaves; pass identity= "
                            "to reduce an empty tree.")
        return identity
    return _reduce_halves(operation, leaves)


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turn a tree with structure (outer, inner) into one with structure (inner, outer).

    `inner_treedef=None` takes the structure of the first outer subtree. Only the leaf counts
    are checked: leaves are regrouped in flattening order.
    """
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    n_inner, n_outer = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != n_inner * n_outer:
        raise TypeError(f"tree_transpose: the tree has structure\n{treedef}\nbut the outer "
                        f"structure composed with the inner one is\n"
                        f"{outer_treedef.compose(inner_treedef)}")
    groups = [flat[i * n_inner:(i + 1) * n_inner] for i in range(n_outer)]
    return inner_treedef.unflatten(outer_treedef.unflatten(g) for g in zip(*groups))


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Give `prefix_tree` the structure of `full_tree` by copying each of its leaves over the
    matching subtree of `full_tree` (`is_leaf` applies to `prefix_tree`)."""
    leaves, treedef = tree_flatten(prefix_tree, is_leaf)
    subtrees = _up_to(treedef, full_tree, "prefix_tree", "broadcast_prefix")
    return treedef.unflatten(
        tree_map(lambda _, x=x: x, sub) for x, sub in zip(leaves, subtrees))


# ---------------------------------------------------------------------------------------------
# Partial

class _HashableCallableShim:
    """Wraps a `functools.partial` used as a `Partial`'s function, so it stays one static
    callable instead of being merged into the outer partial's arguments."""
    __slots__ = ("fun",)

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    func = property(lambda self: self.fun.func)
    args = property(lambda self: self.fun.args)
    keywords = property(lambda self: self.fun.keywords)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        if isinstance(other, _HashableCallableShim):
            other = other.fun
        return self.fun == other

    def __repr__(self):
        return f"_HashableCallableShim({self.fun!r})"


class Partial(functools.partial):
    """A `functools.partial` that is a pytree: the function is static aux data and the bound
    arguments are children, so a `Partial` can be passed to and returned from `jit`."""

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):
            func = _HashableCallableShim(func)
        return super().__new__(cls, func, *args, **kwargs)


Partial.__module__ = "xjax.tree_util"

register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))
