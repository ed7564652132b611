"""JAX's token classes (``jax.extend.core.AbstractToken``, ``Token``) for xjax's tokens,
which are arrays of the extended dtype ``token`` (see tokens.py): ``isinstance`` tells
token types and token values apart from others, and calling the classes makes them."""
from __future__ import annotations

from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Tracer
from xjax._src.primitives.lax.tokens import abstract_token, create_token, token_dtype


def _is_token_type(x) -> bool:
  return isinstance(x, ShapedArray) and x.dtype == token_dtype


class _AbstractTokenClass(type):
  def __instancecheck__(cls, x) -> bool:
    return _is_token_type(x)


class AbstractToken(metaclass=_AbstractTokenClass):
  """The type of tokens: ``AbstractToken()`` is it, and every token type is an instance."""

  def __new__(cls):
    return abstract_token


class _TokenClass(type):
  def __instancecheck__(cls, x) -> bool:
    return not isinstance(x, Tracer) and _is_token_type(getattr(x, "aval", None))


class Token(metaclass=_TokenClass):
  """A token value: ``Token()`` makes one (``lax.create_token()``), and every token Array
  is an instance."""

  def __new__(cls, buf=None):
    if buf is not None:
      raise TypeError("xjax makes tokens with Token() or lax.create_token(); it does not "
                      "wrap runtime buffers in them")
    return create_token()

  def block_until_ready(self) -> None:
    """Waits for the computation that made the token (``Token.block_until_ready(tok)``:
    tokens are Arrays, whose own method this calls)."""
    self.block_until_ready()
