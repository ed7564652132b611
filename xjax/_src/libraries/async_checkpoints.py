"""Checkpointing arrays asynchronously (``jax.experimental.array_serialization.serialization``'s
managers): the writes to TensorStore are started in the calling thread, and a background
thread waits for their commits and then runs the caller's ``on_commit_callback``.

One process only: several processes would need a barrier through the distributed runtime's
key-value store, which xjax does not expose."""
from __future__ import annotations

import abc
import asyncio
import itertools
import logging
import re
import threading
import time
from typing import Any, Callable, Sequence

from xjax._src.backend import clients
from xjax._src.foundations import monitoring, tree_util
from xjax._src.libraries import tensorstore_arrays as ts_arrays

logger = logging.getLogger(__name__)

_REMOTE_URL = re.compile(r"^(gs://|s3://)")
_REMOTE_DRIVERS = ("gcs", "s3")
_commit_count = itertools.count()     # numbers each checkpoint a manager starts


class BarrierTimeoutError(Exception):
  """Processes did not all reach a checkpoint's barrier in time."""


def is_remote_storage(tspec: dict[str, Any] | str) -> bool:
  """Whether a spec (or a kvstore URL) names cloud storage (GCS or S3); a local mount of a
  bucket is not detected."""
  if isinstance(tspec, str):
    return _REMOTE_URL.match(tspec) is not None
  for key in ("base", "kvstore"):
    if key in tspec:
      return is_remote_storage(tspec[key])
  return tspec.get("driver") in _REMOTE_DRIVERS


def get_tensorstore_spec(ckpt_path, ocdbt: bool = False, process_idx: int | None = None,
                         arr=None, driver: str = "zarr") -> dict[str, Any]:
  """`tensorstore_arrays.get_tensorstore_spec` with this module's older defaults: a zarr
  array at the path itself, not in an OCDBT store."""
  return ts_arrays.get_tensorstore_spec(ckpt_path, ocdbt=ocdbt, process_idx=process_idx,
                                        arr=arr, driver=driver)


class GlobalAsyncCheckpointManagerBase(abc.ABC):
  """What an asynchronous checkpointer of arrays provides: `serialize` starts writing and
  returns, `wait_until_finished` blocks until the writes are committed, `check_for_errors`
  raises what the background writing raised, `deserialize` reads arrays back."""

  @abc.abstractmethod
  def check_for_errors(self):
    """Raises the error the background thread met, if any (does not block)."""

  @abc.abstractmethod
  def wait_until_finished(self):
    """Blocks until serialization has finished."""

  @abc.abstractmethod
  def serialize(self, arrays, tensorstore_specs, *, on_commit_callback: Callable[[], None]):
    """Starts writing `arrays` to TensorStore."""

  @abc.abstractmethod
  def deserialize(self, shardings, tensorstore_specs, global_shapes=None, dtypes=None):
    """Reads arrays from TensorStore."""


class AsyncManager:
  """Waits for a checkpoint's commit futures in a background thread, then runs its
  ``on_commit_callback``; an error there is raised by the next `check_for_errors` or
  `wait_until_finished`."""

  def __init__(self, timeout_secs: int = 300):
    if clients.process_count() > 1:
      raise NotImplementedError(
          "jax.experimental.array_serialization's checkpoint managers run in one process in "
          "xjax (a checkpoint of several processes needs a barrier xjax does not provide); "
          "see docs/differences.md.")
    self._timeout_secs = timeout_secs
    self._timeout_in_ms = timeout_secs * 1000
    self._commit_futures: Sequence | None = None
    self._on_commit_callback: Callable[[], None] | None = None
    self._thread: threading.Thread | None = None
    self._exception: BaseException | None = None
    self._count: int | None = None

  def __del__(self):
    if self._thread is not None and self._thread.is_alive():
      logger.warning("Call `.wait_until_finished()` before the program ends: errors raised "
                     "while the checkpoint is still being written would be lost.")

  def _thread_func(self):
    try:
      started = time.time()
      for future in self._commit_futures:
        future.result()
      logger.info("Finished committing to storage layer by process: %s",
                  clients.process_index())
      if self._on_commit_callback is not None:
        self._on_commit_callback()
      monitoring.record_event_duration_secs("/jax/checkpoint/write/async/thread_duration_sec",
                                            time.time() - started)
    except Exception as e:  # raised in the main thread by check_for_errors
      self._exception = e

  def _add_futures(self, futures: Sequence):
    self._commit_futures = futures

  def _start_async_commit(self, on_commit_callback: Callable[[], None] | None):
    self._count = next(_commit_count)
    self._on_commit_callback = on_commit_callback
    self._thread = threading.Thread(target=self._thread_func)
    self._thread.start()

  def check_for_errors(self):
    """Raises (once) the error the background thread met."""
    if self._exception is not None:
      exception, self._exception = self._exception, None
      raise exception

  def wait_until_finished(self):
    """Joins the background thread, then raises the error it met, if any."""
    if self._thread is not None:
      self._thread.join()
      self._thread = None
    self.check_for_errors()


class GlobalAsyncCheckpointManager(AsyncManager, GlobalAsyncCheckpointManagerBase):
  """Serializes arrays to TensorStore asynchronously: `serialize` returns once the arrays'
  values are copied out (they may then change) and commits in the background."""

  def serialize(self, arrays, tensorstore_specs, *,
                on_commit_callback: Callable[[], None] | None = None, transaction=None):
    """Waits for the previous checkpoint, starts writing `arrays` to `tensorstore_specs`
    (pytrees of them, in `transaction` when given), and commits in a background thread,
    which then calls `on_commit_callback` (to rename a temporary directory, say)."""
    self.wait_until_finished()
    commit_futures: list = []

    async def copy_all():
      return await asyncio.gather(*tree_util.tree_leaves(tree_util.tree_map(
          lambda arr, spec: ts_arrays.async_serialize(
              arr, spec, commit_future=commit_futures, transaction=transaction),
          arrays, tensorstore_specs)))
    asyncio.run(copy_all())
    self._add_futures(commit_futures)
    self._start_async_commit(on_commit_callback)

  def serialize_with_paths(self, arrays, paths, *,
                           on_commit_callback: Callable[[], None] | None = None,
                           transaction=None):
    """`serialize` to zarr arrays at `paths`."""
    return self.serialize(arrays, tree_util.tree_map(get_tensorstore_spec, paths),
                          on_commit_callback=on_commit_callback, transaction=transaction)

  def deserialize(self, shardings, tensorstore_specs, global_shapes=None, dtypes=None,
                  concurrent_gb: int = 32):
    """Waits for a checkpoint in flight, then reads the arrays (`run_deserialization`)."""
    self.wait_until_finished()
    return ts_arrays.run_deserialization(shardings, tensorstore_specs, global_shapes, dtypes,
                                         concurrent_gb)

  def deserialize_with_paths(self, shardings, paths, global_shapes=None, dtypes=None,
                             concurrent_gb: int = 32):
    """`deserialize` from zarr arrays at `paths`."""
    return self.deserialize(shardings, tree_util.tree_map(get_tensorstore_spec, paths),
                            global_shapes, dtypes, concurrent_gb)
