"""JAX's extension API (``jax.extend``): what libraries use to define primitives and reach
below the public API."""
from xjax.extend import (backend, core, linear_util, lowering, pallas, random,  # noqa: F401
                         sharding, source_info_util, xla)
from xjax.extend import mlir  # noqa: F401
