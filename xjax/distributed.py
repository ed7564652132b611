"""Multi-process runs (``jax.distributed``)."""
from xjax._src.distributed import initialize, is_initialized, shutdown  # noqa: F401
