"""``jax.api_util``: the helpers JAX-based libraries use to trace a function themselves
(numpyro's provenance tracking, distrax's jaxpr interpreters): flattening a wrapped
function's arguments and results, static and donated arguments, axis specifications."""
from xjax._src.extend.api_util import (argnums_partial, debug_info, donation_vector,  # noqa: F401
                                       flatten_axes, flatten_fun, flatten_fun_nokwargs,
                                       rebase_donate_argnums, shaped_abstractify)
from xjax._src.foundations.sequences import safe_map  # noqa: F401
