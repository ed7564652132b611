"""``jnp.linalg``: NumPy's linear algebra over the ``lax.linalg`` primitives.

Every function works on stacks of matrices (leading batch dimensions).  Inputs promote to
an inexact dtype as in JAX; singular matrices give inf/nan, never exceptions.
"""
from __future__ import annotations

import itertools
import operator
from functools import partial
from typing import NamedTuple, Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax import linalg as lax_linalg
from xjax._src.primitives.lax.linalg.lu import solve_factored
from xjax._src.primitives.lax.linear_solve import custom_linear_solve
from xjax._src.primitives.lax.dot import Precision, dot_general
from xjax._src.primitives.lax.shapes import broadcast, iota as lax_iota, rev
from xjax._src.primitives.lax.stop_gradient import stop_gradient
from xjax._src.api.transformations import vmap
from xjax._src.primitives.lax.elementwise import square_and_multiply
from xjax._src.libraries.numpy import linalg_basic
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.array_api import matrix_transpose as _matrix_transpose
from xjax._src.libraries.numpy.composed_math import conj, isinf, isnan, real
from xjax._src.libraries.numpy.cumulative import cumprod
from xjax._src.libraries.numpy.einsum import einsum
from xjax._src.libraries.numpy.functional import vectorize
from xjax._src.libraries.numpy.creation import arange, asarray, empty, ones, zeros, zeros_like
from xjax._src.libraries.numpy.index_tricks import ix_
from xjax._src.libraries.numpy.indexing import take_along_axis
from xjax._src.libraries.numpy.linalg_basic import matmul as _matmul
from xjax._src.libraries.numpy.matrices import diagonal as _diagonal, eye as _eye, trace as _trace
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.numpy.reductions import (any as _any, max as _max, min as _min, prod,
                                                  sum as _sum)
from xjax._src.libraries.numpy.shaping import (broadcast_to, concatenate, expand_dims,
                                               moveaxis, ravel, reshape, squeeze, swapaxes)
from xjax._src.libraries.numpy.rearrange import tile
from xjax._src.libraries.numpy.searching import count_nonzero
from xjax._src.libraries.numpy.sorting import argsort
from xjax._src.libraries.numpy.ufuncs import abs as _abs, exp, log, sign as _sign, sqrt
from xjax._src.libraries.numpy.where import where


class EighResult(NamedTuple):
  eigenvalues: object
  eigenvectors: object


class QRResult(NamedTuple):
  Q: object
  R: object


class SlogdetResult(NamedTuple):
  sign: object
  logabsdet: object


class SVDResult(NamedTuple):
  U: object
  S: object
  Vh: object


class EigResult(NamedTuple):
  eigenvalues: object
  eigenvectors: object


def _inexact(name: str, *args):
  args = arraylike(f"jnp.linalg.{name}", *args)
  out = promote_dtypes_inexact(*(asarray(a) for a in args))
  return out


def _matrix(name: str, a, square: bool = True, rank_error=TypeError, square_error=ValueError):
  """``a`` promoted to an inexact dtype, checked to be a (batch of, optionally square)
  matrices.  The error classes are those JAX raises for ``name``: by default its linear
  algebra primitives' (TypeError for a rank below 2, ValueError for a non-square matrix)."""
  (a,) = _inexact(name, a)
  s = a.shape
  if a.ndim < 2:
    raise rank_error(f"jnp.linalg.{name}: input must have at least 2 dimensions, got shape "
                     f"{s}.")
  if square and s[-1] != s[-2]:
    raise square_error(f"jnp.linalg.{name}: input must be a (batch of) square matrices, got "
                       f"shape {s}.")
  return a


def _H(x):
  return conj(swapaxes(x, -1, -2))


# -- factorizations ------------------------------------------------------------------------

@compiled_when_eager(staged="cholesky", static_argnames=("upper", "symmetrize_input"))
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
  """The lower (or upper) Cholesky factor of each Hermitian positive-definite matrix."""
  a = _matrix("cholesky", a, square_error=TypeError if symmetrize_input else ValueError)
  factor = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
  return _H(factor) if upper else factor


@compiled_when_eager(staged="qr", static_argnames=("mode",))
def qr(a, mode: str = "reduced"):
  """QR decomposition; ``mode`` is "reduced", "complete", "r" or "raw" (LAPACK's packed
  reflectors, transposed, and their scale factors)."""
  a = _matrix("qr", a, square=False)
  if mode not in ("reduced", "complete", "r", "raw"):
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  if mode == "raw":
    packed, taus = lax_linalg.geqrf(a)
    return QRResult(_matrix_transpose(packed), taus)
  q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
  return r if mode == "r" else QRResult(q, r)


@compiled_when_eager(staged="eigh", static_argnames=("UPLO", "symmetrize_input"))
def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):
  """Eigenvalues (ascending) and eigenvectors of Hermitian matrices."""
  a = _matrix("eigh", a, square_error=TypeError if symmetrize_input else ValueError)
  if UPLO not in (None, "L", "U"):
    raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
  v, w = lax_linalg.eigh(a, lower=UPLO != "U", symmetrize_input=symmetrize_input)
  return EighResult(w, v)


@compiled_when_eager(staged="eigvalsh", static_argnames=("UPLO", "symmetrize_input"))
def eigvalsh(a, UPLO: str | None = "L", *, symmetrize_input: bool = True):
  """Eigenvalues (ascending) of Hermitian matrices."""
  return eigh(a, UPLO, symmetrize_input).eigenvalues


def eig(a):
  """Complex eigenvalues and right eigenvectors of general square matrices."""
  a = _matrix("eig", a)
  w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
  return EigResult(w, v)


@compiled_when_eager(staged="eigvals")
def eigvals(a):
  """Complex eigenvalues of general square matrices."""
  a = _matrix("eigvals", a)
  return lax_linalg.eig(a, compute_left_eigenvectors=False,
                        compute_right_eigenvectors=False)[0]


@compiled_when_eager(staged="svd",
                     static_argnames=("full_matrices", "compute_uv", "hermitian",
                                     "subset_by_index"))
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index=None):
  """Singular value decomposition ``a = U @ diag(S) @ Vh``, ``S`` descending."""
  a = _matrix("svd", a, square=False)
  if hermitian:
    v, w = lax_linalg.eigh(a, subset_by_index=subset_by_index)
    s = _abs(w)
    # descending as JAX orders it: a stable ascending sort reversed (equal values in
    # reverse order of their eigenvectors)
    order = rev(argsort(s, axis=-1), (s.ndim - 1,))
    s = take_along_axis(s, order, axis=-1)
    if not compute_uv:
      return s
    sign = take_along_axis(_sign(w), order, axis=-1).astype(v.dtype)
    u = take_along_axis(v, order[..., None, :], axis=-1)
    return SVDResult(u, s, _H(u * sign[..., None, :]))
  out = lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                       subset_by_index=subset_by_index)
  return SVDResult(*out) if compute_uv else out


def svdvals(x, /):
  """Singular values, descending."""
  return svd(x, compute_uv=False)


# -- solving -------------------------------------------------------------------------------

@compiled_when_eager(staged="solve")
def solve(a, b):
  """Solves ``a @ x = b``; ``b`` is a vector when 1-D, else a stack of matrices (NumPy 2).
  Each system is a ``custom_linear_solve`` over one LU factorization, as in JAX, so its
  derivatives reuse the factors."""
  a, b = arraylike("jnp.linalg.solve", a, b)
  a, b = promote_dtypes_inexact(asarray(a), asarray(b))
  if a.ndim < 2:
    raise ValueError(f"left hand array must be at least two dimensional; got {a.shape=}")
  if (b.ndim > 1 and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]
      and a.shape[-1] != b.shape[-2]):
    raise ValueError(
        f"Invalid shapes for solve: {a.shape}, {b.shape}. Prior to JAX v0.5.0, this would "
        "have been treated as a batched 1-dimensional solve. To recover this behavior, use "
        "solve(a, b[..., None]).squeeze(-1).")
  signature = "(m,m),(m)->(m)" if b.ndim == 1 else "(m,m),(m,n)->(m,n)"
  return vectorize(_solve_system, signature=signature)(a, b)


def check_solve_shapes(a, b):
  """The ValueError JAX's solvers raise unless ``a`` is (..., m, m) and ``b`` (..., m, k)
  or (..., m)."""
  if not (a.ndim >= 2 and b.ndim in (a.ndim, a.ndim - 1)
          and a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]):
    raise ValueError("The arguments to solve must have shapes a=[..., m, m] and "
                     f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}")


def _solve_system(a, b):
  """``a x = b`` for one square ``a`` and a vector or matrix ``b``."""
  check_solve_shapes(a, b)
  factors, _, perm = lax_linalg.lu(stop_gradient(a))

  def lu_solve(x, trans):
    return solve_factored(factors, perm, x[:, None], trans)[:, 0]
  solve_vector = partial(
      custom_linear_solve,
      lambda x: dot_general(a, x, (((a.ndim - 1,), (x.ndim - 1,)), ((), ())),
                            precision="highest"),
      solve=lambda _, x: lu_solve(x, 0), transpose_solve=lambda _, x: lu_solve(x, 1))
  if a.ndim == b.ndim + 1:
    return solve_vector(b)
  return vmap(solve_vector, b.ndim - 1, b.ndim - 1)(b)


@compiled_when_eager(staged="inv")
def inv(a):
  """Matrix inverses (inf/nan for singular matrices): ``solve`` with the identity, as JAX."""
  a, = arraylike("jnp.linalg.inv", a)
  a = asarray(a)
  if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
    raise ValueError(f"Argument to inv must have shape [..., n, n], got {a.shape}.")
  return solve(a, broadcast(_eye(a.shape[-1], dtype=a.dtype), a.shape[:-2]))


def _slogdet_closed(a):
  """``(sign, log|det|)`` of 1x1 or 2x2 matrices from the determinant's closed form."""
  d = a[..., 0, 0] if a.shape[-1] == 1 else _det_2x2(a)
  return _sign(d), real(log(_abs(d)))


@custom_jvp
def _slogdet_small(a):
  return _slogdet_closed(a)


@custom_jvp
def _slogdet_lu(a):
  """From the LU factors: the sign from the pivots' parity (and, for real matrices, the
  negative pivots'), 0 and -inf for an exactly singular factor, as JAX."""
  factors, pivots, _ = lax_linalg.lu(a)
  d = _diagonal(factors, axis1=-2, axis2=-1)
  singular = _any(d == 0, axis=-1)
  parity = count_nonzero(pivots != arange(a.shape[-1], dtype=pivots.dtype), axis=-1)
  if dtypes.is_complex(a.dtype):
    sign = prod(d / _abs(d).astype(a.dtype), axis=-1)
  else:
    sign = ones((), a.dtype)
    parity = parity + count_nonzero(d < 0, axis=-1)
  sign = where(singular, zeros((), a.dtype), sign * asarray(1 - 2 * (parity % 2), a.dtype))
  logdet = where(singular, -np.inf, _sum(log(_abs(d)), axis=-1))
  return sign, logdet


@custom_jvp
def _slogdet_qr(a):
  """From the QR factors: R's diagonal, and a factor -1 per reflection actually made."""
  if dtypes.is_complex(a.dtype):
    raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
  packed, taus = lax_linalg.geqrf(a)
  d = _diagonal(packed, axis1=-2, axis2=-1)
  reflections = prod(where(taus[..., :a.shape[-1] - 1] != 0, -1, 1), axis=-1)
  return prod(_sign(d), axis=-1) * reflections.astype(a.dtype), _sum(log(_abs(d)), axis=-1)


def _slogdet_by_method(a, method):
  if method == "qr":
    return _slogdet_qr(a)
  return (_slogdet_small if a.shape[-1] in (1, 2) else _slogdet_lu)(a)


def _slogdet_tangents(sign, tr):
  """``(dsign, dlog)`` from ``tr = trace(a^{-1} da)``: the sign moves only in the complex
  plane."""
  if dtypes.is_complex(tr.dtype):
    return (tr - real(tr).astype(tr.dtype)) * sign, real(tr)
  return zeros_like(sign), tr


@_slogdet_small.defjvp
def _slogdet_small_jvp(primals, tangents):
  (a,), (da,) = primals, tangents
  sign, logdet = _slogdet_small(a)
  if a.shape[-1] == 1:
    tr = da[..., 0, 0] / a[..., 0, 0]
  else:
    e, g = (lambda i, j: a[..., i, j]), (lambda i, j: da[..., i, j])
    tr = (g(0, 0) * e(1, 1) - g(0, 1) * e(1, 0) - g(1, 0) * e(0, 1)
          + g(1, 1) * e(0, 0)) / _det_2x2(a)
  return (sign, logdet), _slogdet_tangents(sign, tr)


def _slogdet_jvp(primals, tangents):
  """``d log|det a| = trace(a^{-1} da)``; the primal is the default method's, as JAX's."""
  (a,), (da,) = primals, tangents
  sign, logdet = _slogdet_by_method(a, None)
  tr = _trace(solve(a, da), axis1=-1, axis2=-2)
  return (sign, logdet), _slogdet_tangents(sign, tr)


_slogdet_lu.defjvp(_slogdet_jvp)
_slogdet_qr.defjvp(_slogdet_jvp)


@compiled_when_eager(staged="slogdet", static_argnames=("method",))
def slogdet(a, *, method: str | None = None):
  """``(sign, log|det|)`` of each matrix: by LU (``method`` None or "lu"; 1x1 and 2x2
  matrices by the closed form) or by QR ("qr")."""
  a = _matrix("slogdet", a, rank_error=ValueError)
  if method not in (None, "lu", "qr"):
    raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                     "(`None`), and 'qr'.")
  return SlogdetResult(*_slogdet_by_method(a, method))


@custom_jvp
def _det(a):
  sign, logdet = _slogdet_by_method(a, None)
  return sign * exp(logdet).astype(sign.dtype)


@_det.defjvp
def _det_jvp(primals, tangents):
  (a,), (da,) = primals, tangents
  y, z = _cofactor_solve(a, da)
  return y, _trace(z, axis1=-1, axis2=-2)


def _cofactor_solve(a, b):
  """(det(a), adj(a) @ b), defined for singular ``a`` too, as JAX computes them: from the
  LU factors, the last pivot replaced by 1 / (the other pivots' product) so a rank n-1
  matrix still solves, and zeros where the matrix has rank below n-1."""
  n = a.shape[-1]
  if n == 1:
    return a[..., 0, 0], b
  lu, pivots, permutation = lax_linalg.lu(a)
  batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
  x = broadcast_to(b, batch + b.shape[-2:])
  lu = broadcast_to(lu, batch + lu.shape[-2:])
  diag = _diagonal(lu, axis1=-2, axis2=-1)
  iota = expand_dims(arange(n, dtype=pivots.dtype), tuple(range(pivots.ndim - 1)))
  parity = count_nonzero(pivots != iota, axis=-1)
  sign = asarray(-2 * (parity % 2) + 1, dtype=a.dtype)
  partial_det = cumprod(diag, axis=-1) * sign[..., None]  # [..., -2]: det(u) / u_nn
  lu = lu.at[..., -1, -1].set(1.0 / partial_det[..., -2])
  permutation = broadcast_to(permutation, (*batch, n))
  iotas = ix_(*(lax_iota(np.int32, m) for m in (*batch, 1)))
  singular = ones(x.shape[:-1], x.dtype)  # rank below n - 1: a zero adjugate
  singular = lax_linalg.triangular_solve(lu, singular, left_side=True, lower=False)
  singular = _any(isnan(singular) | isinf(singular), axis=-1)
  singular = tile(singular[..., None, None], singular.ndim * (1,) + x.shape[-2:])
  x = where(singular, zeros_like(x), x)
  x = x[iotas[:-1] + (permutation, slice(None))]
  x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
  x = concatenate((x[..., :-1, :] * partial_det[..., -1, None, None], x[..., -1:, :]), axis=-2)
  x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
  return partial_det[..., -1], where(singular, zeros_like(x), x)


@compiled_when_eager(staged="det")
def _det_2x2(a):
  return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a):
  """The rule of Sarrus, in JAX's order of terms."""
  e = lambda i, j: a[..., i, j]
  return (e(0, 0) * e(1, 1) * e(2, 2) + e(0, 1) * e(1, 2) * e(2, 0)
          + e(0, 2) * e(1, 0) * e(2, 1) - e(0, 2) * e(1, 1) * e(2, 0)
          - e(0, 0) * e(1, 2) * e(2, 1) - e(0, 1) * e(1, 0) * e(2, 2))


@compiled_when_eager(staged="det")
def det(a):
  """Determinants (0 for singular matrices).  2x2 and 3x3 matrices use the closed forms
  (any float dtype, differentiated as written), larger ones LU, as JAX."""
  a = _matrix("det", a, rank_error=ValueError)
  closed = {2: _det_2x2, 3: _det_3x3}.get(a.shape[-1])
  return closed(a) if closed else _det(a)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
  """Least-squares solution of ``a @ x = b``: ``(x, residuals, rank, singular values)``."""
  if numpy_resid:  # NumPy's residual shape depends on the rank's value: not compiled
    return _lstsq(a, b, rcond, numpy_resid=True)
  return _lstsq_compiled(a, b, rcond)


def _lstsq(a, b, rcond, *, numpy_resid):
  a, b = arraylike("jnp.linalg.lstsq", a, b)
  a, b = promote_dtypes_inexact(asarray(a), asarray(b))
  if a.ndim != 2:
    raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
  if b.ndim not in (1, 2):
    raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or "
                    "two-dimensional")
  m, n = a.shape
  vec = b.ndim == 1
  if vec:
    b = b[:, None]
  if b.shape[0] != m:
    raise ValueError(f"lstsq: a of shape {a.shape} and b of shape {b.shape} are "
                     "incompatible (rows must match).")
  dt = a.dtype
  rdt = dtypes.to_floating_dtype(dt)
  if a.size == 0:
    s, rank, x = zeros((0,), dt), asarray(0, np.int32), zeros((n, *b.shape[1:]), dt)
  else:
    if rcond is None:
      rcond = float(dtypes.finfo(rdt).eps) * max(m, n)
    else:  # (a negative rcond means machine precision)
      rcond = where(asarray(rcond) < 0, dtypes.finfo(rdt).eps, rcond)
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    mask = (s > 0) & (s >= asarray(rcond, rdt) * s[0])
    rank = _sum(mask)
    safe = where(mask, s, 1).astype(dt)
    s_inv = where(mask, 1 / safe, 0)[:, None]
    uthb = _matmul(_H(u), b, precision="highest")
    x = _matmul(_H(vh), s_inv * uthb, precision="highest")
  if numpy_resid and (rank < n or m <= n):  # NumPy's: none unless full rank and m > n
    resid = zeros((0,), rdt)
  else:
    resid = norm(b - _matmul(a, x, precision="highest"), axis=0) ** 2
  if vec:
    x = x.ravel()  # the residuals keep their length-1 axis, as JAX's
  return x, resid, rank, s


_lstsq_compiled = compiled_when_eager(partial(_lstsq, numpy_resid=False))


# -- derived quantities --------------------------------------------------------------------

@compiled_when_eager(staged="matrix_rank", static_argnames=("hermitian",))
def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
  """The number of singular values above ``rtol * max(s)`` (or ``tol``)."""
  (M,) = _inexact("matrix_rank", M)
  if M.ndim < 2:
    return _any(M != 0).astype(np.int32)
  s = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
  if tol is None:
    if rtol is None:
      rtol = max(M.shape[-2:]) * float(dtypes.finfo(s.dtype).eps)
    thresh = asarray(rtol)[..., None] * _max(s, axis=-1, keepdims=True)
  else:
    thresh = asarray(tol)[..., None]
  return _sum(s > thresh, axis=-1)  # (the default integer dtype, as JAX's)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
  """Moore-Penrose pseudo-inverse (differentiable where the rank is locally constant)."""
  if rcond is not None:
    if rtol is not None:
      raise ValueError("pinv: only one of rtol and rcond may be specified.")
    rtol = rcond
  return _pinv(a, rtol, hermitian)


@partial(custom_jvp, nondiff_argnums=(1, 2))
@compiled_when_eager(staged="_pinv", static_argnames=("hermitian",))
def _pinv(a, rtol=None, hermitian: bool = False):
  """``V (U^T / s)`` from the SVD of ``conj(a)``, singular values at most ``rtol * max(s)``
  dropped (divided by infinity), as JAX computes it."""
  (a,) = _inexact("pinv", a)
  if a.ndim < 2:
    raise ValueError(f"jnp.linalg.pinv: input must have at least 2 dimensions, got shape "
                     f"{a.shape}.")
  m, n = a.shape[-2:]
  if m == 0 or n == 0:
    return empty(a.shape[:-2] + (n, m), a.dtype)
  a = conj(a)
  if rtol is None:
    rtol = 10. * max(a.shape[-2:]) * asarray(dtypes.finfo(a.dtype).eps)
  rtol = asarray(rtol)
  u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
  rtol = expand_dims(rtol[..., None], tuple(range(s.ndim - rtol.ndim - 1)))
  s = where(s > rtol * s[..., 0:1], s, np.inf).astype(u.dtype)
  res = _matmul(_matrix_transpose(vh), _matrix_transpose(u) / s[..., None],
                precision=Precision.HIGHEST)
  return res.astype(a.dtype)


def _symmetrize(x):
  return (x + _H(x)) / 2


@_pinv.defjvp
def _pinv_jvp(rtol, hermitian, primals, tangents):
  """Golub & Pereyra (1973), in JAX's association order."""
  (a,), (da,) = primals, tangents
  p = pinv(a, rtol=rtol, hermitian=hermitian)
  if hermitian:
    a, da = _symmetrize(a), _symmetrize(da)
  m, n = a.shape[-2:]
  if m >= n:
    s = (p @ _H(p)) @ _H(da)
    t = (_H(da) @ _H(p)) @ p
    dp = -(p @ da) @ p + s - (s @ a) @ p + t - (p @ a) @ t
  else:
    s = p @ (_H(p) @ _H(da))
    t = _H(da) @ (_H(p) @ p)
    dp = -p @ (da @ p) + s - s @ (a @ p) + t - p @ (a @ t)
  return p, dp


@compiled_when_eager(static_argnames=("n",), hashable_statics=True, staged="matrix_power")
def matrix_power(a, n: int):
  """``a`` multiplied by itself ``n`` times (inverted first when ``n < 0``)."""
  a, = arraylike("jnp.linalg.matrix_power", a)
  a = asarray(a)  # integer matrices stay integer
  if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
    raise TypeError(f"jnp.linalg.matrix_power: input must be a (batch of) square matrices, "
                    f"got shape {a.shape}.")
  try:
    n = operator.index(n)
  except TypeError:
    raise TypeError(f"jnp.linalg.matrix_power: the exponent must be an integer, got {n!r}.") \
        from None
  if n == 0:
    return broadcast_to(_eye(a.shape[-1], dtype=a.dtype), a.shape)
  if n < 0:
    a, n = inv(a), -n
  if n == 3:  # (as JAX: the square first)
    return _matmul(_matmul(a, a), a)
  return square_and_multiply(a, n, _matmul)


@compiled_when_eager(staged="cond", static_argnames=("p",))
def cond(x, p=None):
  """The condition number in the norm ``p`` (2-norm by default)."""
  x = _matrix("cond", x, square=p not in (None, 2, -2), rank_error=ValueError)
  if x.shape[-1] == 0 or x.shape[-2] == 0:
    raise ValueError(f"jnp.linalg.cond: input array must not be empty; got shape {x.shape}.")
  if p in (None, 2):
    s = svdvals(x)
    return s[..., 0] / s[..., -1]
  if p == -2:
    s = svdvals(x)
    r = s[..., -1] / s[..., 0]
  else:
    r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
  # an infinite condition number where the inverse broke down on a NaN-free input
  return where(isnan(r) & ~_any(isnan(x), axis=(-2, -1)), np.inf, r)


# -- norms ---------------------------------------------------------------------------------

def _abs_sum(x, axis, keepdims, power=None):
  ax = _abs(x)
  return _sum(ax if power is None else ax ** power, axis=axis, keepdims=keepdims)


def _vector_norm(x, ord, axis, keepdims):
  if ord is None or ord == 2:
    return sqrt(_sum(real(x * conj(x)), axis=axis, keepdims=keepdims))
  if ord == np.inf:
    return _max(_abs(x), axis=axis, keepdims=keepdims, initial=0)
  if ord == -np.inf:
    return _min(_abs(x), axis=axis, keepdims=keepdims)
  if ord == 0:
    return _sum(x != 0, dtype=dtypes.to_floating_dtype(x.dtype), axis=axis,
                   keepdims=keepdims)
  if ord == 1:
    return _abs_sum(x, axis, keepdims)
  if isinstance(ord, str):
    raise ValueError(f"Invalid order '{ord}' for vector norm.")
  p = asarray(ord, dtypes.to_floating_dtype(x.dtype))
  return _abs_sum(x, axis, keepdims, p) ** (1 / p)


def _matrix_norm(x, ord, axis, keepdims):
  r, c = axis
  if ord in (None, "fro", "f"):
    return sqrt(_sum(real(x * conj(x)), axis=axis, keepdims=keepdims))
  if ord in (1, -1, np.inf, -np.inf):  # the largest (smallest) column or row sum
    inner, outer = (r, c) if ord in (1, -1) else (c, r)
    sums = _sum(_abs(x), axis=inner, keepdims=True)
    out = (_max(sums, axis=outer, keepdims=True, initial=0) if ord > 0
           else _min(sums, axis=outer, keepdims=True))
  elif ord in (2, -2, "nuc"):
    moved = moveaxis(x, (r, c), (-2, -1))
    s = svdvals(moved)
    # (max/min, not s[0]/s[-1]: ties share the gradient, as JAX's)
    val = (_max(s, axis=-1, initial=0) if ord == 2 else
           _min(s, axis=-1) if ord == -2 else _sum(s, axis=-1))
    if keepdims:
      val = expand_dims(val, sorted((r % x.ndim, c % x.ndim)))
    return val
  else:
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")
  return out if keepdims else squeeze(out, axis=(r, c))


@compiled_when_eager(staged="norm", static_argnames=("ord", "axis", "keepdims"),
                     hashable_statics=True)
def norm(x, ord=None, axis=None, keepdims: bool = False):
  """Vector or matrix norm (NumPy's ``ord`` values) over ``axis``."""
  (x,) = _inexact("norm", x)
  if axis is None:
    if ord is None:
      out = sqrt(_sum(real(x * conj(x))))
      return reshape(out, (1,) * x.ndim) if keepdims else out
    axis = tuple(range(x.ndim))
  axis = (axis,) if isinstance(axis, int) else tuple(operator.index(a) for a in axis)
  nd = x.ndim
  for a in axis:
    if not -nd <= a < nd:
      raise ValueError(f"axis {a} is out of bounds for array of dimension {nd}")
  axis = tuple(a % nd for a in axis)
  if len(axis) == 1:
    return _vector_norm(x, ord, axis, keepdims)
  if len(axis) == 2:
    if axis[0] == axis[1]:
      raise ValueError("Duplicate axes given.")
    return _matrix_norm(x, ord, axis, keepdims)
  raise ValueError(f"Improper number of dimensions to norm: axis={axis}.")


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
  """The vector norm over ``axis`` (all axes, flattened, by default)."""
  (x,) = arraylike("jnp.linalg.vector_norm", x)
  x = asarray(x)
  if not dtypes.is_inexact(x.dtype):
    return _integer_vector_norm(x, ord, axis, keepdims)
  (x,) = _inexact("vector_norm", x)
  if axis is None:
    out = _vector_norm(ravel(x), ord, 0, False)
    return reshape(out, (1,) * x.ndim) if keepdims else out
  return _vector_norm(x, ord, axis, keepdims)


def _integer_vector_norm(x, ord, axis, keepdims):
  """JAX's vector norm of integers and booleans, which it does not promote first: the
  2-norm takes the float of the integer sum of squares, the 1- and inf-norms stay integers,
  the 0-norm has no float type to count in (ValueError), and other orders are cast to the
  integer dtype (with their inverse)."""
  if ord == 0:  # (JAX counts in the dtype's float type, which an integer has not)
    raise ValueError(f"data type {x.dtype.type!r} not inexact")
  if isinstance(ord, str) or ord in (None, 1, 2, np.inf, -np.inf):
    return _vector_norm(x, ord, axis, keepdims)  # (the same operations on integers)
  abs_x = _abs(x)
  p = np.array(ord, abs_x.dtype)
  with np.errstate(all="ignore"):
    inverse = np.array(1.0 / p, abs_x.dtype)
  return _sum(abs_x ** p, axis=axis, keepdims=keepdims) ** inverse


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
  """The matrix norm over the last two axes."""
  (x,) = _inexact("matrix_norm", x)
  return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


# -- array-API helpers ---------------------------------------------------------------------

def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
  return linalg_basic.matmul(x1, x2, precision=precision,
                             preferred_element_type=preferred_element_type)


def matrix_transpose(x, /):
  """Swaps the last two axes."""
  x, = arraylike("jnp.linalg.matrix_transpose", x)
  x = asarray(x)
  if x.ndim < 2:
    raise ValueError(f"matrix_transpose requires at least 2 dimensions; got {x.ndim=}")
  return swapaxes(x, -1, -2)


def outer(x1, x2, /):
  """Outer product of two vectors."""
  x1, x2 = arraylike("jnp.linalg.outer", x1, x2)
  x1, x2 = asarray(x1), asarray(x2)
  if x1.ndim != 1 or x2.ndim != 1:
    raise ValueError(f"Input arrays must be one-dimensional, but they are {x1.ndim=} "
                     f"{x2.ndim=}")
  return linalg_basic.outer(x1, x2)


def cross(x1, x2, /, *, axis=-1):
  """Cross product of 3-vectors along ``axis``."""
  x1, x2 = arraylike("jnp.linalg.cross", x1, x2)
  x1, x2 = asarray(x1), asarray(x2)
  if x1.shape[axis] != 3 or x2.shape[axis] != 3:
    raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                     f"have {x1.shape[axis]=} and {x2.shape[axis]=}")
  return linalg_basic.cross(x1, x2, axis=axis)


def diagonal(x, /, *, offset: int = 0):
  """Diagonals of the matrices in the last two axes."""
  return _diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset: int = 0, dtype=None):
  """Traces of the matrices in the last two axes."""
  return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None,
              out_sharding=None):
  return linalg_basic.tensordot(x1, x2, axes=axes, precision=precision,
                                preferred_element_type=preferred_element_type,
                                out_sharding=out_sharding)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
  return linalg_basic.vecdot(x1, x2, axis=axis, precision=precision,
                             preferred_element_type=preferred_element_type)


def multi_dot(arrays: Sequence, *, precision=None):
  """The product of a chain of matrices, multiplied in the order opt_einsum finds cheapest
  (an einsum, as JAX)."""
  arrays = arraylike("jnp.linalg.multi_dot", *arrays)
  arrays = [asarray(a) for a in arrays]
  if len(arrays) < 2:
    raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrays)}")
  shapes = [a.shape for a in arrays]
  if not (arrays[0].ndim in (1, 2) and arrays[-1].ndim in (1, 2)
          and all(a.ndim == 2 for a in arrays[1:-1])):
    raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the "
                     f"first and last array which may be 1 or 2 dimensional. Got array shapes "
                     f"{shapes}")
  if any(a.shape[-1] != b.shape[0] for a, b in zip(arrays[:-1], arrays[1:])):
    raise ValueError("multi_dot: last dimension of each array must match first dimension of "
                     f"following array. Got array shapes {shapes}")
  axes = [(i, i + 1) for i in range(len(arrays))]
  if arrays[0].ndim == 1:
    axes[0] = axes[0][1:]
  if arrays[-1].ndim == 1:
    axes[-1] = axes[-1][:1]
  return einsum(*itertools.chain(*zip(arrays, axes)), optimize="auto", precision=precision)


def tensorinv(a, ind: int = 2):
  """The inverse of ``a`` as a map from its first ``ind`` axes to the rest."""
  (a,) = _inexact("tensorinv", a)
  ind = operator.index(ind)
  if ind <= 0:
    raise ValueError(f"ind must be a positive integer, got {ind}")
  out_shape = a.shape[ind:] + a.shape[:ind]
  rows = int(np.prod(a.shape[:ind]))
  if rows != int(np.prod(a.shape[ind:])):
    raise ValueError(f"tensorinv is only possible when the product of the first {ind} axes "
                     f"equals that of the remaining axes, got shape {a.shape}")
  return reshape(inv(reshape(a, (rows, -1))), out_shape)


def tensorsolve(a, b, axes=None):
  """Solves ``tensordot(a, x, x.ndim) = b`` for ``x``."""
  a, b = _inexact("tensorsolve", a, b)
  if axes is not None:
    a = moveaxis(a, axes, len(axes) * (a.ndim - 1,))
  out_shape = a.shape[b.ndim:]
  rows = int(np.prod(b.shape))
  if rows != int(np.prod(out_shape)):
    raise ValueError(f"tensorsolve: a of shape {a.shape} cannot solve for b of shape "
                     f"{b.shape}")
  x = solve(reshape(a, (rows, -1)), ravel(b))
  return reshape(x, out_shape)


__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve",
           "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot",
           "vector_norm"]
