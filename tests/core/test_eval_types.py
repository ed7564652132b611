"""``core.trace.eval_types`` remembers the result types of lax's primitives (whose shape rules
read only operand types and parameters), never an error; once types are sharded, per abstract
mesh (sharding rules may read the context's)."""
import numpy as np
import pytest

from xjax._src.core import trace
from xjax._src.core import avals
from xjax._src.core.avals import ShapedArray
from xjax._src.foundations.sharding import AbstractMesh, AxisType, use_abstract_mesh
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import shapes

F3 = ShapedArray((3,), np.dtype(np.float32))
I3 = ShapedArray((3,), np.dtype(np.int32))


@pytest.fixture(autouse=True)
def no_sharded_types():
  """As in a process that has made no sharded type (which remembers types)."""
  before = avals.sharded_types[0]
  avals.sharded_types[0] = False
  try:
    yield
  finally:
    avals.sharded_types[0] = before


def test_types_are_remembered_per_operand_types_and_parameters():
  assert ew.add_p.types_cached
  first = trace.eval_types(ew.add_p, [F3, F3], {})
  assert first == F3 and trace.eval_types(ew.add_p, [F3, F3], {}) is first
  weak = trace.eval_types(ew.add_p, [F3.update(weak_type=True)] * 2, {})
  assert weak.weak_type and weak is not first
  out = trace.eval_types(shapes.reshape_p, [F3], dict(new_sizes=(3, 1), dimensions=None,
                                                      sharding=None))
  assert out.shape == (3, 1)
  assert trace.eval_types(shapes.reshape_p, [F3], dict(new_sizes=(1, 3), dimensions=None,
                                                       sharding=None)).shape == (1, 3)


def test_types_are_remembered_per_abstract_mesh_once_a_type_is_sharded():
  avals.sharded_types[0] = True
  first = trace.eval_types(ew.add_p, [F3, F3], {})
  assert first == F3 and trace.eval_types(ew.add_p, [F3, F3], {}) is first
  mesh = AbstractMesh((1,), ("i",), (AxisType.Explicit,))
  with use_abstract_mesh(mesh):
    other = trace.eval_types(ew.add_p, [F3, F3], {})
  assert other == F3 and other is not first


def test_a_shape_rule_error_is_raised_every_time():
  for _ in range(2):
    with pytest.raises(TypeError, match="add requires arguments to have the same dtypes"):
      trace.eval_types(ew.add_p, [F3, I3], {})


def test_several_results_come_as_a_new_list_each_time():
  prim = trace.Primitive("two_results_for_test", multiple_results=True)
  prim.abstract_eval = lambda a: [a, a]
  prim.types_cached = True
  first = trace.eval_types(prim, [F3], {})
  first.append(None)  # a caller changing its list changes nothing remembered
  assert trace.eval_types(prim, [F3], {}) == [F3, F3]
  assert trace.eval_types(prim, [F3], {}, effects=True) == ([F3, F3], frozenset())
