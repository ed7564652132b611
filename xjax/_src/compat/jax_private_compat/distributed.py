"""`jax._src.distributed`: `global_state`, this process's place in a distributed run (orbax
reads its `process_id` and `client`), read live from the runtime's connection."""
from xjax._src.backend import clients
from xjax._src.compat.jax_private_compat import missing
from xjax._src.libraries import distributed as _distributed


class State:
  """JAX's distributed state: the coordination client and service (None outside a run),
  this process's id and the number of processes."""

  client = property(lambda self: clients._distributed.get("client"))
  service = property(lambda self: clients._distributed.get("service"))
  process_id = property(lambda self: clients._distributed.get("process_id", 0))
  num_processes = property(lambda self: clients._distributed.get("num_processes", 1))
  coordinator_address = property(lambda self: clients._distributed.get("address"))
  preemption_sync_manager = property(lambda self: clients._distributed.get("preemption"))
  partition_index = None        # xjax.distributed.initialize takes no partition_index

  def initialize(self, *args, **kwargs) -> None:
    _distributed.initialize(*args, **kwargs)

  def shutdown(self) -> None:
    _distributed.shutdown()


global_state = State()
initialize = _distributed.initialize
shutdown = _distributed.shutdown
is_initialized = _distributed.is_initialized


def __getattr__(name: str):
  raise missing("jax._src.distributed", name)
