"""``minimize``: the scipy-style front end of the quasi-Newton methods."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.scipy.optimize.quasi_newton import (OptimizeResults, minimize_bfgs,
                                                             minimize_lbfgs)

_METHODS = {"bfgs": minimize_bfgs, "l-bfgs-experimental-do-not-rely-on-this": minimize_lbfgs}


def minimize(fun: Callable, x0, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
  """Minimizes the scalar function ``fun(x, *args)`` of a 1-D array from ``x0``.

  ``method`` is "BFGS" (options maxiter, norm, gtol, line_search_maxiter) or
  "l-bfgs-experimental-do-not-rely-on-this" (maxiter, norm, maxcor, ftol, gtol, maxfun,
  maxgrad, maxls); ``tol`` is not used (as JAX): set ``options["gtol"]``.
  """
  del tol
  if not isinstance(args, tuple):
    raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")
  solver = _METHODS.get(method.lower())
  if solver is None:
    raise ValueError(f"Method {method} not recognized")
  x0 = jnp.asarray(x0)
  if x0.ndim != 1:  # a TypeError, as JAX's (from its matrix products)
    raise TypeError(f"minimize: x0 must be a 1-D array, got shape {x0.shape}; flatten the "
                     "parameters (e.g. with jnp.ravel) and reshape inside `fun`.")
  return solver(lambda x: fun(x, *args), x0, **dict(options or {}))
