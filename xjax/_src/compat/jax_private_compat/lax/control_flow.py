"""`jax._src.lax.control_flow`: the structured control-flow functions and their primitives
(PyTensor's JAX linker imports `scan` from here)."""
from xjax.lax import (associative_scan, cond, cumlogsumexp, cummax, cummin, cumprod,  # noqa: F401
                      cumsum, custom_linear_solve, custom_root, fori_loop, map,
                      platform_dependent, scan, switch, while_loop)
from xjax.extend.core.primitives import (cond_p, cumlogsumexp_p, cummax_p, cummin_p,  # noqa: F401
                                         cumprod_p, cumsum_p, linear_solve_p,
                                         optimization_barrier_p, scan_p, while_p)
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  raise missing("jax._src.lax.control_flow", name)
