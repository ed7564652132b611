"""Checkpointing (rematerialization) helpers (``jax.ad_checkpoint``): ``checkpoint_name``,
the policies, ``print_saved_residuals``.  ``checkpoint`` / ``remat`` themselves are
``xjax.checkpoint`` / ``xjax.remat`` (JAX 0.10 removed them from this module)."""
from xjax._src.primitives.checkpoint import (Offloadable, Recompute, Saveable,  # noqa: F401
                                             checkpoint_name)
from xjax._src.primitives.checkpoint_policies import checkpoint_policies  # noqa: F401
from xjax._src.api.saved_residuals import print_saved_residuals  # noqa: F401

_REMOVED = {
    "checkpoint": "jax.ad_checkpoint.checkpoint was deprecated in JAX v0.8.2 and removed in "
                  "JAX v0.10.0; use jax.checkpoint instead.",
    "remat": "jax.ad_checkpoint.remat was deprecated in JAX v0.8.2 and removed in JAX v0.10.0; "
             "use jax.remat instead.",
}


def __getattr__(name):
  if name in _REMOVED:
    raise AttributeError(_REMOVED[name])
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
