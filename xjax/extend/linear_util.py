"""``jax.extend.linear_util``: functions wrapped with static parameters, as JAX's internals
pass them around (only the wrapping; xjax's transformations take plain callables)."""
from typing import Callable


class WrappedFun:
  """``f`` with keyword ``params``; ``call_wrapped(*args)`` calls ``f(*args, **params)``."""
  __slots__ = ("f", "params", "debug_info")

  def __init__(self, f: Callable, params: tuple = (), debug_info=None) -> None:
    self.f = f
    self.params = params
    self.debug_info = debug_info

  @property
  def __name__(self) -> str:
    return getattr(self.f, "__name__", type(self.f).__name__)

  def call_wrapped(self, *args, **kwargs):
    return self.f(*args, **dict(self.params), **kwargs)

  def __eq__(self, other) -> bool:
    return (type(other) is WrappedFun and self.f == other.f and self.params == other.params)

  def __hash__(self) -> int:
    return hash((self.f, self.params))

  def __repr__(self) -> str:
    return f"Wrapped function: {self.__name__}"


def wrap_init(f: Callable, params=None, *, debug_info=None) -> WrappedFun:
  return WrappedFun(f, tuple(sorted((params or {}).items())), debug_info)


def transformation(gen: Callable) -> Callable:
  """A transformation of wrapped functions written as a generator: ``gen(*gen_args,
  *args)`` yields the ``(args, kwargs)`` to call the wrapped function with, is sent its
  result, and yields the transformed result.  ``gen(f, *gen_args)`` is the wrapped
  function transformed."""
  def transform(f: WrappedFun, *gen_args) -> WrappedFun:
    def run(*args, **kwargs):
      steps = gen(*gen_args, *args, **kwargs)
      inner_args, inner_kwargs = next(steps)
      return steps.send(f.call_wrapped(*inner_args, **inner_kwargs))
    run.__name__ = f.__name__
    return WrappedFun(run, (), f.debug_info)
  return transform
