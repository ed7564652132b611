"""`jax._src.dispatch`: equinox waits here for effectful computations (host callbacks) that
are still running before it reads their output; brainevent evaluates its primitives eagerly
with ``apply_primitive``."""
from xjax._src.execution.eager_primitives import apply_primitive  # noqa: F401
from xjax._src.libraries.environment import effects_barrier
from xjax._src.compat.jax_private_compat import missing


def wait_for_tokens() -> None:
  """Blocks until every computation with effects dispatched so far has finished."""
  effects_barrier()


def __getattr__(name: str):
  raise missing("jax._src.dispatch", name)
