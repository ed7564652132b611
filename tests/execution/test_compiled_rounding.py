"""Compiled programs round as JAX's do: XLA optimises the StableHLO it is given, so where
xjax's lowering of the same jaxpr differs (a reshape before a broadcast, one broadcast shared
by several uses) XLA may rewrite it differently (``c / s / s`` as ``c / (s * s)`` rather
than ``c * (1/s) * (1/s)``) and the last bits differ. Bits recorded from JAX 0.10.2 on CPU;
tools/differential_compiled_bits.py compares forty larger programs the same way."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

RNG = np.random.default_rng(0)
Z = RNG.standard_normal((4, 3, 8)).astype(np.float32)
C = RNG.standard_normal((4, 4)).astype(np.float32)
C = C @ C.T


def _bits(x):
  return np.asarray(x).ravel().view(np.uint32).tolist()


def test_division_by_broadcast_vectors():
  s = jnp.sqrt(jnp.diag(C))
  got = xjax.jit(lambda c, s: c / s[:, None] / s[None, :])(C, s)
  assert _bits(got) == [
      1065353216, 1053230648, 1049064599, 1006850411, 1053230650, 1065353216, 3204070482,
      3193395538, 1049064599, 3204070482, 1065353214, 3203160696, 1006850410, 3193395538,
      3203160695, 1065353217]


@pytest.mark.cpu_bits
def test_corrcoef():
  assert _bits(jnp.corrcoef(Z.reshape(4, 24))) == [
      1065353216, 3181104997, 3186882085, 1051792995, 3181104996, 1065353214, 1053614196,
      1053979198, 3186882085, 1053614196, 1065353216, 1050808235, 1051792995, 1053979198,
      1050808235, 1065353216]


def test_layer_norm_gradient():
  def layernorm(x):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-5)
  g = xjax.jit(xjax.grad(lambda z: jnp.sum(layernorm(z) ** 2)))(Z)
  assert _bits(g)[:8] == [3091577301, 3100896506, 947720034, 3092771637, 3108125864,
                          906705129, 961575876, 956440246]
