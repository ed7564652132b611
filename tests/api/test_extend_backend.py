"""``jax.extend.backend``, ``sharding``, ``xla``, ``lowering``, ``pallas``,
``ifrt_programs``: backends of one's own, compile options, HLO shardings, HLO passes."""
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.extend import backend, lowering, pallas, sharding, xla


def test_get_compile_options():
  options = backend.get_compile_options(2, 1, np.array([[0], [1]]),
                                        {"optimization_level": 0, "xla_foo": "bar"})
  build = options.executable_build_options
  assert (options.num_replicas, options.num_partitions) == (2, 1)
  assert build.use_spmd_partitioning and not build.use_shardy_partitioner
  assert options.device_assignment.replica_count() == 2
  assert options.env_option_overrides == [("xla_foo", "bar")]
  options = backend.get_compile_options(1, 1, xjax.devices()[:1])  # devices, as a vector
  assert options.device_assignment.computation_count() == 1
  with pytest.raises(ValueError, match="device_assignment does not match num_replicas"):
    backend.get_compile_options(3, 1, np.array([[0], [1]]))
  with pytest.raises(ValueError, match="device_assignment does not match num_partitions"):
    backend.get_compile_options(2, 2, np.array([[0], [1]]))


def test_jaxlib_modules():
  from xjax.extend import ifrt_programs
  assert isinstance(backend.ifrt_proxy, types.ModuleType) and "ifrt_proxy" in dir(backend)
  assert isinstance(ifrt_programs.ifrt_programs, types.ModuleType)
  assert sharding.xla_client.__name__ == "jaxlib.xla_client"


def test_hlo_sharding_protos_and_a_one_device_gspmd_sharding():
  hlo = sharding.xla_client.HloSharding.from_string("{devices=[2,2]<=[4]}")
  proto = sharding.get_serialized_proto_from_hlo_sharding(hlo)
  assert isinstance(proto, bytes) and len(proto) == 12   # as JAX 0.10.2
  assert sharding.get_hlo_sharding_from_serialized_proto(proto) == hlo
  assert sharding.get_op_sharding_from_serialized_proto(proto).type == (
      sharding.xla_client.OpSharding.Type.OTHER)
  one = sharding.GSPMDSharding.get_replicated(xjax.devices()[:1])
  assert repr(one) == "GSPMDSharding({replicated}, memory_kind=device)"
  assert one.is_fully_replicated and one.shard_shape((3, 2)) == (3, 2)
  x = xjax.device_put(jnp.arange(3.), one)
  assert x.tolist() == [0., 1., 2.] and x.devices() == set(xjax.devices()[:1])


def test_lowering_context_classes():
  ctx = lowering.JaxIrContext()
  ctx.append_dialect_registry(lowering.upstream_dialects)
  ctx.load_all_available_dialects()
  ir = xjax.interpreters.mlir.ir
  assert isinstance(ctx, ir.Context) and isinstance(lowering.upstream_dialects,
                                                    ir.DialectRegistry)
  with ctx, ir.Location.unknown():
    assert str(ir.Module.parse("func.func @f() { return }")).startswith("module {")
  assert lowering.LoweringRuleContext is xjax.interpreters.mlir.LoweringRuleContext


def test_pallas_is_refused():
  with pytest.raises(NotImplementedError, match="xjax has no Pallas"):
    pallas.GridMapping()
  with pytest.raises(NotImplementedError, match="xjax has no Pallas"):
    pallas.register_lowering_rule(None, "cpu")


def test_hlo_pass_stage_must_be_a_pipeline_stage():
  assert [s.value for s in xla.PipelineStage] == [0, 1]
  with pytest.raises(TypeError, match="stage must be a PipelineStage enum, got <class 'int'>"):
    xla.register_hlo_module_transformation(lambda m: None, name="p", stage=0)


_IN_A_FRESH_PROCESS = r'''
import time
import numpy as np
import xjax, xjax.numpy as jnp
from xjax.extend import backend, sharding, xla
calls = []
def factory():
  calls.append(1)
  return sharding.xla_client.make_cpu_client(asynchronous=True, num_devices=2)
backend.register_backend_factory("second_cpu", factory)   # before the backends start
assert xjax.default_backend() != "second_cpu" and calls == [1]   # priority 0: not the default
assert {"cpu", "second_cpu"} <= set(backend.backends())
devs = xjax.devices("second_cpu")
assert len(devs) == 2 and devs[0] not in xjax.devices()
x = xjax.device_put(jnp.arange(3.), devs[1])
assert x.devices() == {devs[1]}
y = xjax.jit(lambda a: a * 2 + 1)(x)
assert y.tolist() == [1., 3., 5.] and y.devices() == {devs[1]}
try:
  backend.register_backend_factory("second_cpu", factory)
  raise AssertionError("registered twice")
except RuntimeError as e:
  assert str(e) == "Backend second_cpu already initialized"
backend.register_backend_factory("late_cpu",
                                 lambda: sharding.xla_client.make_cpu_client(num_devices=1))
assert len(xjax.devices("late_cpu")) == 1 and "late_cpu" in backend.backends()
# a layout given as an HLO sharding, over 4 devices
devices = xjax.devices("cpu")
hlo = sharding.xla_client.HloSharding.from_string("{devices=[2,2]<=[4]}")
g = sharding.GSPMDSharding(devices, hlo)
assert repr(g) == "GSPMDSharding({devices=[2,2]<=[4]}, memory_kind=device)"
assert g.shard_shape((4, 4)) == (2, 2) and not g.is_fully_replicated
assert g.devices_indices_map((4, 4))[devices[1]] == (slice(0, 2), slice(2, 4))
z = xjax.device_put(jnp.arange(16.).reshape(4, 4), g)
assert sorted(s.index for s in z.addressable_shards if s.device == devices[3]) == [
    (slice(2, 4), slice(2, 4))]
assert np.asarray(z).tolist() == np.arange(16.).reshape(4, 4).tolist()
w = xjax.jit(lambda a: a * 2, out_shardings=g)(jnp.arange(16.).reshape(4, 4))
assert w.sharding == g and sorted((s.device.id, s.index) for s in w.addressable_shards)[1] == (
    1, (slice(0, 2), slice(2, 4)))
assert np.asarray(w).tolist() == (np.arange(16.).reshape(4, 4) * 2).tolist()
proto = sharding.get_serialized_proto_from_hlo_sharding(hlo)
assert g == sharding.GSPMDSharding(devices, sharding.get_op_sharding_from_serialized_proto(proto))
# an HLO pass of one's own sees every compilation until it is cleared
seen = []
xla.register_hlo_module_transformation(lambda m: seen.append(type(m)), name="probe")
stamp = time.time()
ones = xjax.device_put(jnp.ones(2), devices[0])   # compiled for the CPU (passes are per client)
xjax.jit(lambda a: a * stamp)(ones).block_until_ready()   # a program never compiled before
assert seen and seen[0] is bytes
assert xla.clear_hlo_module_transformation("probe") is True
assert xla.clear_hlo_module_transformation("probe") is False
n = len(seen)
xjax.jit(lambda a: a - stamp)(ones).block_until_ready()
assert len(seen) == n
print("ok")
'''


def test_backend_factories_gspmd_shardings_and_hlo_passes_in_a_fresh_process():
  env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4")
  done = subprocess.run([sys.executable, "-c", _IN_A_FRESH_PROCESS], capture_output=True,
                        text=True, timeout=180, env=env)
  assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
