"""Experimental APIs (``jax.experimental``)."""
from xjax._src.callback import io_callback  # noqa: F401
from xjax._src.hijax import cur_qdd  # noqa: F401
from xjax._src.dtypes import primal_tangent_dtype  # noqa: F401,E402
from xjax._src.lax.extended_arrays import EArray  # noqa: F401,E402
