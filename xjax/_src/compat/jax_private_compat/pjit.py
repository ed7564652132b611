"""`jax._src.pjit`: `auto_axes` (jaxns' copy of `lax.map` imports it from here) and `jit_p`
(custom interpreters, quax, give it their rule: a `jit` call's `jaxpr` and `inline`)."""
from xjax.sharding import auto_axes  # noqa: F401
from xjax._src.api.jit_primitives import jit_p  # noqa: F401
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  raise missing("jax._src.pjit", name)
