"""What every sparse format shares: `JAXSparse` (the base class), `SparseInfo` (the static
description primitives carry) and the efficiency warnings and errors."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from xjax._src.foundations.tree_util import tree_leaves


class SparseInfo(NamedTuple):
  """The static part of a sparse array: its shape and whether its indices are sorted/unique."""
  shape: tuple
  indices_sorted: bool = False
  unique_indices: bool = False


class SparseEfficiencyError(ValueError):
  pass


class SparseEfficiencyWarning(UserWarning):
  pass


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
  pass


class JAXSparse:
  """Base class of the sparse formats: a pytree of arrays describing an array of `shape`."""

  data: object
  shape: tuple
  nse: int

  def __init__(self, args, *, shape):
    self.shape = tuple(int(d) for d in shape)

  # a format's buffers (its pytree children, in order) and where each of its pytree aux
  # entries is kept on the object
  _buffer_names: tuple = ("data",)
  _aux_attributes: dict = {"shape": "shape"}

  @classmethod
  def tree_unflatten(cls, aux, children):
    obj = object.__new__(cls)
    for name, child in zip(cls._buffer_names, children):
      setattr(obj, name, child)
    for key, value in aux.items():
      setattr(obj, cls._aux_attributes[key], value)
    return obj

  size = property(lambda self: math.prod(self.shape))
  ndim = property(lambda self: len(self.shape))
  dtype = property(lambda self: self.data.dtype)

  def __len__(self):
    return self.shape[0]

  def __repr__(self):
    name = type(self).__name__
    try:
      nse, dtype = self.nse, np.dtype(self.dtype).name
    except Exception:  # a format holding tracers or unusual leaves
      return f"{name}({self.shape})"
    extra = ""
    n_batch, n_dense = getattr(self, "n_batch", 0), getattr(self, "n_dense", 0)
    if n_batch:
      extra += f", n_batch={n_batch}"
    if n_dense:
      extra += f", n_dense={n_dense}"
    return f"{name}({dtype}[{', '.join(map(str, self.shape))}], nse={nse}{extra})"

  def tree_flatten(self):
    raise NotImplementedError(f"{type(self).__name__}.tree_flatten")

  def block_until_ready(self):
    for leaf in tree_leaves(self):
      leaf.block_until_ready()
    return self

  @property
  def T(self):
    return self.transpose()

  def _unsupported(name):
    def method(self, *args, **kwargs):
      raise NotImplementedError(f"{self.__class__}.{name}")
    method.__name__ = name
    return method

  # operations a format may define; the others raise, naming the format
  sum = _unsupported("sum")
  __neg__, __pos__ = _unsupported("__neg__"), _unsupported("__pos__")
  __matmul__, __rmatmul__ = _unsupported("__matmul__"), _unsupported("__rmatmul__")
  __mul__, __rmul__ = _unsupported("__mul__"), _unsupported("__rmul__")
  __add__, __radd__ = _unsupported("__add__"), _unsupported("__radd__")
  __sub__, __rsub__ = _unsupported("__sub__"), _unsupported("__rsub__")
  __getitem__ = _unsupported("__getitem__")
  del _unsupported

