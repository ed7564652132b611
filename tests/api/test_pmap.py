"""pmap and shard_map over several devices: the cases in tests/api/parallel_cases.py, run with
4 CPU devices in one subprocess (this process keeps the suite's single device)."""
from tests.multi_device_run import run_cases


def test_parallel_cases():
  assert run_cases("tests/api/parallel_cases.py") == 12
