"""Products: dot, matmul (with batch broadcasting), vdot, inner, outer."""
from __future__ import annotations

from xjax._src.core.values import get_aval
from xjax._src.lax import lax
from xjax._src.numpy.util import promote_dtypes, check_arraylike


def matmul(a, b, /, *, precision=None, preferred_element_type=None):
  check_arraylike("matmul", a, b)
  a, b = promote_dtypes(a, b)
  sa, sb = get_aval(a).shape, get_aval(b).shape
  if not sa or not sb:
    raise ValueError("matmul: Input operand does not have enough dimensions: scalars are "
                     "not allowed, use * instead.")
  a_vec, b_vec = len(sa) == 1, len(sb) == 1
  if a_vec:
    a = lax.reshape(a, (1,) + sa)
    sa = (1,) + sa
  if b_vec:
    b = lax.reshape(b, sb + (1,))
    sb = sb + (1,)
  if sa[-1] != sb[-2]:
    raise TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                    f"got {(sa[-1],)} and {(sb[-2],)}.")
  batch_a, batch_b = sa[:-2], sb[:-2]
  nb = max(len(batch_a), len(batch_b))
  batch_a = (1,) * (nb - len(batch_a)) + batch_a
  batch_b = (1,) * (nb - len(batch_b)) + batch_b
  batch = []
  for x, y in zip(batch_a, batch_b):
    if x != y and x != 1 and y != 1:
      raise ValueError(f"matmul: incompatible batch dimensions {sa[:-2]} and {sb[:-2]}")
    batch.append(max(x, y))
  batch = tuple(batch)
  a = lax.broadcast_in_dim(lax.reshape(a, batch_a + sa[-2:]), batch + sa[-2:],
                           tuple(range(nb + 2))) if batch_a != batch else lax.reshape(
      a, batch + sa[-2:])
  b = lax.broadcast_in_dim(lax.reshape(b, batch_b + sb[-2:]), batch + sb[-2:],
                           tuple(range(nb + 2))) if batch_b != batch else lax.reshape(
      b, batch + sb[-2:])
  bd = tuple(range(nb))
  out = lax.dot_general(a, b, (((nb + 1,), (nb,)), (bd, bd)), precision=precision,
                        preferred_element_type=preferred_element_type)
  shape = batch + (() if a_vec else (sa[-2],)) + (() if b_vec else (sb[-1],))
  return lax.reshape(out, shape)


def dot(a, b, *, precision=None, preferred_element_type=None):
  """NumPy's dot: sum over the last axis of a and the second-to-last of b."""
  check_arraylike("dot", a, b)
  a, b = promote_dtypes(a, b)
  sa, sb = get_aval(a).shape, get_aval(b).shape
  if not sa or not sb:
    return lax.mul(a, b)
  contract_b = 0 if len(sb) == 1 else len(sb) - 2
  return lax.dot_general(a, b, (((len(sa) - 1,), (contract_b,)), ((), ())),
                         precision=precision, preferred_element_type=preferred_element_type)
