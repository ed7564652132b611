"""Host-side I/O and printing: arrays from buffers, strings and files; NumPy's save,
savez, array_repr, array_str and a few NumPy type names."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.libraries.numpy.creation import asarray

save = np.save
savez = np.savez
array_repr = np.array_repr
array_str = np.array_str
ComplexWarning = np.exceptions.ComplexWarning
character, flexible, object_ = np.character, np.flexible, np.object_


def _to_device(host):
  return asarray(host, dtype=dtypes.canonicalize_dtype(host.dtype))


def frombuffer(buffer, dtype=float, count=-1, offset=0):
  """An array holding a copy of ``buffer``'s bytes, read as ``dtype``."""
  return _to_device(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
  """An array from the numbers in text ``string`` separated by ``sep``."""
  return _to_device(np.fromstring(string, dtype=dtype, count=count, sep=sep))


def load(file, *args, **kwargs):
  """``np.load``, with a stored array (not an archive) returned as an xjax array when its
  dtype allows; bfloat16 data, which NumPy stores as 2-byte void, is restored."""
  out = np.load(file, *args, **kwargs)
  if not isinstance(out, np.ndarray):
    return out
  if out.dtype == "V2":
    out = out.view(dtypes.bfloat16)
  try:
    return _to_device(out)
  except TypeError:  # a dtype xjax cannot hold (strings, objects, ...)
    return out


def _impure(name):
  def fn(*args, **kwargs):
    raise NotImplementedError(
        f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for "
        f"use with JIT and other JAX transformations. Consider using "
        f"jnp.asarray(np.{name}(...)) instead.")
  fn.__name__ = fn.__qualname__ = name
  return fn


fromiter = _impure("fromiter")
fromfile = _impure("fromfile")


# Arrays print through NumPy, so NumPy's print options apply; these are functions of
# jax.numpy's own that call NumPy's, as JAX's are.

def printoptions(*args, **kwargs):
  """NumPy's ``printoptions`` context manager (arrays print through NumPy)."""
  return np.printoptions(*args, **kwargs)


def get_printoptions():
  """NumPy's current print options (arrays print through NumPy)."""
  return np.get_printoptions()


def set_printoptions(*args, **kwargs):
  """Sets NumPy's print options (arrays print through NumPy)."""
  return np.set_printoptions(*args, **kwargs)
