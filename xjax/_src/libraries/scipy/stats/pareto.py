"""The Pareto distribution."""
import numpy as np

from xjax._src.primitives.lax.elementwise import (_const, add, div, exp, log, log1p, lt, mul, neg,
                                                  pow, sub)
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.arguments import inexact_arrays

# Constants typed like x, and lax's comparisons (a complex x is a TypeError), as JAX.


def _below(x, loc, scale):
  return lt(x, add(loc, scale))


def logpdf(x, b, loc=0, scale=1):
  x, b, loc, scale = inexact_arrays("pareto.logpdf", x, b, loc, scale)
  z = div(sub(x, loc), scale)
  out = neg(add(log(div(scale, b)), mul(add(b, _const(x, 1)), log(z))))
  return jnp.where(_below(x, loc, scale), -np.inf, out)


def pdf(x, b, loc=0, scale=1):
  return exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
  x, b, loc, scale = inexact_arrays("pareto.cdf", x, b, loc, scale)
  out = sub(_const(x, 1), pow(div(sub(x, loc), scale), neg(b)))
  return jnp.where(_below(x, loc, scale), _const(x, 0), out)


def logcdf(x, b, loc=0, scale=1):
  x, b, loc, scale = inexact_arrays("pareto.logcdf", x, b, loc, scale)
  out = log1p(neg(pow(div(sub(x, loc), scale), neg(b))))
  return jnp.where(_below(x, loc, scale), -np.inf, out)


def logsf(x, b, loc=0, scale=1):
  x, b, loc, scale = inexact_arrays("pareto.logsf", x, b, loc, scale)
  out = neg(mul(b, log(div(sub(x, loc), scale))))
  return jnp.where(_below(x, loc, scale), _const(x, 0), out)


def sf(x, b, loc=0, scale=1):
  return exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
  q, b, loc, scale = inexact_arrays("pareto.ppf", q, b, loc, scale)
  one = _const(q, 1)
  out = add(loc, mul(scale, pow(sub(one, q), neg(div(one, b)))))
  return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, out)
