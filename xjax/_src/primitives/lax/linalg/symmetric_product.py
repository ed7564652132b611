"""``symmetric_product``: ``alpha A A^T + beta C`` for symmetric ``C`` (BLAS's syrk), written
as a matrix product (real dtypes, as JAX).  Its JVP is
``alpha (dA A^T + A dA^T) + beta dC``.
"""
from __future__ import annotations

from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters.ad import Zero, instantiate
from xjax._src.primitives.lax.elementwise import add, mul
from xjax._src.primitives.lax.shapes import full
from xjax._src.primitives.lax.linalg.matrices import matmul, mT, tril
from xjax._src.primitives.lax.linalg.rules import check_operands, linalg_primitive, lower_fn


def _abstract_eval(a, c, *, alpha, beta):
  check_operands("symmetric_product", [a, c], [2, 2], complex_ok=False)
  if (a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1]
      or a.shape[:-2] != c.shape[:-2]):
    raise ValueError("symmetric_update expects a rectangular matrix of shape (m, n) and a "
                     f"square matrix of shape (n, n). Got shapes {a.shape} and {c.shape}.")
  return ShapedArray(c.shape, c.dtype)


def _combine(x, c, alpha, beta):
  """``alpha x + beta c``."""
  scalar = lambda v: full((), v, c.dtype)
  return add(mul(scalar(alpha), x), mul(scalar(beta), c))


def _lowering(ctx, a, c, *, alpha, beta):
  return lower_fn(ctx, lambda a, c: [_combine(matmul(a, mT(a)), c, alpha, beta)], [a, c],
                  ctx.avals_in)[0]


symmetric_product_p = linalg_primitive("symmetric_product", _abstract_eval, _lowering,
                                       multiple_results=False, ranks=(2, 2))


def _jvp(primals, tangents, *, alpha, beta):
  (a, c), (da, dc) = primals, tangents
  out = symmetric_product_p.bind(a, c, alpha=alpha, beta=beta)
  if type(da) is Zero and type(dc) is Zero:
    return out, Zero.like(out)
  da, dc = instantiate(da), instantiate(dc)
  da_at = matmul(da, mT(a))
  return out, _combine(add(da_at, mT(da_at)), dc, alpha, beta)


symmetric_product_p.jvp = _jvp


def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1., beta: float = 0.,
                      symmetrize_output: bool = False):
  """``alpha * a @ a.T + beta * c``; only its lower triangle is guaranteed unless
  ``symmetrize_output``, which mirrors the lower triangle into the upper one."""
  out = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
  if symmetrize_output:
    out = add(tril(out), mT(tril(out, -1)))
  return out
