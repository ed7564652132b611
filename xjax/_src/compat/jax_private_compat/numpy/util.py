"""`jax._src.numpy.util`: jax.numpy's argument checks and promotions (s2fft promotes with
`promote_dtypes_complex`)."""
from xjax import numpy as _jnp
from xjax._src.libraries.numpy.arguments import check_arraylike  # noqa: F401
from xjax._src.libraries.numpy.promotion import (  # noqa: F401
    promote_args, promote_args_complex, promote_args_inexact, promote_args_numeric,
    promote_dtypes, promote_dtypes_complex, promote_dtypes_inexact, promote_dtypes_numeric,
    promote_shapes)


def ensure_arraylike(fun_name: str, /, *args):
  """The arguments checked as `check_arraylike` does and made arrays: one array for one
  argument, a tuple of them otherwise."""
  check_arraylike(fun_name, *args)
  out = tuple(_jnp.asarray(a) for a in args)
  return out[0] if len(out) == 1 else out
