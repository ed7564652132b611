"""`jax._src.typing`: `jax.typing`'s annotations and the structural protocols libraries
annotate with (jaxctx's `SupportsDType`)."""
from typing import Any, Protocol, Sequence, Union, runtime_checkable

import numpy as np

from xjax.typing import ArrayLike, DTypeLike  # noqa: F401
from xjax._src.execution.basearray import Array  # noqa: F401
from xjax._src.compat.jax_private_compat import missing

DType = np.dtype
Shape = Sequence[int]
DimSize = int
StaticScalar = Union[np.bool_, np.number, bool, int, float, complex]


@runtime_checkable
class SupportsDType(Protocol):
  """Anything with a `dtype`."""

  @property
  def dtype(self) -> DType: ...


@runtime_checkable
class SupportsShape(Protocol):
  """Anything with a `shape`."""

  @property
  def shape(self) -> tuple[int, ...]: ...


@runtime_checkable
class SupportsNdim(Protocol):
  """Anything with an `ndim`."""

  @property
  def ndim(self) -> int: ...


@runtime_checkable
class SupportsSize(Protocol):
  """Anything with a `size`."""

  @property
  def size(self) -> int: ...


@runtime_checkable
class DuckTypedArray(Protocol):
  """Anything with a `shape` and a `dtype` (what `jax.ShapeDtypeStruct` also is)."""

  @property
  def dtype(self) -> DType: ...

  @property
  def shape(self) -> tuple[int, ...]: ...


def __getattr__(name: str) -> Any:
  raise missing("jax._src.typing", name)
