"""SciPy's special matrices (``jax.scipy.linalg``): matrices built from vectors (Toeplitz,
Hankel, circulant, Leslie, companion, Fiedler, convolution — batched over leading
dimensions, as JAX) and named matrices of a given order (Hilbert, Pascal, Helmert,
Hadamard, DFT and inverses)."""
from __future__ import annotations

import math
import operator

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import exp, lgamma
from xjax._src.primitives.lax.windowed import conv_general_dilated_patches
from xjax._src.primitives.lax.dot import Precision
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.promotion import (promote_args_inexact, promote_dtypes,
                                                 promote_dtypes_inexact)
from xjax._src.libraries.scipy.special.gamma_functions import comb


def _vector(name, *args):
  args = arraylike(name, *args)
  return [jnp.atleast_1d(jnp.asarray(a)) for a in args]


def _grid(n: int, m: int | None = None):
  """Row and column indices of an ``n x m`` matrix, shaped to broadcast."""
  return jnp.arange(n)[:, None], jnp.arange(n if m is None else m)[None, :]


# -- from vectors ---------------------------------------------------------------------------

def _toeplitz(c, r):
  # As JAX builds it: the patches of concatenate(c[::-1], r[1:]) by a convolution at full
  # precision (so its values, complex ones included, carry the convolution's rounding).
  m, n = c.shape[0], r.shape[0]
  if m == 0 or n == 0:
    return jnp.empty((m, n), dtype=jnp.promote_types(c.dtype, r.dtype))
  elems = jnp.concatenate((c[::-1], r[1:]))
  patches = conv_general_dilated_patches(
      elems.reshape((1, m + n - 1, 1)), (n,), (1,), "VALID",
      dimension_numbers=("NTC", "IOT", "NTC"), precision=Precision.HIGHEST)[0]
  return jnp.flip(patches, axis=0)


def toeplitz(c, r=None):
  """The Toeplitz matrix with first column ``c`` and first row ``r`` (default ``conj(c)``;
  ``r[0]`` is ignored); leading dimensions are batch dimensions."""
  if r is None:
    (c,) = _vector("toeplitz", c)
    r = jnp.conj(c)
  else:
    c, r = _vector("toeplitz", c, r)
  return jnp.vectorize(_toeplitz, signature="(m),(n)->(m,n)")(c, r)


def _hankel(c, r):
  m, n = c.shape[0], r.shape[0]
  dt = jnp.result_type(c, r)
  if m == 0 or n == 0:
    return jnp.zeros((m, n), dt)
  vals = jnp.concatenate([c, r[1:]]).astype(dt)
  i, j = _grid(m, n)
  return vals[i + j]


def hankel(c, r=None):
  """The Hankel matrix ``H[i, j] = v[i + j]`` with ``v = concatenate([c, r[1:]])`` (``r``
  defaults to zeros; ``r[0]`` is ignored); leading dimensions are batch dimensions."""
  if r is None:
    c, = arraylike("hankel", c)
    c = jnp.asarray(c)
    r = jnp.zeros_like(c)
  else:
    c, r = arraylike("hankel", c, r)
    c, r = jnp.asarray(c), jnp.asarray(r)
  for name, v in (("c", c), ("r", r)):
    if v.ndim == 0:
      raise ValueError(f"hankel: {name} must be at least 1-dimensional, got a scalar.")
  c = jnp.expand_dims(c, tuple(range(r.ndim - c.ndim))) if c.ndim < r.ndim else c
  r = jnp.expand_dims(r, tuple(range(c.ndim - r.ndim))) if r.ndim < c.ndim else r
  return jnp.vectorize(_hankel, signature="(m),(n)->(m,n)")(c, r)


def _circulant(c):
  n = c.shape[0]
  i, j = _grid(n)
  return c[(i - j) % n]


def circulant(c):
  """The circulant matrix ``A[i, j] = c[(i - j) mod n]`` (first column ``c``)."""
  (c,) = _vector("circulant", c)
  return jnp.vectorize(_circulant, signature="(n)->(n,n)")(c)


def _leslie(f, s):
  f, s = promote_dtypes(f, s)
  return jnp.diag(s, k=-1).at[0].set(f)


def leslie(f, s):
  """The Leslie matrix: fecundities ``f`` (length ``n >= 2``) in the first row, survival
  rates ``s`` (length ``n - 1``) on the subdiagonal."""
  f, s = _vector("leslie", f, s)
  if f.shape[-1] < 2:
    raise ValueError(f"The length of f along the last axis must be at least 2; got shape "
                     f"{f.shape}.")
  if s.shape[-1] != f.shape[-1] - 1:
    raise ValueError("Incorrect lengths for f and s. The length of s along the last axis "
                     f"must be one less than the length of f; got f shape {f.shape} and s "
                     f"shape {s.shape}.")
  return jnp.vectorize(_leslie, signature="(n),(m)->(n,n)")(f, s)


def _companion(a):
  m = a.shape[0] - 1
  return jnp.eye(m, m, k=-1, dtype=a.dtype).at[0].set(-a[1:] / a[0])


def companion(a):
  """The companion matrix of the polynomial with coefficients ``a`` (highest degree first):
  first row ``-a[1:] / a[0]``, ones on the subdiagonal.  ``a[0] == 0`` gives infs/NaNs."""
  (a,) = promote_args_inexact("companion", a)
  a = jnp.atleast_1d(a)
  if a.shape[-1] < 2:
    raise ValueError(f"The length of `a` along the last axis must be at least 2; got shape "
                     f"{a.shape}.")
  return jnp.vectorize(_companion, signature="(n)->(m,m)")(a)


def fiedler(a):
  """The symmetric Fiedler matrix ``F[i, j] = |a[i] - a[j]|``."""
  (a,) = _vector("fiedler", a)
  return jnp.abs(a[..., :, None] - a[..., None, :])


def _fiedler_companion(a):
  n = a.shape[0] - 1
  if n == 0:
    return jnp.zeros((0, 0), a.dtype)
  a = a / a[0]
  if n == 1:
    return jnp.reshape(-a[1:], (1, 1))
  i, j = _grid(n)
  even, odd = i % 2 == 0, i % 2 == 1
  at = lambda k: -a[jnp.minimum(k, n)]
  one, zero = jnp.ones((), a.dtype), jnp.zeros((), a.dtype)
  # The pentadiagonal pattern of the product of Fiedler's elementary factors.
  cases = [((i == 0) & (j == 0), -a[1]), ((i == 1) & (j == 0), one),
           (even & (j == i + 1), at(i + 2)), (even & (j == i + 2), one),
           (even & (i >= 2) & (j == i - 1), at(i + 1)), (odd & (i >= 3) & (j == i - 2), one)]
  return jnp.select([c for c, _ in cases], [v for _, v in cases], zero)


def fiedler_companion(a):
  """Fiedler's pentadiagonal companion matrix of the polynomial with coefficients ``a``
  (highest degree first): its eigenvalues are the polynomial's roots."""
  (a,) = promote_args_inexact("fiedler_companion", a)
  a = jnp.atleast_1d(a)
  if a.shape[-1] == 0:
    raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero "
                     f"length, but got an array of shape {a.shape}.")
  return jnp.vectorize(_fiedler_companion, signature="(n)->(m,m)")(a)


@compiled_when_eager(static_argnames=("n", "mode",), staged="convolution_matrix")
def convolution_matrix(a, n: int, mode: str = "full"):
  """The Toeplitz matrix ``A`` (``n`` columns) with ``A @ v == convolve(a, v, mode)``."""
  n = operator.index(n)
  if n <= 0:
    raise ValueError(f"n must be a positive integer; got {n}.")
  a, = arraylike("convolution_matrix", a)
  a = jnp.asarray(a)
  if a.ndim == 0:
    raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
  m = a.shape[-1]
  if m < 1:
    raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
  if mode not in ("full", "valid", "same"):
    raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
  # Rows [first, first + rows) of the full (m + n - 1)-row convolution matrix.
  first, rows = {"full": (0, m + n - 1), "same": ((min(m, n) - 1) // 2, max(m, n)),
                 "valid": (min(m, n) - 1, max(m, n) - min(m, n) + 1)}[mode]
  i, j = _grid(rows, n)
  k = i + first - j  # A[i, j] = a[k] where 0 <= k < m
  inside = (k >= 0) & (k < m)
  return jnp.where(inside, a[..., jnp.clip(k, 0, m - 1)], jnp.zeros((), a.dtype))


@compiled_when_eager(staged="block_diag")
def block_diag(*arrs):
  """The block-diagonal matrix of the given (at most 2-D) arrays."""
  if not arrs:
    return jnp.zeros((1, 0))
  arrs = [jnp.atleast_2d(jnp.asarray(a)) for a in arraylike("block_diag", *arrs)]
  for a in arrs:
    if a.ndim != 2:
      raise ValueError(f"Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                       f"dimensions, got {a.ndim}")
  arrs = promote_dtypes_inexact(*arrs) if any(dtypes.is_inexact(a.dtype) for a in arrs) \
      else arrs
  dt = jnp.result_type(*arrs)
  cols = sum(a.shape[1] for a in arrs)
  rows, c = [], 0
  for a in arrs:
    rows.append(jnp.pad(a.astype(dt), ((0, 0), (c, cols - c - a.shape[1]))))
    c += a.shape[1]
  return jnp.concatenate(rows, axis=0)


# -- matrices of a given order --------------------------------------------------------------

@compiled_when_eager(static_argnames=("n",), hashable_statics=True, staged="hilbert")
def hilbert(n: int):
  """The Hilbert matrix ``1 / (i + j + 1)``."""
  a = jnp.arange(n, dtype=dtypes.default_float_dtype())
  return 1.0 / (a[:, None] + a[None, :] + 1)


@compiled_when_eager(static_argnames=("n",), staged="invhilbert")
def invhilbert(n: int):
  """The inverse of the Hilbert matrix of order ``n`` from its closed form in binomial
  coefficients (floating point: entries outgrow the format quickly)."""
  a = jnp.arange(n, dtype=dtypes.default_float_dtype())
  i, j = a[:, None], a[None, :]
  s = i + j
  return ((-1.0) ** s * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1)
          * comb(s, i) ** 2)


def _binomial(n, k):
  """``n choose k`` through log-gamma (0 where ``k > n``)."""
  return exp(lgamma(n + 1.0) - lgamma(n - k + 1.0) - lgamma(k + 1.0))


_KINDS = ["symmetric", "lower", "upper"]


def _kind(kind):
  kind = "symmetric" if kind is None else kind
  if kind not in _KINDS:
    raise ValueError(f"Expected kind to be one of: {_KINDS}; got {kind}")
  return kind


@compiled_when_eager(static_argnames=("n", "kind",), hashable_statics=True, staged="pascal")
def pascal(n: int, kind: str | None = None):
  """The Pascal matrix (binomial coefficients, in float32 as JAX): lower, upper or
  symmetric (their product)."""
  kind = _kind(kind)
  a = jnp.arange(n, dtype=np.float32)
  lower = _binomial(a[:, None], a[None, :])
  return {"lower": lower, "upper": lower.T}.get(kind) if kind != "symmetric" else \
      jnp.dot(lower, lower.T)


@compiled_when_eager(static_argnames=("n", "kind",), hashable_statics=True, staged="invpascal")
def invpascal(n: int, kind: str | None = None):
  """The inverse Pascal matrix: ``(-1)^(i-j) binom(i, j)`` (lower), its transpose (upper),
  or their product in reverse order (symmetric)."""
  kind = _kind(kind)
  a = jnp.arange(n, dtype=dtypes.default_float_dtype())
  i, j = a[:, None], a[None, :]
  lower = (-1.0) ** (i - j) * _binomial(i, j)
  return {"lower": lower, "upper": lower.T}.get(kind) if kind != "symmetric" else \
      jnp.dot(lower.T, lower)


@compiled_when_eager(static_argnames=("n", "full",), staged="helmert")
def helmert(n: int, full: bool = False):
  """The Helmert matrix: rows ``(1, ..., 1, -k, 0, ...) / sqrt(k (k + 1))`` for
  ``k = 1 .. n-1``, with a first row of ``1 / sqrt(n)`` when ``full``."""
  if n < 1:
    raise ValueError(f"n must be a positive integer; got {n}.")
  i, j = _grid(n - 1, n)
  k = (i + 1).astype(dtypes.default_float_dtype())
  denom = jnp.sqrt(k * (k + 1))
  h = jnp.where(j <= i, 1.0 / denom, jnp.where(j == i + 1, -k / denom, jnp.zeros_like(denom)))
  if full:
    h = jnp.concatenate([jnp.full((1, n), 1.0 / math.sqrt(n), dtype=h.dtype), h], axis=0)
  return h


@compiled_when_eager(static_argnames=("n", "dtype",), staged="hadamard")
def hadamard(n: int, dtype=int):
  """Sylvester's Hadamard matrix of order ``n`` (a power of 2):
  ``H[i, j] = (-1)^popcount(i & j)``."""
  if n < 1 or not math.log2(n).is_integer():
    raise ValueError(f"n must be a positive power of 2; got {n}.")
  i, j = np.arange(n)[:, None], np.arange(n)[None, :]
  parity = np.vectorize(lambda v: bin(v).count("1") % 2)(i & j)
  return jnp.asarray(1 - 2 * parity, dtype=dtype)


@compiled_when_eager(static_argnames=("n", "scale", "dtype",), staged="dft")
def dft(n: int, scale: str | None = None, *, dtype=None):
  """The DFT matrix ``W[i, j] = exp(-2 pi i j / n)``, unscaled or divided by ``sqrt(n)``
  (``scale="sqrtn"``, unitary) or ``n`` (``scale="n"``)."""
  if scale is not None and scale not in ("sqrtn", "n"):
    raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
  if dtype is None:
    dtype = dtypes.default_complex_dtype()
  else:
    dtype = dtypes.check_user_dtype_supported(dtype, "dft")
    if not dtypes.is_complex(dtype):
      raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
  a = jnp.arange(n, dtype=dtype)
  w = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
  if scale == "sqrtn":
    w = w / jnp.sqrt(n)
  elif scale == "n":
    w = w / n
  return w
