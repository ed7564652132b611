"""Tests for xjax.tree_util and xjax.tree (expectations checked against JAX 0.10.2)."""

import collections
import copy
import dataclasses
import functools
import pickle
from collections import OrderedDict, defaultdict, namedtuple

import pytest

import xjax.tree as jtree
import xjax.tree_util as tu
from xjax.tree_util import DictKey, FlattenedIndexKey, GetAttrKey, SequenceKey

Point = namedtuple("Point", "x y")


class Box:
    """A registered node with children a, b and aux data meta."""

    def __init__(self, a, b, meta):
        self.a, self.b, self.meta = a, b, meta

    def __eq__(self, other):
        return type(other) is Box and (self.a, self.b, self.meta) == (other.a, other.b, other.meta)


tu.register_pytree_node(Box, lambda x: ((x.a, x.b), x.meta), lambda meta, ch: Box(*ch, meta))


@tu.register_pytree_node_class
class Pair:
    def __init__(self, x, tag):
        self.x, self.tag = x, tag

    def tree_flatten(self):
        return (self.x,), self.tag

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], aux)


@tu.register_pytree_with_keys_class
class Named:
    def __init__(self, u, v):
        self.u, self.v = u, v

    def tree_flatten_with_keys(self):
        return ((GetAttrKey("u"), self.u), (GetAttrKey("v"), self.v)), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@tu.register_dataclass
@dataclasses.dataclass
class Op:
    x: object
    y: object
    op: str = jtree.static(default="add")


@tu.register_static
class StaticStr(str):
    pass


# --- flatten / unflatten -----------------------------------------------------------------------

def test_flatten_tuple_dict_none():
    leaves, treedef = tu.tree_flatten((1, {"b": None, "a": 2}))
    assert leaves == [1, 2]
    assert repr(treedef) == "PyTreeDef((*, {'a': *, 'b': None}))"
    assert treedef.num_leaves == 2
    assert treedef.num_nodes == 5
    assert tu.tree_unflatten(treedef, [10, 20]) == (10, {"a": 20, "b": None})


def test_flatten_empty_containers_and_none():
    leaves, treedef = tu.tree_flatten([1, (2,), [], (), {}, None])
    assert leaves == [1, 2]
    assert repr(treedef) == "PyTreeDef([*, (*,), [], (), {}, None])"
    assert tu.tree_flatten(None) == ([], tu.tree_structure(None))
    assert repr(tu.tree_structure(None)) == "PyTreeDef(None)"
    assert tu.tree_leaves([1, None, (2,)]) == [1, 2]


def test_leaf_root():
    leaves, treedef = tu.tree_flatten(3)
    assert leaves == [3]
    assert repr(treedef) == "PyTreeDef(*)"
    assert treedef.num_nodes == 1
    assert tu.tree_unflatten(treedef, ["x"]) == "x"


def test_subclasses_of_builtin_containers_are_leaves():
    DictSub = type("DictSub", (dict,), {})
    ListSub = type("ListSub", (list,), {})
    TupleSub = type("TupleSub", (tuple,), {})
    for x in (DictSub(a=1), ListSub([1]), TupleSub((1,))):
        assert tu.tree_leaves(x) == [x]


def test_dict_children_sorted_and_rebuilt_sorted():
    leaves, treedef = tu.tree_flatten({"b": 1, "a": 2})
    assert leaves == [2, 1]
    out = tu.tree_map(lambda x: x, {"b": 1, "a": 2})
    assert list(out) == ["a", "b"]
    assert tu.tree_flatten({2: "a", 1.5: "b", True: "c"})[0] == ["c", "b", "a"]
    assert repr(tu.tree_structure({(1, 2): 1, (0, 3): 2})) == "PyTreeDef({(0, 3): *, (1, 2): *})"
    assert repr(tu.tree_structure({"it's": 1})) == "PyTreeDef({\"it's\": *})"


def test_unsortable_dict_keys_raise_value_error():
    with pytest.raises(ValueError, match="sort"):
        tu.tree_flatten({1: 2, "a": 3})
    with pytest.raises(ValueError):
        tu.tree_flatten({None: 1, "a": 2})


def test_namedtuple():
    leaves, treedef = tu.tree_flatten(Point(1, (2, 3)))
    assert leaves == [1, 2, 3]
    assert repr(treedef) == "PyTreeDef(CustomNode(namedtuple[Point], [*, (*, *)]))"
    assert treedef.node_data() == (Point, None)
    out = tu.tree_unflatten(treedef, [4, 5, 6])
    assert type(out) is Point and out == Point(4, (5, 6))
    assert tu.is_tree_node(Point)


def test_ordered_dict_keeps_insertion_order():
    od = OrderedDict([("b", 1), ("a", 2)])
    leaves, treedef = tu.tree_flatten(od)
    assert leaves == [1, 2]
    assert repr(treedef) == "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))"
    assert treedef.node_data() == (OrderedDict, ("b", "a"))
    out = tu.tree_unflatten(treedef, [3, 4])
    assert type(out) is OrderedDict and list(out.items()) == [("b", 3), ("a", 4)]
    assert tu.tree_flatten(OrderedDict([(1, 2), ("a", 3)]))[0] == [2, 3]  # no sorting needed


def test_defaultdict_keeps_default_factory():
    dd = defaultdict(list, {"b": 1, "a": 2})
    leaves, treedef = tu.tree_flatten(dd)
    assert leaves == [2, 1]
    assert repr(treedef) == ("PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], "
                             "[*, *]))")
    assert treedef.node_data() == (defaultdict, (list, ("a", "b")))
    out = tu.tree_unflatten(treedef, [5, 6])
    assert type(out) is defaultdict and out.default_factory is list
    assert dict(out) == {"a": 5, "b": 6}
    assert out["missing"] == []


def test_unflatten_accepts_iterables_and_checks_count():
    treedef = tu.tree_structure((1, {"a": 2, "b": None}))
    assert tu.tree_unflatten(treedef, iter([5, 6])) == (5, {"a": 6, "b": None})
    assert tu.tree_unflatten(tu.tree_structure((1, 2)), "ab") == ("a", "b")
    with pytest.raises(ValueError, match="2 leaves, but 1"):
        tu.tree_unflatten(treedef, [1])
    with pytest.raises(ValueError, match="2 leaves, but 3"):
        tu.tree_unflatten(treedef, [1, 2, 3])
    with pytest.raises(ValueError):
        tu.tree_unflatten(treedef, [])
    with pytest.raises(TypeError):
        tu.tree_unflatten(tu.tree_structure(1), 5)
    assert tu.tree_unflatten(tu.tree_structure(None), []) is None


def test_is_leaf():
    assert tu.tree_flatten((1, 2), is_leaf=lambda x: isinstance(x, tuple))[0] == [(1, 2)]
    leaves, treedef = tu.tree_flatten([1, None, (2,)], is_leaf=lambda x: x is None)
    assert leaves == [1, None, 2]
    assert repr(treedef) == "PyTreeDef([*, *, (*,)])"
    assert treedef == tu.tree_structure([0, 0, (0,)])
    assert tu.tree_map(len, [(1, 2), (3,)], is_leaf=lambda x: isinstance(x, tuple)) == [2, 1]


# --- PyTreeDef -----------------------------------------------------------------------------------

def test_treedef_children_and_node_data():
    treedef = tu.tree_structure((1, {"a": 2, "b": None}))
    assert treedef.children() == [tu.tree_structure(0), tu.tree_structure({"a": 0, "b": None})]
    assert tu.treedef_children(treedef) == treedef.children()
    assert treedef.node_data() == (tuple, None)
    assert tu.tree_structure({"a": 1, "b": 2}).node_data() == (dict, ["a", "b"])
    assert tu.tree_structure([1]).node_data() == (list, None)
    assert tu.tree_structure(None).node_data() == (type(None), None)
    assert tu.tree_structure(1).node_data() is None
    assert tu.tree_structure(1).children() == []
    assert tu.tree_structure(None).children() == []


def test_num_nodes():
    counts = [tu.tree_structure(t).num_nodes for t in [1, None, (), (1,), {"a": [1, None]}]]
    assert counts == [1, 1, 1, 2, 4]


def test_treedef_is_leaf_counts_none_as_single_node():
    assert tu.treedef_is_leaf(tu.tree_structure(1))
    assert tu.treedef_is_leaf(tu.tree_structure(None))
    assert not tu.treedef_is_leaf(tu.tree_structure((1,)))


def test_treedef_tuple():
    t = tu.treedef_tuple([tu.tree_structure(1), tu.tree_structure([1, 2])])
    assert repr(t) == "PyTreeDef((*, [*, *]))"
    assert t.num_leaves == 3
    assert repr(tu.treedef_tuple([])) == "PyTreeDef(())"
    with pytest.raises(TypeError):
        tu.treedef_tuple([1])


def test_compose():
    outer, inner = tu.tree_structure((1, None)), tu.tree_structure((1, 2))
    composed = outer.compose(inner)
    assert repr(composed) == "PyTreeDef(((*, *), None))"
    assert composed.num_leaves == 2
    assert tu.tree_structure(1).compose(inner) == inner


def test_treedef_eq_and_hash():
    a, b = tu.tree_structure((1, 2)), tu.tree_structure((3.0, "x"))
    assert a == b and hash(a) == hash(b)
    assert not (a != b)
    assert a != tu.tree_structure([1, 2])
    assert a != tu.tree_structure((1,))
    assert a != 5
    assert tu.tree_structure({"a": 1}) != tu.tree_structure({"b": 1})
    assert tu.tree_structure(Point(1, 2)) != tu.tree_structure((1, 2))
    cache = {a: "hit"}
    assert cache[tu.tree_structure((7, 8))] == "hit"
    with pytest.raises(TypeError):
        a < b  # noqa: B015


def test_treedef_eq_compares_aux_data():
    assert tu.tree_structure(Box(1, 2, "m")) == tu.tree_structure(Box(3, 4, "m"))
    assert tu.tree_structure(Box(1, 2, "m")) != tu.tree_structure(Box(3, 4, "n"))


def test_treedef_with_unhashable_aux_is_hashable():
    t1, t2 = tu.tree_structure(Box(1, 2, [1])), tu.tree_structure(Box(3, 4, [1]))
    assert t1 == t2 and hash(t1) == hash(t2)
    assert t1 != tu.tree_structure(Box(1, 2, [2]))


def test_treedef_pickle_and_copy():
    for tree in [(1, {"a": 2, "b": None}), Point(1, 2), OrderedDict(b=1, a=2),
                 defaultdict(list, a=1), Box(1, (2, 3), "m"), 5, None, Op(1, 2)]:
        treedef = tu.tree_structure(tree)
        restored = pickle.loads(pickle.dumps(treedef))
        assert restored == treedef and hash(restored) == hash(treedef)
        assert repr(restored) == repr(treedef)
        assert copy.deepcopy(treedef) == treedef
    restored = pickle.loads(pickle.dumps(tu.tree_structure(Point(1, 2))))
    assert type(restored.unflatten([1, 2])) is Point


def test_flatten_up_to():
    treedef = tu.tree_structure((1, {"a": 2, "b": None}))
    assert treedef.flatten_up_to((1, {"a": [2, 3], "b": None})) == [1, [2, 3]]
    assert tu.tree_structure(1).flatten_up_to((1, 2)) == [(1, 2)]
    assert tu.tree_structure(None).flatten_up_to(None) == []
    assert tu.tree_structure(Point(1, 2)).flatten_up_to(Point(3, 4)) == [3, 4]


@pytest.mark.parametrize("treedef_of, tree, fragments", [
    ((1, {"a": 2, "b": None}), (1, {"a": 2}), ["tree[1]", "keys ['a', 'b']", "keys ['a']"]),
    ((1, {"a": 2, "b": None}), [1, {"a": 2, "b": None}], ["a tuple of length 2", "a list"]),
    ((1, {"a": 2, "b": None}), (1, {"a": 2, "b": 3}), ["tree[1]['b']", "expected None",
                                                        "leaf of type int"]),
    ((1, 2), (1, 2, 3), ["tuple of length 2", "tuple of length 3"]),
    ((1, 2), 3, ["tuple of length 2", "a leaf of type int"]),
    ([1, 2], [1], ["list of length 2", "list of length 1"]),
    (Point(1, 2), (3, 4), ["Point", "tuple of length 2"]),
    (OrderedDict(a=1, b=2), OrderedDict(b=1, a=2), ["('a', 'b')", "('b', 'a')"]),
    (OrderedDict(a=1, b=2), {"a": 1, "b": 2}, ["OrderedDict", "a dict"]),
    ({"a": 1, "b": 2}, OrderedDict(a=1, b=2), ["a dict", "OrderedDict"]),
    ({"a": 1}, defaultdict(int, a=1), ["a dict", "defaultdict"]),
    (defaultdict(int, a=1), defaultdict(list, a=1), ["<class 'int'>", "<class 'list'>"]),
    (None, 1, ["expected None", "leaf of type int"]),
])
def test_flatten_up_to_mismatch_names_both_structures(treedef_of, tree, fragments):
    treedef = tu.tree_structure(treedef_of)
    with pytest.raises(ValueError) as info:
        treedef.flatten_up_to(tree)
    message = str(info.value)
    assert repr(treedef) in message
    for fragment in fragments:
        assert fragment in message


# --- tree_map and friends --------------------------------------------------------------------

def test_tree_map():
    assert tu.tree_map(lambda x: x + 1, (1, {"a": 2, "b": None})) == (2, {"a": 3, "b": None})
    assert tu.tree_map(lambda *a: sum(a), (1, [2, 3]), (10, [20, 30])) == (11, [22, 33])
    assert tu.tree_map(lambda x: (x, x), [1, 2]) == [(1, 1), (2, 2)]
    assert tu.tree_map(lambda x: 1, None) is None
    assert tu.tree_map(lambda x: x, [None, (None,)]) == [None, (None,)]
    assert jtree.map is tu.tree_map


def test_tree_map_rest_may_have_subtrees_at_leaves():
    assert tu.tree_map(lambda x, y: (x, y), (1, 2), ((3, 4), [5])) == ((1, (3, 4)), (2, [5]))
    # A leaf of the first tree matches None in another tree.
    assert tu.tree_map(lambda a, b: (a, b), [1], [None]) == [(1, None)]
    # is_leaf applies to the first tree only.
    assert tu.tree_map(lambda a, b: (a, b), [(1, 2)], [(3, 4)],
                       is_leaf=lambda x: isinstance(x, tuple)) == [((1, 2), (3, 4))]
    assert tu.tree_map(lambda a, b: (a, b), [None], [3],
                       is_leaf=lambda x: x is None) == [(None, 3)]


@pytest.mark.parametrize("tree, other, fragments", [
    ((1, 2), (1, 2, 3), ["different lengths of tuple", "type tuple of length 2",
                         "but of length 3"]),
    ((1, 2), [1, 2], ["different types", "<class 'tuple'>", "<class 'list'>"]),
    ({"a": 1}, {"b": 1}, ["different pytree metadata", "('a',)", "('b',)",
                          "    - ('a',)\n    ?   ^\n\n    + ('b',)"]),
    ({"a": 1}, {"a": 1, "b": 2}, ["different numbers of pytree children", "1 child keys\n    a\n",
                                  "2 child keys\n    a b\n", "key sets is\n    b"]),
    ((1, None), (1, 2), ["    tree_map tree[1]\n", "<class 'NoneType'>", "only matches None"]),
    ({"a": (1, 2)}, {"a": (1,)}, ["    tree_map tree['a']\n", "length 2", "length 1"]),
    (Point(1, 2), (1, 2), ["Point'>", "<class 'tuple'>"]),
    ((1, 2), Point(1, 2), ["<class 'tuple'>", "Point'>"]),
    (OrderedDict(a=1), {"a": 1}, ["<class 'collections.OrderedDict'>", "<class 'dict'>"]),
    (defaultdict(list, a=1), {"a": 1}, ["<class 'collections.defaultdict'>", "<class 'dict'>"]),
    (Op(1, 2, "add"), Op(1, 2, "sub"), ["('add',)", "('sub',)"]),
])
def test_tree_map_structure_mismatch(tree, other, fragments):
    """JAX's text (the reference's), which code matches on."""
    with pytest.raises(ValueError) as info:
        tu.tree_map(lambda *a: a, tree, other)
    message = str(info.value)
    assert message.startswith("pytree structure error: ")
    assert "At that key path, the prefix pytree tree_map tree has a subtree of type" in message
    for fragment in fragments:
        assert fragment in message


def test_tree_map_none_in_rest_where_first_has_leaf_reaches_f():
    with pytest.raises(TypeError):
        tu.tree_map(lambda a, b: a + b, (1, 2), (1, None))


def test_tree_all_reduce():
    assert tu.tree_all([1, (2,)]) is True
    assert tu.tree_all([1, (0,)]) is False
    assert tu.tree_all([]) is True and tu.tree_all(None) is True
    assert tu.tree_all([1, (0,)], is_leaf=lambda x: isinstance(x, tuple)) is True
    assert tu.tree_reduce(lambda a, b: a + b, [1, (2, 3)]) == 6
    assert tu.tree_reduce(lambda a, b: a + b, [1, (2, 3)], 10) == 16
    assert tu.tree_reduce(lambda a, b: a + b, [1, 2], initializer=5) == 8
    assert tu.tree_reduce(lambda a, b: a + b, [], 0) == 0
    assert tu.tree_reduce(lambda a, b: a + len(b), [(1, 2), (3,)], 0,
                          is_leaf=lambda x: isinstance(x, tuple)) == 3
    with pytest.raises(TypeError):
        tu.tree_reduce(lambda a, b: a + b, [])


def test_tree_reduce_associative_is_balanced():
    cat = lambda a, b: f"({a}{b})"  # noqa: E731
    expected = {1: "a", 2: "(ab)", 3: "(a(bc))", 5: "((ab)(c(de)))", 6: "((a(bc))(d(ef)))",
                7: "((a(bc))((de)(fg)))", 9: "(((ab)(cd))((ef)(g(hi))))"}
    for n, want in expected.items():
        assert jtree.reduce_associative(cat, list("abcdefghi"[:n])) == want
    assert tu.tree_reduce_associative(lambda a, b: a + b, [1, 2], identity=100) == 3
    assert tu.tree_reduce_associative(lambda a, b: a + b, [], identity=0) == 0
    with pytest.raises(TypeError):
        tu.tree_reduce_associative(lambda a, b: a + b, [])


def test_all_leaves():
    assert tu.all_leaves([1, 2]) and tu.all_leaves([]) and tu.all_leaves(iter([1, 2]))
    assert not tu.all_leaves([1, (2,)])
    assert not tu.all_leaves([None])
    assert not tu.all_leaves([[1]])
    assert tu.all_leaves([1, (2,)], is_leaf=lambda x: isinstance(x, tuple))
    assert tu.all_leaves([None, 1], is_leaf=lambda x: x is None)
    assert not tu.all_leaves([None], is_leaf=lambda x: False)


def test_tree_transpose():
    outer, inner = tu.tree_structure([0, 0]), tu.tree_structure((0, 0, 0))
    tree = [(1, 2, 3), (4, 5, 6)]
    assert tu.tree_transpose(outer, inner, tree) == ([1, 4], [2, 5], [3, 6])
    assert jtree.transpose(outer, None, tree) == ([1, 4], [2, 5], [3, 6])
    assert tu.tree_transpose(tu.tree_structure({"a": 0, "b": 0}), None,
                             {"a": [1, 2], "b": [3, 4]}) == [{"a": 1, "b": 3}, {"a": 2, "b": 4}]
    assert tu.tree_transpose(outer, tu.tree_structure({"x": 0, "y": 0}),
                             [{"x": 1, "y": 2}, {"x": 3, "y": 4}]) == {"x": [1, 3], "y": [2, 4]}
    # Only leaf counts are checked; leaves are regrouped in order.
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4, 5, 6)]) == ([1, 4], [2, 5], [3, 6])
    with pytest.raises(TypeError, match=r"PyTreeDef\(\[\(\*, \*\), \(\*, \*\)\]\)"):
        tu.tree_transpose(outer, tu.tree_structure((0, 0)), tree)
    with pytest.raises(TypeError):
        tu.tree_transpose(outer, None, [(1, 2, 3), (4, 5)])


def test_tree_broadcast():
    assert tu.tree_broadcast((1, 2), ((3, 4), [5, 6])) == ((1, 1), [2, 2])
    assert jtree.broadcast({"a": 1, "b": None}, {"a": [1, 2], "b": None}) == {"a": [1, 1],
                                                                             "b": None}
    assert tu.tree_broadcast(1, {"a": (1, 2), "b": None}) == {"a": (1, 1), "b": None}
    assert tu.tree_broadcast(1, (None, 2)) == (None, 1)
    assert tu.tree_broadcast(None, None) is None
    assert tu.tree_broadcast([1, 2], ([3], [4, 5]), is_leaf=lambda x: isinstance(x, list)) == (
        [[1, 2]], [[1, 2], [1, 2]])
    with pytest.raises(ValueError, match="broadcast_prefix prefix_tree"):
        tu.tree_broadcast((1, None), ((3, 4), 5))
    with pytest.raises(ValueError, match="length 3"):
        tu.tree_broadcast((1, 2), (1, 2, 3))


def test_flatten_one_level_and_is_tree_node():
    assert tu.flatten_one_level((1, (2, 3))) == ((1, (2, 3)), None)
    children, aux = tu.flatten_one_level({"b": 1, "a": 2})
    assert list(children) == [2, 1] and aux == ("a", "b")
    assert list(tu.flatten_one_level(None)[0]) == []
    with pytest.raises(ValueError):
        tu.flatten_one_level(1)
    pairs, aux = tu.flatten_one_level_with_keys({"b": 1, "a": 2})
    assert list(pairs) == [(DictKey("a"), 2), (DictKey("b"), 1)]
    with pytest.raises(ValueError):
        tu.flatten_one_level_with_keys(1)
    assert tu.is_tree_node(tuple) and tu.is_tree_node(type(None)) and tu.is_tree_node(Box)
    assert not tu.is_tree_node(int) and not tu.is_tree_node((1, 2))


# --- key paths ---------------------------------------------------------------------------------

def test_key_entries():
    k, d, g, f = SequenceKey(0), DictKey("a"), GetAttrKey("name"), FlattenedIndexKey(3)
    assert [repr(e) for e in (k, d, g, f)] == [
        "SequenceKey(idx=0)", "DictKey(key='a')", "GetAttrKey(name='name')",
        "FlattenedIndexKey(key=3)"]
    assert [str(e) for e in (k, d, g, f)] == ["[0]", "['a']", ".name", "[<flat index 3>]"]
    assert str(DictKey(1)) == "[1]"
    assert (k.idx, d.key, g.name, f.key) == (0, "a", "name", 3)
    assert k == SequenceKey(0) and hash(k) == hash(SequenceKey(0))
    assert k != SequenceKey(1) and k != 0 and SequenceKey(0) != FlattenedIndexKey(0)
    assert pickle.loads(pickle.dumps((k, d, g, f))) == (k, d, g, f)
    with pytest.raises(AttributeError):
        k.idx = 3
    with pytest.raises(TypeError):
        hash(DictKey([1]))
    match g:
        case GetAttrKey(name):
            assert name == "name"
    assert SequenceKey.__match_args__ == ("idx",)


def test_flatten_with_path():
    tree = (1, {"a": [2, Point(3, None)], "b": OrderedDict(z=4, y=5)}, defaultdict(int, q=6), None)
    pairs, treedef = tu.tree_flatten_with_path(tree)
    assert treedef == tu.tree_structure(tree)
    assert [x for _, x in pairs] == [1, 2, 3, 4, 5, 6]
    assert pairs[2][0] == (SequenceKey(1), DictKey("a"), SequenceKey(1), GetAttrKey("x"))
    assert [tu.keystr(p) for p, _ in pairs] == [
        "[0]", "[1]['a'][0]", "[1]['a'][1].x", "[1]['b']['z']", "[1]['b']['y']", "[2]['q']"]
    assert [tu.keystr(p, simple=True, separator="/") for p, _ in pairs] == [
        "0", "1/a/0", "1/a/1/x", "1/b/z", "1/b/y", "2/q"]
    assert tu.tree_leaves_with_path(tree) == pairs
    assert tu.tree_flatten_with_path(5) == ([((), 5)], tu.tree_structure(5))
    assert tu.tree_leaves_with_path({1: "a"}) == [((DictKey(1),), "a")]


def test_keystr():
    path = (SequenceKey(0), DictKey("a"), GetAttrKey("x"))
    assert tu.keystr(()) == ""
    assert tu.keystr(path, separator="/") == "[0]/['a']/.x"
    assert tu.keystr(path, simple=True) == "0ax"
    assert tu.keystr([DictKey(1), GetAttrKey("n"), FlattenedIndexKey(2), SequenceKey(3)],
                     simple=True, separator=".") == "1.n.2.3"
    assert tu.keystr(["foo", 1]) == "foo1"
    with pytest.raises(TypeError):
        tu.keystr(path, True, "/")


def test_flatten_with_path_is_leaf():
    seen = []

    def is_leaf(path, x):
        seen.append(path)
        return len(path) == 1

    out = tu.tree_map_with_path(lambda p, x: (p, x), [(1, 2), 3], is_leaf=is_leaf,
                                is_leaf_takes_path=True)
    assert out == [((SequenceKey(0),), (1, 2)), ((SequenceKey(1),), 3)]
    assert seen == [(), (SequenceKey(0),), (SequenceKey(1),)]
    assert tu.tree_leaves_with_path([None, 1], is_leaf=lambda x: x is None) == [
        ((SequenceKey(0),), None), ((SequenceKey(1),), 1)]


def test_tree_map_with_path():
    tree = {"a": [1, Point(2, 3)], "b": None}
    assert tu.tree_map_with_path(lambda p, x: tu.keystr(p), tree) == {
        "a": ["['a'][0]", Point("['a'][1].x", "['a'][1].y")], "b": None}
    assert jtree.map_with_path(lambda p, x, y: (x, y), (1, 2), (3, 4)) == ((1, 3), (2, 4))
    with pytest.raises(ValueError, match="tree_map_with_path"):
        tu.tree_map_with_path(lambda p, a, b: a, (1, 2), (1,))


# --- registration --------------------------------------------------------------------------------

def test_registered_node():
    leaves, treedef = tu.tree_flatten(Box(1, (2, 3), "m"))
    assert leaves == [1, 2, 3]
    assert repr(treedef) == "PyTreeDef(CustomNode(Box[m], [*, (*, *)]))"
    assert treedef.node_data() == (Box, "m")
    assert tu.tree_unflatten(treedef, [4, 5, 6]) == Box(4, (5, 6), "m")
    pairs, _ = tu.tree_flatten_with_path(Box(1, (2, 3), "m"))
    assert [p for p, _ in pairs] == [(FlattenedIndexKey(0),),
                                     (FlattenedIndexKey(1), SequenceKey(0)),
                                     (FlattenedIndexKey(1), SequenceKey(1))]
    assert tu.keystr(pairs[0][0]) == "[<flat index 0>]"


def test_unflatten_func_receives_tuple_of_children():
    class Holder:
        def __init__(self, a):
            self.a = a

    received = []
    tu.register_pytree_node(Holder, lambda h: ([h.a], None),
                            lambda aux, ch: received.append(ch) or Holder(*ch))
    assert tu.tree_map(lambda x: x + 1, Holder(1)).a == 2
    assert received == [(2,)]


def test_registering_twice_raises_value_error():
    with pytest.raises(ValueError, match="Duplicate custom PyTreeDef type registration for "):
        tu.register_pytree_node(Box, lambda x: ((), None), lambda a, c: None)
    # functions that are not callable are a TypeError, checked first (as JAX)
    with pytest.raises(TypeError, match="flatten_func must be callable, got None"):
        tu.register_pytree_node(tuple, None, None)
    with pytest.raises(TypeError, match="unflatten_func must be callable"):
        tu.register_pytree_node(type("Fresh", (), {}), lambda x: ((), None), 1)
    with pytest.raises(ValueError):
        tu.register_pytree_node(tuple, lambda x: ((), None), lambda a, c: None)
    with pytest.raises(ValueError):
        tu.register_pytree_node(OrderedDict, lambda x: ((), None), lambda a, c: None)


def test_registration_after_type_was_seen_as_leaf():
    class Late:
        def __init__(self, v):
            self.v = v

    assert tu.tree_leaves([Late(1)])[0].v == 1  # a leaf so far
    tu.register_pytree_node(Late, lambda x: ((x.v,), None), lambda a, c: Late(*c))
    assert tu.tree_leaves([Late(1)]) == [1]


def test_register_pytree_with_keys():
    class WithKeys:
        def __init__(self, a, b):
            self.a, self.b = a, b

    tu.register_pytree_with_keys(
        WithKeys, lambda x: (((GetAttrKey("a"), x.a), (GetAttrKey("b"), x.b)), None),
        lambda aux, ch: WithKeys(*ch))
    assert tu.tree_leaves(WithKeys(1, 2)) == [1, 2]
    pairs, treedef = tu.tree_flatten_with_path(WithKeys(1, [2]))
    assert pairs == [((GetAttrKey("a"),), 1), ((GetAttrKey("b"), SequenceKey(0)), 2)]
    assert repr(treedef) == "PyTreeDef(CustomNode(WithKeys[None], [*, [*]]))"


def test_register_pytree_node_class():
    out = tu.tree_map(lambda v: v * 10, Pair([1, 2], "t"))
    assert type(out) is Pair and out.x == [10, 20] and out.tag == "t"
    assert repr(tu.tree_structure(Pair(1, "y"))) == "PyTreeDef(CustomNode(Pair[y], [*]))"


def test_register_pytree_with_keys_class():
    pairs, treedef = tu.tree_flatten_with_path(Named(1, 2))
    assert pairs == [((GetAttrKey("u"),), 1), ((GetAttrKey("v"),), 2)]
    assert tu.tree_leaves(Named(1, 2)) == [1, 2]
    assert tu.tree_unflatten(treedef, [3, 4]).v == 4


def test_register_dataclass_decorator_infers_static_fields():
    leaves, treedef = tu.tree_flatten(Op(1, 2))
    assert leaves == [1, 2]
    assert repr(treedef) == "PyTreeDef(CustomNode(Op[('add',)], [*, *]))"
    assert treedef.node_data() == (Op, ("add",))
    assert tu.tree_unflatten(tu.tree_structure(Op(1, 2, "sub")), [7, 8]) == Op(7, 8, "sub")
    assert [p for p, _ in tu.tree_leaves_with_path(Op(1, 2))] == [(GetAttrKey("x"),),
                                                                 (GetAttrKey("y"),)]
    assert tu.tree_structure(Op(1, 2, "add")) != tu.tree_structure(Op(1, 2, "sub"))
    assert jtree.static(default=1, metadata={"a": 2}).metadata == {"static": True, "a": 2}


def test_register_dataclass_explicit_fields():
    @dataclasses.dataclass
    class E:
        x: int
        y: int
        z: int = 0

    tu.register_dataclass(E, data_fields=["y", "x"], meta_fields=["z"])
    leaves, treedef = tu.tree_flatten(E(1, 2, 3))
    assert leaves == [2, 1]
    assert repr(treedef) == "PyTreeDef(CustomNode(E[(3,)], [*, *]))"
    assert tu.tree_unflatten(treedef, [5, 6]) == E(6, 5, 3)


def test_register_dataclass_frozen_and_drop_fields():
    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int
        b: str = jtree.static(default="s")

    tu.register_dataclass(Frozen)
    assert tu.tree_map(lambda v: v + 1, Frozen(1)) == Frozen(2)

    @dataclasses.dataclass
    class H:
        x: int
        y: int = dataclasses.field(init=False, default=5)

    with pytest.raises(ValueError, match="unexpected"):  # inferred fields include init=False ones
        tu.register_dataclass(H)
    tu.register_dataclass(H, data_fields=["x"], meta_fields=[], drop_fields=["y"])
    assert tu.tree_leaves(H(3)) == [3]
    restored = tu.tree_unflatten(tu.tree_structure(H(3)), [9])
    assert (restored.x, restored.y) == (9, 5)


def test_register_dataclass_errors():
    def fresh():
        @dataclasses.dataclass
        class A:
            x: int
            y: int
        return A

    with pytest.raises(ValueError, match="missing"):
        tu.register_dataclass(fresh(), data_fields=["x"], meta_fields=[])
    with pytest.raises(ValueError, match="unexpected"):
        tu.register_dataclass(fresh(), data_fields=["x", "y", "w"], meta_fields=[])
    with pytest.raises(ValueError, match="both"):
        tu.register_dataclass(fresh(), data_fields=["x", "y"], meta_fields=["x"])
    with pytest.raises(TypeError):
        tu.register_dataclass(fresh(), data_fields=["x", "y"])
    tu.register_dataclass(fresh(), data_fields=["x"], meta_fields=[], drop_fields=["y"])
    tu.register_dataclass(fresh(), data_fields=["x", "y"], meta_fields=[], drop_fields=["w"])
    cls = fresh()
    tu.register_dataclass(cls)
    with pytest.raises(ValueError):
        tu.register_dataclass(cls)

    class NotDataclass:
        def __init__(self, a, b):
            self.x, self.y = a, b

    with pytest.raises(TypeError):
        tu.register_dataclass(NotDataclass)
    tu.register_dataclass(NotDataclass, data_fields=["x"], meta_fields=["y"])
    leaves, treedef = tu.tree_flatten(NotDataclass(1, 2))
    assert leaves == [1] and repr(treedef) == "PyTreeDef(CustomNode(NotDataclass[(2,)], [*]))"
    with pytest.raises(TypeError):  # unflattening calls NotDataclass(x=..., y=...)
        tu.tree_unflatten(treedef, [3])


def test_register_static():
    leaves, treedef = tu.tree_flatten((1, StaticStr("hi")))
    assert leaves == [1]
    assert repr(treedef) == "PyTreeDef((*, CustomNode(StaticStr[hi], [])))"
    assert tu.tree_structure(StaticStr("hi")) != tu.tree_structure(StaticStr("ho"))
    assert tu.tree_unflatten(tu.tree_structure(StaticStr("hi")), []) == "hi"


# --- Partial -----------------------------------------------------------------------------------

def _f(a, b, c=0):
    return a + b + c


def test_partial_is_a_pytree():
    p = tu.Partial(_f, 1, c=5)
    assert isinstance(p, functools.partial)
    assert p(2) == 8
    leaves, treedef = tu.tree_flatten(p)
    assert leaves == [1, 5]
    assert repr(treedef) == f"PyTreeDef(CustomNode(Partial[{_f}], [(*,), {{'c': *}}]))"
    assert treedef.node_data() == (tu.Partial, _f)
    assert tu.tree_map(lambda x: x * 10, p)(2) == 62
    assert tu.tree_structure(tu.Partial(_f, 1)) == tu.tree_structure(tu.Partial(_f, 2))
    assert [p for p, _ in tu.tree_leaves_with_path(p)] == [
        (FlattenedIndexKey(0), SequenceKey(0)), (FlattenedIndexKey(1), DictKey("c"))]
    assert repr(p) == f"Partial({_f!r}, 1, c=5)"
    restored = pickle.loads(pickle.dumps(p))
    assert type(restored) is tu.Partial and restored(2) == 8


def test_partial_of_partial_keeps_inner_partial_static():
    inner = tu.Partial(_f, 1)
    outer = tu.Partial(inner, 2)
    assert outer() == 3
    assert tu.tree_leaves(outer) == [2]
    assert outer.func.func is _f and outer.func.args == (1,)
    assert tu.tree_structure(tu.Partial(inner, 1)) == tu.tree_structure(tu.Partial(inner, 2))
    wrapped = tu.Partial(functools.partial(_f, 1), 2)
    assert wrapped() == 3 and tu.tree_leaves(wrapped) == [2]


# --- xjax.tree ----------------------------------------------------------------------------------

def test_tree_module_aliases():
    assert jtree.flatten is tu.tree_flatten and jtree.unflatten is tu.tree_unflatten
    assert jtree.leaves is tu.tree_leaves and jtree.structure is tu.tree_structure
    assert jtree.flatten_with_path is tu.tree_flatten_with_path
    assert jtree.leaves_with_path is tu.tree_leaves_with_path
    assert jtree.reduce is tu.tree_reduce and jtree.all is tu.tree_all
    assert jtree.transpose is tu.tree_transpose and jtree.broadcast is tu.tree_broadcast
    assert jtree.leaves({"a": collections.OrderedDict(b=1)}) == [1]


def test_key_entries_take_their_field_by_name():
  assert SequenceKey(idx=1) == SequenceKey(1) and str(SequenceKey(idx=1)) == "[1]"
  assert DictKey(key="a") == DictKey("a") and str(DictKey(key="a")) == "['a']"
  assert GetAttrKey(name="b").name == "b"
  assert FlattenedIndexKey(key=2).key == 2
  with pytest.raises(TypeError):
    SequenceKey(key=1)
  with pytest.raises(TypeError):
    DictKey()


def test_flatten_up_to_dict_mismatch_starts_with_jaxs_wording():
    # optax's tests match on JAX's "Dict key mismatch" (from PyTreeDef.flatten_up_to).
    treedef = tu.tree_structure({"a": 1})
    with pytest.raises(ValueError, match=r"^Dict key mismatch; expected keys: \['a'\]; "
                                         r"present keys: \['a', 'b'\]\.\nflatten_up_to"):
        treedef.flatten_up_to({"a": 1, "b": 2})


def test_unflattener_builds_what_unflatten_builds():
    from xjax._src.foundations.tree_util import unflattener
    deep = 0
    for _ in range(60):   # deeper than one compiled expression may nest: unflatten's way
        deep = [deep, 1]
    trees = [
        {"params": {"Dense_0": {"kernel": 1, "bias": 2}, "Dense_1": {"kernel": 3}}},
        (Point(1, [2, (3,)]), None, {7: 4, 2: (5, 6)}, ()),
        [Box(1, {"k": 2}, meta=("m", 1)), OrderedDict([("z", 3), ("a", 4)])],
        defaultdict(list, {"b": (1, 2), "a": [3]}),
        (1,),
        deep,
    ]
    for tree in trees:
        leaves, treedef = tu.tree_flatten(tree)
        fresh = list(range(100, 100 + len(leaves)))
        built = unflattener(treedef)(list(fresh))
        want = treedef.unflatten(fresh)
        assert built == want and tu.tree_structure(built) == treedef
        assert type(built) is type(want)


def test_treedef_walk_and_from_iterable_tree():
  """Values from JAX 0.10.2: f_node gets (children's results, node data)."""
  import collections
  from xjax import tree_util as tu
  td = tu.tree_structure((1, [2, 3], {"a": 4}))
  assert td.walk(lambda ch, nd: ("N", ch, nd), lambda x: x * 10, [1, 2, 3, 4]) == (
      "N", (10, ("N", (20, 30), None), ("N", (40,), ["a"])), None)
  assert tu.tree_structure(None).walk(lambda ch, nd: ("N", ch, nd), None, []) == (
      "N", (), None)
  assert tu.tree_structure(5).walk(lambda ch, nd: ch, lambda x: x + 1, [7]) == 8
  with pytest.raises(ValueError, match="Too few leaves for PyTreeDef"):
    td.walk(lambda ch, nd: ch, None, [1, 2])
  with pytest.raises(ValueError, match="Too many leaves for PyTreeDef"):
    td.walk(lambda ch, nd: ch, None, [1, 2, 3, 4, 5])
  assert td.from_iterable_tree((1, (2, 3), (4,))) == (1, [2, 3], {"a": 4})
  with pytest.raises(ValueError, match="Arity mismatch between trees"):
    td.from_iterable_tree((1, 2))
  NT = collections.namedtuple("NT", "a b")
  td2 = tu.tree_structure(NT(1, {"z": 2, "y": 3}))
  assert td2.walk(lambda ch, nd: (ch, nd), None, [1, 2, 3]) == ((1, ((2, 3), ["y", "z"])), NT)
  assert td2.from_iterable_tree([1, [2, 3]]) == NT(a=1, b={"y": 2, "z": 3})


# Bytes of jaxlib 0.10.2's serialize_using_proto.
_PROTO_CASES = [
    (1, "0a021001"),
    ((1, 2), "0a0210010a0210010a0408021004"),
    ([1, (2, None)], "0a0210010a0210010a0210030a04080210040a0408021002"),
    ({"b": 1, "a": [2, 3]}, "0a0210010a0210010a04080210020a0210010a0a080210051a040a020001120161"
                            "120162"),
    (None, "0a021003"), ((), "0a021004"),
    ({"a": {"a": 1, "b": 2}, "c": {}}, "0a0210010a0210010a0a080210051a040a0200010a0210050a0a0802"
                                       "10051a040a020002120161120162120163"),
    ([[], {}], "0a0210020a0210050a0408021002"),
    ({"z": 1, "y": (2, {"z": 3})}, "0a0210010a0210010a09080110051a030a01000a04080210040a021001"
                                   "0a0a080210051a040a02010012017a120179"),
]


@pytest.mark.parametrize("tree,hex_bytes", _PROTO_CASES)
def test_serialize_using_proto(tree, hex_bytes):
  td = tu.tree_structure(tree)
  assert td.serialize_using_proto().hex() == hex_bytes
  back = tu.PyTreeDef.deserialize_using_proto(tu.default_registry,
                                                     bytes.fromhex(hex_bytes))
  assert back == td and back.num_leaves == td.num_leaves


def test_serialize_using_proto_errors():
  import collections
  nt = collections.namedtuple("NT", ["x", "y"])(1, 2)
  with pytest.raises(ValueError, match="User-defined nodes are not supported"):
    tu.tree_structure(nt).serialize_using_proto()
  with pytest.raises(ValueError, match="Only string keys are supported"):
    tu.tree_structure({1: 2}).serialize_using_proto()
  load = lambda b: tu.PyTreeDef.deserialize_using_proto(tu.default_registry, b)
  with pytest.raises(ValueError, match="Could not deserialize PyTreeDefProto"):
    load(b"\xff")
  with pytest.raises(ValueError, match=r"Malformed pytree proto \(invalid node type\)"):
    load(b"\x0a\x02\x10\x09")
  with pytest.raises(RuntimeError, match="PyTreeDef traversal did not yield a singleton"):
    load(b"\x0a\x02\x10\x01\x0a\x02\x10\x01")


def test_from_node_data_and_children():
  make = tu.PyTreeDef.from_node_data_and_children
  reg = tu.default_registry
  kids = [tu.tree_structure(1), tu.tree_structure((1, 2))]
  assert repr(make(reg, (dict, ["a", "b"]), kids)) == "PyTreeDef({'a': *, 'b': (*, *)})"
  assert repr(make(reg, (tuple, None), kids)) == "PyTreeDef((*, (*, *)))"
  assert repr(make(reg, None, [])) == "PyTreeDef(*)"
  td = tu.tree_structure({"a": [1, (2, 3)], "b": None})

  def rebuild(t):
    return make(reg, t.node_data(), [rebuild(c) for c in t.children()])
  assert rebuild(td) == td and rebuild(td).num_leaves == 3


@pytest.mark.parametrize("call, first_lines", [
    (lambda: tu.tree_map(lambda a, c: a, (1, 2), [1, 2]),
     ["pytree structure error: different types at key path", "    tree_map tree"]),
    (lambda: tu.tree_map(lambda a, c: a, [1, 2, 3], [1, 2]),
     ["pytree structure error: different lengths of list at key path", "    tree_map tree"]),
    (lambda: tu.tree_map(lambda a, c: a, {"a": 1, "b": 2}, {"a": 1, "c": 2}),
     ["pytree structure error: different pytree metadata at key path", "    tree_map tree"]),
    (lambda: tu.tree_map(lambda a, c: a, {"a": (1, 2)}, {"a": (1, 2, 3)}),
     ["pytree structure error: different lengths of tuple at key path",
      "    tree_map tree['a']"]),
    (lambda: tu.tree_map_with_path(lambda p, a, c: a, {"a": 1}, {"b": 1}),
     ["pytree structure error: different pytree metadata at key path",
      "    tree_map_with_path tree"]),
    (lambda: tu.tree_broadcast([1, 2], (1, 2)),
     ["pytree structure error: different types at key path",
      "    broadcast_prefix prefix_tree"]),
    (lambda: tu.tree_structure((1, 2)).flatten_up_to([1, 2]),
     ["Expected tuple, got [1, 2]."]),
    (lambda: tu.tree_structure((1, 2)).flatten_up_to((1, 2, 3)),
     ["Tuple arity mismatch: 3 != 2; tuple: (1, 2, 3)."]),
    (lambda: tu.tree_structure([1, 2]).flatten_up_to([1, 2, 3]),
     ["List arity mismatch: 3 != 2; list: [1, 2, 3]."]),
    (lambda: tu.tree_structure(None).flatten_up_to(1), ["Expected None, got 1."]),
    (lambda: tu.tree_unflatten(tu.tree_structure((0, 0)), [1, 2, 3]),
     ["Too many leaves for PyTreeDef; expected 2."]),
    (lambda: tu.tree_unflatten(tu.tree_structure((0, 0)), [1]),
     ["Too few leaves for PyTreeDef; expected 2, got 1"]),
    (lambda: tu.tree_leaves({1: "a", "b": 2}),
     ["Comparator raised exception while sorting pytree dictionary keys."]),
])
def test_structure_errors_open_with_jax_lines(call, first_lines):
  """Code matches on JAX's first lines (the reference's text); xjax's detail follows."""
  with pytest.raises(ValueError) as info:
    call()
  lines = str(info.value).splitlines()
  assert lines[:len(first_lines)] == first_lines
  assert len(lines) > len(first_lines)
