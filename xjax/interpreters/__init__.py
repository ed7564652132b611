"""JAX's interpreter modules (``jax.interpreters``): the rule registries and helpers with which
libraries define primitives, as views onto xjax's own rule slots."""
from xjax.interpreters import ad, batching, mlir, partial_eval, pxla, xla  # noqa: F401
