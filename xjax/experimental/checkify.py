"""Functionalized runtime checks (``jax.experimental.checkify``)."""
from xjax._src.api.checkify import (Error, ErrorCategory, JaxRuntimeError,  # noqa: F401
                                    all_checks, automatic_checks, check, check_error, checkify,
                                    debug_check, div_checks, float_checks, index_checks,
                                    init_error, nan_checks, user_checks)
