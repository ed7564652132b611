"""Minimization (``jax.scipy.optimize``)."""
from xjax._src.libraries.scipy.optimize.minimize import minimize  # noqa: F401
from xjax._src.libraries.scipy.optimize.quasi_newton import OptimizeResults  # noqa: F401
