"""Colocated Python (``jax.experimental.colocated_python``) for one process: the CPU devices
colocated with a device are this process's CPU devices, and a colocated function or object
method runs its Python code here, on the host, with the argument arrays as they are.

JAX serializes the function and runs it on the (possibly remote) host of the arguments'
devices; with a single process that host is this one, so no serialization is needed.
Arguments on devices of another process cannot occur in a single-process runtime; they would
raise NotImplementedError (docs/differences.md).
"""
from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, Sequence

import numpy as np

from xjax._src.api.shape_dtype_struct import ShapeDtypeStruct
from xjax._src.backend import clients
from xjax._src.execution.basearray import Array
from xjax._src.foundations import tree_util
from xjax._src.foundations.sharding import Mesh


# -- devices ---------------------------------------------------------------------------------

def colocated_cpu_devices(devices_or_mesh):
  """The CPU devices colocated with `devices_or_mesh` (a sequence of devices, answered as a
  list, or a Mesh, answered as a Mesh of the same shape and axes).

  As JAX's CPU client, which has no colocation ids: each device takes the next unused CPU
  device of its process, in order, so ``(d2, d0)`` gives ``[cpu0, cpu1]``.
  """
  if isinstance(devices_or_mesh, Mesh):
    mesh = devices_or_mesh
    flat = colocated_cpu_devices(tuple(mesh.devices.flat))
    return Mesh(np.array(flat, dtype=object).reshape(mesh.axis_sizes), mesh.axis_names,
                axis_types=mesh.axis_types)
  return list(_colocated_cpu_devices(tuple(devices_or_mesh)))


@functools.lru_cache(maxsize=1024)
def _colocated_cpu_devices(devices: tuple) -> tuple:
  if devices[0].platform == "cpu":
    cpus = [d for d in devices[0].client.devices() if d.platform == "cpu"]
  else:
    cpus = clients.devices("cpu")
  free: dict[int, list] = {}
  for d in reversed(cpus):
    free.setdefault(d.process_index, []).append(d)
  out = []
  for d in devices:
    pool = free.get(d.process_index, [])
    if not pool:
      raise ValueError(f"Process {d.process_index} does not have enough local CPU devices")
    out.append(pool.pop())
  return tuple(out)


# -- functions -------------------------------------------------------------------------------

def _spec(x) -> ShapeDtypeStruct:
  if not isinstance(x, Array):
    raise ValueError("colocated_python only supports jax.Array as input and output, but got "
                     f"{type(x)}.")
  return ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding)


def _device_list(leaves) -> tuple | None:
  """The one device list the arrays `leaves` live on (ValueError if several)."""
  lists = {tuple(sorted(x.sharding.device_set, key=lambda d: d.id)) for x in leaves}
  if not lists:
    return None
  if len(lists) != 1:
    raise ValueError(f"All arguments must use the same device list, but got multiple device "
                     f"lists: {lists}.")
  devices = lists.pop()
  remote = [d for d in devices if d.process_index != clients.process_index()]
  if remote:
    raise NotImplementedError(
        f"colocated_python: arguments on devices of another process ({remote}) would run the "
        "function on that process's host; xjax runs colocated Python in this process only "
        "(see docs/differences.md)")
  return devices


def _check_specs(what: str, leaves, treedef, spec_leaves, spec_treedef) -> None:
  if treedef != spec_treedef:
    raise ValueError(f"colocated_python: the {what} structure {treedef} does not match the "
                     f"specialized structure {spec_treedef}")
  for x, s in zip(leaves, spec_leaves):
    if tuple(x.shape) != tuple(s.shape) or np.dtype(x.dtype) != np.dtype(s.dtype):
      raise ValueError(f"colocated_python: {what} {x.dtype}{list(x.shape)} does not match the "
                       f"specialized {s.dtype}{list(s.shape)}")


class FunctionInfo:
  """The user function with its source location and signature."""

  def __init__(self, fun: Callable, fun_sourceinfo: str | None,
               fun_signature: inspect.Signature | None) -> None:
    self.fun, self.fun_sourceinfo, self.fun_signature = fun, fun_sourceinfo, fun_signature


class Specialization:
  """What a colocated callable was specialized with: input specs, an output-spec function
  and devices; each may be set once."""

  def __init__(self, in_specs_treedef=None, in_specs_leaves=None, out_specs_fn=None,
               devices=None) -> None:
    self.in_specs_treedef, self.in_specs_leaves = in_specs_treedef, in_specs_leaves
    self.out_specs_fn, self.devices = out_specs_fn, devices

  def update(self, *, in_specs_treedef=None, in_specs_leaves=None, out_specs_fn=None,
             devices=None) -> "Specialization":
    new = dict(in_specs_treedef=in_specs_treedef, in_specs_leaves=in_specs_leaves,
               out_specs_fn=out_specs_fn, devices=devices)
    for name, value in new.items():
      if value is not None and getattr(self, name) is not None:
        label = name.replace("_treedef", "").replace("_leaves", "")   # as JAX names it
        raise ValueError(f"{label} already specified")
    return Specialization(**{n: getattr(self, n) if v is None else v for n, v in new.items()})


def make_callable(fun: Callable, fun_sourceinfo: str | None,
                  fun_signature: inspect.Signature | None):
  """A colocated Python callable for `fun`, not yet specialized."""
  return _make_callable(FunctionInfo(fun, fun_sourceinfo, fun_signature), Specialization())


def _make_callable(info: FunctionInfo, specialization: Specialization):

  def specialize(in_specs=None, out_specs_fn=None, devices: Sequence | None = None):
    """The callable specialized with input specs (a pytree of ShapeDtypeStruct for
    ``(args, kwargs)``), a function from input specs to output specs, and/or devices."""
    in_leaves = in_treedef = None
    if in_specs is not None:
      in_leaves, in_treedef = tree_util.tree_flatten(in_specs)
      in_leaves = tuple(in_leaves)
    return _make_callable(info, specialization.update(
        in_specs_treedef=in_treedef, in_specs_leaves=in_leaves, out_specs_fn=out_specs_fn,
        devices=None if devices is None else tuple(devices)))

  def __call__(*args, **kwargs):
    leaves, treedef = tree_util.tree_flatten((args, kwargs))
    if not leaves and specialization.devices is None:
      raise ValueError("No devices found. colocated_python function without input arguments "
                       "must be first specialized with devices.")
    in_specs = [_spec(x) for x in leaves]
    if specialization.in_specs_treedef is not None:
      _check_specs("input", leaves, treedef, specialization.in_specs_leaves,
                   specialization.in_specs_treedef)
    _device_list(leaves)
    out = info.fun(*args, **kwargs)
    out_leaves, out_treedef = tree_util.tree_flatten(out)
    for x in out_leaves:
      _spec(x)
    if specialization.out_specs_fn is not None:
      spec_args, spec_kwargs = tree_util.tree_unflatten(treedef, in_specs)
      out_specs = specialization.out_specs_fn(*spec_args, **spec_kwargs)
      spec_leaves, spec_treedef = tree_util.tree_flatten(out_specs)
      _check_specs("output", out_leaves, out_treedef, spec_leaves, spec_treedef)
    return out

  __call__ = functools.wraps(info.fun)(__call__)
  __call__.specialize = specialize
  return __call__


# -- objects ---------------------------------------------------------------------------------

def wrap_class(cls: type, cls_sourceinfo: str | None) -> type:
  """A class whose instances hold their arguments and create the `cls` object on the first
  method call; each method of `cls` becomes a colocated callable on that object."""

  class WrappedClass:

    @functools.wraps(cls.__init__)
    def __init__(self, *init_args, **init_kwargs) -> None:
      state = {"object": None}
      lock = threading.Lock()

      def instance():
        with lock:
          if state["object"] is None:
            state["object"] = cls(*init_args, **init_kwargs)
          return state["object"]

      for name in dir(cls):
        member = getattr(cls, name)
        if not inspect.isfunction(member) or name in ("__init__", "__del__", "__reduce__",
                                                      "__reduce_ex__"):
          continue
        method = functools.wraps(member)(
            lambda *args, _name=name, **kwargs: getattr(instance(), _name)(*args, **kwargs))
        setattr(self, name, make_callable(method, cls_sourceinfo, inspect.signature(member)))

  WrappedClass.__name__ = cls.__name__
  WrappedClass.__qualname__ = cls.__qualname__
  WrappedClass.__doc__ = cls.__doc__
  return WrappedClass


def colocated_python(fun: Callable[..., Any]):
  """`fun` as a colocated Python callable: called with jax.Arrays, it runs on the host of
  their devices (here, this process) and returns jax.Arrays; ``.specialize(in_specs=,
  out_specs_fn=, devices=)`` fixes its specs or devices."""
  return make_callable(fun, _sourceinfo(fun), _signature(fun))


def colocated_python_class(cls: type) -> type:
  """`cls` as a colocated Python class: the object is created on the host of the arrays
  its methods are first called with (here, this process)."""
  return wrap_class(cls, _sourceinfo(cls))


def _sourceinfo(obj) -> str | None:
  try:
    return f"{obj.__name__} at {inspect.getsourcefile(obj)}:{inspect.getsourcelines(obj)[1]}"
  except (TypeError, OSError, AttributeError):
    return None


def _signature(fun) -> inspect.Signature | None:
  try:
    return inspect.signature(fun)
  except (TypeError, ValueError):
    return None
