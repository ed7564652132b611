"""`jax._src.numpy.ufuncs`: the `ufunc` class of `jax.numpy`'s universal functions and the
functions themselves (esquilax annotates with `ufunc`)."""
from xjax import numpy as _jnp
from xjax.numpy import ufunc  # noqa: F401
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  value = getattr(_jnp, name, None)
  if callable(value) and not name.startswith("_"):   # jnp.add, jnp.sin, ...
    return value
  raise missing("jax._src.numpy.ufuncs", name)
