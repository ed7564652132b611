"""Experimental APIs (``jax.experimental``)."""
from xjax._src.callback import io_callback  # noqa: F401
from xjax._src.hijax import cur_qdd  # noqa: F401
