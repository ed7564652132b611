"""The error classes users see (``xjax.errors``), mirroring ``jax.errors``.

Each class subclasses the builtin JAX's does, so ``except TypeError`` keeps working.
Messages say what went wrong, where (the traced function and argument), and how to fix it.
"""
from __future__ import annotations

import functools
import os
import sys

from xjax._src.foundations.config import config

_FAQ = "https://docs.jax.dev/en/latest/faq.html"
# The module the classes report (tracebacks, ``repr``, ``type(e).__module__``): where users
# import them from.
_PUBLIC = "xjax.errors"
_ERRORS_DOC = "https://docs.jax.dev/en/latest/errors.html"


class JAXTypeError(TypeError):
  """Base for the type errors raised when a traced value is used as a concrete one."""
  __module__ = _PUBLIC


class JAXIndexError(IndexError):
  """Base for indexing errors specific to traced values."""
  __module__ = _PUBLIC


class ConcretizationTypeError(JAXTypeError):
  """A traced (abstract) value was used where Python needs a concrete value."""
  __module__ = _PUBLIC

  def __init__(self, tracer, context: str = "") -> None:
    super().__init__(
        "Abstract tracer value encountered where concrete value is expected: "
        f"traced array with shape {_aval_str(tracer)}\n{context}"
        "To keep a value concrete, mark the argument it depends on as static "
        "(static_argnums / static_argnames for jit), or replace the Python control flow "
        "with lax.cond, lax.switch, lax.while_loop, lax.fori_loop or lax.scan.\n"
        f"See {_ERRORS_DOC}#jax.errors.ConcretizationTypeError")


class TracerBoolConversionError(ConcretizationTypeError):
  """``bool()`` (an ``if``, ``and``/``or``, ``while``) was applied to a traced value."""
  __module__ = _PUBLIC

  def __init__(self, tracer, context: str = "") -> None:
    JAXTypeError.__init__(
        self,
        "Attempted boolean conversion of traced array with shape "
        f"{tracer.aval.str_short(False)}.\n{context}"
        "Python control flow (if, while, and/or) cannot depend on a traced value. Use "
        "jnp.where or lax.cond / lax.while_loop to branch on it, or make the argument "
        "static with static_argnums / static_argnames.\n"
        f"See {_ERRORS_DOC}#jax.errors.TracerBoolConversionError")


class TracerIntegerConversionError(JAXTypeError):
  """``int()`` / ``__index__`` was applied to a traced value."""
  __module__ = _PUBLIC

  def __init__(self, tracer, context: str = "") -> None:
    super().__init__(
        "The __index__() method was called on traced array with shape "
        f"{tracer.aval.str_short(False)}\n{context}"
        "A traced value cannot be used as a Python integer (a shape, an index into a "
        "Python list, a range bound). Make the argument static with static_argnums / "
        "static_argnames, or use lax.dynamic_slice / lax.dynamic_index_in_dim for indexing.\n"
        f"See {_ERRORS_DOC}#jax.errors.TracerIntegerConversionError")


class TracerArrayConversionError(JAXTypeError):
  """A traced value was converted to a NumPy array (``np.asarray(tracer)``)."""
  __module__ = _PUBLIC

  def __init__(self, tracer, context: str = "") -> None:
    super().__init__(
        "The numpy.ndarray conversion method __array__() was called on traced array "
        f"with shape {tracer.aval.str_short(False)}.\n{context}"
        "A tracer stands for every possible value of its shape and dtype, so it has no "
        "NumPy value. Use xjax.numpy instead of numpy inside transformed functions; to "
        "look at values at run time use xjax.debug.print, or xjax.pure_callback to call "
        "NumPy code.\n"
        f"See {_ERRORS_DOC}#jax.errors.TracerArrayConversionError")


class NonConcreteBooleanIndexError(JAXIndexError):
  """A boolean mask that is a traced value was used as an index."""
  __module__ = _PUBLIC

  def __init__(self, tracer) -> None:
    super().__init__(
        f"Array boolean indices must be concrete; got {_aval_str(tracer)}\n"
        "The size of x[mask] depends on the values in mask, and under jit array shapes "
        "must be known when tracing. Use jnp.where(mask, x, fill) to keep the shape "
        "fixed, or jnp.nonzero(mask, size=N) / jnp.where(mask, size=N) with a static size.\n"
        f"See {_ERRORS_DOC}#jax.errors.NonConcreteBooleanIndexError")


class UnexpectedTracerError(JAXTypeError):
  """A tracer outlived the transformation that created it (it 'leaked')."""
  __module__ = _PUBLIC

  def __init__(self, message: str) -> None:
    super().__init__(
        message + "\nThis usually happens when a transformed function stores a traced value "
        "in a global, a class attribute or a closure and it is used after the "
        "transformation has returned. Return the value from the function instead.\n"
        f"See {_ERRORS_DOC}#jax.errors.UnexpectedTracerError")


class KeyReuseError(JAXTypeError):
  """A PRNG key was used twice (only with key-reuse checking enabled)."""
  __module__ = _PUBLIC


class JaxprTypeError(TypeError):
  """A jaxpr is ill-typed (an equation's operands do not match its primitive's rule)."""
  __module__ = _PUBLIC


class InconclusiveDimensionOperation(Exception):
  """A comparison or operation on symbolic dimensions has no definite answer (xjax's
  dimensions are always concrete, so it raises this only for code that does)."""
  __module__ = _PUBLIC


def _aval_str(tracer) -> str:
  """``float32[3]``: the tracer's type, as JAX's messages name it."""
  try:
    return tracer.aval.str_short(False)
  except Exception:  # an unusual tracer must not hide the real error
    return repr(tracer)


# ---------------------------------------------------------------------------------------
# Where the user is: frames outside the xjax package

_XJAX_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep

# Source folders whose frames tracebacks leave out: xjax's own, and any a library registers
# (``jax._src.traceback_util.register_exclusion``, as flax and equinox do).
excluded_paths: list[str] = [_XJAX_DIR]


def _is_ours(filename: str) -> bool:
  return filename.startswith(tuple(excluded_paths))


def user_stacklevel() -> int:
  """The ``stacklevel`` that makes a warning issued by the caller of this function point at
  the innermost frame outside xjax (JAX's warnings name the user's line)."""
  f, level = sys._getframe(2), 2
  while f is not None and f.f_code.co_filename.startswith(_XJAX_DIR):
    f, level = f.f_back, level + 1
  return level if f is not None else 1


def user_frame(depth: int = 1) -> str:
  """``file:line (function)`` of the innermost caller outside xjax."""
  f = sys._getframe(depth)
  while f is not None and _is_ours(f.f_code.co_filename):
    f = f.f_back
  if f is None:
    return "<unknown>"
  return f"{f.f_code.co_filename}:{f.f_lineno} ({f.f_code.co_name})"


def api_boundary(fun):
  """Wraps a transformation's entry point (``grad``, ``vmap``, ``jvp``, ``scan``, ...): an
  exception leaving it carries a traceback without xjax's frames, as JAX's do."""
  @functools.wraps(fun)
  def filtered(*args, **kwargs):
    try:
      return fun(*args, **kwargs)
    except Exception as e:
      remove_internal_frames(e)
      raise  # a bare raise keeps the traceback just set: this frame is not added back
  return filtered


_FILTERED_NOTE = ("--------------------\nxjax removed its internal frames from the traceback "
                  "of this exception. Set xjax.config.update('jax_traceback_filtering', "
                  "'off') to include them.")


class UnfilteredStackTrace(Exception):
  """Under ``jax_traceback_filtering='remove_frames'``, the ``__cause__`` of an exception
  whose traceback was filtered: it carries the whole traceback."""


def _filtering_mode() -> str:
  """``jax_traceback_filtering``, with "auto" resolved as JAX does: frames are marked
  hidden under IPython (which honours ``__tracebackhide__``), removed elsewhere."""
  mode = config._read("jax_traceback_filtering")
  if mode in (None, "auto"):
    import builtins
    return "tracebackhide" if hasattr(builtins, "get_ipython") else "quiet_remove_frames"
  return mode


def remove_internal_frames(e: BaseException) -> None:
  """Filters xjax's frames (and those of folders libraries registered) out of ``e``'s
  traceback, by ``jax_traceback_filtering``: "tracebackhide" marks them with
  ``__tracebackhide__``; "quiet_remove_frames" removes them and says so in a note;
  "remove_frames" removes them and chains an ``UnfilteredStackTrace`` holding the whole
  traceback as the cause. Call it in an ``except`` block, then re-raise with a bare
  ``raise``."""
  mode = _filtering_mode()
  if mode == "off":
    return
  tb, kept, removed = e.__traceback__, [], False
  if mode == "tracebackhide":
    while tb is not None:
      if _is_ours(tb.tb_frame.f_code.co_filename):
        tb.tb_frame.f_locals["__tracebackhide__"] = True
      tb = tb.tb_next
    return
  while tb is not None:
    if _is_ours(tb.tb_frame.f_code.co_filename):
      removed = True
    else:
      kept.append(tb)
    tb = tb.tb_next
  if not removed:
    return
  whole, out = e.__traceback__, None
  for t in reversed(kept):
    out = type(t)(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
  e.with_traceback(out)
  if mode == "remove_frames":
    if not isinstance(e.__cause__, UnfilteredStackTrace):
      unfiltered = UnfilteredStackTrace(
          f"{type(e).__name__}: {e}\n\nThe preceding is the original exception that occurred, "
          "unmodified; its traceback includes xjax's internal frames.")
      unfiltered.with_traceback(whole)
      unfiltered.__cause__, unfiltered.__context__ = e.__cause__, e.__context__
      unfiltered.__suppress_context__ = e.__suppress_context__
      e.__cause__, e.__context__ = unfiltered, None
  elif _FILTERED_NOTE not in getattr(e, "__notes__", ()):
    e.add_note(_FILTERED_NOTE)
