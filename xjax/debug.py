"""Printing and inspecting runtime values inside transformed code (``jax.debug``)."""
from xjax._src.primitives.callback import debug_callback as callback  # noqa: F401
from xjax._src.core.effects import DebugEffect, OrderedDebugEffect  # noqa: F401
from xjax._src.primitives.debugging import breakpoint, debug_print as print  # noqa: F401,A001
from xjax._src.primitives.debugging import debug_log as log, inspect_array_sharding  # noqa: F401
from xjax._src.libraries.sharding_display import (visualize_array_sharding,  # noqa: F401
                                                  visualize_sharding)
