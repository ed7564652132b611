"""XLA tokens as values: ``create_token`` makes one, ``after_all`` merges several. A token
is an array of the extended dtype ``token`` with shape ``()``, stored (as JAX passes tokens
in and out of programs) as an empty boolean array, so tokens flow through ``jit`` like any
value. No xjax operation consumes them: they sequence nothing here."""
from __future__ import annotations

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core.avals import ShapedArray
from xjax._src.interpreters import ad
from xjax._src.primitives.lax.primitive_builders import standard_primitive


class TokenTy(dtypes.ExtendedDType):
  """The dtype of tokens: no data (stored as ``bool[0]``)."""
  name = "token"
  physical_shape = (0,)
  physical_dtype = np.dtype(np.bool_)

  def __eq__(self, other) -> bool:
    return type(other) is TokenTy

  def __hash__(self) -> int:
    return hash(TokenTy)


token_dtype = TokenTy()
abstract_token = ShapedArray((), token_dtype)
_STORED = ShapedArray((0,), np.bool_)


def _no_data(ctx, *operands):
  return ctx.constant(np.zeros((0,), np.bool_), _STORED)


create_token_p = standard_primitive("create_token", lambda: abstract_token, _no_data)
ad.zero_jvp(create_token_p)


def _after_all_abstract_eval(*avals):
  if any(a != abstract_token for a in avals):
    raise TypeError("Arguments to after_all must be tokens")
  return abstract_token


after_all_p = standard_primitive("after_all", _after_all_abstract_eval, _no_data)
ad.zero_jvp(after_all_p)
after_all_p.batch = lambda axis, args, dims: (after_all_p.bind(*args), None)


def create_token(_=None):
  """A new token (the argument is ignored, as in JAX)."""
  return create_token_p.bind()


def after_all(*operands):
  """A token after all of ``operands`` (tokens)."""
  return after_all_p.bind(*operands)
