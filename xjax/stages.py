"""The ahead-of-time stages of a jitted function (``jax.stages``)."""
from xjax._src.api.stages import (ArgInfo, Compiled, CompilerOptions, Lowered,  # noqa: F401
                                  Traced, Wrapped)
