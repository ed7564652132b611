"""Shape polymorphism of ``jax.export`` (symbolic dimensions): not in xjax, whose shapes are
tuples of Python ints throughout tracing; each function raises saying what to do instead."""
from __future__ import annotations

_WHY = ("xjax does not support shape polymorphism: shapes are static Python ints while "
        "tracing. Export once per concrete shape instead, e.g. "
        "export(jit(f))(jax.ShapeDtypeStruct((8, 4), jnp.float32)).")


def symbolic_shape(shape_spec, *, constraints=(), scope=None, like=None):
  """Not supported (see the module docstring)."""
  raise NotImplementedError(f"symbolic_shape({shape_spec!r}): {_WHY}")


def symbolic_args_specs(args, shapes_specs, constraints=(), scope=None):
  """Not supported (see the module docstring)."""
  raise NotImplementedError(f"symbolic_args_specs: {_WHY}")


class SymbolicScope:
  """Not supported (see the module docstring)."""

  def __init__(self, constraints_str=()) -> None:
    raise NotImplementedError(f"SymbolicScope: {_WHY}")


def is_symbolic_dim(p) -> bool:
  """Whether ``p`` is a symbolic dimension: never, in xjax."""
  return False
