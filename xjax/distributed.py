"""Multi-process runs (``jax.distributed``)."""
from xjax._src.libraries.distributed import initialize, is_initialized, shutdown  # noqa: F401
