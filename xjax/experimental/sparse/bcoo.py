"""``jax.experimental.sparse.bcoo``: the batched-coordinate format."""
from xjax._src.libraries.sparse.bcoo import *  # noqa: F401,F403
from xjax._src.libraries.sparse.bcoo import __all__  # noqa: F401
