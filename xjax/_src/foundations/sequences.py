"""Checked mapping, zipping and splitting of lists: the helpers JAX's documentation and
jaxpr interpreters written against it use (``jax.api_util.safe_map``, ``jax._src.util``)."""
from __future__ import annotations

import functools
from typing import Any, Callable, Iterable, Sequence


def safe_map(f: Callable, *args) -> list:
  """``list(map(f, *args))`` for sequences that must all have the same length."""
  if not args:
    raise TypeError("safe_map requires at least 2 arguments")
  args = [list(a) for a in args]
  n = len(args[0])
  for i, a in enumerate(args[1:], 2):
    if len(a) != n:
      raise ValueError(f"safe_map() argument {i} is {'shorter' if len(a) < n else 'longer'} "
                       f"than argument 1")
  return list(map(f, *args))


def safe_zip(*args) -> list:
  """``list(zip(*args))`` for sequences that must all have the same length."""
  if not args:
    raise TypeError("safe_zip requires at least 1 argument")
  args = [list(a) for a in args]
  lengths = tuple(len(a) for a in args)
  for i, n in enumerate(lengths):
    if n != lengths[0]:
      raise ValueError(f"safe_zip() argument {i} has length {n} but argument 0 has length "
                       f"{lengths[0]}. All lengths: {lengths}")
  return list(zip(*args))


def unzip2(pairs: Iterable) -> tuple[tuple, tuple]:
  """The first and second elements of each pair, as two tuples."""
  firsts, seconds = [], []
  for a, b in pairs:
    firsts.append(a)
    seconds.append(b)
  return tuple(firsts), tuple(seconds)


def unzip3(triples: Iterable) -> tuple[tuple, tuple, tuple]:
  """The elements of each triple, as three tuples."""
  xs, ys, zs = [], [], []
  for x, y, z in triples:
    xs.append(x)
    ys.append(y)
    zs.append(z)
  return tuple(xs), tuple(ys), tuple(zs)


def split_list(args: Sequence, ns: Sequence[int]) -> list[list]:
  """``args`` cut into pieces of lengths ``ns``, the rest as a last piece."""
  args = list(args)
  pieces = []
  for n in ns:
    pieces.append(args[:n])
    args = args[n:]
  pieces.append(args)
  return pieces


def split_list_checked(args: Sequence, ns: Sequence[int]) -> list[list]:
  """``args`` cut into pieces of lengths ``ns``, which must use it up exactly."""
  args = list(args)
  assert sum(ns) == len(args), (ns, len(args))
  return split_list(args, ns)[:-1]


def partition_list(bs: Sequence[bool], lst: Sequence) -> tuple[list, list]:
  """The elements of ``lst`` whose flag in ``bs`` is false, and those whose flag is true."""
  assert len(bs) == len(lst), (len(bs), len(lst))
  falses, trues = [], []
  for b, x in zip(bs, lst):
    (trues if b else falses).append(x)
  return falses, trues


def merge_lists(bs: Sequence[bool], l0: Sequence, l1: Sequence) -> list:
  """The inverse of ``partition_list``: from ``l0`` where ``bs`` is false, ``l1`` where true."""
  it0, it1 = iter(l0), iter(l1)
  out = [next(it1) if b else next(it0) for b in bs]
  sentinel = object()
  assert next(it0, sentinel) is sentinel and next(it1, sentinel) is sentinel
  return out


def subvals(lst: Sequence, replace: Iterable[tuple[int, Any]]) -> tuple:
  """``lst`` as a tuple with the ``(index, value)`` pairs of ``replace`` put in."""
  out = list(lst)
  for i, v in replace:
    out[i] = v
  return tuple(out)


def concatenate(xs: Iterable[Sequence]) -> list:
  """The sequences of ``xs`` joined into one list."""
  return [x for seq in xs for x in seq]


flatten = concatenate


def unflatten(xs: Iterable, ns: Sequence[int]) -> list[list]:
  """``xs`` cut into lists of lengths ``ns``, which must use it up exactly."""
  xs = list(xs)
  assert sum(ns) == len(xs), (ns, len(xs))
  return split_list(xs, ns)[:-1]


def tuple_insert(t: tuple, idx: int, val) -> tuple:
  assert 0 <= idx <= len(t), (idx, len(t))
  return t[:idx] + (val,) + t[idx:]


def tuple_delete(t: tuple, idx: int) -> tuple:
  assert 0 <= idx < len(t), (idx, len(t))
  return t[:idx] + t[idx + 1:]


def tuple_update(t: tuple, idx: int, val) -> tuple:
  assert 0 <= idx < len(t), (idx, len(t))
  return t[:idx] + (val,) + t[idx + 1:]


def curry(f: Callable) -> Callable:
  """``curry(f)(x)(y, ...)`` is ``f(x, y, ...)``."""
  return functools.partial(functools.partial, f)


def wrap_name(transform_name: str, name: str) -> str:
  """The name of ``name`` under a transformation, as ``jvp(f)``."""
  return f"{transform_name}({name})"


def stable_unique(it: Iterable) -> list:
  """The distinct elements of ``it`` in order of first appearance."""
  return list(dict.fromkeys(it))


def ceil_of_ratio(x: int, y: int) -> int:
  return -(-x // y)
