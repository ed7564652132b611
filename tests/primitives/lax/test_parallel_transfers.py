"""lax.pbroadcast, psend/precv and ragged_all_to_all on one CPU device: they trace as in
JAX 0.10.2 and fail where JAX fails on CPU (no lowering, or XLA:CPU's UNIMPLEMENTED);
pbroadcast's vmap rule follows its definition (JAX 0.10.2's rule raises)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.errors import JaxRuntimeError
from xjax.sharding import AxisType, PartitionSpec as P

MESH = xjax.make_mesh((1,), ("i",), axis_types=(AxisType.Auto,))
X = jnp.arange(4.)


def _sm(f, n=1, check_vma=False):
  return xjax.shard_map(f, mesh=MESH, in_specs=(P("i"),) * n, out_specs=P("i"),
                        check_vma=check_vma)


def test_pbroadcast_traces_and_has_no_cpu_lowering_as_jax():
  f = _sm(lambda a: lax.pbroadcast(a, "i", 0))
  assert "pbroadcast[axis_name=i source=0]" in str(xjax.make_jaxpr(f)(X))
  with pytest.raises(NotImplementedError, match="MLIR translation rule for primitive "
                                                "'pbroadcast' not found for platform cpu"):
    f(X)


def _pbroadcast_by_definition(source):
  # what pbroadcast is defined to equal (its docstring in JAX)
  return lambda a: lax.psum(jnp.where(lax.axis_index("i") == source, a, 0.), "i")


@pytest.mark.parametrize("source", [0, 2])
def test_pbroadcast_vmap_and_grad_follow_the_definition(source):
  got = xjax.vmap(lambda a: lax.pbroadcast(a, "i", source), axis_name="i")(X)
  want = xjax.vmap(_pbroadcast_by_definition(source), axis_name="i")(X)
  np.testing.assert_array_equal(got, want)
  np.testing.assert_array_equal(got, np.full(4, float(source)))
  w = jnp.array([1., 2., 3., 4.])
  loss = lambda f: lambda x: (xjax.vmap(f, axis_name="i")(x) * w).sum()
  np.testing.assert_array_equal(xjax.grad(loss(lambda a: lax.pbroadcast(a, "i", source)))(X),
                                xjax.grad(loss(_pbroadcast_by_definition(source)))(X))
  with pytest.raises(ValueError, match="source 7 is not a member"):
    xjax.vmap(lambda a: lax.pbroadcast(a, "i", 7), axis_name="i")(X)


def test_psend_precv_trace_and_are_gpu_only_as_jax():
  def body(a):
    tok = lax.psend(a, "i", [(0, 0)])
    return lax.precv(tok, xjax.ShapeDtypeStruct(a.shape, a.dtype), "i", [(0, 0)])

  jaxpr = str(xjax.make_jaxpr(_sm(body))(X))
  assert "psend[axis_name=('i',) perm=((0, 0),)]" in jaxpr
  assert "out_shape=float32[4]" in jaxpr
  with pytest.raises(NotImplementedError, match="psend is currently only implemented on GPU"):
    xjax.jit(_sm(body))(X)


OP, OUT = jnp.arange(6.), jnp.zeros(6)
OFFSETS = [jnp.array([0], jnp.int32), jnp.array([4], jnp.int32), jnp.array([1], jnp.int32),
           jnp.array([4], jnp.int32)]


def _ragged(*args):
  return lax.ragged_all_to_all(*args, axis_name="i")


def test_ragged_all_to_all_traces_and_xla_cpu_refuses_it_as_jax():
  f = _sm(_ragged, 6, check_vma=True)
  jaxpr = str(xjax.make_jaxpr(f)(OP, OUT, *OFFSETS))
  # (as JAX 0.10.2 prints it: the body's types vary over i, its binders named afresh)
  assert ("n:f32[6]{V:i} = ragged_all_to_all[\n            axis_index_groups=None\n"
          "            axis_name=('i',)\n          ] h i j k l m" in jaxpr)
  assert "newly_manual_axes=frozenset({'i'})" in jaxpr
  text = xjax.jit(f).lower(OP, OUT, *OFFSETS).as_text()
  assert "ragged_all_to_all" in text and "api_version = 4 : i32" in text
  with pytest.raises(JaxRuntimeError, match="UNIMPLEMENTED: HLO opcode `ragged-all-to-all` is "
                                            "not supported by XLA:CPU"):
    f(OP, OUT, *OFFSETS)
  assert lax.ragged_all_to_all_p.name == "ragged_all_to_all"


def test_ragged_all_to_all_grad_and_vmap_trace():
  # (JAX 0.10.2 cannot transpose it inside shard_map: "Found an unbound axis name")
  f = _sm(_ragged, 6)
  jaxpr = xjax.make_jaxpr(xjax.grad(lambda op: f(op, OUT, *OFFSETS).sum()))(OP)
  body = jaxpr.eqns[-1].params["jaxpr"]
  body = getattr(body, "jaxpr", body)
  assert [e.primitive.name for e in body.eqns].count("ragged_all_to_all") == 1
  assert "all_to_all" in [e.primitive.name for e in body.eqns]
  batched = [jnp.ones((2, 6)), jnp.ones((2, 6))] + [jnp.zeros((2, 1), jnp.int32)] * 4
  with pytest.raises(NameError, match="Found an unbound axis name: i. To fix this, please "
                                      "call ragged_all_to_all under `jax.shard_map`."):
    xjax.make_jaxpr(xjax.vmap(_ragged))(*batched)   # (JAX's error)
  vm = xjax.make_jaxpr(xjax.vmap(_ragged), axis_env=[("i", 1)])(*batched)
  (eqn,) = [e for e in vm.eqns if e.primitive.name == "ragged_all_to_all"]
  assert [str(v.aval) for v in eqn.invars] == ["float32[12]"] * 2 + ["int32[2]"] * 4
  with pytest.raises(NotImplementedError, match="under vmap over its own axis"):
    xjax.vmap(_ragged, axis_name="i")(*batched)


def test_ragged_all_to_all_errors_as_jax():
  with pytest.raises(RuntimeError, match="ragged_all_to_all must be used within a mapped "
                                         "context like vmap or shard_map"):
    _ragged(OP, OUT, *OFFSETS)
  with pytest.raises(ValueError, match=r"ragged_all_to_all input_offsets must be rank 1 with "
                                       r"positive dimension size, but got shape \(1, 1\)"):
    xjax.make_jaxpr(_sm(_ragged, 6))(OP, OUT, jnp.zeros((1, 1), jnp.int32), *OFFSETS[1:])
  with pytest.raises(ValueError, match="ragged_all_to_all send_sizes must be integer type"):
    xjax.make_jaxpr(_sm(_ragged, 6))(OP, OUT, OFFSETS[0], jnp.zeros(1), *OFFSETS[2:])
