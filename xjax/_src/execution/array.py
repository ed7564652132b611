"""``xjax.Array``: an immutable array backed by one device buffer, or, while small and
computed on the host (``host_eval.py``), by a NumPy array whose buffer is made when needed.

Operators and most methods are attached by ``xjax._src.libraries.numpy.array_methods`` (they
delegate to ``xjax.numpy``) and are shared with tracers.
"""
from __future__ import annotations

import functools
import struct

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.backend import buffers, clients, dlpack
from xjax._src.core.avals import ShapedArray, canonical
from xjax._src.core.trace import _immutable_message
from xjax._src.core import values
from xjax._src.execution import host_values
from xjax._src.core.jaxpr_cache import bounded_put
from xjax._src.foundations.layout import Format, Layout
from xjax._src.foundations.sharding import Sharding, SingleDeviceSharding


def _reject_keys(array, name: str, instead: str = "xjax.random.key_data(keys)") -> None:
  """The AttributeError JAX's PRNG key arrays give for attributes they lack."""
  if dtypes.is_extended(array.aval.dtype):
    raise AttributeError(f"xjax arrays of {array.aval.dtype} (PRNG keys) have no {name}; "
                         f"use {instead} instead.")


class _not_on_key_arrays:
  """A method PRNG key arrays lack, as JAX's (``hasattr`` is false for them), such as the
  DLPack export protocol. Looked up on the class (as NumPy 2.0's ``from_dlpack`` does), it is
  a function that raises the same AttributeError for key arrays."""

  def __init__(self, method):
    self._method = method
    self.__doc__ = method.__doc__

  def _check(self, array) -> None:
    _reject_keys(array, self._method.__name__)

  def __get__(self, array, cls=None):
    if array is None:
      def checked(array, *args, **kwargs):
        self._check(array)
        return self._method(array, *args, **kwargs)
      return functools.wraps(self._method)(checked)
    self._check(array)
    return self._method.__get__(array, cls)


class Array:
  """An immutable n-dimensional array on a device (``jax.Array``).

  ``_committed`` is False, True, or -- for an array placed with a sharding over a mesh of
  one device -- that sharding, which ``sharding`` then reports (as JAX does).

  Its data is a device buffer (``_buf``), or -- for a small uncommitted array on the only
  device, a CPU -- a read-only NumPy array (``_host``) that host evaluation computes on
  (``host_eval.py``); the buffer is then made from it the first time one is needed.
  ``_npy`` caches the host copy of a buffer.

  It cannot be constructed by calling it: as JAX's ``type(x)()``, ``Array(...)`` raises a
  TypeError (make arrays with ``xjax.numpy.asarray`` or ``xjax.device_put``); results are
  made with ``object.__new__``, the cheapest way for Python to make an instance.  As JAX's,
  an array takes attributes of the user's (Keras marks its arrays ``trainable``): the
  ``__dict__`` slot, made only when one is set."""
  __slots__ = ("_b", "_host", "aval", "_committed", "_npy", "__weakref__", "__dict__")
  __array_priority__ = 100

  def __new__(cls, *args, **kwargs):
    raise TypeError(
        "xjax.Array cannot be constructed directly; make arrays with "
        "xjax.numpy.asarray(...) or xjax.device_put(...)")

  # ``Array._from_buffer(buf, aval, committed=False)``: ``from_buffer``, set below the class.

  @property
  def _buf(self):
    """The device buffer, made from the host value the first time it is asked for."""
    buf = self._b
    if buf is None:
      # a buffer of its own: a host value's memory can be shared by other arrays (views,
      # copies), which a donation of this buffer must not overwrite
      buf = self._b = buffers.put(self._host, clients.default_device(), own=True)
    return buf

  @_buf.setter
  def _buf(self, buf) -> None:
    self._b = buf
    self._host = None

  # -- static facts ----------------------------------------------------------------------
  @property
  def shape(self) -> tuple:
    return self.aval.shape

  @property
  def dtype(self) -> np.dtype:
    return self.aval.dtype

  @property
  def ndim(self) -> int:
    return len(self.aval.shape)

  @property
  def size(self) -> int:
    return self.aval.size

  @property
  def weak_type(self) -> bool:
    return self.aval.weak_type

  @property
  def itemsize(self) -> int:
    return self.aval.dtype.itemsize

  @property
  def nbytes(self) -> int:
    return self.size * self.itemsize

  @property
  def committed(self) -> bool:
    return bool(self._committed)

  @property
  def traceback(self) -> None:
    """None, JAX's value where traceback collection is off: xjax does not record the Python
    stack where each array is made (walking it would cost an eager operation about 40%)."""
    return None

  # -- host values -----------------------------------------------------------------------
  def _value(self) -> np.ndarray:
    if dtypes.is_extended(self.aval.dtype):
      raise TypeError(
          f"xjax array with {self.aval.dtype} dtype (an array of PRNG keys) cannot be "
          "converted to a NumPy array or Python value. Use xjax.random.key_data(arr) to get "
          "the underlying uint32 array.")
    self._check_alive()  # also when a host copy is cached: a donated array is gone
    if self._npy is None:
      value = buffers.to_host(self._buf)
      if value.dtype != self.aval.dtype:
        value = value.astype(self.aval.dtype)
      value.flags.writeable = False
      self._npy = value
    return self._npy

  def _physical_value(self) -> np.ndarray:
    """The stored host data: for PRNG keys, the uint32 array holding them."""
    self._check_alive()
    return buffers.to_host(self._buf)

  def _live_host(self):
    """The host value, or None: it has none, or the buffer made from it (which another
    Array may share, e.g. after ``device_put``) was deleted or donated since."""
    buf = self._b
    if buf is not None and buf.is_deleted():
      return None
    return self._host

  def _keep_only_buffer(self) -> None:
    """Drops the host value and host copy, the buffer made first if needed: a buffer
    donated, or shared with other code (DLPack, a raw pointer), may change under them."""
    self._buf = self._buf  # made from the host value if need be; setting it drops that
    self._npy = None

  def _check_alive(self) -> None:
    buf = self._b
    if buf is not None and buf.is_deleted():
      raise RuntimeError(f"Array has been deleted with shape={self.aval.update(weak_type=False)}."
                         " Its buffer was freed by .delete() or donated to a jitted "
                         "computation (donate_argnums/donate_argnames).")

  def __array__(self, dtype=None, copy=None):
    value = self._value()
    if copy:
      return np.array(value, dtype=dtype, copy=True)
    if dtype is None or np.dtype(dtype) == value.dtype:
      value.setflags(write=False)  # (host values are made writable: they are frozen here)
      return value
    if copy is False:
      raise ValueError("Unable to avoid copy while creating an array as requested: converting "
                       f"{value.dtype} to {np.dtype(dtype)} copies. Pass copy=None to allow it.")
    return value.astype(dtype)

  def item(self, *args):
    return self._value().item(*args)

  def tolist(self):
    return self._value().tolist()

  def __bool__(self) -> bool:
    if self.size == 0:  # (NumPy only warns)
      raise ValueError("The truth value of an empty array is ambiguous. Use `array.size > 0` "
                       "to check that an array is not empty.")
    return bool(self._value())

  def _check_scalar(self) -> None:
    if self.ndim:
      raise TypeError("Only scalar arrays can be converted to Python scalars; "
                      f"got arr.ndim={self.ndim}")

  def __int__(self) -> int:
    self._check_scalar()
    return int(self._value())

  def __float__(self) -> float:
    self._check_scalar()
    return float(self._value())

  def __complex__(self) -> complex:
    self._check_scalar()
    return complex(self._value())

  def __index__(self) -> int:
    if self.ndim or not (dtypes.is_integer(self.dtype) or self.dtype == np.bool_):
      raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
    return self._value().__index__()

  def __len__(self) -> int:
    if not self.aval.shape:
      raise TypeError("len() of unsized object")
    return self.aval.shape[0]

  # Not hashable, as JAX's arrays (``isinstance(x, collections.abc.Hashable)`` is False:
  # libraries key caches by ``id`` then, as funsor's cons cache does).
  __hash__ = None

  def __setitem__(self, idx, value):
    raise TypeError(_immutable_message())

  def __reduce__(self):
    if dtypes.is_extended(self.dtype):  # PRNG keys: their stored data and their dtype
      return (_reconstruct_extended, (self._physical_value(), self.aval))
    return (_reconstruct, (np.asarray(self._value()), self.aval.weak_type))

  def __copy__(self) -> "Array":
    """A new Array with its own buffer on the same device (as JAX, not ``self``)."""
    self._check_alive()
    if self._host is not None:
      return from_host(self._host, self.aval)
    if buffers.is_spread(self._buf):
      return Array._from_buffer(buffers.put_sharded(self._physical_value(), self.sharding,
                                                    self.weak_type), self.aval, True)
    return Array._from_buffer(buffers.copy_buffer(self._buf), self.aval, self._committed)

  def __deepcopy__(self, memo) -> "Array":
    return self.__copy__()

  # -- printing --------------------------------------------------------------------------
  def __repr__(self) -> str:
    self._check_alive()
    if dtypes.is_extended(self.dtype):  # PRNG keys: show the data they are stored as
      return (f"Array({self.shape}, dtype={self.dtype.name}) overlaying:\n"
              f"{self._physical_value()}")
    prefix = "Array("
    value = self._value()
    if value.size == 0 and value.ndim > 0:
      body = f"[], shape={self.shape}"
    else:
      body = np.array2string(value, prefix=prefix, separator=", ", suffix=",")
    dtype_str = f"dtype={self.dtype.name}"
    if self.aval.weak_type:
      dtype_str += ", weak_type=True"
    # JAX's layout: a dtype that would overflow the last line is set off by wide spacing
    last_line_len = len(body) - body.rfind("\n") + 1
    too_long = last_line_len + len(dtype_str) + 2 > np.get_printoptions()["linewidth"]
    sep = " " * len(prefix) if too_long else " "
    return f"{prefix}{body},{sep}{dtype_str})"

  def __str__(self) -> str:
    if dtypes.is_extended(self.dtype):
      return repr(self)
    return str(self._value())

  def __format__(self, spec) -> str:
    if self.ndim == 0 and not dtypes.is_extended(self.dtype):
      value = self._value()[()]
      if value.dtype.kind == "V":  # an ml_dtypes scalar: formatted as the Python number
        value = float(value) if dtypes.is_inexact(value.dtype) else int(value)
      return format(value, spec)
    if spec:
      raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
    return str(self)

  # -- devices and lifetime --------------------------------------------------------------
  def _spread(self) -> bool:
    """Whether its buffer is laid out over several devices."""
    return self._b is not None and buffers.is_spread(self._b)

  def devices(self) -> set:
    self._check_alive()
    if self._b is None:
      return {clients.default_device()}
    if buffers.is_spread(self._buf):
      return set(self.sharding.device_set)
    return {buffers.buf_device(self._buf)}

  @property
  def device(self):
    """The array's device; for an array over several devices, its sharding (as JAX)."""
    self._check_alive()
    if self._b is None:
      return clients.default_device()
    if buffers.is_spread(self._buf):
      return self.sharding
    return buffers.buf_device(self._buf)

  @property
  def sharding(self):
    """How the array is laid out over devices (known also once it is deleted)."""
    if self._spread():
      return buffers.buf_sharding(self._b)
    if isinstance(self._committed, Sharding):
      return self._committed
    buf = self._b
    return SingleDeviceSharding(clients.default_device() if buf is None
                                else buffers.buf_device(buf))

  def block_until_ready(self) -> "Array":
    if self._b is not None:  # (a host value is ready)
      self._check_alive()
      self._b.block_until_ready()
    return self

  def is_ready(self) -> bool:
    self._check_alive()
    return self._b is None or self._b.is_ready()

  def delete(self) -> None:
    self._buf.delete()
    self._npy = self._host = None

  def is_deleted(self) -> bool:
    return self._b is not None and self._b.is_deleted()

  def copy_to_host_async(self) -> None:
    """Starts the device-to-host copy that ``np.asarray`` will then wait for."""
    self._check_alive()
    if self._npy is None and self._b is not None and not dtypes.is_extended(self.aval.dtype):
      buffers.copy_to_host_async(self._buf)

  @_not_on_key_arrays
  def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule viewing this one-device array's buffer (a copy with ``copy=True``,
    or when ``dl_device`` names another device)."""
    self._check_alive()
    devices = self.devices()
    if len(devices) > 1:
      raise BufferError("__dlpack__ can only export an array on a single device, but this "
                        f"array's sharding spans {len(devices)} devices.")
    source, = devices
    device = None
    if dl_device is not None and dl_device[0]:
      platform = dlpack.dlpack_platform(dl_device[0])
      if platform is None:
        raise BufferError("The device passed to __dlpack__ as dl_device has a device type "
                          f"xjax does not support (DLDeviceType: {dl_device[0]})")
      device = dlpack.device_for_dlpack(platform, dl_device[1])
    if max_version is not None and tuple(max_version) < (0, 5):
      raise BufferError(f"xjax exports DLPack version (0, 5) or later, but max_version="
                        f"{tuple(max_version)} was requested.")
    self._keep_only_buffer()  # the consumer may write to it: no stale host copy
    buf = self._buf
    if device is not None and device != source:
      if copy is False:
        raise ValueError(f"__dlpack__(copy=False): dl_device names {device!r} but the "
                         f"array is on {source!r}; a copy is needed. Pass copy=True or "
                         "copy=None.")
      buf = buffers.copy_to_device(buf, device)
    elif copy:
      buf = buffers.copy_buffer(buf)
      buffers.block_until_ready([buf])  # a consumer may write to it at once
    return dlpack.to_dlpack(buf, stream)

  @_not_on_key_arrays
  def __dlpack_device__(self) -> tuple:
    self._check_alive()
    if len(self.devices()) > 1:
      raise BufferError("__dlpack__ only supports arrays on a single device.")
    return dlpack.dlpack_device(self.device)

  @_not_on_key_arrays
  def platform(self) -> str:
    """The platform of the array's devices ("cpu", "gpu", ...)."""
    return next(iter(self.devices())).platform

  @_not_on_key_arrays
  def clone(self) -> "Array":
    """A new Array object over the same buffer (deleting or donating either deletes both)."""
    return Array._from_buffer(self._buf, self.aval, self._committed)

  @property
  def format(self) -> Format:
    """The array's memory layout (XLA's default, row-major; None once deleted) and
    sharding."""
    _reject_keys(self, "format")
    layout = None if self.is_deleted() else Layout(tuple(range(self.ndim)), ())
    return Format(layout, self.sharding)

  @property
  def device_buffer(self):
    raise AttributeError("arr.device_buffer has been deprecated. Use arr.addressable_data(0)")

  @property
  def device_buffers(self):
    raise AttributeError("arr.device_buffers has been deprecated. Use [x.data for x in "
                         "arr.addressable_shards]")

  def on_device_size_in_bytes(self) -> int:
    return self._buf.on_device_size_in_bytes()

  def addressable_data(self, index: int) -> "Array":
    shards = self.addressable_shards
    if not -len(shards) <= index < len(shards):
      raise IndexError(f"addressable_data index {index} out of range: the array has "
                       f"{len(shards)} shard(s)")
    return shards[index].data

  @property
  def global_shards(self) -> list:
    return self.addressable_shards

  def unsafe_buffer_pointer(self) -> int:
    self._keep_only_buffer()  # the memory may be written through it: no stale host copy
    return self._buf.unsafe_buffer_pointer()

  @property
  def is_fully_addressable(self) -> bool:
    return self._buf._sharding.is_fully_addressable

  @property
  def is_fully_replicated(self) -> bool:
    return self.sharding.is_fully_replicated

  @property
  def addressable_shards(self) -> list:
    """Each device's piece: its device, its index into the array, and its data."""
    self._check_alive()
    if not self._spread():
      return [Shard(self.device, tuple(slice(None) for _ in self.shape), 0, self)]
    sharding = self.sharding
    index = sharding.devices_indices_map(self.shape)
    aval = self.aval.update(shape=sharding.shard_shape(self.shape))
    seen: dict = {}
    out = []
    for buf in buffers.shards(self._buf):
      device = buffers.buf_device(buf)
      key = repr(index[device])
      replica = seen[key] = seen.get(key, -1) + 1
      out.append(Shard(device, index[device], replica, Array._from_buffer(buf, aval, True)))
    return out


_new_instance = object.__new__


def from_buffer(buf, aval: ShapedArray, committed=False) -> Array:
  """A new Array of the device buffer ``buf`` (``Array._from_buffer``); a plain function,
  cheapest to call, as jit's fast path does for each result."""
  x = _new_instance(Array)
  x._b = buf
  x._host = None
  x.aval = aval
  x._committed = committed
  x._npy = None
  return x


def from_host(value: np.ndarray, aval: ShapedArray) -> Array:
  """A new uncommitted Array of the read-only NumPy array ``value`` (of ``aval``'s shape
  and dtype, free of subnormal floats), which host evaluation computes on; its buffer is
  made on the default device when first needed."""
  x = _new_instance(Array)
  x._b = None
  x._host = x._npy = value
  x.aval = aval
  x._committed = False
  return x


Array._from_buffer = staticmethod(from_buffer)


class Shard:
  """One device's piece of an Array (``jax.Shard``)."""
  __slots__ = ("device", "index", "replica_id", "data")

  def __init__(self, device, index: tuple, replica_id: int, data: Array) -> None:
    self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

  def __repr__(self) -> str:
    return (f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
            f"data={self.data})")


def _reconstruct(value: np.ndarray, weak_type: bool) -> Array:
  return make_array(value, weak_type=weak_type)


def _reconstruct_extended(stored: np.ndarray, aval: ShapedArray) -> Array:
  return Array._from_buffer(buffers.put(stored, clients.default_device()), aval)


def argument_array(value) -> Array:
  """``make_array`` of an argument JAX abstractifies as an array (``device_put``,
  ``checkpoint``): a value of no JAX type is JAX's "Cannot interpret" TypeError."""
  values.shaped_abstractify(value)
  return make_array(value)


def host_array(value, dtype) -> np.ndarray:
  """``value`` as a NumPy array of ``dtype``; a type that only stands for values (a
  ShapeDtypeStruct has an aval but no data) is JAX's TypeError."""
  try:
    return np.asarray(value, dtype=dtype)
  except (TypeError, ValueError):
    if isinstance(value, (np.ndarray, np.generic, bool, int, float, complex)):
      raise
    raise TypeError(f"Argument of type {type(value)} is not a valid JAX type.") from None


def make_array(value, device=None, committed=False, weak_type: bool | None = None,
               dtype=None) -> Array:
  """A new Array holding a copy of a host value (Python scalar or NumPy array): a host
  value where it can be one (see ``host_values.usable``), else on ``device``."""
  if dtype is not None and weak_type is not None and type(value) is np.ndarray:
    aval = ShapedArray(value.shape, dtypes.canonicalize_dtype(dtype), weak_type)
  else:
    aval = values.get_aval(value)
    if dtype is not None:
      aval = ShapedArray(aval.shape, dtypes.canonicalize_dtype(dtype), aval.weak_type)
    if weak_type is not None:
      aval = aval.update(weak_type=weak_type)
  aval = canonical(aval)
  host = host_array(value, aval.dtype)
  if device is None and not committed and host_values.usable(host) and host_values.enabled():
    if host is value or host.base is not None:  # the caller's memory: not ours to freeze
      host = host.copy()
    host.flags.writeable = False
    return from_host(host, aval)
  device = clients.default_device() if device is None else device
  return Array._from_buffer(buffers.put(host, device), aval, committed)


values.pytype_aval_mappings[Array] = lambda x: x.aval


_SCALAR_ARRAYS: dict = {}
clients.register_backend_cache(_SCALAR_ARRAYS)
# Few: a loop over many distinct scalars must not keep a device buffer for each (small
# long-lived allocations between large freed ones keep the allocator from returning memory).
SCALAR_CACHE_SIZE = 256


def scalar_array(value, dtype, weak_type: bool) -> Array:
  """A cached 0-d Array for a host scalar (how Python scalars enter computations)."""
  if type(value) is float and value == value and value != 0.0:
    key = (float, value, dtype, weak_type)  # fast; NaN and -0.0 need their bits told apart
  elif isinstance(value, (float, complex)):
    key = (type(value), struct.pack("<dd", value.real, value.imag), dtype, weak_type)
  else:
    key = (type(value), repr(value), dtype, weak_type)
  arr = _SCALAR_ARRAYS.get(key)
  if arr is None or arr.is_deleted():
    host = np.asarray(value).astype(dtype)
    aval = ShapedArray((), dtype, weak_type)
    if host_values.usable(host) and host_values.enabled():
      host.flags.writeable = False
      arr = from_host(host, aval)
    else:
      arr = Array._from_buffer(buffers.put(host, clients.default_device()), aval)
    bounded_put(_SCALAR_ARRAYS, key, arr, SCALAR_CACHE_SIZE)
  return arr
