"""Custom differentiation rules (``jax.custom_derivatives``)."""
from xjax._src.closure_convert import closure_convert  # noqa: F401
from xjax._src.custom_derivatives import (custom_jvp, custom_jvp_call_p, custom_vjp,  # noqa: F401
                                          custom_vjp_call_p, zero_from_primal)
from xjax._src.custom_gradient import custom_gradient  # noqa: F401
