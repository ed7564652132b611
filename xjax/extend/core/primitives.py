"""``jax.extend.core.primitives``: xjax's primitive objects under JAX's names."""
from xjax.lax import *  # noqa: F401,F403  (the lax.*_p primitives)
from xjax._src.primitives.checkpoint import checkpoint_p as remat_p  # noqa: F401
from xjax._src.primitives.checkpoint import name_p  # noqa: F401
from xjax._src.primitives.custom_derivatives import (custom_jvp_call_p, custom_lin_p,  # noqa: F401
                                                     custom_vjp_call_p)
from xjax._src.api.jit_primitives import call_p, closed_call_p, jit_p  # noqa: F401
from xjax._src.primitives.lax.elementwise import add_any_p as add_jaxvals_p  # noqa: F401
from xjax._src.primitives.lax.empty2 import empty2_p  # noqa: F401
from xjax._src.libraries.random.gamma import random_gamma_p  # noqa: F401
from xjax._src.libraries.random.prng import (random_bits_p, random_fold_in_p,  # noqa: F401
                                             random_seed_p, random_split_p, random_unwrap_p,
                                             random_wrap_p)
from xjax._src.libraries.random.threefry import threefry2x32_p  # noqa: F401
from xjax._src.primitives.state.primitives import get_p, swap_p  # noqa: F401
from xjax.lax.linalg import (cholesky_p, eig_p, eigh_p, hessenberg_p,  # noqa: F401
                             householder_product_p, lu_p, qr_p, schur_p, svd_p,
                             triangular_solve_p, tridiagonal_p, tridiagonal_solve_p)

del globals()["linalg"]
__all__ = sorted(n for n in dir() if n.endswith("_p"))

