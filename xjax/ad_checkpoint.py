"""Checkpointing (rematerialization) helpers (``jax.ad_checkpoint``): ``checkpoint_name``,
the policies, ``print_saved_residuals``.  ``checkpoint`` / ``remat`` themselves are
``xjax.checkpoint`` / ``xjax.remat`` (JAX 0.10 removed them from this module)."""
from xjax._src.primitives.checkpoint import (Offloadable, Recompute, Saveable,  # noqa: F401
                                             checkpoint_name)
from xjax._src.primitives.checkpoint_policies import checkpoint_policies  # noqa: F401
from xjax._src.api.saved_residuals import print_saved_residuals  # noqa: F401

from xjax._src.compat.removed_names import missing_name as _missing_name


def __getattr__(name):
  raise _missing_name(__name__, name)
