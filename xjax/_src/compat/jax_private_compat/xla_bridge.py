"""`jax._src.xla_bridge`: the backends (PJRT clients) by platform.

`_backends` is the runtime's own dict: empty until the first computation starts a backend
(chex's `set_n_cpu_devices` reads it to tell whether it is too late to change the device count).
"""
from xjax._src.backend import runtime
from xjax._src.compat.jax_private_compat import missing

_backends = runtime._backends
get_backend = runtime.backend
default_backend = runtime.default_backend
devices = runtime.devices
local_devices = runtime.local_devices


def backends() -> dict:
  """Every started backend by platform (starting them if none is yet)."""
  runtime.backend()
  return dict(_backends)


def __getattr__(name: str):
  raise missing("jax._src.xla_bridge", name)
