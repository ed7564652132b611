"""What running any program takes: picking the device (computation follows committed data),
turning values into buffers, and the run sequence every eager primitive and compiled jaxpr
shares (``run_program``: run, check the inputs alive on failure, wrap the results as Arrays,
check them for NaNs and infinities).  Eager primitives are in ``eager_primitives.py``,
compiled jaxprs and jit's fast-path calls in ``compiled_jaxprs.py``.
"""
from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.sharding import (PLACING, NamedSharding, PartitionSpec,
                                            placement_mesh, replicated_over)
from xjax._src.core.avals import ShapedArray, typed_as_laid_out
from xjax._src.core.jaxpr_cache import bounded_put
from xjax._src.core.typed_ndarray import float0_zeros
from xjax._src.backend import buffers, clients, jaxlib_api
from xjax._src.execution.array import SCALAR_CACHE_SIZE, Array, host_array
from xjax._src.execution.result_checks import check_special_values, checks_results


# ---------------------------------------------------------------------------------------
# Devices and buffers

def pick_device(args: Sequence[Any], fun: str = "computation", names=None):
  """(device, committed): the committed device of the inputs, else the default device.
  ``committed`` is a ``MeshCommitment`` when the first committed input carries a sharding
  over a mesh of one device (its results carry one too, as in JAX). Inputs committed to
  different devices are JAX's ValueError, naming them by ``names()`` when given."""
  device = None
  for i, x in enumerate(args):
    if type(x) is Array and x._committed:
      d = x.device
      if device is None:
        device, first = d, i
      elif d != device:
        raise _incompatible_devices(args, first, i, fun, names() if names else ())
  if device is None:
    mesh = placement_mesh() if PLACING[0] else None
    if mesh is not None and mesh.size == 1:  # set_mesh's one device: results placed there
      return mesh.devices.flat[0], MeshCommitment(NamedSharding(mesh, PartitionSpec()), None)
    return clients.default_device(), False
  marker = args[first]._committed
  return device, (True if marker is True else MeshCommitment(marker, args[first].aval.shape))


class MeshCommitment:
  """What results computed from an array placed with a one-device NamedSharding report:
  that sharding for results of the array's shape, else the mesh replicated (JAX's sharding
  propagation on one device); ``shape`` None: every result replicated (``set_mesh``'s)."""
  __slots__ = ("sharding", "shape")

  def __init__(self, sharding, shape) -> None:
    self.sharding, self.shape = sharding, shape

  def __bool__(self) -> bool:
    return True

  def for_result(self, aval):
    if aval.shape == self.shape:
      return self.sharding
    return replicated_over(self.sharding.mesh, len(aval.shape))


def wrap_results(bufs, avals, committed) -> list:
  """Arrays of the result buffers ``bufs``, committed as ``pick_device`` said."""
  make = Array._from_buffer
  if any(a.dtype == dtypes.float0 for a in avals):  # no data: host zeros, as JAX
    make = _float0_or(make)
  if type(committed) is MeshCommitment:
    return [make(b, a, committed.for_result(a)) for b, a in zip(bufs, avals)]
  if type(committed) is list:  # one per result: jit's out_shardings over one device
    return [make(b, typed_as_laid_out(a, c) if type(c) is NamedSharding else a, c)
            for b, a, c in zip(bufs, avals, committed)]
  return [make(b, a, committed) for b, a in zip(bufs, avals)]


def _float0_or(make):
  """``make``, except that a float0 result is a host array of zeros (it holds no data)."""
  def wrap(buf, aval, committed):
    if aval.dtype == dtypes.float0:
      return float0_zeros(aval.shape)
    return make(buf, aval, committed)
  return wrap


def _incompatible_devices(args, i: int, j: int, fun: str, names: Sequence[str]) -> ValueError:
  def describe(k):
    name = names[k] if k < len(names) else f"args[{k}]"
    x = args[k]
    return (f"argument {name} of {fun} with shape {x.aval.update(weak_type=False)} and "
            f"with device ids [{x.device.id}] on platform {x.device.platform.upper()}")
  return ValueError(f"Received incompatible devices for jitted computation. Got "
                    f"{describe(i)} and {describe(j)}. Move the arguments to one device "
                    "with xjax.device_put, or leave them uncommitted.")


class DonatedBufferError(jaxlib_api.XlaRuntimeError):
  """A donated buffer passed in a second argument position of the same call, donated there
  too or not (JAX's runtime raises its JaxRuntimeError, naming flattened positions);
  ``with_names`` adds their pytree paths."""

  def __init__(self, donated: int, other: int, donated_again: bool,
               names: Sequence[str] = ()) -> None:
    self.donated, self.other, self.donated_again = donated, other, donated_again

    def describe(k):
      return (f"{names[k]} (flattened argument {k})" if k < len(names)
              else f"flattened argument {k}")
    what = ("The same buffer was donated twice in one call" if donated_again else
            "A donated buffer is used again in the same call")
    why = ("XLA cannot reuse one buffer for two outputs" if donated_again else
           "The call may overwrite it while reading it")
    super().__init__(f"INVALID_ARGUMENT: {what}: {describe(other)} is the buffer of "
                     f"{describe(donated)}, which is donated. {why}: pass a copy (x.copy()) "
                     "for one of them.")

  def with_names(self, names: Sequence[str]) -> "DonatedBufferError":
    return DonatedBufferError(self.donated, self.other, self.donated_again, names)


_SCALAR_BUFFERS: dict = {}
clients.register_backend_cache(_SCALAR_BUFFERS)


def clear_scalar_buffers() -> None:
  """Forgets the cached device buffers of Python scalars (part of ``xjax.clear_caches``)."""
  _SCALAR_BUFFERS.clear()


def _canonical_ndarray(x):
  return np.asarray(x, dtypes.canonicalize_dtype(x.dtype))


# How a host value of each type takes its canonical dtype before it is put on a device
# (JAX's `jax.interpreters.xla.canonicalize_dtype_handlers`): libraries register their own
# array types here (TFP's NumpyVariable, an ndarray subclass).
canonicalize_dtype_handlers: dict = {np.ndarray: _canonical_ndarray}


def to_buffer(x, aval: ShapedArray, device):
  """The device buffer for an input value (Arrays are used in place when possible)."""
  if type(x) is Array:
    x._check_alive()
    buf = x._buf
    if buffers.buf_device(buf) != device:
      buf = buffers.copy_to_device(buf, device)
    return buf
  if type(x) is np.ndarray and aval.dtype.kind != "V":  # (a host input; "V": float0)
    return buffers.put(np.asarray(x, aval.dtype), device)
  if isinstance(x, (bool, int, float, complex, np.generic)):
    # Scalars are immutable: one buffer per value, dtype and device (a NumPy scalar keyed
    # by its bytes, which tell -0.0 and NaN payloads apart).
    key = ((x.dtype, x.tobytes()) if isinstance(x, np.generic) else (type(x), repr(x)),
           aval.dtype, device)
    buf = _SCALAR_BUFFERS.get(key)
    if buf is None:
      buf = buffers.put(np.asarray(x, aval.dtype), device)
      bounded_put(_SCALAR_BUFFERS, key, buf, SCALAR_CACHE_SIZE)
    return buf
  if isinstance(x, Array):  # subclasses
    return x._buf
  if aval.dtype == dtypes.float0:   # no data: XLA holds float0 values as booleans
    return buffers.put(np.zeros(aval.shape, np.bool_), device)
  handler = canonicalize_dtype_handlers.get(type(x))
  if handler is not None:
    x = handler(x)
  return buffers.put(host_array(x, aval.dtype), device)


def input_buffers(args, avals, device, leading: Sequence = ()) -> list:
  """The buffers of ``args`` on ``device``, after ``leading`` ones (a program's constants).
  With one device every Array is already on it: its buffer is used as it is."""
  if clients.several_devices:
    return [*leading, *[to_buffer(x, a, device) for x, a in zip(args, avals)]]
  return [*leading, *[x._buf if type(x) is Array else to_buffer(x, a, device)
                      for x, a in zip(args, avals)]]


def params_key(params: dict) -> tuple:
  """A primitive's parameters as part of a cache key (sorted by name)."""
  if len(params) < 2:
    return tuple(params.items())
  return tuple(sorted(params.items(), key=lambda kv: kv[0]))


def raise_if_deleted(args) -> None:
  """Raises the error of the first deleted (e.g. donated) Array among ``args``: clearer than
  the runtime's, when a program failed to run on it."""
  for x in args:
    if type(x) is Array:
      x._check_alive()


def run_program(executable, bufs: list, args, out_avals, committed, name: str) -> list:
  """What every eager primitive and compiled jaxpr does once its inputs are buffers: run,
  wrap the results as Arrays committed as ``pick_device`` said, and check them for NaNs and
  infinities under ``jax_debug_nans``/``jax_debug_infs``."""
  try:
    outs = executable.run(bufs)
  except Exception:
    raise_if_deleted(args)
    raise
  results = wrap_results(outs, out_avals, committed)
  if checks_results():
    check_special_values(name, results)
  return results


def donation_aliases(in_avals, donated, out_avals, shown=None, warn: bool = True) -> list:
  """For each input, the output its donated buffer will hold (or None).  As in JAX, the
  k-th donated input of a (shape, dtype) goes to the k-th output of that (shape, dtype)
  (an output aval of None takes none); donations left over are reported in a UserWarning
  unless ``warn`` is False (each as ``shown`` gives it: JAX names a partitioned program's
  per-device blocks)."""
  free: dict = {}
  for j, a in enumerate(out_avals):
    if a is not None:
      free.setdefault((a.shape, a.dtype), []).append(j)
  aliases, unused = [], []
  for a, d in zip(in_avals, donated):
    outs = free.get((a.shape, a.dtype)) if d else None
    aliases.append(outs.pop(0) if outs else None)
    if d and not outs and aliases[-1] is None:
      unused.append(str(a) if shown is None else shown[len(aliases) - 1])
  if unused and warn:
    warnings.warn(f"Some donated buffers were not usable: {', '.join(unused)}.\nSee an "
                  "explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
                  UserWarning, stacklevel=4)
  return aliases
