"""Reading and writing FlatBuffers tables by field slot (what ``serialization`` needs of
the format): a ``Table`` reads the fields of one table of a buffer; ``Writer`` builds
tables, vectors and strings through the ``flatbuffers`` package's ``Builder``."""
from __future__ import annotations

import struct
from typing import Callable, Sequence

import flatbuffers
import numpy as np


class Table:
  """One table of a FlatBuffers buffer: its fields by slot (0, 1, ... in schema order)."""
  __slots__ = ("buf", "pos", "_vtable", "_vsize")

  def __init__(self, buf: bytes, pos: int) -> None:
    self.buf, self.pos = buf, pos
    self._vtable = pos - struct.unpack_from("<i", buf, pos)[0]
    self._vsize = struct.unpack_from("<H", buf, self._vtable)[0]

  @classmethod
  def root(cls, buf: bytes) -> "Table":
    return cls(buf, struct.unpack_from("<I", buf, 0)[0])

  def _field(self, slot: int) -> int:
    """The position of the field in ``slot``, or 0 where the buffer does not hold it."""
    entry = 4 + 2 * slot
    if entry >= self._vsize:
      return 0
    off = struct.unpack_from("<H", self.buf, self._vtable + entry)[0]
    return self.pos + off if off else 0

  def _target(self, slot: int) -> int:
    at = self._field(slot)
    return at + struct.unpack_from("<I", self.buf, at)[0] if at else 0

  def scalar(self, slot: int, fmt: str, default=0):
    """A scalar field; ``fmt`` is its ``struct`` format ("b", "H", "I", "?", ...)."""
    at = self._field(slot)
    return struct.unpack_from("<" + fmt, self.buf, at)[0] if at else default

  def table(self, slot: int) -> "Table | None":
    at = self._target(slot)
    return Table(self.buf, at) if at else None

  def string(self, slot: int) -> str | None:
    at = self._target(slot)
    return _string(self.buf, at) if at else None

  def _vector(self, slot: int) -> tuple[int, int]:
    at = self._target(slot)
    return (at + 4, struct.unpack_from("<I", self.buf, at)[0]) if at else (0, 0)

  def numbers(self, slot: int, dtype) -> np.ndarray:
    """A vector of scalars as a NumPy array (bytes: ``dtype`` uint8)."""
    start, n = self._vector(slot)
    return np.frombuffer(self.buf, np.dtype(dtype).newbyteorder("<"), n, start)

  def _offsets(self, slot: int) -> list[int]:
    start, n = self._vector(slot)
    return [start + 4 * i + struct.unpack_from("<I", self.buf, start + 4 * i)[0]
            for i in range(n)]

  def tables(self, slot: int) -> list["Table"]:
    return [Table(self.buf, at) for at in self._offsets(slot)]

  def strings(self, slot: int) -> list[str]:
    return [_string(self.buf, at) for at in self._offsets(slot)]


def _string(buf: bytes, at: int) -> str:
  n = struct.unpack_from("<I", buf, at)[0]
  if at + 4 + n > len(buf):
    raise struct.error("string out of the buffer")
  return buf[at + 4:at + 4 + n].decode("utf-8")


# Builder's prepend methods for the scalar formats ``Writer.table`` takes.
_PREPEND_SLOT = {"b": "PrependInt8Slot", "B": "PrependUint8Slot", "h": "PrependInt16Slot",
                 "H": "PrependUint16Slot", "I": "PrependUint32Slot", "?": "PrependBoolSlot"}


class Writer:
  """Builds a FlatBuffers buffer bottom-up: make the strings, vectors and child tables a
  table refers to, then the table from its fields."""

  def __init__(self) -> None:
    self.builder = flatbuffers.Builder(1024)

  def string(self, s: str) -> int:
    return self.builder.CreateString(s)

  def byte_vector(self, data: bytes) -> int:
    return self.builder.CreateByteVector(bytes(data))

  def numbers(self, values: Sequence[int], dtype) -> int:
    return self.builder.CreateNumpyVector(np.asarray(values, dtype=dtype))

  def offsets(self, offsets: Sequence[int]) -> int:
    """A vector of tables or strings already written."""
    self.builder.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
      self.builder.PrependUOffsetTRelative(off)
    return self.builder.EndVector()

  def each(self, write_one: Callable, items) -> int:
    return self.offsets([write_one(x) for x in items])

  def table(self, n_slots: int, scalars: dict | None = None, refs: dict | None = None) -> int:
    """A table of ``n_slots`` fields: ``scalars`` maps slot -> (struct format, value),
    ``refs`` slot -> offset of a string, vector or table (None: left out)."""
    b = self.builder
    b.StartObject(n_slots)
    for slot, off in (refs or {}).items():
      if off is not None:
        b.PrependUOffsetTRelativeSlot(slot, off, 0)
    for slot, (fmt, value) in (scalars or {}).items():
      getattr(b, _PREPEND_SLOT[fmt])(slot, value, None)  # written even when 0 (readers agree)
    return b.EndObject()

  def finish(self, root: int) -> bytearray:
    self.builder.Finish(root)
    return self.builder.Output()
