"""Experimental APIs (``jax.experimental``)."""
from xjax._src.callback import io_callback  # noqa: F401
