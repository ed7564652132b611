"""The Dirichlet distribution (x indexed by component on axis 0)."""
import numpy as np

from xjax._src.primitives.lax.elementwise import lgamma
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.scipy.special.information import xlogy


def logpdf(x, alpha):
  x, alpha = (jnp.asarray(v) for v in promote_dtypes_inexact(x, alpha))
  if alpha.ndim != 1:
    raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
  if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
    raise ValueError("`x` must have either the same number of entries as `alpha` or one "
                     f"entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
  if x.shape[0] != alpha.shape[0]:
    x = jnp.concatenate([x, 1 - x.sum(0, keepdims=True)], axis=0)
  norm = jnp.sum(lgamma(alpha)) - lgamma(jnp.sum(alpha))
  a = jnp.reshape(alpha, alpha.shape + (1,) * (x.ndim - 1))
  out = jnp.sum(xlogy(a - 1, x), axis=0) - norm
  simplex = jnp.all(x > 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1) < 1e-6)
  return jnp.where(simplex, out, -np.inf)


def pdf(x, alpha):
  return jnp.exp(logpdf(x, alpha))
