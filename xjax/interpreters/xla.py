"""``jax.interpreters.xla``: eager evaluation of one primitive, the table of how host
values of each type take their canonical dtype (``canonicalize_dtype_handlers``), and the
class of the runtime's clients (``Backend``)."""
from xjax._src.backend import jaxlib_api as _jaxlib_api
from xjax._src.execution.dispatch import canonicalize_dtype_handlers  # noqa: F401
from xjax._src.execution.eager_primitives import apply_primitive  # noqa: F401

Backend = _jaxlib_api.jaxlib_module("xla_client").Client   # the PJRT client class
