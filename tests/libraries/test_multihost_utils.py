"""xjax.experimental.multihost_utils: alone (one process, as JAX 0.10.2 behaves, values and
messages from the reference), over 4 devices of one process (tests/libraries/multihost_cases.py),
and across 2 processes of 2 devices each (tests/libraries/multihost_worker.py)."""
import sys

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.experimental import multihost_utils as mh
from xjax.sharding import Mesh, PartitionSpec as P
from tests.libraries.multi_process_run import free_port, run_all
from tests.multi_device_run import run_cases

MESH = Mesh(np.array(xjax.devices()[:1]), ("x",))


def test_process_allgather_alone_stacks_or_returns_numpy():
  tree = {"a": jnp.arange(6.0).reshape(2, 3), "b": 3, "c": np.float32(2.5), "d": [1.0, 2.0]}
  stacked = mh.process_allgather(tree)
  assert {k: (type(v).__name__, v.shape, v.dtype) for k, v in stacked.items() if k != "d"} == {
      "a": ("ndarray", (1, 2, 3), np.float32), "b": ("ndarray", (1,), np.int64),
      "c": ("ndarray", (1,), np.float32)}
  assert [v.shape for v in stacked["d"]] == [(1,), (1,)]
  np.testing.assert_array_equal(stacked["a"][0], np.arange(6.0).reshape(2, 3))
  tiled = mh.process_allgather(tree, tiled=True)
  assert {k: v.shape for k, v in tiled.items() if k != "d"} == {"a": (2, 3), "b": (),
                                                                "c": ()}


def test_broadcast_one_to_all_alone_returns_numpy():
  x = jnp.arange(6.0).reshape(2, 3)
  out = mh.broadcast_one_to_all({"a": x, "b": 3, "c": [True]})
  assert type(out["a"]) is np.ndarray and out["a"].dtype == np.float32
  np.testing.assert_array_equal(out["a"], np.arange(6.0).reshape(2, 3))
  assert out["b"].shape == () and out["b"] == 3 and out["c"][0].dtype == np.bool_
  np.testing.assert_array_equal(mh.broadcast_one_to_all(x, is_source=False), x)


def test_barriers_and_equality_alone():
  assert mh.sync_global_devices("hello") is None
  mh.assert_equal({"a": jnp.arange(3.0), "b": 2})
  with pytest.raises(AssertionError, match=r"^msg\. Expected: \[ 1\. nan\]; got: "
                                           r"\[ 1\. nan\]\.$"):
    mh.assert_equal(jnp.array([1.0, np.nan]), "msg")  # NaN differs from itself, as in JAX


def test_preemption_and_live_devices_alone():
  assert mh.reached_preemption_sync_point(3) is False
  with pytest.raises(RuntimeError, match="Distributed JAX not initialized."):
    with mh.live_devices(xjax.devices()):
      pass
  err = mh.ProcessFailureError({1})
  assert isinstance(err, Exception) and err.failed_devices == {1}
  assert str(err) == "Devices failed: {1}"


def test_host_local_global_conversions_alone():
  g = mh.host_local_array_to_global_array(
      {"u": np.arange(8.0).reshape(4, 2), "v": np.ones(3, np.int32)}, MESH,
      {"u": P("x"), "v": P()})
  assert (g["u"].shape, g["u"].dtype) == ((4, 2), np.float32)
  assert g["u"].sharding.device_set == {xjax.devices()[0]}  # (see multihost_cases.py)
  assert (g["v"].shape, g["v"].dtype) == ((3,), np.int32)
  back = mh.global_array_to_host_local_array(g, MESH, {"u": P("x"), "v": P()})
  assert back["u"] is g["u"] and back["v"] is g["v"]
  from_numpy = mh.global_array_to_host_local_array(np.arange(3), MESH, P())
  assert isinstance(from_numpy, xjax.Array) and from_numpy.dtype == np.int32
  assert not mh.host_local_array_to_global_array(jnp.asarray(3.0), MESH, P()).weak_type
  assert mh.host_local_array_to_global_array(
      np.zeros(3, xjax.dtypes.float0), MESH, P()).dtype == np.bool_
  key = mh.host_local_array_to_global_array(xjax.random.key(0), MESH, P())
  assert xjax.dtypes.issubdtype(key.dtype, xjax.dtypes.prng_key)
  for bad in (lambda: mh.host_local_array_to_global_array(np.ones(4), MESH, None),
              lambda: mh.global_array_to_host_local_array_impl(np.ones(4), global_mesh=MESH,
                                                               pspec=None)):
    with pytest.raises(ValueError, match="`None` is not a valid input to the pspecs "
                                         "argument. Please use jax.sharding.PartitionSpec"):
      bad()
  with pytest.raises(ValueError, match=r"Resource axis: y of P\('y',\) is not found"):
    mh.host_local_array_to_global_array(np.ones(3), MESH, P("y"))
  with pytest.raises(ValueError):  # pspecs must be a prefix of the inputs
    mh.host_local_array_to_global_array({"a": np.ones(2)}, MESH, {"c": P()})


def test_conversions_under_transformations():
  aval = xjax.core.ShapedArray((4, 2), np.float32)
  assert mh.ltg_abstract_eval(aval, global_mesh=MESH, pspec=P("x")) == aval
  assert mh.gtl_abstract_eval(aval, global_mesh=MESH, pspec=P("x")) == aval
  jaxpr = xjax.make_jaxpr(lambda a: mh.host_local_array_to_global_array(a, MESH, P("x")))(
      np.ones((4, 2), np.float32))
  assert str(jaxpr) == """{ lambda ; a:f32[4,2]. let
    b:f32[4,2] = host_local_array_to_global_array[
      global_mesh=Mesh('x': 1, axis_types=(Auto,))
      pspec=P('x',)
    ] a
  in (b,) }"""
  batched = xjax.make_jaxpr(xjax.vmap(
      lambda a: mh.host_local_array_to_global_array(a, MESH, P()), in_axes=1))(np.ones((3, 4)))
  assert "pspec=P(None,)" in str(batched)
  f = lambda a: mh.global_array_to_host_local_array(
      mh.host_local_array_to_global_array(a, MESH, P("x")) * 3, MESH, P("x"))
  primal, tangent = xjax.jvp(f, (np.ones(2, np.float32),), (np.ones(2, np.float32),))
  np.testing.assert_array_equal(primal, [3.0, 3.0])
  np.testing.assert_array_equal(tangent, [3.0, 3.0])
  grad = xjax.grad(lambda a: (mh.global_array_to_host_local_array(a, MESH, P()) ** 2).sum())
  np.testing.assert_array_equal(grad(np.arange(3.0)), [0.0, 2.0, 4.0])
  transposed = xjax.linear_transpose(
      lambda a: mh.host_local_array_to_global_array(a, MESH, P()), np.ones(3, np.float32))
  np.testing.assert_array_equal(transposed(np.arange(3, dtype=np.float32))[0], [0, 1, 2])
  np.testing.assert_array_equal(
      xjax.jit(lambda a: mh.global_array_to_host_local_array(a * 2, MESH, P("x")))(
          np.ones((4, 2))), np.full((4, 2), 2.0))


def test_jax_names_reexported():
  assert mh.P is xjax.sharding.PartitionSpec
  assert mh.tree_flatten is xjax.tree_util.tree_flatten
  assert mh.tree_unflatten is xjax.tree_util.tree_unflatten
  assert mh.host_local_array_to_global_array_p.name == "host_local_array_to_global_array"
  assert mh.global_array_to_host_local_array_p.name == "global_array_to_host_local_array"


def test_four_devices_of_one_process():
  assert run_cases("tests/libraries/multihost_cases.py") == 3


@pytest.mark.slow  # two processes: ~5 s
def test_two_processes():
  port = free_port()
  worker = [sys.executable, "-m", "tests.libraries.multihost_worker"]  # (see test_distributed)
  outputs = run_all([worker + [str(port), str(i)] for i in (0, 1)], 120)
  for code, text in outputs:
    assert code == 0, text[-3000:]
    for line in ("process_allgather ok", "broadcast_one_to_all ok", "sync_global_devices ok",
                 "host local arrays ok", "live_devices ok", "preemption sync point ok",
                 "shutdown ok"):
      assert line in text, text[-3000:]
