"""JAX's extension API (``jax.extend``): what libraries use to define primitives and reach
below the public API."""
from xjax.extend import backend, core, linear_util, random, source_info_util  # noqa: F401
from xjax.extend import mlir  # noqa: F401
