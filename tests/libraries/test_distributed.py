"""xjax.distributed: two processes on 127.0.0.1 (tests/libraries/distributed_worker.py) join
through XLA's coordination service and sum across each other with gloo; a process whose peers
never come gets a TimeoutError naming the coordinator.  Every process is bounded in time and
killed if it overruns."""
import sys

import numpy as np

import pytest

from tests.libraries.multi_process_run import free_port, run_all


def test_two_processes_share_devices_and_sum():
  port = free_port()
  # run as a module from the repository: the folder's numpy/ and random/ must not shadow NumPy's
  worker = [sys.executable, "-m", "tests.libraries.distributed_worker"]
  results = run_all([worker + [str(port), str(i)] for i in (0, 1)], 120)
  for code, text in results:
    assert code == 0, text[-3000:]
    for line in ("devices ok", "sharded jit psum ok", "shard_map psum ok", "shutdown ok"):
      assert line in text, text[-3000:]


JOIN_ALONE = """
import time, xjax
start = time.monotonic()
try:
  xjax.distributed.initialize("127.0.0.1:{port}", num_processes=2, process_id={pid},
                              initialization_timeout=2)
except TimeoutError as e:
  assert "127.0.0.1:{port}" in str(e) and "initialization_timeout=2" in str(e), e
  assert not xjax.distributed.is_initialized()
  print("timed out after", round(time.monotonic() - start), "s")
"""


@pytest.mark.slow  # ~8 s each: gRPC waits at least that long before giving up
@pytest.mark.parametrize("pid", [0, 1])  # 0: serves, nobody joins; 1: nobody serves
def test_a_process_that_cannot_join_times_out(pid):
  port = free_port()
  [(code, text)] = run_all([[sys.executable, "-c", JOIN_ALONE.format(port=port, pid=pid)]],
                            60)
  assert code == 0 and "timed out after" in text, text[-3000:]


def test_initialize_checks_its_arguments():
  code = """
import pytest, xjax
with pytest.raises(ValueError, match="process_id < num_processes. Got process_id=2"):
  xjax.distributed.initialize("127.0.0.1:1", num_processes=2, process_id=2)
with pytest.raises(TypeError, match="process_id must be a nonnegative int"):
  xjax.distributed.initialize("127.0.0.1:1", num_processes=2, process_id="0")
with pytest.raises(NotImplementedError, match="local_device_ids is not supported"):
  xjax.distributed.initialize("127.0.0.1:1", num_processes=2, process_id=0,
                              local_device_ids=[0])
xjax.devices()
with pytest.raises(RuntimeError, match="must be called before any xjax calls"):
  xjax.distributed.initialize("127.0.0.1:1", num_processes=2, process_id=0)
xjax.distributed.shutdown()  # nothing to shut down
print("checked")
"""
  [(rc, text)] = run_all([[sys.executable, "-c", code]], 60)
  assert rc == 0 and "checked" in text, text[-3000:]


@pytest.mark.slow  # ~10 s: trains the example's MLP three ways and in 2 processes
def test_data_parallel_example_gives_the_same_curve_in_two_processes():
  [(code, text)] = run_all([[sys.executable, "examples/data_parallel.py", "--processes",
                              "2"]], 240)
  assert code == 0 and "same loss curve on 1 and 4 devices and 2 processes" in text, text[-3000:]


@pytest.mark.slow  # ~15 s: three processes train five steps
def test_explicit_sharding_step_over_two_processes_of_four_devices():
  """The data- and tensor-parallel MLP step in explicit mode (a (4, 2) mesh of Explicit
  axes) over 2 processes x 4 devices on the distributed runtime: both processes see the same
  losses, those of the same step in one process of 8 devices and of one device up to the
  rounding of summing the batch in parts (gloo's all-reduce adds in another order), and the
  step compiles to JAX's 2 all-reduces."""
  port = free_port()
  worker = [sys.executable, "-m", "tests.libraries.explicit_sharding_worker", str(port)]
  runs = run_all([worker + [str(i), "4"] for i in (0, 1)], 240, devices=4)
  [single] = run_all([worker + ["single", "8"]], 240, devices=8)
  outputs = {}
  for code, text in [*runs, single]:
    assert code == 0, text[-3000:]
    lines = dict(line.split(": ", 1) for line in text.splitlines()
                 if line.startswith(("all-reduces:", "curve:", "one device:")))
    assert lines["all-reduces"] == "2", text[-3000:]
    outputs.setdefault("curve", []).append(lines["curve"])
    one_device = [float(v) for v in lines["one device"].split()]
  assert outputs["curve"][0] == outputs["curve"][1], outputs   # the two processes
  curve, eight = ([float(v) for v in c.split()] for c in outputs["curve"][1:])
  np.testing.assert_allclose(curve, eight, rtol=1e-6)
  np.testing.assert_allclose(curve, one_device, rtol=2e-6)
  assert curve[-1] < curve[0] / 4
