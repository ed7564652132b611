"""`jax._src.checkify`: the module flax nnx's ``nnx.checkify`` builds on (the public
``jax.experimental.checkify`` names, and the ``Out`` type variable of its signatures)."""
from typing import TypeVar

from xjax._src.api.checkify import (DivisionByZeroError, Error, ErrorCategory,  # noqa: F401
                                    FailedCheckError, JaxException, JaxRuntimeError, NaNError,
                                    OOBError, all_checks, automatic_checks, check, check_error,
                                    checkify, debug_check, div_checks, float_checks, index_checks,
                                    init_error, nan_checks, user_checks)
from xjax._src.compat.jax_private_compat import missing

Out = TypeVar("Out")


def __getattr__(name: str):
  raise missing("jax._src.checkify", name)
