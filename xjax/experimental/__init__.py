"""Experimental APIs (``jax.experimental``)."""
from xjax._src.primitives.callback import io_callback  # noqa: F401
from xjax._src.primitives.hijax import cur_qdd  # noqa: F401
from xjax._src.foundations.dtypes import primal_tangent_dtype  # noqa: F401,E402
from xjax._src.primitives.lax.extended_arrays import EArray  # noqa: F401,E402
from xjax.experimental import compilation_cache  # noqa: F401,E402  (loaded with it, as in JAX)
