"""jaxlib's ``PyTreeDefProto`` wire format (``PyTreeDef.serialize_using_proto``).

A treedef is its nodes in post-order, each ``(kind, arity, key indices)``: ``kind`` is one
of ``LEAF``, ``LIST``, ``NONE``, ``TUPLE``, ``DICT``; a dict's keys are indices into a table
of the strings, interned in order of first use.  The message:

  PyTreeDefProto    { repeated PyTreeNodeDefProto nodes = 1; repeated string strings = 2; }
  PyTreeNodeDefProto { int32 arity = 1; int32 kind = 2; DictKeysProto dict_keys = 3; }
  DictKeysProto     { repeated int32 str_keys = 1; }   (packed)
"""
from __future__ import annotations

LEAF, LIST, NONE, TUPLE, DICT = 1, 2, 3, 4, 5

DECODE_ERROR = "Could not deserialize PyTreeDefProto."


def _varint(n: int) -> bytes:
  out = bytearray()
  while True:
    byte, n = n & 0x7F, n >> 7
    out.append(byte | (0x80 if n else 0))
    if not n:
      return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
  return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def encode(nodes, strings) -> bytes:
  """The message for ``nodes`` (``(kind, arity, key indices)``, post-order) and the
  interned ``strings``."""
  out = bytearray()
  for kind, arity, keys in nodes:
    node = (_varint(1 << 3) + _varint(arity) if arity else b"") + _varint(2 << 3) + _varint(kind)
    if keys:
      node += _field(3, _field(1, b"".join(map(_varint, keys))))
    out += _field(1, node)
  for s in strings:
    out += _field(2, s.encode("utf-8"))
  return bytes(out)


class _Reader:
  """Reads varints and byte strings from ``data`` in turn (ValueError past its end)."""

  def __init__(self, data: bytes) -> None:
    self.data, self.i = data, 0

  def more(self) -> bool:
    return self.i < len(self.data)

  def varint(self) -> int:
    n = shift = 0
    while True:
      if not self.more() or shift > 63:
        raise ValueError(DECODE_ERROR)
      byte = self.data[self.i]
      self.i += 1
      n |= (byte & 0x7F) << shift
      shift += 7
      if not byte & 0x80:
        return n

  def chunk(self) -> bytes:
    size = self.varint()
    if self.i + size > len(self.data):
      raise ValueError(DECODE_ERROR)
    self.i += size
    return self.data[self.i - size:self.i]


def _fields(data: bytes):
  """(field number, value) pairs of a message: an int for varints, bytes for the rest."""
  r = _Reader(data)
  while r.more():
    tag = r.varint()
    if tag & 7 == 0:
      yield tag >> 3, r.varint()
    elif tag & 7 == 2:
      yield tag >> 3, r.chunk()
    else:
      raise ValueError(DECODE_ERROR)


def _ints(value) -> list:
  """A repeated integer field's entries (packed, or one unpacked entry)."""
  if isinstance(value, int):
    return [value]
  r, out = _Reader(value), []
  while r.more():
    out.append(r.varint())
  return out


def decode(data: bytes):
  """``(nodes, strings)`` of a serialized ``PyTreeDefProto`` (ValueError if malformed)."""
  nodes, strings = [], []
  for number, value in _fields(bytes(data)):
    if number == 1 and isinstance(value, bytes):
      kind, arity, keys = 0, 0, []
      for n, v in _fields(value):
        if n == 1 and isinstance(v, int):
          arity = v
        elif n == 2 and isinstance(v, int):
          kind = v
        elif n == 3 and isinstance(v, bytes):
          keys += [k for m, ks in _fields(v) if m == 1 for k in _ints(ks)]
      nodes.append((kind, arity, keys))
    elif number == 2 and isinstance(value, bytes):
      try:
        strings.append(value.decode("utf-8"))
      except UnicodeDecodeError:
        raise ValueError(DECODE_ERROR) from None
  return nodes, strings
