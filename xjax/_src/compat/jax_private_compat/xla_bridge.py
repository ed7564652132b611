"""`jax._src.xla_bridge`: the backends (PJRT clients) by platform.

`_backends` is the runtime's own dict: empty until the first computation starts a backend
(chex's `set_n_cpu_devices` reads it to tell whether it is too late to change the device count).
"""
from xjax._src.backend import clients
from xjax._src.compat.jax_private_compat import missing

_backends = clients._backends
get_backend = clients.backend
default_backend = clients.default_backend
devices = clients.devices
local_devices = clients.local_devices


def backends() -> dict:
  """Every started backend by platform (starting them if none is yet)."""
  clients.backend()
  return dict(_backends)


def __getattr__(name: str):
  raise missing("jax._src.xla_bridge", name)
