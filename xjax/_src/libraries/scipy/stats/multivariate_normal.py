"""The multivariate normal distribution (covariance factored by Cholesky; a covariance
that is not positive definite gives NaN, as JAX), computed as JAX computes it."""
import functools

import numpy as np

from xjax._src.primitives.lax.linalg import cholesky, triangular_solve
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact


def logpdf(x, mean, cov, allow_singular=None):
  if allow_singular is not None:
    raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
  x, mean, cov = (jnp.asarray(v) for v in promote_dtypes_inexact(x, mean, cov))
  log2pi = jnp.log(2 * np.pi)  # (a weak float32 computed by XLA, as JAX's)
  if not mean.shape:
    return -0.5 * jnp.square(x - mean) / cov - 0.5 * (log2pi + jnp.log(cov))
  n = mean.shape[-1]
  if cov.shape and (cov.ndim < 2 or cov.shape[-2:] != (n, n)):  # before x's (as JAX)
    raise ValueError("multivariate_normal.logpdf got incompatible shapes: x "
                     f"{x.shape}, mean {mean.shape}, cov {cov.shape} (cov must end in "
                     f"({n}, {n}))")
  y = x - mean
  if not cov.shape:
    return -0.5 * jnp.einsum("...i,...i->...", y, y) / cov - n / 2 * (log2pi + jnp.log(cov))
  chol = cholesky(cov)
  # z L^T = y for each row (XLA's right-side solve, whose rounding is JAX's)
  solve = functools.partial(triangular_solve, lower=True, transpose_a=True)
  z = jnp.vectorize(solve, signature="(n,n),(n)->(n)")(chol, y)
  log_det = jnp.log(jnp.diagonal(chol, axis1=-1, axis2=-2)).sum(-1)
  return -0.5 * jnp.einsum("...i,...i->...", z, z) - n / 2 * log2pi - log_det


def pdf(x, mean, cov):
  return jnp.exp(logpdf(x, mean, cov))
