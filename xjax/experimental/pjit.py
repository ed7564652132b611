"""``jax.experimental.pjit``: only the deprecated ``pjit`` is left (use ``jax.jit``)."""
import warnings as _warnings

from xjax._src.api.jit import jit as _jit

_MESSAGE = "jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` instead."


def _pjit(fun, in_shardings=None, out_shardings=None, static_argnums=None,
          static_argnames=None, donate_argnums=None, donate_argnames=None,
          keep_unused: bool = False, device=None, backend=None, inline: bool = False,
          compiler_options=None):
  """``jax.jit`` under its older name."""
  return _jit(fun, in_shardings=in_shardings, out_shardings=out_shardings,
              static_argnums=static_argnums, static_argnames=static_argnames,
              donate_argnums=donate_argnums, donate_argnames=donate_argnames,
              keep_unused=keep_unused, device=device, backend=backend, inline=inline,
              compiler_options=compiler_options)


_pjit.__name__ = _pjit.__qualname__ = "pjit"


def __getattr__(name: str):
  if name == "pjit":
    _warnings.warn(_MESSAGE, DeprecationWarning, stacklevel=2)
    return _pjit
  raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
