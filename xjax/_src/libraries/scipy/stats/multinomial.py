"""The multinomial distribution."""
import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.lax.elementwise import lgamma
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.promotion import promote_args_numeric
from xjax._src.libraries.scipy.arguments import inexact_arrays
from xjax._src.libraries.scipy.special.information import xlogy


def logpmf(x, n, p):
  (p,) = inexact_arrays("multinomial.logpmf", p)
  x, n = (jnp.asarray(v) for v in promote_args_numeric("multinomial.logpmf", x, n))
  if not dtypes.issubdtype(x.dtype, np.integer):
    raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}")
  x, n = x.astype(p.dtype), n.astype(p.dtype)
  out = lgamma(n + 1) + jnp.sum(xlogy(x, p) - lgamma(x + 1), axis=-1)
  return jnp.where(jnp.sum(x) == n, out, -np.inf)


def pmf(x, n, p):
  return jnp.exp(logpmf(x, n, p))
