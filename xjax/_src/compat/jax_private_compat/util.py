"""`jax._src.util`: the list helpers JAX's "custom interpreters" guide and jaxpr interpreters
written after it import (`safe_map`, `safe_zip`, `unzip2`, `split_list`, ...)."""
from xjax._src.foundations.sequences import (ceil_of_ratio, concatenate, curry,  # noqa: F401
                                             flatten, merge_lists, partition_list, safe_map,
                                             safe_zip, split_list, split_list_checked,
                                             stable_unique, subvals, tuple_delete, tuple_insert,
                                             tuple_update, unflatten, unzip2, unzip3, wrap_name)
from xjax._src.interpreters.staging import fun_name  # noqa: F401
from xjax._src.compat.jax_private_compat import missing


class HashablePartial:
  """``f`` with leading arguments, equal to another of the same code and arguments (a cache
  key for a function made afresh on each call)."""

  def __init__(self, f, *args, **kwargs):
    self.f, self.args, self.kwargs = f, args, kwargs

  def __eq__(self, other):
    return (type(other) is HashablePartial and self.f.__code__ == other.f.__code__
            and self.args == other.args and self.kwargs == other.kwargs)

  def __hash__(self):
    return hash((self.f.__code__, self.args, tuple(sorted(self.kwargs.items()))))

  def __call__(self, *args, **kwargs):
    return self.f(*self.args, *args, **self.kwargs, **kwargs)


def canonicalize_axis(axis, num_dims: int) -> int:
  """``axis`` in ``range(num_dims)`` (a negative one counts from the end)."""
  import operator
  axis = operator.index(axis)
  if not -num_dims <= axis < num_dims:
    raise ValueError(f"axis {axis} is out of bounds for array of dimension {num_dims}")
  return axis % num_dims if num_dims else axis


def __getattr__(name: str):
  raise missing("jax._src.util", name)
