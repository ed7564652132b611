"""The ahead-of-time stages of a jitted function (``jax.stages``)."""
from xjax._src.jit import Compiled, Lowered, Traced  # noqa: F401
from xjax._src.stages import ArgInfo, CompilerOptions, Wrapped  # noqa: F401
