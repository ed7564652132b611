"""Custom differentiation rules (``jax.custom_derivatives``)."""
from xjax._src.api.closure_convert import closure_convert  # noqa: F401
from xjax._src.primitives.custom_derivatives import (CustomVJPPrimal, SymbolicZero,  # noqa: F401
                                                     custom_jvp, custom_jvp_call_p, custom_vjp,
                                                     custom_vjp_call_p,
                                                     custom_vjp_primal_tree_values, linear_call,
                                                     remat_opt_p, zero_from_primal)
from xjax._src.api.custom_gradient import custom_gradient  # noqa: F401
