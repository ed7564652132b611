"""``xjax.distributed``: one process per host, joined through XLA's distributed runtime.

``initialize`` must come before anything that creates the backend (``devices()``, an array,
a computation): the CPU client it then makes sees the devices of every process, and
programs over them exchange data with gloo collectives over TCP."""
from __future__ import annotations

import atexit
import os

from xjax._src.backend import clients
from xjax._src.foundations.config import _bool_env, config

# As JAX: a preemption notice to any process lets all agree on a step to save at
# (``multihost_utils.reached_preemption_sync_point``).
config.define("jax_enable_preemption_service",
              _bool_env("JAX_ENABLE_PREEMPTION_SERVICE", True))


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids=None,
               cluster_detection_method: str | None = None, initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100, shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None, slice_index: int | None = None,
               partition_index: int | None = None) -> None:
  """Joins this process to the run coordinated at ``coordinator_address`` ("host:port",
  served by process 0) as process ``process_id`` of ``num_processes``.  Blocks until all
  have joined; TimeoutError after ``initialization_timeout`` seconds otherwise."""
  if clients.backends_initialized():
    raise RuntimeError("xjax.distributed.initialize() must be called before any xjax calls "
                       "that might initialise the XLA backend. This includes any computation, "
                       "but also calls to xjax.devices, xjax.device_put, and others.")
  coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
  if cluster_detection_method not in (None, "deactivate"):
    raise ValueError(f"cluster_detection_method={cluster_detection_method!r}: xjax detects no "
                     "clusters; pass coordinator_address, num_processes and process_id.")
  for option, value in (("local_device_ids", local_device_ids), ("slice_index", slice_index),
                        ("partition_index", partition_index)):
    if value is not None:
      raise NotImplementedError(
          f"xjax.distributed.initialize: {option} is not supported (xjax runs one CPU client "
          "per process over all of its devices); leave it unset. See docs/differences.md.")
  if coordinator_address is None:
    raise ValueError("coordinator_address should be defined.")
  if num_processes is None:
    raise ValueError("Number of processes must be defined.")
  if process_id is None:
    raise ValueError("The process id of the current process must be defined.")
  if not isinstance(process_id, int):
    raise TypeError("process_id must be a nonnegative int. "
                    f"Got process_id={process_id} of type {type(process_id)}.")
  if not isinstance(num_processes, int):
    raise TypeError("num_processes must be a positive int. "
                    f"Got num_processes={num_processes} of type {type(num_processes)}.")
  if not 0 <= process_id < num_processes:
    raise ValueError("process_id and num_processes must be nonnegative, with process_id < "
                     f"num_processes. Got process_id={process_id}, "
                     f"num_processes={num_processes}.")
  if clients.distributed_connected():
    raise RuntimeError("distributed.initialize should only be called once.")
  bind = coordinator_bind_address or os.environ.get(
      "JAX_COORDINATOR_BIND_ADDRESS", "[::]:" + coordinator_address.rsplit(":", 1)[1])
  clients.connect_distributed(coordinator_address, bind, num_processes, process_id,
                              int(initialization_timeout), int(heartbeat_timeout_seconds),
                              int(shutdown_timeout_seconds),
                              config._read("jax_enable_preemption_service"))
  atexit.register(shutdown)


def is_initialized() -> bool:
  """Whether this process has joined a distributed run."""
  return clients.distributed_connected()


def shutdown() -> None:
  """Leaves the distributed run (nothing when there is none)."""
  clients.disconnect_distributed()
