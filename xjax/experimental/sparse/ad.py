"""``jax.experimental.sparse.ad``: differentiation giving sparse derivatives."""
from xjax._src.libraries.sparse.ad import (grad, jacfwd, jacobian, jacrev,  # noqa: F401
                                           value_and_grad)
