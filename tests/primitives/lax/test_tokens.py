"""lax.create_token / after_all (+_p): tokens are values that flow through jit, cond and
scan, and after_all takes only tokens, as in JAX 0.10.2."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax._src.primitives.lax.tokens import token_dtype


def is_token(t):
  return isinstance(t, xjax.Array) and t.dtype == token_dtype and t.shape == ()


def test_tokens_are_values():
  t = lax.create_token()
  assert is_token(t) and is_token(lax.create_token(3.)) and is_token(lax.after_all())
  assert is_token(lax.after_all(t, lax.create_token()))
  out, y = xjax.jit(lambda t, x: (lax.after_all(t), x + 1))(t, 1.)
  assert is_token(out) and y == 2.
  assert is_token(xjax.jit(lambda t: t)(t))
  assert is_token(lax.cond(True, lambda t: lax.after_all(t), lambda t: t, t))
  carry, ys = lax.scan(lambda c, x: (lax.after_all(c), x), t, jnp.arange(3.))
  assert is_token(carry) and ys.tolist() == [0, 1, 2]
  assert xjax.tree_util.tree_leaves(t) == [t]


def test_jaxprs_and_lowering():
  text = str(xjax.make_jaxpr(lambda x: lax.after_all(lax.create_token(), lax.create_token()))(1.))
  assert "create_token" in text and "d:token[] = after_all b c" in text
  jaxpr = str(xjax.make_jaxpr(xjax.jit(lambda t, x: (lax.after_all(t), x + 1)))(
      lax.create_token(), 1.))
  assert "c:token[] = after_all a" in jaxpr
  hlo = xjax.jit(lambda x: lax.after_all(lax.create_token())).lower(1.).as_text()
  assert "-> (tensor<0xi1>)" in hlo  # passed in and out of programs as JAX does: bool[0]


def test_transformations():
  assert xjax.grad(lambda x: (lax.create_token(x), x)[1])(1.) == 1.
  toks, ys = xjax.vmap(lambda x: (lax.create_token(x), x * 2))(jnp.arange(3.))
  assert toks.shape == (3,) and toks.dtype == token_dtype and ys.tolist() == [0, 2, 4]


def test_bad_input():
  with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
    lax.after_all(1.)
  with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
    lax.after_all(lax.create_token(), np.zeros(()))
  with pytest.raises(TypeError):
    jnp.add(lax.create_token(), 1)
