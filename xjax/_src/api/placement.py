"""Data placement and lifetime: ``device_put``/``device_get``, ``default_device``,
``block_until_ready``, ``live_arrays`` and ``clear_caches``.

Arrays are *committed* to a device when placed there explicitly (``device_put(x, d)``,
``device=``); computations follow committed data (see ``dispatch.pick_device``).  Host data
and uncommitted arrays live on the default device.
"""
from __future__ import annotations

import gc

import numpy as np

from xjax._src.foundations import dtypes, tree_util
from xjax._src.execution.array import Array, argument_array, make_array
from xjax._src.backend import buffers, clients, jaxlib_api
from xjax._src.foundations.config import config
from xjax._src.foundations.layout import Format
from xjax._src.core.avals import MemorySpace
from xjax._src.core.trace import Tracer, current_trace, eval_trace
from xjax._src.primitives.lax.device_put import ArrayCopySemantics, copy_semantics, device_put_p
from xjax._src.execution import dispatch, eager_primitives, spmd
from xjax._src.foundations.sharding import (AxisType, IndivisibleError, Mesh, NamedSharding,
                                            PartitionSpec, Sharding, context_mesh)
from xjax._src.api import jit


def resolve_device(device):
  """The runtime device that a ``device=`` argument names (a Device or a single-device
  Sharding); ValueError for anything else, or for a device no backend of ours owns."""
  if isinstance(device, jaxlib_api.Device):
    target = device
  elif getattr(device, "_device", None) is not None:  # SingleDeviceSharding
    target = device._device
  elif isinstance(device, NamedSharding) and isinstance(device.mesh, Mesh):
    target = device.mesh.devices.flat[0]
  else:
    raise ValueError("`xjax.device_put` only accepts `None`, `xjax.sharding.Sharding`, "
                     "`xjax.Device` or a pytree of these values. Received invalid value: "
                     f"{device!r}")
  if not clients.owns_device(target):
    raise ValueError(f"{target!r} belongs to another runtime client than xjax's "
                     f"{target.platform} backend; use a device from xjax.devices().")
  return target


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
  """Places the leaves of ``x`` on ``device``, committed; without a device, arrays stay
  where they are and host values go uncommitted to the default device.  Arrays already on
  other devices are copied device to device in one batched transfer.  ``device``, ``src``,
  ``donate`` and ``may_alias`` may each be a pytree prefix of ``x``."""
  leaves, tree = tree_util.tree_flatten(x)
  devices = [_placement(d) for d in _per_leaf(device, x, len(leaves), "device")]
  srcs = _per_leaf(src, x, len(leaves), "src")
  donates = _per_leaf(donate, x, len(leaves), "donate")
  aliases = _per_leaf(may_alias, x, len(leaves), "may_alias")
  out = list(leaves)
  spread = [i for i, d in enumerate(devices) if isinstance(d, Sharding) and len(d.device_set) > 1]
  for i in spread:
    out[i] = _put_spread(leaves[i], devices[i])
  rest = [i for i in range(len(leaves)) if i not in set(spread)]
  if any(isinstance(leaves[i], Tracer) for i in rest):  # staged, as JAX
    staged = device_put_p.bind(
        *(leaves[i] for i in rest), devices=tuple(devices[i] for i in rest),
        srcs=tuple(srcs[i] for i in rest),
        copy_semantics=tuple(ArrayCopySemantics.REUSE_INPUT if isinstance(devices[i], MemorySpace)
                             else copy_semantics(donates[i], aliases[i]) for i in rest))
    for i, y in zip(rest, staged):
      out[i] = y
    return tree_util.tree_unflatten(tree, out)
  groups: dict = {}
  for i in rest:
    groups.setdefault((devices[i], bool(donates[i])), []).append(i)
  for (target, donated), idx in groups.items():
    for i, y in zip(idx, _put_concrete([leaves[i] for i in idx], target, donated)):
      out[i] = y
  return tree_util.tree_unflatten(tree, out)


def _per_leaf(spec, x, n: int, what: str) -> list:
  """``spec`` (a leaf, or a pytree prefix of ``x`` with None as a leaf) once per leaf of ``x``."""
  is_none = lambda s: s is None  # noqa: E731
  structure = tree_util.tree_structure(spec, is_leaf=is_none)
  if tree_util.treedef_is_leaf(structure):
    return [spec] * n
  try:
    subtrees = structure.flatten_up_to(x)
  except ValueError as e:
    raise ValueError(f"device_put {what} specification must be a tree prefix of the "
                     f"corresponding value; \n  {e}") from None
  specs = tree_util.tree_leaves(spec, is_leaf=is_none)
  return [s for s, sub in zip(specs, subtrees) for _ in tree_util.tree_leaves(sub)]


def _placement(device):
  """A ``device=`` leaf as placed: a PartitionSpec is a sharding over the context mesh
  (``jax.set_mesh``); a Format places by its sharding (xjax keeps XLA's default layouts)."""
  if isinstance(device, Format):
    return _placement(device.sharding)
  if not isinstance(device, PartitionSpec):
    return device
  mesh = context_mesh()
  if mesh is None or mesh.empty:
    raise ValueError("Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to "
                     "device_put")
  return NamedSharding(mesh, device)


def _put_concrete(leaves: list, device, donate: bool) -> list:
  """Concrete ``leaves`` placed on one device (or kept where they are for None)."""
  if isinstance(device, MemorySpace):
    return [_put_in_memory(leaf, device) for leaf in leaves]
  if device is None:
    return [leaf if isinstance(leaf, Array) else argument_array(leaf) for leaf in leaves]
  target = resolve_device(device)
  # A sharding over a mesh of one device stays the array's reported sharding.
  committed = device if isinstance(device, NamedSharding) else True
  out = list(leaves)
  moves = []
  for i, leaf in enumerate(leaves):
    if isinstance(leaf, Array):
      leaf._check_alive()
      if leaf.device == target:
        out[i] = Array._from_buffer(leaf._buf, leaf.aval, committed)
      else:
        moves.append(i)
    else:
      out[i] = make_array(leaf, device=target, committed=committed)
  if moves:
    copies = buffers.copy_to_devices([leaves[i]._buf for i in moves], [target] * len(moves))
    for i, buf in zip(moves, copies):
      out[i] = Array._from_buffer(buf, leaves[i].aval, committed)
      if donate:
        leaves[i].delete()
  if committed is not True:  # over a mesh of one device: its Explicit axes are in the types
    out = [Array._from_buffer(x._buf, x.aval.update(sharding=committed), committed)
           for x in out]
  return out


def _put_in_memory(leaf, space: MemorySpace):
  """A concrete leaf put in ``space`` (``jax.memory.Space.Device``): committed where it is
  (a host value to the default device); xjax has no other memory space to put it in."""
  if space is MemorySpace.Any:
    raise AssertionError("jax.memory.Space.Any names no memory to place an array in; use "
                         "jax.memory.Space.Device.")
  if space is MemorySpace.Host:
    raise NotImplementedError("device_put to jax.memory.Space.Host: xjax keeps every array in "
                              "device memory (no memory spaces in its types); see "
                              "docs/differences.md.")
  if not isinstance(leaf, Array):
    leaf = make_array(leaf)
  leaf._check_alive()
  if buffers.is_spread(leaf._buf):
    return leaf
  return Array._from_buffer(leaf._buf, leaf.aval, leaf._committed or True)


def device_put_impl(*xs, devices, srcs, copy_semantics):
  """``device_put_p`` on concrete values: each placed as ``device_put`` places it."""
  return [device_put(x, d, src=s, donate=c is ArrayCopySemantics.DONATE_INPUT,
                     may_alias=c is not ArrayCopySemantics.ALWAYS_COPY)
          for x, d, s, c in zip(xs, devices, srcs, copy_semantics)]



def _put_spread(leaf, sharding):
  """``leaf`` laid out over the devices of ``sharding`` (a constraint when traced)."""
  if isinstance(leaf, Tracer):
    from xjax._src.primitives.lax.sharding_constraint import constrain
    return constrain(leaf, sharding)
  if type(sharding) is NamedSharding and sharding.mesh.abstract_mesh.explicit_axes:
    sharding.check_shape(np.shape(leaf))  # (the type's check: JAX's error as it is)
  try:
    return spmd.put(leaf, sharding)
  except IndivisibleError:
    raise
  except ValueError as e:
    raise ValueError(f"One of device_put args is incompatible with its sharding annotation "
                     f"{sharding!r}: {e}") from None


def device_get(x):
  """The leaves of ``x`` on the host (every copy to the host is started first): arrays and
  anything with ``__array__`` as NumPy arrays; tracers, PRNG key arrays and other values as
  they are."""
  leaves, tree = tree_util.tree_flatten(x)
  for leaf in leaves:
    if isinstance(leaf, Array):
      leaf.copy_to_host_async()
  return tree_util.tree_unflatten(tree, [_on_host(leaf) for leaf in leaves])


def _on_host(leaf):
  if isinstance(leaf, Array):
    return leaf if dtypes.is_extended(leaf.dtype) else np.asarray(leaf)
  to_array = None if isinstance(leaf, Tracer) else getattr(leaf, "__array__", None)
  return leaf if to_array is None else to_array()


def block_until_ready(x):
  """Waits until every array in ``x`` is computed; returns ``x``."""
  if type(x) is Array:  # (no tree walk for the common case)
    return x.block_until_ready()
  for leaf in tree_util.tree_leaves(x):
    if isinstance(leaf, Array):
      leaf.block_until_ready()
  return x


def default_device(new_val):
  """Context manager: uncommitted data and computations go to ``new_val`` (a Device or a
  platform name) inside the block (``jax.default_device``)."""
  return config._override("jax_default_device", new_val)


def live_arrays(platform: str | None = None) -> list:
  """The Arrays whose buffers are alive on ``platform``'s backend (default: the default
  backend).  It walks the heap, so it is meant for debugging memory, not for hot loops."""
  live = {id(b) for b in clients.live_buffers(platform)}
  hosted = platform in (None, clients.default_device().platform)  # host values' device
  return [o for o in gc.get_objects() if type(o) is Array and (
      id(o._b) in live if o._b is not None else hosted and o._host is not None)]


def clear_caches() -> None:
  """Drops the compilation and tracing caches: every jitted function's traces and
  executables, and the executables of eager primitives."""
  jit._clear_function_caches()
  eager_primitives.clear_caches()
  dispatch.clear_scalar_buffers()


def clear_backends() -> None:
  """``jax.extend.backend.clear_backends``: forgets the runtime clients and everything made
  for them; live Arrays on one device move (through the host) to the same device of the new
  clients, so they keep working as in JAX."""
  moving = []
  for x in gc.get_objects():
    if type(x) is Array and x._b is not None and not x._b.is_deleted():
      devices = list(buffers.buf_device_set(x._buf))
      if len(devices) != 1:
        raise NotImplementedError(
            "clear_backends: an Array spread over several devices is alive; xjax can move "
            "only single-device Arrays to the new clients. Delete it (or gather it with "
            "np.asarray) first.")
      moving.append((x, np.asarray(x._buf), devices[0].platform, devices[0].id))
  clients.clear_backends()
  for x, host, platform, device_id in moving:
    device = next(d for d in clients.backend(platform).devices() if d.id == device_id)
    x._buf = buffers.put(host, device)


def to_device(self, device, *, stream=None) -> Array:
  """A copy committed to ``device`` (the array API's ``to_device``)."""
  if stream is not None:
    raise NotImplementedError("stream argument of array.to_device()")
  return device_put(self, device)



_EMPTY_MESH = Mesh(np.empty((), dtype=object), ())


def get_mesh() -> Mesh:
  """The concrete mesh of the innermost ``with mesh:`` block (an empty mesh outside);
  only outside ``jit``, where ``get_abstract_mesh`` is the one to ask."""
  if current_trace() is not eval_trace:
    raise ValueError("`get_mesh` can only be used outside of `jax.jit`. Maybe you want "
                     "`jax.sharding.get_abstract_mesh()`?")
  return context_mesh() or _EMPTY_MESH


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None) -> Mesh:
  """A mesh of ``axis_shapes`` over the first ``prod(axis_shapes)`` of ``devices`` (default:
  all devices), every axis Explicit unless ``axis_types`` says otherwise."""
  axis_shapes = tuple(int(s) for s in axis_shapes)
  devices = list(clients.devices() if devices is None else devices)
  size = int(np.prod(axis_shapes, dtype=np.int64))
  if size > len(devices):
    raise ValueError(f"Number of devices {len(devices)} must be >= the product of "
                     f"mesh_shape {axis_shapes}")
  if axis_types is None:
    axis_types = (AxisType.Explicit,) * len(axis_shapes)
  return Mesh(np.array(devices[:size], dtype=object).reshape(axis_shapes), axis_names,
              axis_types)
