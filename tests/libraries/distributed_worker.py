"""One process of a 2-process run (started by tests/libraries/test_distributed.py with the
coordinator's port and its process id); prints a line per check that passed."""
import sys

import numpy as np

import xjax
import xjax.numpy as jnp
from xjax.sharding import Mesh, NamedSharding, PartitionSpec as P

port, pid = int(sys.argv[1]), int(sys.argv[2])
xjax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=pid,
                            initialization_timeout=30)
assert xjax.distributed.is_initialized()
assert (xjax.process_index(), xjax.process_count()) == (pid, 2)
devices, local = xjax.devices(), xjax.local_devices()
assert len(devices) == 4 and len(local) == 2 and xjax.local_device_count() == 2
assert [d.process_index for d in local] == [pid, pid]
assert xjax.local_devices(process_index=1 - pid) == [d for d in devices if d not in local]
print("devices ok", flush=True)

mesh = Mesh(np.array(devices), ("i",))
rows = np.arange(8.0, dtype=np.float32).reshape(4, 2) + 10 * pid  # this process's rows
x = xjax.make_array_from_process_local_data(NamedSharding(mesh, P("i")), rows)
assert x.shape == (8, 2) and not x.is_fully_addressable
assert [s.device for s in x.addressable_shards] == local
np.testing.assert_array_equal(x.addressable_shards[1].data, rows[2:])
total = xjax.jit(lambda a: jnp.sum(a, axis=0), out_shardings=NamedSharding(mesh, P()))(x)
expected = np.arange(8.0).reshape(4, 2).sum(0) * 2 + 10 * 4
np.testing.assert_array_equal(total.addressable_shards[0].data, expected)
try:
  np.asarray(x)
except RuntimeError as e:
  assert "spans non-addressable (non process local) devices" in str(e)
print("sharded jit psum ok", flush=True)

psum = xjax.shard_map(lambda a: xjax.lax.psum(a, "i"), mesh=mesh, in_specs=P("i"),
                      out_specs=P())(x)
block = np.arange(8.0).reshape(4, 2)
np.testing.assert_array_equal(psum.addressable_shards[0].data, 2 * (block[:2] + block[2:]) + 20)
print("shard_map psum ok", flush=True)
xjax.distributed.shutdown()
assert not xjax.distributed.is_initialized()
print("shutdown ok", flush=True)
