"""``jax.extend.random``: the PRNG primitive and implementations."""
import numpy as np

from xjax import lax
from xjax import numpy as jnp
from xjax._src.random.prng import threefry_prng_impl  # noqa: F401
from xjax._src.random.threefry import threefry2x32_p  # noqa: F401

_U32 = np.dtype(np.uint32)


def threefry_2x32(keypair, count):
  """The Threefry-2x32 hash of the uint32 array ``count`` under the key ``(k1, k2)``: the
  flattened counts, padded to even length, are hashed as (first half, second half) pairs."""
  k1, k2 = keypair
  got = [np.dtype(k.dtype) if hasattr(k, "dtype") else np.result_type(k)
         for k in (k1, k2, count)]
  if any(d != _U32 for d in got):
    raise TypeError(f"threefry_2x32 requires uint32 key words and counts, got "
                    f"{', '.join(map(str, got))}")
  count = jnp.asarray(count)
  flat = count.ravel()
  odd = flat.size % 2
  if odd:
    flat = jnp.concatenate([flat, jnp.zeros((1,), _U32)])
  half = flat.size // 2
  shape = (half,)
  words = [lax.broadcast_in_dim(jnp.asarray(k), shape, ()) for k in (k1, k2)]
  hi, lo = threefry2x32_p.bind(*words, flat[:half], flat[half:])
  out = jnp.concatenate([hi, lo])
  return (out[:-1] if odd else out).reshape(count.shape)
