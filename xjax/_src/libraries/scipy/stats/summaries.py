"""Sample summaries: mode, rankdata and sem (``jax.scipy.stats``)."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.api.transformations import vmap
from xjax._src.primitives.lax.cumulative import cummax, cummin
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.scipy.arguments import inexact_arrays


class ModeResult(NamedTuple):
  mode: object
  count: object


def _check_nan_policy(nan_policy, fn):
  if nan_policy not in ("propagate", "omit", "raise"):
    raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                     "{'propagate', 'omit', 'raise'}")
  if nan_policy == "omit":
    raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
  if nan_policy == "raise":
    raise NotImplementedError(f"In order to best JIT compile `{fn}`, we cannot know whether "
                              "`x` contains nans. Please check if nans exist in `x` outside "
                              f"of the `{fn}` function.")


def _runs(s):
  """For rows sorted along the last axis: (run start index, run end mask) per element."""
  n = s.shape[-1]
  idx = jnp.broadcast_to(jnp.arange(n), s.shape)
  first = jnp.concatenate([jnp.ones(s.shape[:-1] + (1,), bool), s[..., 1:] != s[..., :-1]], -1)
  last = jnp.concatenate([s[..., 1:] != s[..., :-1], jnp.ones(s.shape[:-1] + (1,), bool)], -1)
  start = cummax(jnp.where(first, idx, 0), axis=s.ndim - 1)
  return idx, first, last, start


def mode(a, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False):
  """The most frequent value along ``axis`` (the smallest among ties) and its count."""
  a, = arraylike("mode", a)
  x = jnp.atleast_1d(a)
  _check_nan_policy(nan_policy, "mode")
  if axis is not None:
    axis = canonical_axis(axis, x.ndim)
  shape = x.shape
  if axis is None:
    out_shape = (1,) * len(shape) if keepdims else ()
    x, axis = jnp.ravel(x), 0
  else:
    out_shape = tuple(1 if i == axis else d for i, d in enumerate(shape)) if keepdims else \
        tuple(d for i, d in enumerate(shape) if i != axis)
  # as JAX: each column's unique values and counts (sorted; NaNs one run), the first most
  # frequent
  x = jnp.moveaxis(x, axis, 0)
  x = jnp.reshape(x, (x.shape[0], math.prod(x.shape[1:])))
  vals, counts = vmap(_mode_of, in_axes=1)(x)
  return ModeResult(jnp.reshape(vals, out_shape), jnp.reshape(counts, out_shape))


def _mode_of(x):
  if x.size == 0:
    return (jnp.array(np.nan, dtypes.default_float_dtype()),
            jnp.array(0, dtypes.default_float_dtype()))
  vals, counts = jnp.unique(x, return_counts=True, size=x.size)
  return vals[jnp.argmax(counts)], counts.max()


def _rank_1d(a, method):
  out_dtype = dtypes.default_float_dtype()
  n = a.shape[0]
  order = jnp.argsort(a, stable=True)
  s = a[order]
  inverse = jnp.zeros(n, order.dtype).at[order].set(jnp.arange(n, dtype=order.dtype))
  if method == "ordinal":
    return (inverse + 1).astype(out_dtype)
  idx, first, last, start = _runs(s)
  dense = jnp.cumsum(first)
  if method == "dense":
    return dense[inverse].astype(out_dtype)
  # the end of each run: reversed cummin of run-end indices
  end = jnp.flip(cummin(jnp.flip(jnp.where(last, idx, n)), axis=0))
  lo, hi = (start + 1).astype(out_dtype), (end + 1).astype(out_dtype)
  ranks = {"min": lo, "max": hi, "average": 0.5 * (lo + hi)}[method]
  out = ranks[inverse]
  return jnp.where(jnp.any(jnp.isnan(a)), jnp.full_like(out, np.nan), out)


def rankdata(a, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate"):
  """Ranks of the data (1-based), ties resolved by ``method``: average, min, max, dense or
  ordinal; any NaN makes every rank NaN."""
  a, = arraylike("rankdata", a)
  _check_nan_policy(nan_policy, "rankdata")
  if method not in ("average", "min", "max", "dense", "ordinal"):
    raise ValueError(f"unknown method '{method}'")
  if axis is not None:
    return jnp.apply_along_axis(rankdata, axis, a, method)
  return _rank_1d(jnp.ravel(jnp.asarray(a)), method)


@compiled_when_eager(staged="sem", static_argnames=("axis", "nan_policy", "keepdims"))
def sem(a, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False):
  """The standard error of the mean: std(ddof) / sqrt(n)."""
  (b,) = inexact_arrays("sem", a)
  if nan_policy == "propagate":
    size = b.size if axis is None else b.shape[axis]
    return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
  if nan_policy == "omit":
    count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
    return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(b.dtype)
  raise ValueError(f"{nan_policy} is not supported")
