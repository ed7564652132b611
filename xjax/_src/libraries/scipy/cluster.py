"""Vector quantization (``jax.scipy.cluster.vq``)."""
from __future__ import annotations

import operator

from xjax._src.api.transformations import vmap
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.linalg import norm
from xjax._src.libraries.numpy.arguments import arraylike
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact


def vq(obs, code_book, check_finite: bool = True):
  """For each row of ``obs``, the index of the nearest code (Euclidean) and its distance."""
  del check_finite
  obs, code_book = arraylike("scipy.cluster.vq.vq", obs, code_book)
  obs, code_book = (jnp.asarray(v) for v in promote_dtypes_inexact(obs, code_book))
  if obs.ndim != code_book.ndim:
    raise ValueError("Observation and code_book should have the same rank")
  if obs.ndim == 1:
    obs, code_book = obs[..., None], code_book[..., None]
  if obs.ndim != 2:
    raise ValueError("ndim different than 1 or 2 are not supported")
  # (JAX's computation: each row's norms to the codes, then the nearest one's picked)
  dist = vmap(lambda ob: norm(ob[None] - code_book, axis=-1))(obs)
  code = jnp.argmin(dist, axis=-1)
  return code, vmap(operator.getitem)(dist, code)
