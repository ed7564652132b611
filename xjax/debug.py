"""Printing and inspecting runtime values inside transformed code (``jax.debug``)."""
from xjax._src.callback import debug_callback as callback  # noqa: F401
from xjax._src.debugging import breakpoint, debug_print as print  # noqa: F401,A001
