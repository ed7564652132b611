"""Custom differentiation rules (``jax.custom_derivatives``)."""
from xjax._src.closure_convert import closure_convert  # noqa: F401
from xjax._src.custom_derivatives import (  # noqa: F401
    CustomVJPPrimal, SymbolicZero, custom_jvp, custom_jvp_call_p, custom_vjp, custom_vjp_call_p,
    custom_vjp_primal_tree_values, linear_call, remat_opt_p, zero_from_primal)
from xjax._src.custom_gradient import custom_gradient  # noqa: F401
