"""lax.stage / stage_p and lax.dce_sink / dce_sink_p, as JAX 0.10.2."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax

X = jnp.arange(3.)


def test_stage():
  r = lax.stage(3.)
  assert isinstance(r, xjax.Array) and r.dtype == np.float32 and r.weak_type and r == 3
  assert lax.stage(np.arange(3)).dtype == np.int32 and lax.stage(X) is X
  assert str(xjax.make_jaxpr(lambda: lax.stage(2.))()) == "{ lambda ; . let  in (2.0:f32[],) }"
  assert str(xjax.make_jaxpr(lambda x: lax.stage(x) * 2)(X)) == (
      "{ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }")
  assert xjax.grad(lambda x: lax.stage(x) ** 2)(3.) == 6.
  np.testing.assert_array_equal(xjax.vmap(lax.stage)(X), X)
  assert lax.stage_p.bind(2.) == 2.
  assert xjax.grad(lambda x: lax.stage_p.bind(x) * 3)(1.) == 3.
  np.testing.assert_array_equal(xjax.vmap(lax.stage_p.bind)(X), X)
  with pytest.raises(TypeError, match="Error interpreting argument to stage as a JAX value"):
    lax.stage([1, 2])


def test_dce_sink():
  assert lax.dce_sink(X) is None
  assert str(xjax.make_jaxpr(lambda x: (lax.dce_sink(x * 2), x)[1])(X)) == """{ lambda ; a:f32[3]. let
    b:f32[3] = mul a 2.0:f32[]
    dce_sink[prevent_mlir_dce=False] b
  in (a,) }"""
  text = str(xjax.make_jaxpr(lambda x: (lax.dce_sink({"a": x, "b": (x, 1.)}), x)[1])(X))
  assert text.count("dce_sink[prevent_mlir_dce=False]") == 3
  kept = xjax.jit(lambda x: (lax.dce_sink(x * 2, prevent_mlir_dce=True), x)[1])
  assert '"dce_sink"' in kept.lower(X).as_text() and kept(X).tolist() == [0, 1, 2]
  assert '"dce_sink"' not in xjax.jit(lambda x: (lax.dce_sink(x * 2), x)[1]).lower(X).as_text()
  assert xjax.grad(lambda x: (lax.dce_sink(x * 2), x.sum())[1])(X).tolist() == [1, 1, 1]
  np.testing.assert_array_equal(xjax.vmap(lambda x: (lax.dce_sink(x * 2), x)[1])(X), X)
  assert lax.dce_sink_p.bind(X, prevent_mlir_dce=False) == []
