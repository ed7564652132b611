"""``jax.extend.linear_util``: functions wrapped with static parameters and a stack of
transformations, as JAX's internals pass them around."""
from collections.abc import Callable  # noqa: F401  (JAX's module shows it too)

from xjax._src.interpreters.linear_util import (StoreException, WrappedFun, cache,  # noqa: F401
                                          merge_linear_aux, transformation, transformation2,
                                          transformation_with_aux, transformation_with_aux2,
                                          wrap_init)
