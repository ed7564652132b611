"""Synchronising and exchanging values between the processes of a run
(``jax.experimental.multihost_utils``).

Alone (one process) the functions are what JAX makes them: gathers and broadcasts return
the values as NumPy arrays, barriers pass at once.  In a run of several processes
(``xjax.distributed.initialize``) they run SPMD programs over a mesh with one row per
process, whose collectives cross processes.
"""
from __future__ import annotations

import contextlib
import functools
import zlib
from typing import Any

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.execution.array import Array
from xjax._src.backend import clients
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Primitive
from xjax._src.libraries.global_arrays import (make_array_from_process_local_data,
                                               make_array_from_single_device_arrays)
from xjax._src.interpreters import ad
from xjax._src.api.jit import jit
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.api.placement import device_put
from xjax._src.foundations.sharding import Mesh, NamedSharding, PartitionSpec as P, spec_axes
from xjax._src.foundations.tree_util import (tree_flatten,  # noqa: F401  (JAX's names)
                                             tree_unflatten)


# ---------------------------------------------------------------------------------------
# Gathers, broadcasts and barriers

def _process_mesh() -> Mesh:
  """Every device, one row per process (axes 'processes' and 'local_devices')."""
  devices = sorted(clients.devices(), key=lambda d: (d.process_index, d.id))
  return Mesh(np.array(devices, dtype=object).reshape(clients.process_count(), -1),
              ("processes", "local_devices"))


def _joined(host: np.ndarray, mesh: Mesh) -> Array:
  """The global array whose leading dimension is every process's ``host`` in turn."""
  return make_array_from_process_local_data(NamedSharding(mesh, P("processes")), host)


def _identity(x):
  return x


def _sum_leading(tree):
  return tree_util.tree_map(lambda x: jnp.sum(x, axis=0, dtype=x.dtype), tree)


def _first_local(x: Array) -> np.ndarray:
  return np.asarray(x.addressable_data(0))


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
  """Every process receives the source process's ``in_tree`` (process 0's unless
  ``is_source`` says which), as NumPy arrays; the leaves must have the same shapes in
  every process."""
  if clients.process_count() == 1:
    return tree_util.tree_map(np.asarray, in_tree)
  if is_source is None:
    is_source = clients.process_index() == 0
  mesh = _process_mesh()

  def contribution(x):
    x = np.asarray(x)
    return _joined((x if is_source else np.zeros_like(x))[None], mesh)

  summed = jit(_sum_leading, out_shardings=NamedSharding(mesh, P()))(
      tree_util.tree_map(contribution, in_tree))
  return tree_util.tree_map(_first_local, summed)


def _replicated(sharding) -> NamedSharding:
  """The sharding that gives every device of ``sharding`` the whole array."""
  if isinstance(sharding, NamedSharding):
    return NamedSharding(sharding.mesh, P())
  devices = sorted(sharding.device_set, key=lambda d: d.id)
  return NamedSharding(Mesh(np.array(devices, dtype=object), ("devices",)), P())


def _allgather(x, tiled: bool) -> np.ndarray:
  if isinstance(x, Array) and not x.is_fully_addressable:
    if not tiled:
      raise ValueError("Gathering global non-fully-addressable arrays only supports "
                       "tiled=True")
    return _first_local(jit(_identity, out_shardings=_replicated(x.sharding))(x))
  host = np.asarray(x)
  if clients.process_count() == 1:
    return host if tiled else host[None]
  if host.ndim == 0 or not tiled:
    host = host[None]
  mesh = _process_mesh()
  return _first_local(jit(_identity, out_shardings=NamedSharding(mesh, P()))(
      _joined(host, mesh)))


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
  """Every process's ``in_tree``, gathered in every process as NumPy arrays: stacked on a
  new leading axis, or with ``tiled`` concatenated along the first (scalars are always
  stacked when there are several processes).  A global array that is not fully
  addressable is gathered whole (``tiled=True`` only)."""
  return tree_util.tree_map(lambda x: _allgather(x, tiled), in_tree)


def assert_equal(in_tree, fail_message: str = "") -> None:
  """AssertionError unless every process passed equal values (a barrier too)."""
  gathered = process_allgather(in_tree, tiled=True)

  def repeated(x):
    if isinstance(x, Array) and not x.is_fully_addressable:
      return _first_local(x)
    x = np.asarray(x)
    return np.concatenate([x.reshape(-1) if x.ndim == 0 else x] * clients.process_count())

  same = tree_util.tree_map(lambda a, b: np.all(np.equal(a, b)),
                            tree_util.tree_map(repeated, in_tree), gathered)
  if not tree_util.tree_all(same):
    raise AssertionError(f"{fail_message}. Expected: {gathered}; got: {in_tree}.")


def sync_global_devices(name: str) -> None:
  """A barrier: returns once every process has called it with the same ``name``
  (AssertionError if the names differ)."""
  digest = np.uint32(zlib.crc32(name.encode()))
  assert_equal(digest, f"sync_global_devices name mismatch ('{name}')")


def reached_preemption_sync_point(step_id: int) -> bool:
  """After a preemption notice (SIGTERM) reached any process, True at the one step all
  processes agreed on to save a checkpoint; call it at every step, from the same first
  step in every process.  False alone or before any notice; RuntimeError when the run
  was initialised with ``jax_enable_preemption_service`` off."""
  return clients.reached_preemption_sync_point(step_id)


# ---------------------------------------------------------------------------------------
# Host-local <-> global arrays: this process's part of a value and the global array over a
# mesh whose devices of each process form a block

@functools.lru_cache(maxsize=64)
def _local_mesh(mesh: Mesh) -> Mesh:
  """The block of ``mesh`` whose devices belong to this process."""
  mine = clients.process_index()
  local = np.vectorize(lambda d: d.process_index == mine, otypes=[bool])(mesh.devices)
  rows = [np.flatnonzero(local.any(axis=tuple(j for j in range(local.ndim) if j != i)))
          for i in range(local.ndim)]
  block = np.ix_(*rows)
  if not local[block].all():
    raise ValueError(f"The devices of process {mine} do not form a block of the mesh "
                     f"{mesh}; use make_array_from_callback or "
                     "make_array_from_single_device_arrays for such meshes.")
  return Mesh(mesh.devices[block], mesh.axis_names, mesh.axis_types)


def _check_pspec(pspec) -> None:
  if pspec is None:
    raise ValueError("`None` is not a valid input to the pspecs argument. Please use "
                     "jax.sharding.PartitionSpec() if you wanted to replicate your input.")


def _rescaled(aval: ShapedArray, mesh: Mesh, pspec, to_global: bool) -> ShapedArray:
  """``aval`` with each dimension split over mesh axes scaled from this process's share
  to the whole mesh (or back)."""
  NamedSharding(mesh, pspec)  # checks that the spec names axes of the mesh
  local = _local_mesh(mesh)
  shape = list(aval.shape)
  for i, part in enumerate(list(pspec)[:len(shape)]):
    for axis in spec_axes(part):
      share = mesh.shape[axis] // local.shape[axis]  # processes along the axis
      if to_global:
        shape[i] *= share
      elif shape[i] % share:
        raise ValueError(f"Dimension {i} of {aval.str_short(short_dtypes=True)} is not divisible by the "
                         f"{share} processes along mesh axis {axis!r}")
      else:
        shape[i] //= share
  return ShapedArray(tuple(shape), aval.dtype)


def ltg_abstract_eval(arr, *, global_mesh: Mesh, pspec):
  """The global aval of a host-local value of aval ``arr``."""
  return _rescaled(ShapedArray(arr.shape, arr.dtype), global_mesh, pspec, True)


def gtl_abstract_eval(arr, *, global_mesh: Mesh, pspec):
  """The host-local aval of a global value of aval ``arr``."""
  return _rescaled(ShapedArray(arr.shape, arr.dtype), global_mesh, pspec, False)


def _as_value(arr):
  """``arr`` as an array (float0 becomes bool, which the runtime can hold)."""
  if not hasattr(arr, "shape"):
    arr = np.array(arr)
  if arr.dtype == dtypes.float0:
    arr = np.zeros(arr.shape, dtype=bool)
  return arr


def host_local_array_to_global_array_impl(arr: Any, *, global_mesh: Mesh, pspec: Any):
  """One leaf of ``host_local_array_to_global_array``."""
  _check_pspec(pspec)
  if isinstance(arr, Array) and not arr.is_fully_addressable:
    return arr  # already global
  arr = _as_value(arr)
  if getattr(arr, "weak_type", False):  # as JAX: the global array has a strong type
    arr = arr.astype(arr.dtype)
  global_shape = ltg_abstract_eval(arr, global_mesh=global_mesh, pspec=pspec).shape
  return make_array_from_process_local_data(NamedSharding(global_mesh, pspec), arr,
                                            global_shape)


def global_array_to_host_local_array_impl(arr: Any, *, global_mesh: Mesh, pspec: Any):
  """One leaf of ``global_array_to_host_local_array``."""
  _check_pspec(pspec)
  if isinstance(arr, Array) and arr.is_fully_addressable:
    return arr  # already host-local
  arr = _as_value(arr)
  local = _local_mesh(global_mesh)
  local_shape = gtl_abstract_eval(arr, global_mesh=global_mesh, pspec=pspec).shape
  whole = NamedSharding(global_mesh, pspec)
  if isinstance(arr, Array):
    if arr.sharding != whole:
      arr = jit(_identity, out_shardings=whole)(arr)
    pieces = {s.device: s.data for s in arr.addressable_shards}
  else:  # a NumPy value of the global array
    index = whole.devices_indices_map(arr.shape)
    pieces = {d: device_put(arr[index[d]], d) for d in local.devices.flat}
  return make_array_from_single_device_arrays(
      local_shape, NamedSharding(local, pspec), [pieces[d] for d in local.devices.flat])


def _per_leaf(tree, pspecs) -> tuple[list, Any, list]:
  """The leaves of ``tree``, its structure, and the PartitionSpec of each leaf (``pspecs``
  is one spec or a pytree prefix of ``tree``)."""
  leaves, structure = tree_flatten(tree)
  is_spec = lambda x: x is None or isinstance(x, P)
  specs = tree_util.tree_leaves(tree_util.tree_broadcast(pspecs, tree, is_leaf=is_spec),
                                is_leaf=is_spec)
  return leaves, structure, specs


def host_local_array_to_global_array(local_inputs: Any, global_mesh: Mesh, pspecs: Any):
  """Global Arrays over ``global_mesh`` made of every process's ``local_inputs``: each
  process's value is laid out over its own devices by ``pspecs``, so a dimension split
  over mesh axes that span processes grows by their number of processes."""
  leaves, structure, specs = _per_leaf(local_inputs, pspecs)
  return tree_unflatten(structure, [
      host_local_array_to_global_array_p.bind(x, global_mesh=global_mesh, pspec=s)
      for x, s in zip(leaves, specs)])


def global_array_to_host_local_array(global_inputs: Any, global_mesh: Mesh, pspecs: Any):
  """This process's part of each global Array of ``global_inputs`` (laid out over
  ``global_mesh`` as ``pspecs``), as an Array over its own devices."""
  leaves, structure, specs = _per_leaf(global_inputs, pspecs)
  return tree_unflatten(structure, [
      global_array_to_host_local_array_p.bind(x, global_mesh=global_mesh, pspec=s)
      for x, s in zip(leaves, specs)])


def ltg_batcher(insert_axis, axis_data, vals_in, dims_in, global_mesh, pspec):
  """vmap of host_local_array_to_global_array: the batch dimension is not split (or is
  split over the vmap's ``spmd_axis_name``)."""
  (x,), (d,) = vals_in, dims_in
  spec = list(pspec)
  names = axis_data.spmd_name
  if d is not None:
    spec.insert(d, None if names is None else names[0] if len(names) == 1 else names)
  return host_local_array_to_global_array_p.bind(x, global_mesh=global_mesh,
                                                 pspec=P(*spec)), d


def _conversion(name: str, impl, abstract_eval) -> Primitive:
  """A primitive that converts between host-local and global arrays: staged, the value
  passes through unchanged; its transpose converts the cotangent the same way."""
  prim = Primitive(name)
  prim.impl = impl
  prim.abstract_eval = abstract_eval
  prim.lowering = lambda ctx, x, **_: x
  ad.deflinear(prim, lambda ct, x, **params: [prim.bind(ad.instantiate(ct), **params)])
  return prim


host_local_array_to_global_array_p = _conversion(
    "host_local_array_to_global_array", host_local_array_to_global_array_impl,
    ltg_abstract_eval)
host_local_array_to_global_array_p.batch = functools.partial(ltg_batcher, False)
global_array_to_host_local_array_p = _conversion(
    "global_array_to_host_local_array", global_array_to_host_local_array_impl,
    gtl_abstract_eval)
global_array_to_host_local_array_p.batch = lambda axis, args, dims, **params: (
    global_array_to_host_local_array_p.bind(*args, **params), dims[0])


# ---------------------------------------------------------------------------------------
# Live devices

class ProcessFailureError(Exception):
  """A process hosting some of ``failed_devices`` died or restarted during a
  ``live_devices`` block."""
  __module__ = "xjax.experimental.multihost_utils"

  def __init__(self, failed_devices: set) -> None:
    self.failed_devices = failed_devices
    super().__init__(f"Devices failed: {failed_devices}")


def _alive(devices) -> dict:
  """The given devices whose processes are alive, each with its process's incarnation."""
  processes = {d.process_index for d in devices}
  if clients.process_index() not in processes:
    raise ValueError("Provided devices do not have any local devices.")
  incarnations = clients.live_processes(processes)
  return {d: incarnations[d.process_index] for d in devices
          if d.process_index in incarnations}


class _LiveDevices:
  """``with live_devices(devices) as alive:`` runs the block on the devices whose processes
  are alive.  Entering is a barrier among those processes; leaving raises
  ProcessFailureError (in every one of them) if one died or restarted meanwhile."""

  def __init__(self) -> None:
    self.devices: dict | None = None  # device -> incarnation of its process, last seen

  @contextlib.contextmanager
  def __call__(self, devices):
    if not clients.distributed_connected():
      raise RuntimeError("Distributed JAX not initialized.")
    if not devices:
      raise ValueError("No devices provided.")
    if self.devices is None:
      self.devices = _alive(devices)
    failure = None
    try:
      yield sorted(self.devices, key=lambda d: d.id)
    except Exception as e:
      failure = e
    finally:
      before, self.devices = self.devices, _alive(devices)
      failed = {d for d in before if self.devices.get(d) != before[d]}
      if failed:
        raise ProcessFailureError(failed) from failure
      if failure is not None:
        raise failure


live_devices = _LiveDevices()
