"""``triangular_solve``: solves ``op(a) x = b`` (left side) or ``x op(a) = b`` for
triangular ``a``; LAPACK's trsm on the CPU, ``stablehlo.triangular_solve`` elsewhere.

Linear in ``b`` (its transpose solves with ``op(a)`` transposed); the derivative in ``a``
is ``-op(a)^{-1} d(op(a)) x``.
"""
from __future__ import annotations

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray, result_sharding, spec_of
from xjax._src.foundations.sharding import PartitionSpec, ShardingTypeError
from xjax._src.core.values import get_aval
from xjax._src.interpreters import ad, batching
from xjax._src.interpreters.ad import Zero
from xjax._src.primitives.lax.elementwise import conj, neg
from xjax._src.primitives.lax.shapes import expand_dims, reshape, squeeze
from xjax._src.primitives.lax.linalg import lapack
from xjax._src.primitives.lax.linalg.matrices import matmul, mT, tril, triu
from xjax._src.primitives.lax.linalg.rules import weak_as_operands
from xjax._src.primitives.lax.primitive_builders import standard_primitive


def _abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
    raise ValueError(f"triangular_solve requires a batch of square matrices as its first "
                     f"argument, got shape {a.shape}.")
  if a.dtype != b.dtype:
    raise TypeError(f"triangular_solve requires arguments of the same dtype, got "
                    f"{a.dtype.name} and {b.dtype.name}.")
  if b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2]:
    raise ValueError(f"triangular_solve: the batch dimensions of a {a.shape} and b "
                     f"{b.shape} must be equal.")
  side = b.shape[-2] if left_side else b.shape[-1]
  if side != a.shape[-1]:
    raise ValueError(f"Incompatible shapes for arguments to triangular_solve: {a.shape} and "
                     f"{b.shape}.")
  # float16 and bfloat16 lower to stablehlo.triangular_solve, as JAX's
  lapack.check_dtype("triangular_solve", a.dtype, kernel=False)
  return ShapedArray(b.shape, b.dtype)


def _transpose_attr(transpose_a, conjugate_a):
  if not transpose_a:
    return "NO_TRANSPOSE"
  return "ADJOINT" if conjugate_a else "TRANSPOSE"


def _lowering(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  a_aval, b_aval = ctx.avals_in
  transpose = _transpose_attr(transpose_a, conjugate_a)
  if lapack.available(a_aval.dtype):
    trans = {"NO_TRANSPOSE": "N", "TRANSPOSE": "T", "ADJOINT": "C"}[transpose]
    return lapack.call(ctx, lapack.target("trsm", a_aval.dtype), [a, b], [a_aval, b_aval],
                       [b_aval], {"side": lapack.flag("L" if left_side else "R"),
                                  "uplo": lapack.flag("L" if lower else "U"),
                                  "trans_x": lapack.flag(trans),
                                  "diag": lapack.flag("U" if unit_diagonal else "N")},
                       [True, True], [True])[0]
  flag = lambda v: "true" if v else "false"
  return ctx.op("stablehlo.triangular_solve", [a, b], b_aval,
                {"left_side": flag(left_side), "lower": flag(lower),
                 "unit_diagonal": flag(unit_diagonal),
                 "transpose_a": f"#stablehlo<transpose {transpose}>"},
                in_avals=[a_aval, b_aval])


triangular_solve_p = standard_primitive("triangular_solve", weak_as_operands(_abstract_eval),
                                        _lowering)


def _sharding(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  """JAX's rule: ``a`` and ``b`` split alike on their batch dimensions and unsplit on the
  dimensions the solve contracts; the result keeps ``b``'s free split and ``a``'s other."""
  a_spec, b_spec = spec_of(a), spec_of(b)
  if a_spec[:-2] != b_spec[:-2]:
    raise ShardingTypeError("All inputs to triangular_solve must have the same batch "
                            f"sharding, but got {a_spec[:-2]} and {b_spec[:-2]}.")
  a_mat, b_mat = a_spec[-2:], b_spec[-2:]
  if a_mat[left_side ^ transpose_a] is not None:
    raise ShardingTypeError(
        "triangular solve input `a` must be unsharded on the contracting axis, but got "
        f"{PartitionSpec(*a_spec)} with {left_side=} and {transpose_a=}.")
  if b_mat[not left_side] is not None:
    raise ShardingTypeError(
        "triangular solve input `b` must be unsharded on the contracting axis, but got "
        f"{PartitionSpec(*b_spec)} with {left_side=} and {transpose_a=}.")
  out = ((a_mat[transpose_a], b_mat[1]) if left_side else (b_mat[0], a_mat[not transpose_a]))
  return result_sharding("triangular_solve", [a, b], b.shape, b.dtype, a_spec[:-2] + out)


triangular_solve_p.sharding_rule = _sharding


def _solve(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  """Binds the primitive; a conjugate without a transpose is applied to ``a`` first."""
  if conjugate_a and not transpose_a:
    a, conjugate_a = conj(a), False
  return triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                 transpose_a=transpose_a, conjugate_a=conjugate_a,
                                 unit_diagonal=unit_diagonal)


def _jvp_a(g_a, ans, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
  m, n = get_aval(b).shape[-2:]
  k = 1 if unit_diagonal else 0
  g_a = neg(tril(g_a, -k) if lower else triu(g_a, k))
  g_a = mT(g_a) if transpose_a else g_a
  g_a = conj(g_a) if conjugate_a else g_a
  params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a,
                conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
  solve = lambda rhs: _solve(a, rhs, **params)
  if left_side:  # pick the cheaper association
    return solve(matmul(g_a, ans)) if m > n else matmul(solve(g_a), ans)
  return solve(matmul(ans, g_a)) if m < n else matmul(ans, solve(g_a))


def _jvp(primals, tangents, **params):
  a, b = primals
  g_a, g_b = tangents
  ans = triangular_solve_p.bind(a, b, **params)
  out = Zero.like(ans) if type(g_b) is Zero else triangular_solve_p.bind(a, g_b, **params)
  if type(g_a) is not Zero:
    out = ad.add_tangents(out, _jvp_a(g_a, ans, a, b, **params))
  return ans, out


def _transpose(ct, a, b, *, transpose_a, **params):
  if type(ct) is Zero:
    return [None, Zero(b.aval)]
  return [None, _solve(a, ct, transpose_a=not transpose_a, **params)]


def _batch(axis, args, dims, **params):
  """JAX's rule: with ``a`` unbatched, ``b``'s batch joins its free dimension (one solve
  with more right-hand sides, so the same LAPACK call and bits as JAX's)."""
  (a, b), (a_dim, b_dim) = args, dims
  if a_dim is None:
    if params["left_side"]:
      b = batching.moveaxis(b, b_dim, -1)
      flat = b.shape[:-2] + (b.shape[-2] * b.shape[-1],)
      out_dim = b.ndim - 1
    else:
      b = batching.moveaxis(b, b_dim, -2)
      flat = b.shape[:-3] + (b.shape[-3] * b.shape[-2], b.shape[-1])
      out_dim = b.ndim - 2
    out = triangular_solve_p.bind(a, reshape(b, flat), **params)
    return reshape(out, b.shape), out_dim
  a, b = (batching.bdim_to_front(x, d, axis.size) for x, d in zip(args, dims))
  return triangular_solve_p.bind(a, b, **params), 0


triangular_solve_p.jvp = _jvp
triangular_solve_p.transpose = _transpose
triangular_solve_p.batch = _batch


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
  """Solves ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for triangular ``a``,
  where ``op`` transposes and/or conjugates; ``b`` may have one dimension fewer than ``a``."""
  conjugate_a = conjugate_a and dtypes.is_complex(get_aval(a).dtype)
  vector = get_aval(b).ndim == get_aval(a).ndim - 1
  if vector:
    b = expand_dims(b, (get_aval(b).ndim if left_side else get_aval(b).ndim - 1,))
  out = _solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
               conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)
  if vector:
    out = squeeze(out, (get_aval(out).ndim - 1 if left_side else get_aval(out).ndim - 2,))
  return out
