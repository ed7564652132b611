"""The ahead-of-time stages of a jitted function (``jax.stages``)."""
from xjax._src.api.jit import Compiled, Lowered, Traced  # noqa: F401
from xjax._src.api.stages import ArgInfo, CompilerOptions, Wrapped  # noqa: F401
