"""device_put_p: device_put of traced values is one device_put equation (as JAX 0.10.2),
the identity in compiled programs, transposed back to the source with a copy."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax._src.primitives.lax.device_put import ArrayCopySemantics

X = jnp.arange(3.)


def test_jaxprs_as_reference():
  dev = xjax.devices()[0]
  assert str(xjax.make_jaxpr(lambda x: xjax.device_put(x, dev))(X)) == f"""{{ lambda ; a:f32[3]. let
    b:f32[3] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
      devices=({dev!r},)
      srcs=(None,)
    ] a
  in (b,) }}"""
  two = str(xjax.make_jaxpr(lambda x, y: xjax.device_put((x, y)))(X, 1.))
  assert "c:f32[3] d:f32[] = device_put[" in two and "devices=(None, None)" in two
  assert "DONATE_INPUT" in str(xjax.make_jaxpr(lambda x: xjax.device_put(x, donate=True))(X))
  assert "ALWAYS_COPY" in str(xjax.make_jaxpr(lambda x: xjax.device_put(x, may_alias=False))(X))
  grad = str(xjax.make_jaxpr(xjax.grad(lambda x: xjax.device_put(x).sum()))(X))
  assert grad.count("device_put[") == 2 and "ALWAYS_COPY" in grad


def test_values_and_transformations():
  out = lax.device_put_p.bind(X, devices=(None,), srcs=(None,),
                              copy_semantics=(ArrayCopySemantics.REUSE_INPUT,))
  assert isinstance(out, list) and out[0].tolist() == [0, 1, 2]
  dev = xjax.devices()[0]
  placed, = lax.device_put_p.bind(np.ones(2), devices=(dev,), srcs=(None,),
                                  copy_semantics=(ArrayCopySemantics.REUSE_INPUT,))
  assert placed.committed and placed.devices() == {dev}
  f = xjax.jit(lambda x: xjax.device_put(x, dev) * 2)
  assert f(X).tolist() == [0, 2, 4]
  assert xjax.grad(lambda x: (xjax.device_put(x) ** 2).sum())(X).tolist() == [0, 2, 4]
  assert xjax.vmap(lambda x: xjax.device_put(x) + 1)(X).tolist() == [1, 2, 3]
  _, t = xjax.jvp(lambda x: xjax.device_put(x), (X,), (jnp.ones(3),))
  assert t.tolist() == [1, 1, 1]


def test_donation_is_not_transposable():
  with pytest.raises(ValueError, match="donate=True is not allowed during tranposition"):
    xjax.grad(lambda x: xjax.device_put(x, donate=True).sum())(X)
