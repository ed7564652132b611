"""`jax._src.earray`: ``EArray(aval, data)``, the array of an extended dtype over its
physical data (as `jax.experimental.EArray`)."""
from xjax._src.primitives.lax.extended_arrays import EArray  # noqa: F401
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  raise missing("jax._src.earray", name)
