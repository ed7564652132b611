"""``jax.scipy.linalg``: SciPy's linear algebra over ``lax.linalg`` and ``jnp.linalg``."""
from __future__ import annotations

import functools
import operator
import warnings

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.transformations import jvp, vmap
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.control_flow.conditionals import cond, switch
from xjax._src.primitives.lax.control_flow.loops import fori_loop, scan
from xjax._src.primitives.lax.dot import Precision, dot_general
from xjax._src.primitives.lax.linear_solve import custom_linear_solve
from xjax._src.primitives.lax.shapes import (dynamic_slice, dynamic_slice_in_dim,
                                             dynamic_update_slice_in_dim)
from xjax._src.primitives.lax.stop_gradient import stop_gradient
from xjax._src.primitives.lax import linalg as lax_linalg
from xjax._src.primitives.lax.linalg.lu import solve_factored
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy import linalg as jnp_linalg
from xjax._src.libraries.numpy.functional import core_dimensions
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.scipy.qdwh import qdwh


def _inexact(name, *args, lists: bool = False):
  """``args`` promoted to one inexact dtype, as arrays; lists and tuples are refused (JAX's
  TypeError) unless ``lists`` (the functions JAX converts with ``asarray``)."""
  if not lists:
    args = arraylike(f"jax.scipy.linalg.{name}", *args)
  return promote_dtypes_inexact(*(jnp.asarray(a) for a in args))


def _square(name, a, square_error=ValueError, lists: bool = False):
  """``a`` promoted to an inexact dtype, checked to be a (batch of) square matrices, with
  the error classes JAX raises (TypeError for a rank below 2)."""
  (a,) = _inexact(name, a, lists=lists)
  if a.ndim < 2:
    raise TypeError(f"jax.scipy.linalg.{name}: input must have rank at least 2, got shape "
                    f"{a.shape}.")
  if a.shape[-1] != a.shape[-2]:
    raise square_error(f"jax.scipy.linalg.{name}: input must be a (batch of) square matrices, "
                       f"got shape {a.shape}.")
  return a


def _H(x):
  return jnp.conj(jnp.swapaxes(x, -1, -2))


# -- triangular and Cholesky ---------------------------------------------------------------

@compiled_when_eager(static_argnames=("trans", "lower", "unit_diagonal", "overwrite_b", "debug",
                                     "check_finite"))
def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
  """Solves ``op(a) x = b`` for triangular ``a``; ``trans`` is 0/'N', 1/'T' or 2/'C'.
  Lists are accepted as arrays, as in JAX."""
  kind = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}.get(trans)
  if kind is None:
    raise ValueError(f"Invalid 'trans' value {trans!r}; expected 0, 1, 2, 'N', 'T' or 'C'.")
  a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
  vector, a, b = _solve_operands("solve_triangular", a, b)
  x = lax_linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=kind > 0,
                                  conjugate_a=kind == 2, unit_diagonal=unit_diagonal)
  return x[..., 0] if vector else x


def _solve_operands(name, a, b, *vectors):
  """``(vector, a, *vectors, b)``: ``a``, the length-n ``vectors`` (LU pivots) and ``b`` (a
  vector right-hand side as an n×1 matrix) broadcast over their batch dimensions. ``b`` is
  a vector when 1-D, or when it is ``a``'s batch of vectors (deprecated, as in JAX);
  otherwise a (batch of) matrices. Shapes that do not fit raise what JAX's gufunc signatures
  (``(n,n),(n)->(n)``, ``(n,n),(n,k)->(n,k)``) raise."""
  vector = b.ndim == 1
  if not vector and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
    warnings.warn(f"jax.scipy.linalg.{name}: a right-hand side b with b.ndim > 1 one "
                  "dimension below the matrix is read as a batch of vectors; this is "
                  "deprecated (it will be read as a batch of matrices). Pass b[..., None] and "
                  "squeeze the last axis of the result instead.", FutureWarning, stacklevel=4)
    vector = True
  rhs = "(n)" if vector else "(n,k)"
  signature = ",".join(["(n,n)", *["(n)"] * len(vectors), rhs]) + "->" + rhs
  _, batch = core_dimensions(signature, [a.shape, *(v.shape for v in vectors), b.shape])
  if vector:
    b = b[..., None]
  return (vector, jnp.broadcast_to(a, batch + a.shape[-2:]),
          *(jnp.broadcast_to(v, batch + v.shape[-1:]) for v in vectors),
          jnp.broadcast_to(b, batch + b.shape[-2:]))


@compiled_when_eager(static_argnames=("lower", "overwrite_a", "check_finite"))
def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  """The Cholesky factor (upper unless ``lower``), read from that triangle of ``a``."""
  (a,) = _inexact("cholesky", a, lists=True)
  if a.ndim < 2:
    raise ValueError(f"jax.scipy.linalg.cholesky: input must have rank at least 2, got shape "
                     f"{a.shape}.")
  factor = lax_linalg.cholesky(a if lower else _H(a), symmetrize_input=False)
  return factor if lower else _H(factor)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  """``(c, lower)`` for ``cho_solve``."""
  return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
  """Solves ``a x = b`` given ``cho_factor(a)``."""
  c, lower = c_and_lower
  return _cho_solve(c, b, lower=lower)


@compiled_when_eager(static_argnames=("lower",), staged="_cho_solve")
def _cho_solve(c, b, *, lower):
  c, b = _inexact("cho_solve", c, b)
  vector, c, b = _solve_operands("cho_solve", c, b)
  kw = dict(left_side=True, lower=lower)
  y = lax_linalg.triangular_solve(c, b, transpose_a=not lower, conjugate_a=not lower, **kw)
  x = lax_linalg.triangular_solve(c, y, transpose_a=lower, conjugate_a=lower, **kw)
  return x[..., 0] if vector else x


# -- LU ------------------------------------------------------------------------------------

@compiled_when_eager(static_argnames=("permute_l", "overwrite_a", "check_finite"), staged="lu")
def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
  """``(p, l, u)`` with ``a = p @ l @ u`` (or ``(p @ l, u)`` when ``permute_l``)."""
  (a,) = _inexact("lu", a, lists=True)
  factors, _, perm = lax_linalg.lu(a)
  m, n = a.shape[-2:]
  k = min(m, n)
  l = jnp.tril(factors[..., :, :k], -1) + jnp.eye(m, k, dtype=a.dtype)
  u = jnp.triu(factors[..., :k, :])
  # p is real (float32 for complex64), as JAX's
  p = jnp.swapaxes(jnp.eye(m, dtype=dtypes.to_floating_dtype(a.dtype))[perm], -1, -2)
  if permute_l:
    return jnp.matmul(p, l), u
  return p, l, u


@compiled_when_eager(static_argnames=("overwrite_a", "check_finite"), staged="lu_factor")
def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
  """``(lu, piv)``: packed factors and LAPACK-style (0-based) row swaps."""
  (a,) = _inexact("lu_factor", a, lists=True)
  factors, pivots, _ = lax_linalg.lu(a)
  return factors, pivots


@compiled_when_eager(static_argnames=("trans", "overwrite_b", "check_finite"), staged="lu_solve")
def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False,
             check_finite: bool = True):
  """Solves ``a x = b`` (``trans`` 0), ``a^T x = b`` (1) or ``a^H x = b`` (2)."""
  if trans not in (0, 1, 2):
    raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans!r}")
  factors, pivots = lu_and_piv
  factors, b = _inexact("lu_solve", factors, b)
  perm = lax_linalg.lu_pivots_to_permutation(pivots, factors.shape[-2])
  vector, factors, perm, b = _solve_operands("lu_solve", factors, b, perm)
  x = solve_factored(factors, perm, b, trans)
  return x[..., 0] if vector else x


# -- decompositions ------------------------------------------------------------------------

@compiled_when_eager(static_argnames=("overwrite_a", "lwork", "mode", "pivoting", "check_finite"))
def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
  """``(q, r)`` (``mode`` "full" or "economic") or ``(r,)`` ("r"); with ``pivoting``, also
  the column permutation ``p`` with ``a[:, p] = q @ r``."""
  if mode not in ("full", "economic", "r"):
    raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
  (a,) = promote_dtypes_inexact(jnp.asarray(a))  # (lists too, as JAX's)
  q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=mode != "economic")
  return ((r,) if mode == "r" else (q, r)) + tuple(p)


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
  """``(Q @ c, R)`` (``mode="left"``) or ``(c @ Q, R)`` ("right") for ``a = Q R``, without
  forming Q (``conj(Q)`` when ``conjugate``); with ``pivoting``, also the permutation."""
  a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
  if mode not in ("right", "left"):
    raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
  vector = c.ndim == 1
  if vector:
    c = c[:, None] if mode == "left" else c[None, :]
  m, n = a.shape[-2:]
  k = min(m, n)
  if mode == "left" and c.shape[-2] != k:
    raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                     f"{a.shape} so Q has {k} columns, but c has {c.shape[-2]} rows "
                     f"(expected {k}).")
  if mode == "right" and c.shape[-1] != m:
    raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                     f"{a.shape} so Q has {m} rows, but c has {c.shape[-1]} columns "
                     f"(expected {m}).")
  batch = jnp.broadcast_shapes(a.shape[:-2], c.shape[:-2])
  a = jnp.broadcast_to(a, batch + a.shape[-2:])
  c = jnp.broadcast_to(c, batch + c.shape[-2:])
  if pivoting:  # LAPACK's column-pivoted factorization, its pivots made 0-based
    packed, p, taus = lax_linalg.geqp3(a, jnp.zeros(a.shape[:-2] + (n,), np.int32))
    p = p - 1
  else:
    packed, taus = lax_linalg.geqrf(a)
  if mode == "left" and m > n:
    c = jnp.concatenate([c, jnp.zeros(c.shape[:-2] + (m - k,) + c.shape[-1:], c.dtype)], -2)
  if conjugate:  # conj(Q) c = (c^T Q^H)^T and c conj(Q) = (Q^H c^T)^T
    out = jnp.swapaxes(lax_linalg.ormqr(packed, taus, jnp.swapaxes(c, -1, -2),
                                        left=mode == "right", transpose=True), -1, -2)
  else:
    out = lax_linalg.ormqr(packed, taus, c, left=mode == "left")
  if mode == "right":
    out = out[..., :k]
  if vector:
    out = jnp.ravel(out)
  r = jnp.triu(packed[..., :k, :])
  return (out, r, p) if pivoting else (out, r)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
  """``(u, s, vh)`` (a plain tuple, as JAX's) or ``s``."""
  out = jnp_linalg.svd(jnp.asarray(a), full_matrices=full_matrices, compute_uv=compute_uv)
  return tuple(out) if compute_uv else out


@compiled_when_eager(static_argnames=(
    "lower", "eigvals_only", "overwrite_a", "overwrite_b", "turbo", "eigvals", "type",
    "check_finite", "subset_by_index", "subset_by_value", "driver"))
def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True, subset_by_index=None, subset_by_value=None, driver=None):
  """``(w, v)`` (or ``w``) of a Hermitian matrix; ``subset_by_index=(lo, hi)`` inclusive
  (SciPy's argument, beyond JAX's signature).  ``turbo`` has no effect, as in JAX."""
  if b is not None:
    raise NotImplementedError("Only the b=None case of eigh is implemented")
  if type != 1:
    raise NotImplementedError("Only the type=1 case of eigh is implemented.")
  if eigvals is not None:
    raise NotImplementedError("Only the eigvals=None case of eigh is implemented; "
                              "subset_by_index selects eigenvalues by index.")
  if subset_by_value is not None:
    raise NotImplementedError("subset_by_value is not supported")
  a = _square("eigh", a, square_error=TypeError, lists=True)
  subset = None if subset_by_index is None else (int(subset_by_index[0]),
                                                 int(subset_by_index[1]) + 1)
  v, w = lax_linalg.eigh(a, lower=lower, subset_by_index=subset)
  return w if eigvals_only else (w, v)


@compiled_when_eager(static_argnames=("output",))
def schur(a, output: str = "real"):
  """``(T, Z)`` with ``a = Z T Z^H``; ``output`` "real" (quasi-triangular) or "complex"."""
  if output not in ("real", "complex"):
    raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
  a = _square("schur", a)
  if output == "complex":
    a = a.astype(dtypes.to_complex_dtype(a.dtype))
  return list(lax_linalg.schur(a))  # (a list, as JAX's)


@compiled_when_eager(static_argnames=("calc_q", "overwrite_a", "check_finite"), staged="hessenberg")
def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
  """The upper Hessenberg form ``h`` of ``a`` (and ``q`` with ``a = q h q^H``)."""
  a = _square("hessenberg", a)
  packed, taus = lax_linalg.hessenberg(a)
  h = jnp.triu(packed, -1)
  if not calc_q:
    return h
  n = a.shape[-1]
  if n <= 1:
    return h, jnp.broadcast_to(jnp.eye(n, dtype=a.dtype), a.shape)
  sub = lax_linalg.householder_product(packed[..., 1:, :-1], taus)
  q = jnp.zeros(a.shape, a.dtype).at[..., 0, 0].set(1).at[..., 1:, 1:].set(sub)
  return h, q


@compiled_when_eager(static_argnames=("side", "method", "eps", "max_iterations"), staged="polar")
def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
  """``(u, p)``: unitary ``u`` and positive semidefinite ``p`` with ``a = u p`` (right) or
  ``a = p u`` (left), by QDWH (tall matrices on the right, wide ones on the left) or from
  the SVD (``method="svd"``)."""
  if side not in ("right", "left"):
    raise ValueError("The argument `side` must be either 'right' or 'left'.")
  (a,) = _inexact("polar", a, lists=True)
  if a.ndim < 2:
    raise ValueError("The input `a` must be at least a 2-D array.")
  if method == "qdwh":
    m, n = a.shape[-2:]
    if (m >= n) != (side == "right"):
      raise NotImplementedError("method='qdwh' computes right polar decompositions of "
                                "matrices with m >= n and left ones of matrices with m < n; "
                                f"got shape {a.shape} with side={side!r}.")
    if side == "right":
      fn, signature = (lambda x: _qdwh_polar(x, eps, max_iterations)), "(m,n)->(m,n),(n,n)"
    else:
      fn, signature = (lambda x: tuple(map(_H, _qdwh_polar(_H(x), eps, max_iterations))),
                       "(m,n)->(m,n),(m,m)")
    return jnp.vectorize(fn, signature=signature)(a)
  if method != "svd":
    raise ValueError(f"Unknown polar decomposition method {method}.")
  u, s, vh = lax_linalg.svd(a, full_matrices=False)
  unitary = jnp.matmul(u, vh)
  if side == "right":
    p = jnp.matmul(_H(vh) * s.astype(a.dtype)[..., None, :], vh)
  else:
    p = jnp.matmul(u * s.astype(a.dtype)[..., None, :], _H(u))
  return unitary, p


def _qdwh_polar(x, eps=None, max_iterations=None):
  u, p, _, _ = qdwh(x, eps=eps, max_iterations=max_iterations)
  return u, p


# -- solve, inv, det -----------------------------------------------------------------------

def inv(a, overwrite_a: bool = False, check_finite: bool = True):
  return jnp_linalg.inv(a)


def det(a, overwrite_a: bool = False, check_finite: bool = True):
  return jnp_linalg.det(a)


_ASSUME_A = ["gen", "sym", "her", "pos"]


@compiled_when_eager(static_argnames=("lower", "overwrite_a", "overwrite_b", "debug",
                                     "check_finite", "assume_a"))
def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
  """Solves ``a x = b``: ``jnp.linalg.solve``, or for ``assume_a="pos"`` a Cholesky
  factorization of the ``lower`` (else upper) triangle, as JAX: a symmetric
  ``custom_linear_solve`` whose derivatives go through the whole ``a @ x``."""
  if assume_a not in _ASSUME_A:
    raise ValueError(f"Expected assume_a to be one of {_ASSUME_A}; got {assume_a!r}")
  if assume_a != "pos":
    return jnp_linalg.solve(a, b)
  a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
  jnp_linalg.check_solve_shapes(a, b)
  factors = cho_factor(stop_gradient(a), lower=lower)
  solve_vector = functools.partial(
      custom_linear_solve, lambda x: _matvec(a, x), solve=lambda _, x: cho_solve(factors, x),
      symmetric=True)
  if a.ndim == b.ndim + 1:
    return solve_vector(b)
  return vmap(solve_vector, b.ndim - 1, b.ndim - 1)(b)


def _matvec(a, x):
  """``a @ x`` for (..., n, m) ``a`` and (..., m) ``x``, batch dimensions broadcast."""
  batch = jnp.broadcast_shapes(a.shape[:-2], x.shape[:-1])
  a = jnp.broadcast_to(a, batch + a.shape[-2:])
  x = jnp.broadcast_to(x, batch + x.shape[-1:])
  nb = tuple(range(len(batch)))
  return dot_general(a, x, (((a.ndim - 1,), (x.ndim - 1,)), (nb, nb)),
                     precision=Precision.HIGHEST)


# -- matrix functions ----------------------------------------------------------------------

# Padé coefficients b_0..b_m of the [m/m] approximant of exp, for m = 3, 5, 7, 9, 13.
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}
# Per precision: the 1-norm above which ``A`` is scaled down, the norms at which the next
# Padé degree takes over, and the degrees (Higham 2005, as JAX chooses them).
_EXPM_SCHEDULE = {
    "double": (5.371920351148152, (1.495585217958292e-2, 2.539398330063230e-1,
                                   9.504178996162932e-1, 2.097847961257068), (3, 5, 7, 9, 13)),
    "single": (3.925724783138660, (4.258730016922831e-1, 1.880152677804762), (3, 5, 7)),
}


def _dot(a, b):
  return jnp.matmul(a, b, precision=Precision.HIGHEST)


def _pade(m):
  """``(U, V)``: the odd and even parts of the [m/m] Padé numerator of ``exp(a)``."""
  b = _PADE[m]

  def uv(a):
    ident = jnp.eye(*a.shape, dtype=a.dtype)
    a2 = _dot(a, a)
    if m == 13:
      a4 = _dot(a2, a2)
      a6 = _dot(a4, a2)
      u = _dot(a, _dot(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
               + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
      v = _dot(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 \
          + b[2] * a2 + b[0] * ident
      return u, v
    powers = [ident, a2]  # a^0, a^2, a^4, ...
    while len(powers) <= m // 2:
      powers.append(_dot(powers[-1], a2))
    u = _dot(a, functools.reduce(operator.add, [b[2 * k + 1] * powers[k]
                                                for k in range(m // 2, -1, -1)]))
    v = functools.reduce(operator.add, [b[2 * k] * powers[k] for k in range(m // 2, -1, -1)])
    return u, v
  return uv


def _expm_2d(a, upper_triangular, max_squarings):
  if a.dtype in (np.float64, np.complex128):
    max_norm, bounds, degrees = _EXPM_SCHEDULE["double"]
  elif a.dtype in (np.float32, np.complex64):
    max_norm, bounds, degrees = _EXPM_SCHEDULE["single"]
  else:
    raise TypeError(f"A.dtype={a.dtype} is not supported.")
  norm1 = jnp_linalg.norm(a, 1)
  n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(norm1 / max_norm)))
  scaled = a / 2 ** n_squarings.astype(a.dtype)
  which = jnp.digitize(norm1, jnp.array(bounds, dtype=norm1.dtype))
  u, v = switch(which, [_pade(m) for m in degrees], scaled)
  p, q = u + v, v - u

  def approximate(p, q):
    r = solve_triangular(q, p) if upper_triangular else jnp_linalg.solve(q, p)

    def square(r, i):
      return cond(i < n_squarings, lambda r: _dot(r, r), lambda r: r, r), None
    return scan(square, r, jnp.arange(max_squarings, dtype=n_squarings.dtype))[0]
  return cond(n_squarings > max_squarings, lambda p, q: jnp.full_like(a, np.nan),
                  approximate, p, q)


@compiled_when_eager(static_argnames=("upper_triangular", "max_squarings"), staged="expm")
def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
  """The matrix exponential: Padé approximation of degree 3 to 13 chosen by the 1-norm, with
  scaling and squaring (NaN where more than ``max_squarings`` squarings would be needed);
  ``upper_triangular`` solves the Padé system with a triangular solve."""
  (A,) = _inexact("expm", A)
  if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
    raise ValueError(f"Expected A to be a (batched) square matrix, got A.shape={A.shape}.")
  return jnp.vectorize(lambda a: _expm_2d(a, upper_triangular, max_squarings),
                       signature="(n,n)->(n,n)")(A)


@compiled_when_eager(static_argnames=("method", "compute_expm"), staged="expm_frechet")
def expm_frechet(A, E, *, method=None, compute_expm: bool = True):
  """The Fréchet derivative of ``expm`` at ``A`` in direction ``E`` (and ``expm(A)``): the
  JVP of ``expm``.  ``method`` (SciPy's choice of algorithm) has no effect, as in JAX."""
  A, E = jnp.asarray(A), jnp.asarray(E)
  if A.ndim < 2 or A.shape[-2] != A.shape[-1]:
    raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
  if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
    raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
  if A.shape != E.shape:
    raise ValueError(f"expected A and E to be the same shape, got A.shape={A.shape} "
                     f"E.shape={E.shape}")
  expm_a, frechet = jvp(lambda a: expm(a), (A,), (E,))
  return (expm_a, frechet) if compute_expm else frechet


def _upper_recurrence(t, diag, entry):
  """The upper-triangular ``f`` with diagonal ``diag`` whose entries above it satisfy
  ``f[i, j] = entry(t, f, i, j, sum_k ...)``, filled a superdiagonal at a time."""
  n = t.shape[-1]
  f = jnp.diag(diag)
  rows = jnp.arange(n)

  def diagonal_d(d, f):
    i = rows
    j = jnp.minimum(rows + d, n - 1)
    valid = rows + d < n
    new = entry(t, f, i, j)
    return f.at[i, j].set(jnp.where(valid, new, f[i, j]))
  return fori_loop(1, n, diagonal_d, f)


def _between(i, j, n):
  """Mask ``[len(i), n]``: ``i < k < j``."""
  k = jnp.arange(n)
  return (k[None, :] > i[:, None]) & (k[None, :] < j[:, None])


def _sqrtm_entry(t, r, i, j):
  n = t.shape[-1]
  mask = _between(i, j, n).astype(t.dtype)
  s = jnp.sum(r[i, :] * mask * jnp.swapaxes(r[:, j], 0, 1), axis=-1)
  denom = r[i, i] + r[j, j]
  return jnp.where(denom == 0, 0, (t[i, j] - s) / jnp.where(denom == 0, 1, denom))


@compiled_when_eager(static_argnames=("blocksize",))
def sqrtm(A, blocksize: int = 1):
  """The principal matrix square root (complex), by the Schur method."""
  if blocksize > 1:
    raise NotImplementedError("Blocked version is not implemented yet.")
  A = _square("sqrtm", A)
  t, z = schur(A, output="complex")
  r = _upper_recurrence(t, jnp.sqrt(jnp.diagonal(t)), _sqrtm_entry)
  return jnp.matmul(jnp.matmul(z, r), _H(z))


@compiled_when_eager(staged="_algorithm_11_1_1")
def _parlett(f, t):
  """Golub & Van Loan's Algorithm 11.1.1 (the Schur-Parlett recurrence) filling the upper
  triangle of ``f`` one superdiagonal ``p`` at a time; also the smallest ``|t_jj - t_ii|``."""
  n = t.shape[0]
  k = jnp.arange(n)

  def entry(i, carry):
    p, f, minden = carry
    j = i + p
    s = t[i - 1, j - 1] * (f[j - 1, j - 1] - f[i - 1, i - 1])
    between = (k >= i) & (k < j - 1)
    s = s + (jnp.where(between, t[i - 1], 0) @ jnp.where(between, f[:, j - 1], 0)
             - jnp.where(between, f[i - 1], 0) @ jnp.where(between, t[:, j - 1], 0))
    den = t[j - 1, j - 1] - t[i - 1, i - 1]
    f = f.at[i - 1, j - 1].set(jnp.where(den != 0, s / den, s))
    return p, f, jnp.minimum(minden, jnp.abs(den))

  def superdiagonal(p, carry):
    _, f, minden = fori_loop(1, n - p + 1, entry, (p, *carry))
    return f, minden

  return fori_loop(1, n, superdiagonal, (f, jnp.abs(t[0, 0])))


def funm(A, func, disp: bool = True):
  """``func`` applied to a square matrix through its complex Schur form (``schur`` then
  ``rsf2csf``) and the Schur-Parlett recurrence; with ``disp=False`` also JAX's estimate of
  the relative error."""
  A = jnp.asarray(A)
  if A.ndim != 2 or A.shape[0] != A.shape[1]:
    raise ValueError("expected square array_like input")
  t, z = rsf2csf(*schur(A))
  f = jnp.diag(func(jnp.diag(t))).astype(t.dtype)
  f, minden = _parlett(f, t)
  f = z @ f @ z.conj().T
  if disp:
    return f
  # (JAX takes float16's epsilon for float16 results but then overwrites it: as it does)
  tol = dtypes.finfo(np.float32 if f.dtype.char.lower() == "f" else np.float64).eps
  minden = jnp.where(minden == 0.0, tol, minden)
  err = jnp.where(jnp.any(jnp.isinf(f)), np.inf, jnp.minimum(1, jnp.maximum(
      tol, (tol / minden) * jnp_linalg.norm(jnp.triu(t, 1), 1))))
  return f, err


def _rsf2csf_2d(t, z):
  """Givens rotations that split each 2x2 diagonal block of the real Schur form ``t``, from
  the bottom up, into the complex (upper triangular) Schur form; ``z`` follows them."""
  n = t.shape[0]
  if n == 1:
    return t, z
  eps = dtypes.finfo(t.dtype).eps
  idx = jnp.arange(n)

  def split(m, t, z):   # (JAX's steps: the norm, the masked products)
    mu = jnp_linalg.eigvals(dynamic_slice(t, (m - 1, m - 1), (2, 2))) - t[m, m]
    r = jnp_linalg.norm(jnp.array([mu[0], t[m, m - 1]])).astype(t.dtype)
    c, s = mu[0] / r, t[m, m - 1] / r
    g = jnp.array([[c.conj(), s], [-s, c]], dtype=t.dtype)
    rows = dynamic_slice_in_dim(t, m - 1, 2, axis=0)
    later = idx >= m - 1
    t = dynamic_update_slice_in_dim(t, jnp.where(~later, rows, g @ jnp.where(later, rows, 0)),
                                    m - 1, axis=0)
    cols = dynamic_slice_in_dim(t, m - 1, 2, axis=1)
    upper = idx[:, None] < m + 1
    t = dynamic_update_slice_in_dim(
        t, jnp.where(~upper, cols, jnp.where(upper, cols, 0) @ g.conj().T), m - 1, axis=1)
    zc = dynamic_slice_in_dim(z, m - 1, 2, axis=1) @ g.conj().T
    return t, dynamic_update_slice_in_dim(z, zc, m - 1, axis=1)

  def step(i, tz):
    t, z = tz
    m = n - i
    coupled = jnp.abs(t[m, m - 1]) > eps * (jnp.abs(t[m - 1, m - 1]) + jnp.abs(t[m, m]))
    t, z = cond(coupled, split, lambda m, t, z: (t, z), m, t, z)
    return t.at[m, m - 1].set(0.0), z
  return fori_loop(1, n, step, (t, z))


@compiled_when_eager(static_argnames=("check_finite",), staged="rsf2csf")
def rsf2csf(T, Z, check_finite: bool = True):
  """The complex Schur form ``(T, Z)`` from the real one (``schur(a)``): same ``Z T Z^H``,
  but ``T`` upper triangular."""
  t, z = jnp.asarray(T), jnp.asarray(Z)
  if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
    raise ValueError("Input 'T' must be square.")
  if z.ndim < 2 or z.shape[-1] != z.shape[-2]:
    raise ValueError("Input 'Z' must be square.")
  if t.shape[-1] != z.shape[-1]:
    raise ValueError(f"Input array shapes must match: Z: {z.shape} vs. T: {t.shape}")
  dt = dtypes.to_complex_dtype(dtypes.to_inexact_dtype(jnp.result_type(t, z)))
  return jnp.vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(t.astype(dt),
                                                                          z.astype(dt))


def _sylvester_triangular(r, s, f):
  """``Y`` with ``r Y + Y s^T = f`` for upper triangular ``r`` and ``s``, entry by entry from
  the bottom right (JAX's scan, so its roundings are JAX's)."""
  m, n = f.shape

  def entry(y_flat, idx):
    i, j = idx // n, idx % n
    y = y_flat.reshape((m, n))
    row = jnp.sum(jnp.where(jnp.arange(m) > i, r[i, :] * y[:, j], 0.0))
    col = jnp.sum(jnp.where(jnp.arange(n) > j, y[i, :] * s[:, j], 0.0))
    rhs = f[i, j] - (row + col)
    return y_flat.at[i * n + j].set(rhs / (r[i, i] + s[j, j])), None

  y_flat, _ = scan(entry, jnp.zeros((m * n,), dtype=f.dtype), jnp.arange(m * n - 1, -1, -1))
  return y_flat.reshape((m, n))


def _sylvester_2d(a, b, c, *, method, tol):
  m, n = c.shape[-2:]
  if method == "schur":
    r, u = schur(a, output="complex")
    s, v = schur(b.conj().T, output="complex")
    f = u.conj().T @ c.astype(r.dtype) @ v
    x = u @ _sylvester_triangular(r, s.conj().T, f) @ v.conj().T
  elif method == "eigen":
    eig_a, ua = jnp_linalg.eig(a)
    eig_b, ub = jnp_linalg.eig(b)
    f = jnp_linalg.solve(ua, c.astype(eig_a.dtype) @ ub)
    y = f / (eig_a[:, None] + eig_b[None, :])
    x = ua[:m, :m] @ y[:m, :n] @ jnp_linalg.inv(ub)[:n, :n]
  else:
    raise ValueError(f'Unrecognized method {method}. The two valid methods are either "schur" '
                     'or "eigen".')
  if not dtypes.is_complex(c.dtype):
    x = x.real
  singular = jnp.any(jnp.abs(jnp_linalg.eigvals(a)[:, None] + jnp_linalg.eigvals(b)[None, :])
                     < tol)
  return cond(singular, lambda: jnp.zeros_like(x) * np.nan, lambda: x)


@compiled_when_eager(static_argnames=("method",), staged="solve_sylvester")
def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
  """``X`` with ``A X + X B = C``, by Bartels-Stewart (``method="schur"``) or by
  diagonalising ``A`` and ``B`` (``"eigen"``); NaNs where some eigenvalue of ``A`` and one of
  ``-B`` are within ``tol``.  Leading dimensions are batch dimensions."""
  A, B, C = promote_dtypes_inexact(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C))
  m, n = C.shape[-2:]
  if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
    raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\n"
                     f"B: {B.shape}\nC: {C.shape}")
  return jnp.vectorize(lambda a, b, c: _sylvester_2d(a, b, c, method=method, tol=tol),
                       signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)
