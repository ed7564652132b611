"""Vector quantization (``jax.scipy.cluster.vq``)."""
from __future__ import annotations

from xjax._src.libraries.numpy import namespace as jnp
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
  dist = jnp.sum(jnp.square(obs[:, None, :] - code_book[None, :, :]), axis=-1)
  code = jnp.argmin(dist, axis=-1)
  return code, jnp.sqrt(jnp.min(dist, axis=-1))
