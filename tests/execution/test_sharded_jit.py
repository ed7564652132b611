"""Arrays over several devices, jit with in_shardings/out_shardings and
with_sharding_constraint: the cases in tests/execution/sharded_cases.py, run with 4 CPU devices."""
from tests.multi_device_run import run_cases


def test_sharded_cases():
  assert run_cases("tests/execution/sharded_cases.py") == 23
