"""Samplers that need linear algebra: multivariate normals and random orthogonal matrices."""
from __future__ import annotations

import operator
from functools import partial

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.concrete import concrete_or_error
from xjax._src.api.jit import jit
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.numpy import linalg as jnp_linalg
from xjax._src.libraries.random.continuous import _normal
from xjax._src.libraries.random.sampler_args import check_shape, float_dtype, shape_arg, single_key
from xjax._src.libraries.random.out_sharding import with_out_sharding


@with_out_sharding
def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
  """Samples of N(mean, cov); ``cov`` is factored by ``method``: "cholesky" (fastest),
  "eigh" or "svd" (these two also accept singular covariances)."""
  key = single_key("multivariate_normal", key)
  mean, cov = (jnp.asarray(v) for v in promote_dtypes_inexact(mean, cov))
  if method not in {"svd", "eigh", "cholesky"}:
    raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
  dtype = mean.dtype if dtype is None else float_dtype("multivariate_normal", dtype)
  if not dtypes.is_float(dtype):
    raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, "
                     f"got {dtype}")
  if shape is not None:
    shape = shape_arg("multivariate_normal", shape)
  return _multivariate_normal(key, mean, cov, shape, dtype, method)


@partial(jit, static_argnums=(3, 4, 5))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
  if mean.ndim < 1:
    raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                     f"{mean.ndim}")
  if cov.ndim < 2:
    raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
  n = mean.shape[-1]
  if cov.shape[-2:] != (n, n):
    raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but "
                     f"got cov.shape == {cov.shape}.")
  if shape is None:
    shape = tuple(np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2]))
  else:
    check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
  if method == "svd":
    u, s, _ = jnp_linalg.svd(cov)
    factor = u * jnp.sqrt(s[..., None, :])
  elif method == "eigh":
    w, v = jnp_linalg.eigh(cov)
    factor = v * jnp.sqrt(w[..., None, :])
  else:
    factor = jnp_linalg.cholesky(cov)
  samples = _normal(key, shape + mean.shape[-1:], dtype)
  return mean + jnp.einsum("...ij,...j->...i", factor, samples)


@with_out_sharding
def orthogonal(key, n, shape=(), dtype=None, m=None):
  """Uniformly (Haar) random ``n x m`` matrices with orthonormal columns or rows
  (square ``n x n`` when ``m`` is None)."""
  key = single_key("orthogonal", key)
  dtype = dtypes.check_user_dtype_supported(float if dtype is None else dtype)
  shape = shape_arg("orthogonal", shape)
  where = "The error occurred in xjax.random.orthogonal()"
  n = operator.index(concrete_or_error(n, where))
  m = n if m is None else operator.index(concrete_or_error(m, where))
  return _orthogonal(key, n, m, shape, dtype)


@partial(jit, static_argnums=(1, 2, 3, 4))
def _orthogonal(key, n, m, shape, dtype):
  z = _normal(key, (*shape, max(n, m), min(n, m)), dtype)
  q, r = jnp_linalg.qr(z)
  x = q * jnp.expand_dims(jnp.sign(jnp_linalg.diagonal(r)), -2)
  return jnp.swapaxes(x, -1, -2) if n < m else x
