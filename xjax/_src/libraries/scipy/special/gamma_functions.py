"""The gamma family: gamma, its logarithm, sign and derivatives, the incomplete gamma
and beta functions, and the combinatorial functions built on them."""
from __future__ import annotations


import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import concrete_or_error
from xjax._src.primitives.custom_derivatives import custom_jvp
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.primitives.lax.elementwise import (digamma as lax_digamma, exp, floor, lgamma,
                                                  polygamma as lax_polygamma)
from xjax._src.primitives.lax.special import betainc as lax_betainc, igamma, igammac
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays, real_only


def gammaln(x):
  """log|Gamma(x)|."""
  (x,) = inexact_arrays("gammaln", x)
  return lgamma(x)


@compiled_when_eager(staged="gammasgn")
def gammasgn(x):
  """The sign of Gamma(x): NaN at the poles, -inf and NaN; -1 at -0."""
  (x,) = inexact_arrays("gammasgn", x)
  real_only("gammasgn", x)
  floor_x = floor(x)
  neg = x < 0
  nan = (neg & (x == floor_x)) | jnp.isnan(x)
  minus = (neg & (jnp.fmod(floor_x, 2) != 0)) | ((x == 0) & jnp.signbit(x))
  return jnp.where(nan, np.nan, jnp.where(minus, -1.0, 1.0)).astype(x.dtype)


def loggamma(x):
  """log(Gamma(x)) on the principal branch: NaN for real x <= 0; complex x as SciPy's
  (continuous off the negative real axis, NaN at the poles)."""
  (x,) = inexact_arrays("loggamma", x)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    return _complex_loggamma(x)
  return jnp.where(x > 0, lgamma(x), np.nan)


# Stirling's series for log Gamma: B_2k / (2k (2k - 1)) for k = 1..8
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156,
             -3617 / 122400)


def _complex_loggamma(z):
  """Above the real axis (the lower half by conjugation): for Re(z) >= 1/2, Stirling's
  series at z + 7 less log z + ... + log(z + 6) (a sum of principal logarithms, so on the
  principal branch); left of it, the reflection log pi - log sin(pi z) - log Gamma(1 - z)
  with log sin(pi z) = -log 2 + pi y + i pi (1/2 - x) + log(1 - exp(2 pi i z)), the branch
  continuous in the upper half plane."""
  re, im = jnp.real(z), jnp.imag(z)
  lower = im < 0
  w = jnp.where(lower, jnp.conj(z), z)
  reflect = jnp.real(w) < 0.5
  u = jnp.where(reflect, 1 - w, w)
  t = u + 7
  r = 1 / (t * t)
  series = _STIRLING[-1]
  for c in _STIRLING[-2::-1]:
    series = series * r + c
  log_gamma_u = ((t - 0.5) * jnp.log(t) - t + 0.5 * np.log(2 * np.pi) + series / t
                 - sum(jnp.log(u + k) for k in range(7)))
  log_sin = (-np.log(2.0) + np.pi * jnp.imag(w) + 1j * np.pi * (0.5 - jnp.real(w))
             + jnp.log1p(-jnp.exp(2j * np.pi * w)))
  out = jnp.where(reflect, np.log(np.pi) - log_sin - log_gamma_u, log_gamma_u)
  out = jnp.where(lower, jnp.conj(out), out)
  pole = (im == 0) & (re <= 0) & (re == jnp.floor(re))
  bad = pole | jnp.isnan(re) | jnp.isnan(im)
  return jnp.where(bad, jnp.asarray(complex(np.nan, np.nan), z.dtype), out)


def gamma(x):
  """Gamma(x) = gammasgn(x) * exp(gammaln(x)); complex x by Lanczos' approximation."""
  (x,) = inexact_arrays("gamma", x)
  if dtypes.issubdtype(x.dtype, np.complexfloating):
    return _complex_gamma(x)
  return gammasgn(x) * exp(lgamma(x))


# Lanczos' coefficients for g = 7 with nine terms (Godfrey's), good to float64 precision
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)


def _lanczos_log_gamma(z):
  """log Gamma(z) by Lanczos' approximation in log space (JAX's way for complex ``gamma``):
  ``(w + 1/2) log t - t + log A(w) + log(2 pi)/2`` with w = z - 1, t = w + g + 1/2, and the
  reflection ``log pi - log sin(pi z) - log Gamma(1 - z)`` left of Re(z) = 1/2."""
  reflect = jnp.real(z) < 0.5
  w = jnp.where(reflect, 1.0 - z, z) - 1.0
  coeffs = jnp.asarray(np.array(_LANCZOS), dtype=z.dtype)
  ks = jnp.expand_dims(jnp.arange(1, 9, dtype=z.dtype), tuple(range(w.ndim)))
  series = coeffs[0] + jnp.sum(jnp.expand_dims(coeffs[1:], tuple(range(w.ndim)))
                               / (jnp.expand_dims(w, (w.ndim,)) + ks), axis=-1)
  t = w + _LANCZOS_G + 0.5
  log_gamma = (jnp.asarray(0.5 * np.log(2.0 * np.pi), dtype=z.dtype) + (w + 0.5) * jnp.log(t)
               - t + jnp.log(series))
  z_safe = jnp.where(reflect, z, jnp.full_like(z, 0.5))   # (no NaN on the unused side)
  reflected = (jnp.log(jnp.asarray(np.pi, dtype=z.dtype)) - jnp.log(jnp.sin(np.pi * z_safe))
               - log_gamma)
  return jnp.where(reflect, reflected, log_gamma)


def _complex_gamma(z):
  """Gamma(z) = exp(log Gamma(z)); NaN (both parts) at the poles and for NaN parts, as
  SciPy (the masked points take z = 1 inside, so no NaN reaches a gradient)."""
  pole = (jnp.imag(z) == 0) & (jnp.real(z) == jnp.floor(jnp.real(z))) & (jnp.real(z) <= 0)
  bad = pole | jnp.isnan(z)
  out = jnp.exp(_lanczos_log_gamma(jnp.where(bad, jnp.ones_like(z), z)))
  return jnp.where(bad, jnp.array(complex(np.nan, np.nan), dtype=z.dtype), out)


def betaln(a, b):
  """log|B(a, b)|."""
  a, b = inexact_arrays("betaln", a, b)
  return _betaln(a, b)


def _betaln(a, b):
  # as JAX (after CDFLIB's betaln): with a <= b, lgamma(a) + [lgamma(b) - lgamma(a + b)],
  # the bracket by CDFLIB's algdiv once b >= 8 (where the two lgammas would cancel)
  a, b = jnp.minimum(a, b), jnp.maximum(a, b)
  small_b = lgamma(a) + (lgamma(b) - lgamma(a + b))
  return jnp.where(b < 8, small_b, lgamma(a) + _algdiv(a, b))


# CDFLIB's coefficients of del(b) - del(a + b), del(x) = lgamma(x) - Stirling's terms
_ALGDIV = (0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03,
           -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02)


def _algdiv(a, b):
  """lgamma(b) - lgamma(a + b) for a <= b, b >= 8 (CDFLIB's algdiv)."""
  h = a / b
  x = h / (1 + h)
  d = b + (a - 0.5)
  x2 = x * x
  s = [1.0 + (x + x2)]  # (1 - x^n) / (1 - x) for n = 3, 5, ..., 11
  for _ in range(4):
    s.append(1.0 + (x + x2 * s[-1]))
  s3, s5, s7, s9, s11 = s
  t = (1.0 / b) ** 2
  c0, c1, c2, c3, c4, c5 = _ALGDIV
  w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
  w = w * (x / b)
  u = d * jnp.log1p(a / b)
  v = a * (jnp.log(b) - 1.0)
  return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def beta(a, b):
  """B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)."""
  a, b = inexact_arrays("beta", a, b)
  real_only("beta", a)
  sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
  return sign * exp(_betaln(a, b))


def betainc(a, b, x):
  """The regularized incomplete beta function I_x(a, b)."""
  a, b, x = inexact_arrays("betainc", a, b, x)
  real_only("betainc", x)
  return lax_betainc(a, b, x)


def digamma(x):
  """The logarithmic derivative of Gamma."""
  (x,) = inexact_arrays("digamma", x)
  return lax_digamma(x)


def polygamma(n, x):
  """The n-th derivative of digamma (n a non-negative integer)."""
  n_dtype = dtypes.dtype(n, canonicalize=True)  # a Python float reads float32, as JAX
  if not dtypes.issubdtype(n_dtype, np.integer):
    raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype "
                     f"{n_dtype}.")
  n_arr, x = inexact_arrays("polygamma", n, x)
  real_only("polygamma", x)
  return lax_polygamma(n_arr, x)


def gammainc(a, x):
  """The regularized lower incomplete gamma function P(a, x)."""
  a, x = inexact_arrays("gammainc", a, x)
  return igamma(a, x)


def gammaincc(a, x):
  """The regularized upper incomplete gamma function Q(a, x)."""
  a, x = inexact_arrays("gammaincc", a, x)
  return igammac(a, x)


def multigammaln(a, d):
  """The log of the multivariate gamma function of dimension ``d`` (a static int)."""
  d = _concrete_int(d)
  (a,) = inexact_arrays("multigammaln", a)
  d_ = jnp.asarray(d, a.dtype)
  constant = (np.array(0.25, a.dtype) * d_) * (d_ - np.array(1, a.dtype)) * jnp.log(
      np.array(np.pi, a.dtype))
  terms = lgamma(jnp.expand_dims(a, -1) - jnp.arange(d, dtype=a.dtype) / np.array(2, a.dtype))
  return jnp.sum(terms, axis=-1) + constant


def _concrete_int(d):
  d = concrete_or_error(d, "multigammaln d")
  try:
    return int(np.asarray(d).item())  # as JAX: a float d is truncated
  except Exception:
    raise TypeError("multigammaln: the dimension `d` must be a concrete integer, got "
                    f"{d!r}.") from None


def factorial(n, exact: bool = False):
  """n! as a float (Gamma(n + 1)); 0 for n < 0."""
  if exact:
    raise NotImplementedError("factorial with exact=True")
  (n,) = inexact_arrays("factorial", n)
  return jnp.where(n < 0, 0, exp(lgamma(n + 1)))


def comb(N, k, *, repetition: bool = False):
  """N choose k as a float; 0 outside 0 <= k <= N."""
  if repetition:
    return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
  N, k = inexact_arrays("comb", N, k)
  ok = (k <= N) & (N >= 0) & (k >= 0)
  sN, sk = jnp.where(ok, N, 0.0), jnp.where(ok, k, 0.0)
  out = exp(lgamma(sN + 1) - lgamma(sk + 1) - lgamma(sN + 1 - sk))
  return jnp.where(ok, out, 0.0)


@custom_jvp
def _poch(z, m):
  return jnp.where(m == 0., jnp.array(1, dtype=z.dtype), gamma(z + m) / gamma(z))


_poch.defjvps(lambda g, ans, z, m: (lax_digamma(z + m) - lax_digamma(z)) * _poch(z, m) * g,
              lambda g, ans, z, m: lax_digamma(z + m) * _poch(z, m) * g)


def poch(z, m):
  """The rising factorial Gamma(z + m) / Gamma(z)."""
  z, m = inexact_arrays("poch", z, m)
  real_only("jnp.poch", z)
  return _poch(z, m)
