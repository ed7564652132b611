"""Scaled dot-product attention (``jax.nn.dot_product_attention``) in XLA operations:
multi-head, grouped-query and multi-query attention, with bias, boolean masks, causal and
local-window masks, and per-example sequence lengths."""
from __future__ import annotations

import functools

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.transformations import vmap
from xjax._src.primitives.lax.stop_gradient import stop_gradient
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.nn.softmax import softmax
from xjax._src.libraries.scipy.special.log_sum_exp import logsumexp


def _large_negative(dtype):
  top = min(float(dtypes.finfo(dtype).max), float(dtypes.finfo(np.float32).max))
  return jnp.asarray(-0.7 * top, dtype=dtype)


def _as_4d(t):
  t = jnp.asarray(t)
  return jnp.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def _check(t, shape, dtype, name):
  if t is None:
    return
  if t.ndim != len(shape):
    raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
  if dtype is not None and t.dtype != dtype:
    raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
  if any(s != -1 and d != s for s, d in zip(shape, t.shape)):
    raise ValueError(f"{name} shape should be {tuple(shape)}: but got {t.shape}")


def _combined_mask(shape, mask, is_causal, q_lengths, kv_lengths, window):
  """The boolean mask (broadcastable to B N T S) of logits that take part, or None."""
  _, _, t, s = shape
  parts = [] if mask is None else [mask]
  if is_causal or window is not None:
    q_pos = jnp.arange(t)[:, None]
    k_pos = jnp.arange(s)[None, :]
  if is_causal:
    parts.append((q_pos >= k_pos)[None, None])
  if window is not None:
    left, right = window
    parts.append(((q_pos <= k_pos + left) & (q_pos >= k_pos - right))[None, None])
  if q_lengths is not None:
    parts.append((jnp.arange(t)[None, :, None] < q_lengths[:, None, None])[:, None])
  if kv_lengths is not None:
    parts.append((jnp.arange(s)[None, None, :] < kv_lengths[:, None, None])[:, None])
  if not parts:
    return None
  out = parts[0]
  for p in parts[1:]:
    out = out & p
  return out


def _grouped(t, k, g):
  """(B, N, T, S) -> (B, K, G, T, S), a single head broadcast over the G group members."""
  if t is None:
    return None
  b, n, tt, ss = t.shape
  if n == 1:
    return jnp.broadcast_to(t[:, :, None], (b, 1, g, tt, ss))
  return jnp.reshape(t, (b, k, g, tt, ss))


def _attention_group(query, key, value, bias, mask, *, is_causal, scale, q_lengths,
                     kv_lengths, window, return_residual):
  """Attention of one member of each query-head group, (B, T, K, H), to the K key heads:
  logits laid out (B, K, T, S), as JAX's, so XLA sees the same program."""
  logits_dtype = jnp.promote_types(query.dtype, np.float32)
  logits = jnp.einsum("BTNH,BSNH->BNTS", query, key, preferred_element_type=logits_dtype)
  logits = logits * jnp.asarray(scale, dtype=logits.dtype)
  if bias is not None:
    logits = (logits + bias).astype(logits.dtype)
  full = _combined_mask(logits.shape, mask, is_causal, q_lengths, kv_lengths, window)
  if full is not None:
    logits = jnp.where(full, logits, _large_negative(logits.dtype))
  logits = logits.astype(np.float32)
  probs = softmax(logits, axis=-1).astype(key.dtype)
  encoded = jnp.einsum("BNTS,BSNH->BTNH", probs, value)
  if q_lengths is not None:
    keep = jnp.arange(encoded.shape[1])[None, :] < q_lengths[:, None]
    encoded = encoded * keep[:, :, None, None].astype(encoded.dtype)
  if not return_residual:
    return encoded
  lse = logsumexp(logits, axis=-1).astype(key.dtype)  # B K T
  return encoded, stop_gradient(jnp.transpose(lse, (0, 2, 1)))


def _attention_xla(query, key, value, bias, mask, is_causal, scale, q_lengths, kv_lengths,
                   window, return_residual):
  b, t, n, h = query.shape
  k = key.shape[2]
  g = n // k
  group = functools.partial(_attention_group, is_causal=is_causal, scale=scale,
                            q_lengths=q_lengths, kv_lengths=kv_lengths, window=window,
                            return_residual=return_residual)
  bias, mask = _grouped(bias, k, g), _grouped(mask, k, g)
  in_axes = (3, None, None, None if bias is None else 2, None if mask is None else 2)
  out = vmap(group, in_axes=in_axes, out_axes=3)(
      jnp.reshape(query, (b, t, k, g, h)), key, value, bias, mask)
  if not return_residual:
    return jnp.reshape(out, (b, t, n, h))
  encoded, lse = out
  return jnp.reshape(encoded, (b, t, n, h)), jnp.reshape(lse, (b, t, n))


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
  """softmax(scale * Q K^T + bias, masked) V over arrays shaped (B, T, N, H) or (T, N, H).

  Keys and values may have fewer heads K than the query's N (grouped-query attention,
  N a multiple of K).  ``implementation`` is None or "xla"; "cudnn" is not available.
  """
  out_shape = jnp.shape(query)
  q, kk, v = _as_4d(query), _as_4d(key), _as_4d(value)
  bias = None if bias is None else _as_4d(bias)
  mask = None if mask is None else _as_4d(mask)
  q_len = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
  kv_len = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
  if isinstance(local_window_size, int):
    local_window_size = (local_window_size, local_window_size)
  b, s, k, h = kk.shape
  _check(v, [b, s, k, h], kk.dtype, "value")
  _check(q, [b, -1, -1, h], kk.dtype, "query")
  _check(mask, [-1] * 4, np.dtype(bool), "mask")
  _check(bias, [-1] * 4, None, "bias")
  _check(q_len, [b], np.dtype("int32"), "query_seq_lengths")
  _check(kv_len, [b], np.dtype("int32"), "key_value_seq_lengths")
  logits_shape = (b, q.shape[2], q.shape[1], s)
  for t, what in ((mask, "mask"), (bias, "bias")):
    if t is not None and any(d not in (1, n) for d, n in zip(t.shape, logits_shape)):
      raise TypeError(   # (JAX's class: its combining operation's broadcasting TypeError)
          f"dot_product_attention got incompatible shapes for broadcasting: the {what}'s "
          f"{t.shape} and the logits' (batch, heads, query, key) {logits_shape}.")
  if q.shape[-2] % k != 0:
    raise ValueError(f"The number of query heads must be a multiple of key/value heads, "
                     f"but got {q.shape[-2]} vs {k}")
  scale = 1.0 / np.sqrt(h) if scale is None else scale
  if implementation == "cudnn":
    raise RuntimeError("cuDNN is not detected. dot_product_attention's implementation="
                       "'cudnn' needs an NVIDIA GPU; use implementation='xla' (or None).")
  if implementation not in (None, "xla"):
    raise ValueError(f"Unsupported implementation option: {implementation}")
  out = _attention_xla(q, kk, v, bias, mask, is_causal, scale, q_len, kv_len,
                       local_window_size, return_residual)
  if return_residual:
    encoded, lse = out
    return jnp.reshape(encoded, out_shape), jnp.reshape(lse, out_shape[:-1])
  return jnp.reshape(out, out_shape)
