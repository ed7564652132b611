"""The smaller names of xjax.core, xjax.errors and xjax.tree_util JAX 0.10.2 exports:
dimension helpers, evaluation contexts, type aliases, error classes, the pytree registry
object (values and messages from the reference)."""
from typing import Any

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import core, errors, tree_util


def test_max_min_dim():
  assert core.max_dim(np.int32(3), 5) == 5 and type(core.max_dim(np.int32(3), 5)) is int
  assert core.min_dim(3, 4) == 3
  for bad in ((3.5, 2), ("a", 2)):
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
      core.max_dim(*bad)
  with pytest.raises(errors.ConcretizationTypeError, match="core.max_dim d1"):
    xjax.jit(lambda d: core.max_dim(d, 2))(3)


def test_eval_context_and_aliases():
  seen = []

  def f(x):
    with core.eval_context():  # computed now, though f is being traced
      seen.append(jnp.ones(2) * 3)
    with core.ensure_compile_time_eval():
      seen.append(jnp.ones(2) + 1)
    return x

  xjax.jit(f)(1.0)
  assert not any(isinstance(v, core.Tracer) for v in seen)
  np.testing.assert_array_equal(seen[0], [3.0, 3.0])
  np.testing.assert_array_equal(seen[1], [2.0, 2.0])
  assert core.ensure_compile_time_eval is xjax.ensure_compile_time_eval
  assert core.ParamDict == dict[str, Any] and core.Value is Any


def test_error_classes():
  assert issubclass(errors.JaxprTypeError, TypeError)
  assert issubclass(errors.InconclusiveDimensionOperation, Exception)
  assert not issubclass(errors.InconclusiveDimensionOperation, TypeError)


def test_default_registry():
  r = tree_util.default_registry
  t = {"a": (1, [2, 3]), "b": None}
  leaves, treedef = r.flatten(t)
  assert leaves == [1, 2, 3] and str(treedef) == "PyTreeDef({'a': (*, [*, *]), 'b': None})"
  leaves, treedef = r.flatten(t, lambda x: isinstance(x, list))
  assert leaves == [1, [2, 3]] and str(treedef) == "PyTreeDef({'a': (*, *), 'b': None})"
  assert r.flatten_one_level(t) == (((1, [2, 3]), None), ("a", "b"))
  assert r.flatten_one_level((1, 2)) == ((1, 2), None) and r.flatten_one_level(3) is None
  assert r.flatten_one_level_with_keys(t) == (
      ((tree_util.DictKey("a"), (1, [2, 3])), (tree_util.DictKey("b"), None)), ("a", "b"))
  paths, _ = r.flatten_with_path(t)
  assert [tree_util.keystr(p) for p, _ in paths] == ["['a'][0]", "['a'][1][0]", "['a'][1][1]"]
  assert r.is_node(dict) and not r.is_node(int) and r.is_node(type(None))

  class Pair:
    def __init__(self, x, y):
      self.x, self.y = x, y

  r.register_node(Pair, lambda p: ((p.x, p.y), None), lambda aux, c: Pair(*c))
  assert tree_util.tree_leaves(Pair(1, 2)) == [1, 2]
  assert xjax.tree.map(lambda v: v * 10, Pair(1, 2)).y == 20


def test_shaped_array_aval_protocol():
  """The aval methods custom rules call (values from JAX 0.10.2)."""
  a = core.ShapedArray((2,), jnp.int32, weak_type=True)
  assert a.update_weak_type(True) is a
  assert a.update_weak_type(False) == core.ShapedArray((2,), jnp.int32)
  assert a.normalize() == core.ShapedArray((2,), jnp.int32)
  ct = a.to_ct_aval()   # float0, weak type kept
  assert ct.shape == (2,) and ct.dtype == xjax.dtypes.float0 and ct.weak_type
  f = core.ShapedArray((3,), jnp.float32, weak_type=True)
  assert f.to_ct_aval() == f
  assert core.ShapedArray.array_abstraction_level == 2
  assert a.is_high is False and a.has_qdd is False
  assert a.mat is xjax.sharding.ManualAxisType() and a.manual_axis_type.empty
  assert a.update_manual_axis_type(a.mat) is a
  # the manual axes a shard_map value varies over are part of its type (printed as JAX's)
  b = a.update_manual_axis_type(xjax.sharding.ManualAxisType(varying={"x"}))
  assert str(b) == "~int32[2]{V:x}" and b.mat.varying == {"x"} and b != a
  assert str(b.update(shape=(3,))) == "~int32[3]{V:x}" and str(b.to_ct_aval()) == "~float0[2]{V:x}"
  with pytest.raises(NotImplementedError, match="unreduced or reduced"):
    a.update_manual_axis_type(xjax.sharding.ManualAxisType(unreduced={"x"}))
