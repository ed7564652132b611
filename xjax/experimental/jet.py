"""Taylor-mode automatic differentiation, with the names of `jax.experimental.jet`."""
from xjax._src.api.jet import (JetTrace, JetTracer, ZeroSeries, ZeroTerm,  # noqa: F401
                               call_param_updaters, def_comp, def_deriv, deflinear, defzero,
                               deriv_prop, fact, jet, jet2, jet_rules, linear_prop, zero_prop,
                               zero_series, zero_term)
