"""How a Pallas kernel sees its operands: ``BlockSpec`` (the block shape and the map from
grid indices to a block), ``GridSpec``, block dimensions (``Blocked``, ``Squeezed``), memory
spaces as names, compiler parameters and cost estimates as records."""
from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any, Callable

from xjax._src.core.avals import ShapedArray
from xjax._src.foundations import dtypes


def cdiv(a, b):
  """``ceil(a / b)`` for integers (Python ints or integer arrays)."""
  if isinstance(a, int) and isinstance(b, int):
    return -(-a // b)
  return (a + b - 1) // b


def next_power_of_2(x: int) -> int:
  """The least power of two at least ``x`` (``x >= 0``)."""
  if x < 0:
    raise ValueError("`next_power_of_2` requires a non-negative integer.")
  return 1 if x == 0 else 1 << (x - 1).bit_length()


def strides_from_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
  """Row-major element strides of ``shape``."""
  return tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))


@dataclasses.dataclass(frozen=True)
class Blocked:
  """A block dimension of ``block_size`` elements; the index map gives the block number."""
  block_size: int


@dataclasses.dataclass(frozen=True)
class Squeezed:
  """A block dimension of one element, dropped from the kernel's ref; the index map gives
  the element."""


squeezed = Squeezed()


class MemorySpace(enum.Enum):
  """Where a ref lives.  Interpret mode keeps every ref in host memory, so these are names
  that kernels and ``BlockSpec``\\ s carry."""
  ANY = "any"
  HOST = "host"

  def __call__(self, shape, dtype) -> "MemoryRef":
    return MemoryRef(tuple(shape), dtypes.canonicalize_dtype(dtype), self)

  def __str__(self) -> str:
    return self.value


ANY = MemorySpace.ANY
HOST = MemorySpace.HOST


@dataclasses.dataclass(frozen=True)
class MemoryRef:
  """A scratch buffer of ``shape`` and ``dtype`` in ``memory_space`` (``scratch_shapes``)."""
  shape: tuple[int, ...]
  dtype: Any
  memory_space: Any = None

  def get_array_aval(self) -> ShapedArray:
    return ShapedArray(self.shape, self.dtype)


class _NoBlockSpec:
  def __repr__(self) -> str:
    return "NoBlockSpec"


no_block_spec = _NoBlockSpec()


@dataclasses.dataclass(frozen=True)
class BlockSpec:
  """A block of ``block_shape`` (ints, ``None`` or ``pl.squeezed`` for a dropped dimension,
  ``pl.Blocked(n)``) at the block indices ``index_map(*grid_indices)`` returns; no block
  shape means the whole array, no index map the first block."""
  block_shape: Any = None
  index_map: Callable | None = None
  memory_space: Any = None
  pipeline_mode: Any = None

  def __post_init__(self):
    if self.pipeline_mode is not None:
      raise NotImplementedError("BlockSpec pipeline_mode (pl.Buffered) configures TPU/GPU "
                                "pipelining, which xjax's interpret mode does not model.")


@dataclasses.dataclass(frozen=True)
class GridSpec:
  """A kernel's grid and the block specs of its inputs and outputs, with scratch buffers
  given to it after them."""
  grid: Any = ()
  in_specs: Any = no_block_spec
  out_specs: Any = no_block_spec
  scratch_shapes: Any = ()


@dataclasses.dataclass(frozen=True)
class CompilerParams:
  """The base of the backend-specific compiler parameters (``pltpu.CompilerParams``,
  ``plt.CompilerParams``): they tune code generation, which interpret mode does not do."""
  BACKEND = None


@dataclasses.dataclass(frozen=True)
class CostEstimate:
  """What a kernel costs, for XLA's scheduling."""
  flops: int
  transcendentals: int
  bytes_accessed: int
  remote_bytes_transferred: int = 0


def block_dims(spec: BlockSpec, shape: tuple[int, ...], what: str) -> tuple:
  """The ``Blocked``/``Squeezed`` dimensions of ``spec`` over an array of ``shape``."""
  if spec.block_shape is None:
    return tuple(Blocked(n) for n in shape)
  block_shape = tuple(spec.block_shape)
  if len(block_shape) != len(shape):
    raise ValueError(f"Block shape for {what} (= {block_shape}) must have the same number of "
                     f"dimensions as the array shape {shape}.")
  dims = []
  for d in block_shape:
    if d is None or isinstance(d, Squeezed):
      dims.append(squeezed)
    elif isinstance(d, Blocked):
      dims.append(d)
    elif isinstance(d, int):
      dims.append(Blocked(d))
    else:
      raise NotImplementedError(f"block dimension {d!r} for {what}: xjax's interpret mode "
                                "takes ints, None, pl.squeezed and pl.Blocked.")
  return tuple(dims)
