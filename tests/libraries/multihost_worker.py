"""One process of a 2-process run of xjax.experimental.multihost_utils (started by
tests/libraries/test_multihost_utils.py with the coordinator's port and its process id), 2 CPU
devices each; prints a line per check that passed."""
import os
import signal
import sys
import time

import numpy as np

import xjax
from xjax.experimental import multihost_utils as mh
from xjax.sharding import Mesh, NamedSharding, PartitionSpec as P

port, pid = int(sys.argv[1]), int(sys.argv[2])
xjax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=pid,
                            initialization_timeout=30)
other = 1 - pid

# process_allgather: stacked, tiled, scalars, pytrees.
mine = np.arange(6, dtype=np.float32).reshape(2, 3) + 100 * pid
both = [np.arange(6, dtype=np.float32).reshape(2, 3) + 100 * p for p in (0, 1)]
out = mh.process_allgather({"a": mine, "s": np.int32(pid + 5)})
np.testing.assert_array_equal(out["a"], np.stack(both))
np.testing.assert_array_equal(out["s"], [5, 6])
assert isinstance(out["a"], np.ndarray) and out["s"].dtype == np.int32
tiled = mh.process_allgather(xjax.numpy.asarray(mine), tiled=True)
np.testing.assert_array_equal(tiled, np.concatenate(both))
np.testing.assert_array_equal(mh.process_allgather(np.float32(pid), tiled=True), [0.0, 1.0])
mesh = Mesh(np.array(xjax.devices()), ("i",))
spread = xjax.make_array_from_process_local_data(NamedSharding(mesh, P("i")), mine)
np.testing.assert_array_equal(mh.process_allgather(spread, tiled=True), np.concatenate(both))
try:
  mh.process_allgather(spread)
except ValueError as e:
  assert "only supports tiled=True" in str(e)
print("process_allgather ok", flush=True)

# broadcast_one_to_all: process 0's values, or the chosen source's.
got = mh.broadcast_one_to_all({"x": mine, "flag": np.array([pid == 0, True])})
np.testing.assert_array_equal(got["x"], both[0])
np.testing.assert_array_equal(got["flag"], [True, True])
np.testing.assert_array_equal(mh.broadcast_one_to_all(mine, is_source=pid == 1), both[1])
print("broadcast_one_to_all ok", flush=True)

# Barriers and equality checks.
t0 = time.monotonic()
if pid == 1:
  time.sleep(1.0)
mh.sync_global_devices("after sleep")
assert time.monotonic() - t0 >= 0.9, "process 0 passed the barrier before process 1 came"
mh.assert_equal({"v": np.arange(3)}, "same everywhere")
try:
  mh.assert_equal(np.float32(pid), "differs")
  raise SystemExit("assert_equal passed on different values")
except AssertionError as e:
  assert str(e).startswith("differs. Expected: [0. 1.]; got: "), e
try:
  mh.sync_global_devices(f"name of process {pid}")
  raise SystemExit("sync_global_devices passed with different names")
except AssertionError as e:
  assert "sync_global_devices name mismatch" in str(e), e
print("sync_global_devices ok", flush=True)

# Host-local <-> global arrays over a (process, device) mesh.
grid = Mesh(np.array(xjax.devices()).reshape(2, 2), ("host", "dev"))
local = np.arange(8.0, dtype=np.float32).reshape(4, 2) + 10 * pid
g = mh.host_local_array_to_global_array(local, grid, P(("host", "dev")))
assert g.shape == (8, 2) and not g.is_fully_addressable
assert g.sharding == NamedSharding(grid, P(("host", "dev")))
np.testing.assert_array_equal(mh.process_allgather(g, tiled=True),
                              np.concatenate([local - 10 * pid, local - 10 * pid + 10]))
rep = mh.host_local_array_to_global_array({"r": local}, grid, {"r": P("host")})["r"]
assert rep.shape == (8, 2)
np.testing.assert_array_equal(rep.addressable_shards[1].data, local)  # replicated on "dev"
doubled = xjax.jit(lambda a: a * 2)(g)
back = mh.global_array_to_host_local_array(doubled, grid, P(("host", "dev")))
assert back.shape == (4, 2) and back.is_fully_addressable
np.testing.assert_array_equal(np.asarray(back), 2 * local)
print("host local arrays ok", flush=True)

# live_devices: both processes are alive.
with mh.live_devices(xjax.devices()) as alive:
  assert alive == sorted(xjax.devices(), key=lambda d: d.id)
try:
  with mh.live_devices(xjax.local_devices(process_index=other)):
    pass
except ValueError as e:
  assert "do not have any local devices" in str(e)
print("live_devices ok", flush=True)

# Preemption: no notice yet; then process 1 gets SIGTERM and both agree on a step.
assert not mh.reached_preemption_sync_point(0)
mh.sync_global_devices("before preemption")
saved_at = None
for step in range(1, 400):
  if pid == 1 and step == 3:
    os.kill(os.getpid(), signal.SIGTERM)
  if mh.reached_preemption_sync_point(step):
    saved_at = step
    break
  time.sleep(0.02)
assert saved_at is not None, "no preemption sync point was reached"
agreed = mh.process_allgather(np.int32(saved_at))
assert agreed[0] == agreed[1], agreed
print("preemption sync point ok", saved_at, flush=True)

xjax.distributed.shutdown()
print("shutdown ok", flush=True)
