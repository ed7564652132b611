import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


import pytest  # noqa: E402


@pytest.fixture
def x64():
  """Runs a test with jax_enable_x64 on, and the default (off) afterwards."""
  from xjax._src.foundations.config import config
  config.update("jax_enable_x64", True)
  try:
    yield
  finally:
    config.update("jax_enable_x64", False)


def pytest_collection_modifyitems(config, items):
  """Tests marked `cpu_bits` run only on the CPU vendor their JAX bits were recorded on."""
  from tests.checking import off_recording_cpu
  reason = off_recording_cpu()
  if reason:
    for item in items:
      if item.get_closest_marker("cpu_bits"):
        item.add_marker(pytest.mark.skip(reason=reason))
