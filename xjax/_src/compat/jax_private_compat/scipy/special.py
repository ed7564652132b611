"""`jax._src.scipy.special`: `jax.scipy.special`'s functions (jaxns and jaxctx import
`gammaln` and `logsumexp` from here)."""
from xjax.scipy.special import *  # noqa: F401,F403
from xjax.scipy import special as _special
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  if not name.startswith("__") and hasattr(_special, name):
    return getattr(_special, name)
  raise missing("jax._src.scipy.special", name)
