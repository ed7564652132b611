"""jax.experimental.pallas.ops.tpu.splash_attention: masks as JAX's (NumPy formulas) and the
kernels' attention against a NumPy oracle (masked softmax per head), with its gradient
against finite differences."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.experimental.pallas.ops.tpu import splash_attention as sa
from xjax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as masks


def test_masks():
  q, kv = np.arange(6)[:, None], np.arange(8)[None, :]
  np.testing.assert_array_equal(sa.make_causal_mask((6, 8), offset=1), q + 1 >= kv)
  np.testing.assert_array_equal(sa.make_local_attention_mask((6, 8), (2, 1)),
                                (q - 2 <= kv) & (q + 1 >= kv))
  np.testing.assert_array_equal(masks.make_chunk_attention_mask((6, 8), 3),
                                (q // 3 == kv // 3) & (q >= kv))
  np.testing.assert_array_equal(sa.CausalMask((6, 8), offset=1)[:, :], q + 1 >= kv)
  np.testing.assert_array_equal(sa.LocalMask((6, 8), (None, 0), 0)[2:5, 1:], (q + 0 >= kv)[2:5, 1:])
  np.testing.assert_array_equal(masks.ChunkedCausalMask((6, 8), 3)[:, :],
                                masks.make_chunk_attention_mask((6, 8), 3))
  both = sa.CausalMask((6, 8)) & sa.LocalMask((6, 8), (1, None), 0)
  np.testing.assert_array_equal(both[:, :], (q >= kv) & (q - 1 <= kv))
  either = sa.NumpyMask(np.eye(6, 8, dtype=bool)) | sa.FullMask((6, 8))
  assert either[:, :].all() and either.shape == (6, 8)
  heads = sa.MultiHeadMask([sa.CausalMask((6, 8)), sa.FullMask((6, 8))])
  assert heads.shape == (2, 6, 8) and heads[:, :, :].shape == (2, 6, 8)
  np.testing.assert_array_equal(heads[0, :, :], q >= kv)
  with pytest.raises(NotImplementedError, match="Conversion to bool"):
    bool(sa.FullMask((2, 2)))
  with pytest.raises(ValueError, match="Invalid shape for other"):
    sa.FullMask((2, 2)) | sa.FullMask((2, 3))
  with pytest.raises(ValueError, match="Mask must be a boolean array"):
    sa.NumpyMask(np.ones((2, 2)))
  assert sa.CausalMask((4, 4)) == sa.CausalMask((4, 4)) != sa.CausalMask((4, 4), offset=1)


def _oracle(mask, q, k, v, segments=None):
  logits = np.einsum("hsd,htd->hst", q, k).astype(np.float64)
  if segments is not None:
    mask = mask & (segments[:, None] == segments[None, :])
  logits = np.where(mask, logits, -0.7 * np.finfo(np.float32).max)
  p = np.exp(logits - logits.max(-1, keepdims=True))
  return np.einsum("hst,htd->hsd", p / p.sum(-1, keepdims=True), v)


def test_kernels_compute_masked_attention():
  rng = np.random.RandomState(0)
  q, k, v = (rng.randn(2, 8, 4).astype(np.float32) for _ in range(3))
  mask = sa.MultiHeadMask([sa.CausalMask((8, 8)), sa.LocalMask((8, 8), (2, 2), 0)])
  dense = mask[:, :, :]
  kernel = sa.make_splash_mha_single_device(mask)
  np.testing.assert_allclose(kernel(q, k, v), _oracle(dense, q, k, v), rtol=2e-5, atol=2e-6)
  seg = np.array([0, 0, 0, 1, 1, 1, 1, 2], np.int32)
  got = kernel(q, k, v, segment_ids=sa.SegmentIds(q=seg, kv=seg))
  np.testing.assert_allclose(got, _oracle(dense, q, k, v, seg), rtol=2e-5, atol=2e-6)
  reference = sa.make_masked_mha_reference(dense)
  np.testing.assert_allclose(reference(q, k, v), kernel(q, k, v), rtol=1e-6)
  # batched with vmap, as Keras runs it; the kernel is a pytree (its mask a leaf)
  batched = xjax.vmap(kernel)(np.stack([q, q]), np.stack([k, k]), np.stack([v, v]))
  np.testing.assert_allclose(batched[1], _oracle(dense, q, k, v), rtol=2e-5, atol=2e-6)
  assert len(xjax.tree_util.tree_leaves(kernel)) == 1
  # MQA: one key/value head shared by every query head
  mqa = sa.make_splash_mqa_single_device(dense)
  np.testing.assert_allclose(mqa(q, k[0], v[0]), _oracle(dense, q, k[[0, 0]], v[[0, 0]]),
                             rtol=2e-5, atol=2e-6)
  # grouped: 2 query heads over 1 key head
  np.testing.assert_allclose(kernel(q, k[:1], v[:1]),
                             _oracle(dense, q, k[[0, 0]], v[[0, 0]]), rtol=2e-5, atol=2e-6)
  out, (lse,) = sa.make_splash_mha(dense, head_shards=1, q_seq_shards=1,
                                   save_residuals=True)(q, k, v)
  assert out.shape == (2, 8, 4) and lse.shape == (2, 8)


def test_kernel_gradient_matches_finite_differences():
  rng = np.random.RandomState(1)
  q, k, v = (rng.randn(1, 4, 3) for _ in range(3))
  kernel = sa.make_splash_mha_single_device(np.tril(np.ones((1, 4, 4), bool)))
  f = lambda q: jnp.sum(kernel(q, k, v) ** 2)
  g = xjax.grad(f)(jnp.asarray(q, jnp.float32))
  eps, fd = 1e-3, np.zeros_like(q)
  for i in np.ndindex(q.shape):
    d = np.zeros_like(q)
    d[i] = eps
    fd[i] = (float(f(jnp.asarray(q + d, jnp.float32))) -
             float(f(jnp.asarray(q - d, jnp.float32)))) / (2 * eps)
  np.testing.assert_allclose(g, fd, rtol=2e-2, atol=2e-3)
