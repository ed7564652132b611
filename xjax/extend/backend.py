"""``jax.extend.backend``: the runtime's clients."""
from xjax._src.backend import runtime as _runtime


def get_backend(platform=None):
  """The PJRT client for ``platform`` (default: the highest-priority one available)."""
  return _runtime.backend(platform)


def backends() -> dict:
  """The initialized clients by platform name."""
  get_backend()
  return dict(_runtime._backends)


def get_default_device():
  return _runtime.default_device()
