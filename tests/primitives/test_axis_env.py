"""make_jaxpr's axis_env binds axis names for collectives, and collectives called with an
unbound name raise JAX's NameError as they trace.  Jaxprs, values, types and messages are
JAX 0.10.2's (JAX names psum's parameters ``axes``/``axis_index_groups``; xjax's is
``axis_name``, so jaxprs with a psum are compared by equation and type)."""
import inspect

import numpy as np
import pytest
from tests.checking import check, check_exact

import xjax
import xjax.numpy as jnp
from xjax import lax

ENV = [("i", 4)]


def _jaxpr(fun, *args, env=ENV):
  return xjax.make_jaxpr(fun, axis_env=env)(*args)


def _prims(jaxpr):
  return [e.primitive.name for e in jaxpr.eqns]


def test_axis_size_and_index_under_axis_env():
  assert str(_jaxpr(lambda x: lax.axis_size("i") * x, 1.0)) == (
      "{ lambda ; a:f32[]. let b:f32[] = mul 4.0:f32[] a in (b,) }")
  assert str(_jaxpr(lambda x: lax.axis_index("i") + x, 1.0)) == (
      "{ lambda ; a:f32[]. let\n    b:i32[] = axis_index[axis_name=i] \n"
      "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=True] b\n"
      "    d:f32[] = add c a\n  in (d,) }")
  assert str(_jaxpr(lambda x: lax.axis_size(("i", "j")), 1.0, env=[("i", 4), ("j", 2)])) == (
      "{ lambda ; a:f32[]. let  in (8:i32[],) }")


@pytest.mark.parametrize("fun, arg, prim, out", [
    (lambda x: lax.all_gather(x, "i"), np.ones(3, np.float32), "all_gather", [(4, 3)]),
    (lambda x: lax.all_gather(x, "i", axis=1, tiled=True), np.ones((2, 3), np.float32),
     "all_gather", [(2, 12)]),
    (lambda x: lax.psum_scatter(x, "i", tiled=True), np.ones(8, np.float32), "reduce_scatter",
     [(2,)]),
    (lambda x: lax.ppermute(x, "i", [(0, 1), (1, 0)]), np.ones(3, np.float32), "ppermute",
     [(3,)]),
    (lambda x: lax.all_to_all(x, "i", 0, 0), np.ones(4, np.float32), "all_to_all", [(4,)]),
    (lambda x: lax.psum(x, "i"), np.ones(3, np.float32), "psum", [(3,)]),
    (lambda x: lax.pmax(x, "i"), np.ones(3, np.float32), "pmax", [(3,)]),
])
def test_collectives_trace_under_axis_env(fun, arg, prim, out):
  jaxpr = _jaxpr(fun, arg)
  assert _prims(jaxpr) == [prim]
  assert [a.shape for a in jaxpr.out_avals] == out


def test_pmean_divides_by_the_axis_size():
  jaxpr = _jaxpr(lambda x: lax.pmean(x, "i"), np.ones(3, np.float32))
  assert _prims(jaxpr) == ["psum", "div"]
  assert str(jaxpr.eqns[1].invars[1]) == "4.0:f32[]"
  jaxpr = _jaxpr(lambda x: lax.pmean(x, "i"), np.ones(3, np.int32))   # as / divides
  assert _prims(jaxpr) == ["psum", "convert_element_type", "div"]
  assert str(jaxpr.out_avals[0]) == "float32[3]"
  jaxpr = _jaxpr(lambda x: lax.pmean(x, ("i", "j")), np.ones(3, np.float32),
                 env=[("i", 4), ("j", 2)])
  assert str(jaxpr.eqns[-1].invars[1]) == "8.0:f32[]"
  jaxpr = _jaxpr(lambda x: lax.psum(x, "i"), np.ones(3, np.bool_))   # booleans count as int32
  assert _prims(jaxpr) == ["convert_element_type", "psum"]
  assert str(jaxpr.out_avals[0]) == "int32[3]"
  assert _jaxpr(lambda x: lax.psum(x, ()), np.ones(3, np.float32)).eqns == []


def test_psum_of_constants_is_computed_now():
  seen = []

  def fun(x):
    for v in (1, 2.0, np.float32(2), np.arange(3), (1, 2.0)):
      seen.append(lax.psum(v, "i"))
    for v in (1, 2.0, np.float32(2)):
      seen.append(lax.pmean(v, "i"))
    return x
  _jaxpr(fun, 1.0)
  want = [4, 8.0, np.float32(8.0), np.array([0, 4, 8]), (4, 8.0), 1.0, 2.0, np.float32(2.0)]
  assert [type(s) for s in seen] == [type(w) for w in want]
  for s, w in zip(seen, want):
    np.testing.assert_array_equal(s, w)
  c = jnp.arange(3.0)
  jaxpr = _jaxpr(lambda x: lax.psum(c, "i"), 1.0)
  assert _prims(jaxpr) == ["mul"] and str(jaxpr.eqns[0].invars[0]) == "4.0:f32[]"


def test_collective_values_under_vmap():
  c = jnp.arange(3.0)
  outs = xjax.vmap(lambda x: (lax.psum(1, "i"), lax.psum(2.0, "i"), lax.psum(c, "i"),
                              lax.psum(True, "i"), lax.pmean(3, "i"), lax.pmean(x, "i")),
                   axis_name="i")(jnp.arange(4, dtype=jnp.int32))
  check_exact(outs[0], np.full(4, 4), np.int32, weak=True)
  check_exact(outs[1], np.full(4, 8.0), np.float32, weak=True)
  check_exact(outs[2], np.tile([0.0, 4.0, 8.0], (4, 1)), np.float32)
  check_exact(outs[3], np.full(4, 4), np.int32)
  check_exact(outs[4], np.full(4, 3.0), np.float32, weak=True)
  check(outs[5], np.full(4, 1.5), np.float32)


def test_jit_traces_again_under_another_axis_size():
  g = xjax.jit(lambda x: lax.axis_size("i") * x)
  assert "mul 4.0:f32[] a" in str(_jaxpr(g, 1.0))
  assert "mul 8.0:f32[] a" in str(_jaxpr(g, 1.0, env=[("i", 8)]))
  check(xjax.vmap(g, axis_name="i")(jnp.ones(2)), [2.0, 2.0])
  check(xjax.vmap(g, axis_name="i")(jnp.ones(3)), [3.0, 3.0, 3.0])


def _found(api):
  return f"Found an unbound axis name: i. To fix this, please call {api} under `jax.shard_map`."


UNBOUND = [
    (lambda x: lax.psum(x, "i"), _found("psum")),
    (lambda x: lax.psum(x, ("i", "j")), _found("psum")),
    (lambda x: lax.pmean(x, "i"), _found("psum")),
    (lambda x: lax.pmax(x, "i"), _found("psum")),
    (lambda x: lax.pmin(x, "i"), _found("psum")),
    (lambda x: lax.ppermute(x, "i", [(0, 1), (1, 0)]), _found("ppermute")),
    (lambda x: lax.pshuffle(x, "i", [1, 0, 3, 2]), _found("ppermute")),
    (lambda x: lax.pbroadcast(x, "i", 0), _found("ppermute")),  # (vmap: JAX has no rule)
    (lambda x: lax.axis_index("i") + x, _found("axis_index")),
    (lambda x: lax.pcast(x, "i", to="varying"), _found("pvary")),  # (vmap: JAX's ValueError)
    (lambda x: lax.all_gather(x, "i"), "unbound axis name: i"),
    (lambda x: lax.axis_size("i") * x, "unbound axis name: i"),
    (lambda x: lax.all_to_all(x, "i", 0, 0), "unbound axis name: i"),
    (lambda x: lax.psum_scatter(x, "i"), "unbound axis name: i"),
    (lambda x: lax.psum(1, "i") * x, "unbound axis name: i"),
]


@pytest.mark.parametrize("fun, msg", UNBOUND)
def test_unbound_names_raise_as_jax_when_traced(fun, msg):
  with pytest.raises(NameError) as err:
    xjax.make_jaxpr(fun)(jnp.arange(4.0))
  assert str(err.value) == msg
  if "pvary" not in msg and "pbroadcast" not in inspect.getsource(fun):
    with pytest.raises(NameError) as err:   # a vmap naming another axis does not bind it
      xjax.vmap(fun, axis_name="j")(jnp.ones((4, 4)))
    assert str(err.value) == msg


@pytest.mark.parametrize("fun, msg", [
    (lambda x: lax.psum(x, "i"), "unbound axis name: i"),
    (lambda x: lax.pmean(x, "i"), "unbound axis name: i"),
    (lambda x: lax.pmax(x, "i"), _found("psum")),
    (lambda x: lax.axis_index("i") + x, _found("axis_index")),
])
def test_unbound_names_raise_as_jax_when_called_eagerly(fun, msg):
  with pytest.raises(NameError) as err:
    fun(jnp.arange(4.0))
  assert str(err.value) == msg
