"""A document pretty-printer (Lindig's "strictly pretty"), the layout jaxprs print with.

A document is text, breaks, concatenations, nesting and groups.  A group prints flat (its
breaks as their text) when all of it fits in what is left of the line, else its own breaks
become newlines indented to the enclosing nesting, its inner groups deciding for
themselves.  Each document knows its flat width, so the decision is a comparison.
"""
from __future__ import annotations

from typing import Sequence

_TEXT, _CONCAT, _BREAK, _NEST, _GROUP = range(5)


class Doc:
  __slots__ = ("kind", "text", "children", "indent", "width")

  def __init__(self, kind: int, text: str = "", children: tuple = (), indent: int = 0,
               width: int = 0) -> None:
    self.kind = kind
    self.text = text
    self.children = children
    self.indent = indent
    self.width = width

  def __add__(self, other: "Doc") -> "Doc":
    return concat([self, other])

  def format(self, width: int = 80) -> str:
    return layout(self, width)

  __str__ = format


_NIL = Doc(_CONCAT)


def nil() -> Doc:
  return _NIL


def text(s: str) -> Doc:
  return Doc(_TEXT, text=s, width=len(s))


def brk(s: str = " ") -> Doc:
  """A newline where its group breaks, else ``s``."""
  return Doc(_BREAK, text=s, width=len(s))


def concat(docs: Sequence[Doc]) -> Doc:
  docs = tuple(docs)
  if len(docs) == 1:
    return docs[0]
  return Doc(_CONCAT, children=docs, width=sum(d.width for d in docs))


def nest(n: int, doc: Doc) -> Doc:
  """``doc`` with the lines its breaks start indented ``n`` more."""
  return Doc(_NEST, children=(doc,), indent=n, width=doc.width)


def group(doc: Doc) -> Doc:
  return Doc(_GROUP, children=(doc,), width=doc.width)


def join(sep: Doc, docs: Sequence[Doc]) -> Doc:
  parts: list = []
  for d in docs:
    if parts:
      parts.append(sep)
    parts.append(d)
  return concat(parts)


def layout(doc: Doc, width: int = 80) -> str:
  """``doc`` laid out in lines of ``width`` columns where its groups allow."""
  out: list[str] = []
  column = 0
  todo = [(0, False, doc)]   # (indentation, flat?, document), the next one last
  while todo:
    indent, flat, d = todo.pop()
    kind = d.kind
    if kind == _TEXT:
      out.append(d.text)
      column += d.width
    elif kind == _CONCAT:
      todo.extend((indent, flat, c) for c in reversed(d.children))
    elif kind == _BREAK:
      if flat:
        out.append(d.text)
        column += d.width
      else:
        out.append("\n" + " " * indent)
        column = indent
    elif kind == _NEST:
      todo.append((indent + d.indent, flat, d.children[0]))
    else:  # a group: flat inside a flat one, else flat when all of it fits
      todo.append((indent, flat or d.width <= width - column, d.children[0]))
  return "".join(out)
