"""Sharding in types (explicit mesh axes), run over 8 CPU devices in a process of its own
(tests/execution/explicit_sharding_cases.py)."""
from tests.multi_device_run import run_cases


def test_explicit_sharding_cases():
  assert run_cases("tests/execution/explicit_sharding_cases.py", devices=8) == 288
