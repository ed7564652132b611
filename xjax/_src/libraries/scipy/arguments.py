"""Argument handling shared by the scipy modules: promotion to a common inexact dtype that
always yields arrays (Python scalars become weakly typed arrays)."""
from __future__ import annotations

import numpy as np

from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.promotion import promote_args_inexact


def float_array(x, see_docstring: bool = True):
  """``x`` as a float32/float64 array; other dtypes raise TypeError, as JAX's functions
  written for those two types do (``see_docstring``: whether the message points there)."""
  x = jnp.asarray(x)
  if x.dtype not in (np.float32, np.float64):
    hint = ", see docstring for supported types" if see_docstring else ""
    raise TypeError(f"x.dtype={x.dtype} is not supported{hint}.")
  return x


def real_only(name: str, x):
  """Raise JAX's ValueError where ``x`` (already promoted) is complex."""
  if np.issubdtype(x.dtype, np.complexfloating):
    raise ValueError(f"{name} does not support complex-valued inputs.")


def inexact_arrays(name: str, *args):
  """``args`` promoted to one inexact dtype and broadcast-compatible ranks, as arrays."""
  return [jnp.asarray(a) for a in promote_args_inexact(name, *args)]
