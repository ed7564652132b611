"""einsum: subscript parsing, greedy pairwise contraction order, dot_general per pair."""
from __future__ import annotations

import operator
import string

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax.dot import dot_general
from xjax._src.primitives.lax.elementwise import convert_element_type, eq, select_n
from xjax._src.primitives.lax.reductions import reduce_or, reduce_sum
from xjax._src.primitives.lax.shapes import broadcast_in_dim, broadcasted_iota, full_like, transpose
from xjax._src.libraries.numpy.creation import asarray
from xjax._src.libraries.numpy.linalg_basic import contraction_types


def _parse(subscripts, shapes):
  subscripts = subscripts.replace(" ", "")
  if "->" in subscripts:
    ins, out = subscripts.split("->")
    explicit = True
  else:
    ins, out, explicit = subscripts, None, False
  ins = ins.split(",")
  if len(ins) != len(shapes):
    raise ValueError(f"einsum: {len(ins)} operand subscripts but {len(shapes)} operands")
  used = set(subscripts) - set(",.->")
  spare = [c for c in string.ascii_letters if c not in used]
  ell_nd = max([len(s) - (len(t) - 3) for t, s in zip(ins, shapes) if "..." in t],
               default=0)
  ell = "".join(spare[:ell_nd])
  terms = []
  for t, s in zip(ins, shapes):
    if "..." in t:
      k = len(s) - (len(t) - 3)
      t = t.replace("...", ell[ell_nd - k:] if k else "")
    if len(t) != len(s):
      raise ValueError(f"einsum: subscript '{t}' does not match operand shape {s}")
    terms.append(t)
  if explicit:
    out = out.replace("...", ell)
    for c in out:
      if not any(c in t for t in terms):
        raise ValueError(f"Output character {c!r} did not appear in the input")
      if out.count(c) > 1:
        raise ValueError(f"Output character {c!r} appeared more than once in the output")
  else:
    counts = {}
    for t in terms:
      for c in t:
        counts[c] = counts.get(c, 0) + 1
    out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
  return terms, out


def _diagonalize(x, term):
  """Collapses repeated labels within one operand to their diagonal."""
  while len(set(term)) != len(term):
    c = next(ch for ch in term if term.count(ch) > 1)
    i = term.index(c)
    j = term.index(c, i + 1)
    shape = get_aval(x).shape
    mask = eq(broadcasted_iota(np.int32, shape, i),
                  broadcasted_iota(np.int32, shape, j))
    x = reduce_sum(select_n(mask, full_like(x, 0), x), (j,)) if \
        get_aval(x).dtype != np.bool_ else reduce_or(
            select_n(mask, full_like(x, False), x), (j,))
    term = term[:j] + term[j + 1:]
  return x, term


def _sum_out(x, term, keep, pet):
  """Sums ``x`` over its labels not in ``keep``, in its dtype promoted with ``pet`` (the
  contraction's), as JAX: booleans summed as integers or floats when the result is one."""
  axes = tuple(i for i, c in enumerate(term) if c not in keep)
  if not axes:
    return x, term
  dtype = dtypes.promote_types(get_aval(x).dtype, pet)
  if dtype != get_aval(x).dtype:
    x = convert_element_type(x, dtype)
  summed = reduce_or(x, axes) if dtype == np.bool_ else reduce_sum(x, axes)
  return summed, "".join(c for c in term if c in keep)


def _contract(x, tx, y, ty, keep, precision, pet):
  common = [c for c in tx if c in ty]
  batch = [c for c in common if c in keep]
  contract = [c for c in common if c not in keep]
  dims = (((tuple(tx.index(c) for c in contract), tuple(ty.index(c) for c in contract)),
           (tuple(tx.index(c) for c in batch), tuple(ty.index(c) for c in batch))))
  out = dot_general(x, y, dims, precision=precision, preferred_element_type=pet)
  term = "".join(batch) + "".join(c for c in tx if c not in common) + \
      "".join(c for c in ty if c not in common)
  return out, term


def _from_sublists(args):
  """Converts the interleaved ``(op, sublist, op, sublist, ..., [out])`` form."""
  def term(sub):
    try:
      return "".join("..." if i is Ellipsis else string.ascii_letters[operator.index(i)]
                     for i in sub)
    except (TypeError, IndexError):
      raise TypeError(f"einsum: invalid subscript list {sub!r}") from None

  out = term(args[-1]) if len(args) % 2 else None
  args = args[:len(args) - len(args) % 2]
  ops, subs = args[0::2], [term(t) for t in args[1::2]]
  spec = ",".join(subs) + ("" if out is None else "->" + out)
  return spec, ops


def einsum(subscripts, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None):
  """Einstein summation over ``operands`` as described by ``subscripts``."""
  if out is not None:
    raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
  if not isinstance(subscripts, str):
    subscripts, operands = _from_sublists((subscripts,) + operands)
  ops = [asarray(o) for o in operands]
  pet, out_dtype, out_weak = contraction_types(preferred_element_type, *ops)
  terms, out_term = _parse(subscripts, [get_aval(o).shape for o in ops])
  sizes = {}
  for t, o in zip(terms, ops):
    for c, d in zip(t, get_aval(o).shape):
      if sizes.setdefault(c, d) != d and d != 1 and sizes[c] != 1:
        raise ValueError(f"einsum: size of label '{c}' differs: {sizes[c]} vs {d}")
      sizes[c] = max(sizes[c], d)
  items = []
  for o, t in zip(ops, terms):
    o, t = _diagonalize(o, t)
    shape = get_aval(o).shape
    if any(d == 1 and sizes[c] != 1 for c, d in zip(t, shape)):
      o = broadcast_in_dim(o, tuple(sizes[c] for c in t), tuple(range(len(t))))
    items.append((o, t))

  def needed(exclude):
    labels = set(out_term)
    for k, (_, t) in enumerate(items):
      if k not in exclude:
        labels |= set(t)
    return labels

  items = [_sum_out(o, t, needed({k}), pet) for k, (o, t) in enumerate(items)]
  while len(items) > 1:
    best = None
    for i in range(len(items)):
      for j in range(i + 1, len(items)):
        keep = needed({i, j})
        ti, tj = items[i][1], items[j][1]
        size = int(np.prod([sizes[c] for c in set(ti) | set(tj) if c in keep],
                           dtype=np.int64))
        if best is None or size < best[0]:
          best = (size, i, j)
    _, i, j = best
    keep = needed({i, j})
    (x, tx), (y, ty) = items[i], items[j]
    x, tx = _sum_out(x, tx, keep | set(ty), pet)
    y, ty = _sum_out(y, ty, keep | set(tx), pet)
    new = _contract(x, tx, y, ty, keep, precision, pet)
    items = [it for k, it in enumerate(items) if k not in (i, j)] + [new]
  x, t = _sum_out(*items[0], set(out_term), pet)
  x = convert_element_type(x, out_dtype, out_weak)
  return transpose(x, tuple(t.index(c) for c in out_term)) if t != out_term else x


def einsum_path(subscripts, /, *operands, optimize="auto"):
  """The pairwise contraction order for an einsum, with a printable report (NumPy's
  planner on the operands' shapes)."""
  if optimize in ("auto", True):
    optimize = "optimal" if len(operands) <= 4 else "greedy"
  stand_ins = [np.broadcast_to(np.zeros((), get_aval(asarray(o)).dtype), np.shape(o))
               for o in operands]
  path, report = np.einsum_path(subscripts, *stand_ins, optimize=optimize)
  return [tuple(step) for step in path[1:]], report
