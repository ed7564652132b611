"""`jax._src.ad_util`: the `stop_gradient` primitive (lineax registers a transpose rule on it)."""
from xjax._src.compat.jax_private_compat import missing
from xjax._src.primitives.lax.stop_gradient import stop_gradient_p  # noqa: F401


def __getattr__(name: str):
  raise missing("jax._src.ad_util", name)
