"""xjax.nn activations: values and gradients (JAX's conventions at kinks), the FAQ example."""
import numpy as np
import pytest
import scipy.special

import xjax as jax
import xjax.numpy as jnp

X = np.array([-10.0, -1.0, 0.0, 1.0, 10.0], np.float32)


def test_faq_sigmoid_example():
  g = jax.vmap(jax.grad(jax.nn.sigmoid))(jnp.asarray(X))
  np.testing.assert_allclose(jax.nn.sigmoid(X), scipy.special.expit(X), rtol=1e-6)
  np.testing.assert_allclose(g, [0.0, 0.2, 0.25, 0.2, 0.0], atol=5e-3)


@pytest.mark.parametrize("name,value,grad", [
    ("relu", np.maximum(X, 0), [0, 0, 0, 1, 1]),
    ("relu6", np.clip(X, 0, 6), [0, 0, 0, 1, 0]),
    ("softplus", np.logaddexp(X, 0), scipy.special.expit(X)),
    ("soft_sign", X / (np.abs(X) + 1), 1 / (np.abs(X) + 1) ** 2),
    ("squareplus", (X + np.sqrt(X ** 2 + 4)) / 2, (1 + X / np.sqrt(X ** 2 + 4)) / 2),
    ("silu", X * scipy.special.expit(X), None),
    ("leaky_relu", np.where(X >= 0, X, 0.01 * X), [0.01, 0.01, 1, 1, 1]),
    ("elu", np.where(X > 0, X, np.expm1(X)), [np.exp(-10), np.exp(-1), 1, 1, 1]),
    ("hard_tanh", np.clip(X, -1, 1), [0, 1, 1, 1, 0]),
])
def test_activation_values_and_gradients(name, value, grad):
  f = getattr(jax.nn, name)
  np.testing.assert_allclose(f(X), value, rtol=1e-5, atol=1e-6)
  if grad is not None:
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(jnp.asarray(X)), grad, rtol=1e-4,
                               atol=1e-6)


def test_softmax_family():
  m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  e = np.exp(m - m.max(-1, keepdims=True))
  np.testing.assert_allclose(jax.nn.softmax(m), e / e.sum(-1, keepdims=True), rtol=1e-6)
  np.testing.assert_allclose(jax.nn.log_softmax(m, axis=0),
                             m - scipy.special.logsumexp(m, axis=0, keepdims=True), rtol=1e-6)
  np.testing.assert_allclose(jax.nn.logsumexp(m), scipy.special.logsumexp(m), rtol=1e-6)
  g = jax.grad(lambda v: jax.nn.softmax(v)[0])(jnp.arange(3.0))
  np.testing.assert_allclose(g, [0.0819, -0.0220, -0.0599], atol=1e-4)


def test_softplus_gradient_at_zero_is_half():
  assert float(jax.grad(jax.nn.softplus)(0.0)) == 0.5
  assert float(jax.grad(lambda x: jnp.logaddexp(x, x))(1.0)) == 1.0


def test_one_hot_and_integer_inputs():
  np.testing.assert_array_equal(jax.nn.one_hot(jnp.array([0, 2, 1]), 3), np.eye(3)[[0, 2, 1]])
  assert jax.nn.one_hot(jnp.array([0]), 2).dtype == np.float32
  with pytest.raises(TypeError):
    jax.nn.sigmoid(2)  # as JAX: logistic rejects integers
  assert jax.nn.hard_tanh(2).dtype == np.int32


def test_new_activations_and_kinks():
  x = jnp.asarray(X)
  np.testing.assert_allclose(jax.nn.sparse_sigmoid(X), np.clip((X + 1) / 2, 0, 1))
  np.testing.assert_allclose(jax.nn.log1mexp(np.array([1e-3, 0.5, 5.0], np.float32)),
                             np.log(-np.expm1(-np.array([1e-3, 0.5, 5.0]))), rtol=1e-5)
  np.testing.assert_array_equal(jax.nn.identity(X), X)
  np.testing.assert_allclose(jax.nn.gelu(X, approximate=False),
                             X * scipy.special.ndtr(X), rtol=1e-5, atol=1e-7)
  np.testing.assert_allclose(jax.nn.selu(X), 1.0507009873554805 * np.where(
      X > 0, X, 1.6732632423543772 * np.expm1(X)), rtol=1e-5)
  np.testing.assert_allclose(jax.nn.celu(X, 2.0), np.maximum(X, 0) + 2 * np.expm1(
      np.minimum(X, 0) / 2), rtol=1e-5)
  # derivative conventions at the kinks: relu'(0) = 0, relu6'(0) = relu6'(6) = 0
  g = jax.vmap(jax.grad(jax.nn.relu6))(jnp.asarray([0.0, 3.0, 6.0]))
  np.testing.assert_array_equal(g, [0, 1, 0])
  assert jax.grad(jax.nn.relu)(0.0) == 0
  np.testing.assert_allclose(jax.grad(jax.nn.log1mexp)(1.0), 1 / np.expm1(1.0), rtol=1e-6)
  # dtypes follow JAX: relu keeps integers, hard_tanh too; soft_sign divides to float
  assert jax.nn.relu(jnp.arange(3)).dtype == jnp.int32
  assert jax.nn.soft_sign(jnp.arange(3)).dtype == jnp.float32
  assert jax.nn.sparse_plus(2.0).aval.weak_type
  with pytest.raises(TypeError):
    jax.nn.sigmoid(jnp.arange(3))
  assert jax.vmap(jax.nn.silu)(x).shape == X.shape


def test_softmax_where_logmeanexp_standardize():
  rng = np.random.RandomState(0)
  m = rng.randn(3, 4).astype(np.float32)
  where = m > -0.5
  out = jax.nn.softmax(m, where=where)
  e = np.where(where, np.exp(m), 0)
  np.testing.assert_allclose(out, e / e.sum(-1, keepdims=True), rtol=1e-6)
  ls = jax.nn.log_softmax(m, axis=0, where=where)
  assert np.all(np.isneginf(np.asarray(ls)[~where]))
  np.testing.assert_allclose(jax.nn.logmeanexp(m, axis=1),
                             scipy.special.logsumexp(m, axis=1) - np.log(4), rtol=1e-6)
  for algorithm in ("fast", "stable"):
    s = jax.nn.standardize(m, algorithm=algorithm)
    np.testing.assert_allclose(s, (m - m.mean(-1, keepdims=True)) /
                               np.sqrt(m.var(-1, keepdims=True) + 1e-5), rtol=1e-4, atol=1e-5)
  with pytest.raises(ValueError, match="Unknown algorithm"):
    jax.nn.standardize(m, algorithm="exact")
  with pytest.raises(AssertionError):
    jax.nn.glu(m[:, :3])


def test_softmax_custom_jvp_option():
  """``jax_softmax_custom_jvp``: softmax is differentiated by its own rule, y * (t - sum(y t)),
  a ``custom_jvp_call`` named ``_softmax`` in jaxprs (as JAX 0.10.2's); the values, and the
  gradient's against finite differences, are those of the default."""
  m = np.random.RandomState(1).randn(3, 4).astype(np.float32)
  f = lambda v: (jax.nn.softmax(v, axis=1) ** 2 * np.arange(4.0)).sum()
  default_value, default_grad = jax.value_and_grad(f)(m)
  with jax.softmax_custom_jvp(True):
    assert "custom_jvp_call" in str(jax.make_jaxpr(f)(m))
    value, grad = jax.value_and_grad(f)(m)
    y = jax.nn.softmax(m, where=m > -0.5)
    _, tangent = jax.jvp(lambda v: jax.nn.softmax(v, where=m > -0.5), (m,), (np.ones_like(m),))
  assert "custom_jvp_call" not in str(jax.make_jaxpr(f)(m))
  np.testing.assert_allclose(value, default_value, rtol=1e-6)
  np.testing.assert_allclose(grad, default_grad, rtol=1e-5, atol=1e-6)
  eps = 1e-3
  numeric = np.zeros_like(m)
  for i in np.ndindex(m.shape):
    d = np.zeros_like(m)
    d[i] = eps
    numeric[i] = (float(f(m + d)) - float(f(m - d))) / (2 * eps)
  np.testing.assert_allclose(grad, numeric, rtol=2e-2, atol=2e-3)
  e = np.where(m > -0.5, np.exp(m), 0)
  np.testing.assert_allclose(y, e / e.sum(-1, keepdims=True), rtol=1e-6)
  np.testing.assert_allclose(tangent, 0.0, atol=1e-6)  # (softmax is shift-invariant)


def test_one_hot_options():
  idx = np.array([[0, 3, 5], [-1, 1, 2]])
  out = jax.nn.one_hot(idx, 4, axis=0, dtype=jnp.int8)
  assert out.shape == (4, 2, 3) and out.dtype == jnp.int8
  np.testing.assert_array_equal(np.moveaxis(np.asarray(out), 0, -1), np.eye(4)[idx.clip(0, 3)] *
                                ((idx >= 0) & (idx < 4))[..., None])
  assert jax.nn.one_hot(idx, 4, axis=-2).shape == (2, 4, 3)
  assert jax.jit(lambda i: jax.nn.one_hot(i, 4))(idx).shape == (2, 3, 4)


def _attention_reference(q, k, v, bias=None, mask=None, scale=None, causal=False):
  b, t, n, h = q.shape
  kv_heads = k.shape[2]
  k = np.repeat(k, n // kv_heads, axis=2)
  v = np.repeat(v, n // kv_heads, axis=2)
  logits = np.einsum("btnh,bsnh->bnts", q, k) * (1 / np.sqrt(h) if scale is None else scale)
  if bias is not None:
    logits = logits + bias
  keep = np.ones(logits.shape, bool)
  if mask is not None:
    keep &= mask
  if causal:
    keep &= np.tril(np.ones(logits.shape[-2:], bool))
  logits = np.where(keep, logits, -1e30)
  p = np.exp(logits - logits.max(-1, keepdims=True))
  p /= p.sum(-1, keepdims=True)
  return np.einsum("bnts,bsnh->btnh", p, v)


def test_dot_product_attention():
  rng = np.random.RandomState(1)
  q = rng.randn(2, 5, 4, 8).astype(np.float32)
  k, v = rng.randn(2, 6, 2, 8).astype(np.float32), rng.randn(2, 6, 2, 8).astype(np.float32)
  bias = rng.randn(1, 4, 5, 6).astype(np.float32)
  mask = rng.rand(2, 1, 5, 6) > 0.3
  mask[..., 0] = True
  dpa = jax.nn.dot_product_attention
  np.testing.assert_allclose(dpa(q, k, v), _attention_reference(q, k, v), rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(dpa(q, k, v, bias, mask, scale=0.3, implementation="xla"),
                             _attention_reference(q, k, v, bias, mask, 0.3), rtol=1e-4,
                             atol=1e-5)
  np.testing.assert_allclose(dpa(q, k[:, :5], v[:, :5], is_causal=True),
                             _attention_reference(q, k[:, :5], v[:, :5], causal=True),
                             rtol=1e-4, atol=1e-5)
  lengths = np.array([3, 5], np.int32)
  out = dpa(q, k, v, query_seq_lengths=lengths, key_value_seq_lengths=np.array([4, 2], np.int32))
  assert np.all(np.asarray(out)[0, 3:] == 0)
  kv_mask = np.arange(6)[None, None, None, :] < np.array([4, 2])[:, None, None, None]
  np.testing.assert_allclose(np.asarray(out)[1], _attention_reference(q, k, v, mask=kv_mask)[1],
                             rtol=1e-4, atol=1e-5)
  np.testing.assert_allclose(dpa(q[0], k[0], v[0]), _attention_reference(q, k, v)[0], rtol=1e-4,
                             atol=1e-5)
  out, lse = dpa(q, k, v, return_residual=True)
  assert lse.shape == (2, 5, 4)
  g = jax.grad(lambda qq: dpa(qq, k, v, is_causal=False).sum())(q)
  assert g.shape == q.shape and np.isfinite(np.asarray(g)).all()
  with pytest.raises(RuntimeError, match="cuDNN is not detected"):
    dpa(q, k, v, implementation="cudnn")
  with pytest.raises(ValueError, match="multiple of key/value heads"):
    dpa(q[:, :, :3], k, v)
  with pytest.raises(ValueError, match="mask dtype"):
    dpa(q, k, v, mask=mask.astype(np.float32))
  # a mask or bias that does not broadcast to (batch, heads, query, key): JAX's TypeError
  with pytest.raises(TypeError, match="incompatible shapes for broadcasting"):
    dpa(q, k, v, mask=np.ones((6, 5), bool))
  with pytest.raises(TypeError, match="incompatible shapes for broadcasting"):
    dpa(q, k, v, bias=np.ones((3, 1, 5, 6), np.float32))


def test_scaled_matmul_and_scaled_dot_general():
  # block scales multiply each block of 16 contraction elements
  a, b = np.ones((1, 2, 32), np.float32), np.ones((1, 3, 32), np.float32)
  sa = np.array([[[2.0, 1.0], [1.0, 1.0]]], np.float32)
  sb = np.full((1, 3, 2), 0.5, np.float32)
  out = jax.nn.scaled_matmul(a, b, sa, sb)
  np.testing.assert_allclose(out, [[[24.0] * 3, [16.0] * 3]])
  assert out.dtype == jnp.float32
  with pytest.raises(ValueError, match="3-dimensional"):
    jax.nn.scaled_matmul(a, b, sa[0], sb)
  with pytest.raises(ValueError, match="matching batch"):
    jax.nn.scaled_matmul(a, b[..., :16], sa, sb)
  mx, nv = (jax.nn.get_scaled_dot_general_config(m) for m in ("mxfp8", "nvfp4"))
  assert (mx.block_size, nv.block_size, mx.global_scale) == (32, 16, None)
  np.testing.assert_array_equal(nv.global_scale, [1.0])
  with pytest.raises(ValueError, match="Unsupported mode: x"):
    jax.nn.get_scaled_dot_general_config("x")
  rng = np.random.RandomState(0)
  x, y = rng.randn(2, 8, 64).astype(np.float32), rng.randn(2, 32, 64).astype(np.float32)
  dn = (((2,), (2,)), ((0,), (0,)))
  exact = np.einsum("bmk,bnk->bmn", x, y)
  np.testing.assert_allclose(jax.nn.scaled_dot_general(x, y, dn), exact, rtol=1e-5, atol=1e-5)
  for cfg, tol in ((mx, 0.08), (nv, 0.35)):  # E4M3 / E2M1 quantisation error
    got = jax.jit(lambda x, y: jax.nn.scaled_dot_general(x, y, dn, configs=[cfg] * 3))(x, y)
    assert got.shape == (2, 8, 32) and got.dtype == jnp.float32
    assert np.abs(np.asarray(got) - exact).max() < tol * np.abs(exact).max()
  # exactly representable operands (powers of two) give the exact product and gradient
  p, q = np.exp2(rng.randint(-3, 3, (2, 32, 64))).astype(np.float32), np.ones((2, 32, 64), np.float32)
  f = lambda p, q: jax.nn.scaled_dot_general(p, q, dn, configs=[mx] * 3).sum()
  np.testing.assert_allclose(f(p, q), np.einsum("bmk,bnk->bmn", p, q).sum(), rtol=1e-6)
  gp, gq = jax.grad(f, argnums=(0, 1))(p, q)
  np.testing.assert_allclose(gp, np.full_like(p, 32.0))
  np.testing.assert_allclose(gq, np.broadcast_to(p.sum(1, keepdims=True), q.shape), rtol=0.07)
  assert jax.nn.scaled_dot_general(x, y, dn, jnp.bfloat16, configs=[mx] * 3).dtype == jnp.bfloat16
  with pytest.raises(TypeError, match="preferred_element_type"):
    jax.nn.scaled_dot_general(x, y, dn, jnp.int32, configs=[mx] * 3)


def test_integer_inputs_follow_the_reference():
  x = np.arange(-2, 2, dtype=np.int32)
  out = jax.nn.gelu(x)
  t = x.astype(np.float64)
  expect = 0.5 * t * (1 + np.tanh(np.sqrt(2 / np.pi) * (t + 0.044715 * t ** 3)))
  assert out.dtype == np.float32 and not out.weak_type
  np.testing.assert_allclose(out, expect, rtol=1e-6, atol=1e-7)
  np.testing.assert_allclose(jax.nn.gelu(1), 0.841192, rtol=1e-6)
  for f in (jax.nn.hard_sigmoid, jax.nn.sparse_sigmoid):
    assert f(x).weak_type  # an int array plus a Python float is weak, as in JAX
  np.testing.assert_allclose(jax.nn.hard_sigmoid(x), (t + 3) / 6, rtol=1e-6)


def test_eager_activations_round_as_jax_compiles_them():
  # JAX jits these functions, so eager calls round like one fused program: JAX 0.10.2's bits
  x = (4 * np.random.RandomState(0).randn(1, 16)).astype(np.float32)
  want_standardize = [
      1.3401001691818237, -0.3228153586387634, 0.3826134502887726, 1.9214835166931152,
      1.4662983417510986, -2.002239227294922, 0.34768274426460266, -0.9952437877655029,
      -0.936551570892334, -0.31008490920066833, -0.6350793838500977, 0.962405264377594,
      0.11718454957008362, -0.6623519659042358, -0.26952722668647766, -0.4038739502429962]
  np.testing.assert_array_equal(jax.nn.standardize(x)[0], np.float32(want_standardize))
  assert float(jax.nn.squareplus(x)[0, 2]) == np.float32(4.1555914878845215)
