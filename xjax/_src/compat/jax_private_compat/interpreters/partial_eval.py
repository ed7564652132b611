"""`jax._src.interpreters.partial_eval`: what `jax.interpreters.partial_eval` has (staging's
tracers, `JaxprTracer` among them: scico's tracing utilities test values against it)."""
from xjax.interpreters import partial_eval as _public
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  if not name.startswith("__") and hasattr(_public, name):
    return getattr(_public, name)
  raise missing("jax._src.interpreters.partial_eval", name)
