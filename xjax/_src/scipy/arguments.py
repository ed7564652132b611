"""Argument handling shared by the scipy modules: promotion to a common inexact dtype that
always yields arrays (Python scalars become weakly typed arrays)."""
from __future__ import annotations

from xjax._src.numpy import lax_numpy as jnp
from xjax._src.numpy.util import promote_args_inexact


def inexact_arrays(name: str, *args):
  """``args`` promoted to one inexact dtype and broadcast-compatible ranks, as arrays."""
  return [jnp.asarray(a) for a in promote_args_inexact(name, *args)]
