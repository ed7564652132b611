"""Splash attention (``jax.experimental.pallas.ops.tpu.splash_attention``): attention with a
static per-head mask, and the masks that describe it.

JAX's kernels are Pallas TPU programs that skip the blocks the mask rules out.  xjax has no
TPU code generation: its kernels compute the same attention densely (the masked softmax of
each head, in float32, as JAX's reference functions do), so programs that build a splash
kernel get its results on any backend.  The masks are NumPy objects, as JAX's: they are
indexed ``mask[q_slice, kv_slice]`` (and ``mask[heads, q, kv]`` for a ``MultiHeadMask``).
"""
from __future__ import annotations

import dataclasses
import enum
import functools
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.api.jit import jit
from xjax._src.api.transformations import vmap
from xjax._src.libraries.numpy import namespace as jnp

DEFAULT_MASK_VALUE = -0.7 * float(np.finfo(np.dtype("float32")).max)


# -- masks -----------------------------------------------------------------------------------

def _indices(shape) -> tuple[np.ndarray, np.ndarray]:
  q, kv = shape
  return np.arange(q, dtype=np.int32)[:, None], np.arange(kv, dtype=np.int32)[None, :]


def make_causal_mask(shape: tuple[int, int], offset: int = 0) -> np.ndarray:
  """A boolean (q, kv) mask where query i sees keys up to i + offset."""
  q, kv = _indices(shape)
  return q + offset >= kv


def make_local_attention_mask(shape: tuple[int, int], window_size, *, offset: int = 0):
  """A boolean (q, kv) mask where query i sees keys within (left, right) of i + offset
  (None: no limit on that side)."""
  q, kv = _indices(shape)
  return _local(q, kv, window_size, offset)


def _local(q, kv, window_size, offset: int) -> np.ndarray:
  left, right = window_size
  mask = np.ones((q.shape[0], kv.shape[1]), np.bool_)
  if left is not None:
    mask &= q + offset - left <= kv
  if right is not None:
    mask &= q + offset + right >= kv
  return mask


def make_chunk_attention_mask(shape: tuple[int, int], chunk_size: int) -> np.ndarray:
  """A boolean (q, kv) mask, causal within chunks of ``chunk_size`` and closed across them."""
  if chunk_size <= 0:
    raise ValueError("chunk_size must be positive")
  q, kv = _indices(shape)
  return _chunked(q, kv, chunk_size)


def _chunked(q, kv, chunk_size: int) -> np.ndarray:
  return (q // chunk_size == kv // chunk_size) & (q >= kv)


def make_random_mask(shape: tuple[int, int], sparsity: float, seed: int) -> np.ndarray:
  """A boolean mask whose entries are True with probability ``1 - sparsity`` (NumPy's global
  generator, seeded with ``seed``, as JAX's)."""
  np.random.seed(seed)
  return np.random.binomial(n=1, p=1.0 - sparsity, size=shape).astype(np.bool_)


class Mask:
  """A lazily computed attention mask: ``shape`` and ``mask[q_slice, kv_slice]``; ``|`` and
  ``&`` combine masks."""

  @property
  def shape(self) -> tuple[int, ...]:
    raise NotImplementedError

  def __getitem__(self, idx) -> np.ndarray:
    raise NotImplementedError

  def __bool__(self) -> bool:
    raise NotImplementedError("Conversion to bool is unsupported. Could be caused by using "
                              "logical instead of bitwise operations on masks.")

  def _combine(self, other: "Mask", cls):
    if self.shape != other.shape:
      raise ValueError(f"Invalid shape for other: {other.shape}, expected: {self.shape}")
    return cls(self, other)

  def __or__(self, other: "Mask") -> "Mask":
    return self._combine(other, LogicalOr)

  def __and__(self, other: "Mask") -> "Mask":
    return self._combine(other, LogicalAnd)


@dataclasses.dataclass
class _Combined(Mask):
  left: Mask
  right: Mask

  shape = property(lambda self: self.left.shape)

  def __getitem__(self, idx) -> np.ndarray:
    return self._combine_values(self.left[idx], self.right[idx])

  def __hash__(self):
    return hash((type(self), self.left, self.right))


class LogicalOr(_Combined):
  """Where either mask allows."""
  _combine_values = staticmethod(np.logical_or)


class LogicalAnd(_Combined):
  """Where both masks allow."""
  _combine_values = staticmethod(np.logical_and)


@dataclasses.dataclass
class MultiHeadMask(Mask):
  """One mask per head; indexed ``[head(s), q_slice, kv_slice]``."""
  masks: Sequence[Mask]

  def __post_init__(self):
    if not self.masks:
      raise ValueError("Unsupported empty tuple of masks")
    for mask in self.masks[1:]:
      if mask.shape != self.masks[0].shape:
        raise ValueError(f"Unexpected mask shape, got: {mask.shape}, expected: "
                         f"{self.masks[0].shape}")
    if not all(isinstance(m, Mask) for m in self.masks):
      raise ValueError("masks should be of type Mask")
    if any(isinstance(m, MultiHeadMask) for m in self.masks):
      raise ValueError("Nesting MultiHeadMasks is not supported")

  @property
  def shape(self) -> tuple[int, ...]:
    return (len(self.masks), *self.masks[0].shape)

  def __getitem__(self, idx) -> np.ndarray:
    if len(idx) != 3:
      raise NotImplementedError(f"Unsupported slice: {idx}")
    heads, rest = idx[0], idx[1:]
    if isinstance(heads, int):
      return self.masks[heads][rest]
    return np.stack([m[rest] for m in self.masks[heads]])

  def __hash__(self):
    return hash((type(self), *map(hash, self.masks)))


class _ComputableMask(Mask):
  """A mask computed from query and key positions by ``mask_function`` (rows, columns)."""

  def __init__(self, shape: tuple[int, int], mask_function: Callable, shard_count: int = 1):
    self._shape = tuple(shape)
    self.mask_function = mask_function
    if self._shape[0] % (shard_count * shard_count):
      raise ValueError(f"Shard count squared ({shard_count * shard_count}) must divide Q "
                       f"seq_len ({self._shape[0]}) evenly.")
    self.q_sequence = np.arange(self._shape[0], dtype=np.int32)

  @property
  def shape(self) -> tuple[int, ...]:
    return self._shape

  def __getitem__(self, idx) -> np.ndarray:
    if len(idx) != 2 or not all(isinstance(i, slice) for i in idx):
      raise NotImplementedError(f"Unsupported slice: {idx}")
    q_slice, kv_slice = (slice(*s.indices(n)) for s, n in zip(idx, self._shape))
    if q_slice.step != 1 or kv_slice.step != 1:
      raise NotImplementedError(f"Unsupported slice: {idx}")
    rows = self.q_sequence[q_slice]
    cols = np.arange(kv_slice.start, kv_slice.stop)
    return self.mask_function(rows[:, None], cols[None, :])

  def _key(self) -> tuple:
    raise NotImplementedError

  def __eq__(self, other):
    if not isinstance(other, type(self)):
      return NotImplemented
    return self._key() == other._key() and np.array_equal(self.q_sequence, other.q_sequence)

  def __hash__(self):
    return hash((type(self), *self._key(), self.q_sequence.tobytes()))


class CausalMask(_ComputableMask):
  """Query i sees keys up to i + offset."""

  def __init__(self, shape: tuple[int, int], offset: int = 0, shard_count: int = 1):
    self.offset = offset
    super().__init__(shape, lambda q, kv: q + self.offset >= kv, shard_count)

  def _key(self) -> tuple:
    return self.shape, self.offset


class ChunkedCausalMask(_ComputableMask):
  """Causal within chunks of ``chunk_size`` positions, closed across chunks."""

  def __init__(self, shape: tuple[int, int], chunk_size: int, shard_count: int = 1):
    if chunk_size <= 0:
      raise ValueError("chunk_size must be positive")
    self.chunk_size = chunk_size
    super().__init__(shape, lambda q, kv: _chunked(q, kv, self.chunk_size), shard_count)

  def _key(self) -> tuple:
    return self.shape, self.chunk_size


class LocalMask(_ComputableMask):
  """Query i sees keys within ``window_size`` (left, right; None: unbounded) of i + offset."""

  def __init__(self, shape: tuple[int, int], window_size, offset: int, shard_count: int = 1):
    self.window_size, self.offset = tuple(window_size), offset
    super().__init__(shape, lambda q, kv: _local(q, kv, self.window_size, self.offset),
                     shard_count)

  def _key(self) -> tuple:
    return self.shape, self.window_size, self.offset


@dataclasses.dataclass
class NumpyMask(Mask):
  """A mask given as a 2-D boolean array."""
  array: np.ndarray

  def __post_init__(self):
    if self.array.ndim != 2:
      raise ValueError("Expected a 2-dim array")
    if self.array.dtype != np.bool_:
      raise ValueError("Mask must be a boolean array")

  shape = property(lambda self: self.array.shape)

  def __getitem__(self, idx) -> np.ndarray:
    return self.array[idx]

  def __eq__(self, other):
    if not isinstance(other, type(self)):
      return NotImplemented
    return np.array_equal(self.array, other.array, equal_nan=True)

  def __hash__(self):
    return hash((type(self), self.array.tobytes()))


@dataclasses.dataclass(frozen=True)
class FullMask(Mask):
  """Every query sees every key."""
  _shape: tuple[int, int]

  def __post_init__(self):
    if not isinstance(self._shape, tuple):
      raise ValueError(f"Unsupported shape type: {type(self._shape)}")

  shape = property(lambda self: self._shape)

  def __getitem__(self, idx) -> np.ndarray:
    if len(idx) != 2 or not all(isinstance(i, slice) for i in idx):
      raise NotImplementedError(f"Unsupported slice: {idx}")
    return np.ones(tuple(len(range(n)[i]) for i, n in zip(idx, self._shape)), np.bool_)


# -- kernels -----------------------------------------------------------------------------------

class SegmentIds(NamedTuple):
  """Segment ids of the query and key sequences: a token sees only tokens of its segment."""
  q: Any
  kv: Any


class QKVLayout(enum.IntEnum):
  HEAD_DIM_MINOR = enum.auto()   # [..., seq_len, head_dim]
  SEQ_MINOR = enum.auto()        # [..., head_dim, seq_len]


@dataclasses.dataclass(frozen=True, slots=True)
class BlockSizes:
  """The TPU kernel's block sizes (they do not change xjax's dense computation)."""
  block_q: int
  block_kv: int
  block_kv_compute: int | None = None
  block_q_dkv: int | None = None
  block_kv_dkv: int | None = None
  block_kv_dkv_compute: int | None = None
  block_q_dq: int | None = None
  block_kv_dq: int | None = None
  use_fused_bwd_kernel: bool = False
  q_layout: QKVLayout = QKVLayout.HEAD_DIM_MINOR
  k_layout: QKVLayout = QKVLayout.HEAD_DIM_MINOR
  v_layout: QKVLayout = QKVLayout.HEAD_DIM_MINOR

  def __post_init__(self):
    if self.block_kv_compute is None:
      object.__setattr__(self, "block_kv_compute", self.block_kv)
    if self.block_kv_dkv_compute is None:
      object.__setattr__(self, "block_kv_dkv_compute", self.block_kv_dkv)
    if self.use_fused_bwd_kernel and (self.block_q_dq is not None
                                      or self.block_kv_dq is not None):
      raise ValueError("Block sizes for dq kernel are not needed with a fused kernel.")

  @property
  def has_backward_blocks(self) -> bool:
    blocks = (self.block_q_dkv, self.block_kv_dkv, self.block_kv_dkv_compute)
    if not self.use_fused_bwd_kernel:
      blocks += (self.block_q_dq, self.block_kv_dq)
    return all(b is not None for b in blocks)

  @classmethod
  def get_default(cls) -> "BlockSizes":
    return cls(*[128] * 8)


def attention_reference(mask, q, k, v, segment_ids=None, sinks=None, *,
                        mask_value: float = DEFAULT_MASK_VALUE, save_residuals: bool = False,
                        custom_type: str = "flash", attn_logits_soft_cap=None):
  """One head's attention: ``mask`` (q, kv), ``q`` (q, d), ``k``/``v`` (kv, d); the masked
  softmax in float32, with the log-sum-exp as residual when ``save_residuals``."""
  del custom_type
  logits = jnp.einsum("sd,td->st", q.astype(jnp.float32), k.astype(jnp.float32))
  if segment_ids is not None:
    mask = jnp.logical_and(mask, segment_ids.q[:, None] == segment_ids.kv[None, :])
  if attn_logits_soft_cap is not None:
    logits = jnp.tanh(logits / attn_logits_soft_cap) * attn_logits_soft_cap
  logits = jnp.where(mask, logits, mask_value)
  m = logits.max(axis=-1)
  if sinks is not None:
    m = jnp.maximum(m, sinks.astype(logits.dtype))
  s = jnp.exp(logits - m[..., None])
  total = s.sum(axis=-1) + (0 if sinks is None else jnp.exp(sinks.astype(logits.dtype) - m))
  out = jnp.einsum("st,td->sd", s / total[..., None], v.astype(jnp.float32))
  return (out, (m + jnp.log(total),)) if save_residuals else out


def _multi_head(mask, q, k, v, segment_ids=None, sinks=None, *, is_mqa: bool,
                mask_value: float = DEFAULT_MASK_VALUE, save_residuals: bool = False,
                attn_logits_soft_cap=None):
  """Attention over heads: q (heads, q, d); k, v (kv_heads, kv, d), or (kv, d) shared by
  every head with ``is_mqa``; query heads grouped over fewer key heads."""
  head = functools.partial(attention_reference, mask_value=mask_value,
                           save_residuals=save_residuals,
                           attn_logits_soft_cap=attn_logits_soft_cap)
  if is_mqa:
    return vmap(head, in_axes=(0, 0, None, None, None, 0))(mask, q, k, v, segment_ids, sinks)
  kv_heads, (q_heads, q_len, dim) = k.shape[0], q.shape
  if kv_heads == q_heads:
    return vmap(head, in_axes=(0, 0, 0, 0, None, 0))(mask, q, k, v, segment_ids, sinks)
  if q_heads % kv_heads or mask.shape[0] != q_heads:
    raise ValueError(f"{q_heads} query heads cannot be grouped over {kv_heads} key heads "
                     f"with a mask of {mask.shape[0]} heads")
  group = q_heads // kv_heads
  grouped = vmap(vmap(head, in_axes=(0, 0, None, None, None, 0)),
                 in_axes=(0, 0, 0, 0, None, 0))
  out = grouped(mask.reshape(kv_heads, group, *mask.shape[1:]),
                q.reshape(kv_heads, group, q_len, dim), k, v, segment_ids,
                None if sinks is None else sinks.reshape(kv_heads, group))
  flat = lambda a: a.reshape(q_heads, *a.shape[2:])
  return (flat(out[0]), (flat(out[1][0]),)) if save_residuals else flat(out)


def make_attention_reference(mask, is_mqa: bool, backward_impl: str = "vanilla", **params):
  """A function of ``(q, k, v, segment_ids=None, sinks=None, *, mask_value, save_residuals,
  attn_logits_soft_cap)`` computing attention under ``mask`` (heads, q, kv)."""
  if backward_impl not in ("vanilla", "custom", "custom_vanilla"):
    raise ValueError(f"Unknown backward_impl {backward_impl!r}")
  run = jit(functools.partial(_multi_head, is_mqa=is_mqa, **params),
            static_argnames=("mask_value", "save_residuals", "attn_logits_soft_cap"))
  return functools.partial(run, jnp.array(mask[:, :, :]))


make_masked_mha_reference = functools.partial(make_attention_reference, is_mqa=False)
make_masked_mqa_reference = functools.partial(make_attention_reference, is_mqa=True)


@tree_util.register_pytree_node_class
class SplashAttentionKernel:
  """A splash attention kernel: call it with ``(q, k, v, segment_ids=None, sinks=None)``
  (one example; ``vmap`` it over a batch)."""

  def __init__(self, mask, **kwargs):
    self.mask = mask
    self.kwargs = kwargs

  def __call__(self, q, k, v, segment_ids=None, sinks=None):
    kw = {n: self.kwargs[n] for n in ("mask_value", "save_residuals", "attn_logits_soft_cap")}
    return _multi_head(self.mask, q, k, v, segment_ids, sinks, is_mqa=self.kwargs["is_mqa"],
                       **kw)

  def manual_sharding_spec(self, sharding):
    """The kernel's partition spec for ``shard_map`` (heads and query sequence sharded as
    ``sharding``'s two axes)."""
    from xjax._src.foundations.sharding import PartitionSpec
    spec = sharding.spec
    if len(spec) != 2:
      raise ValueError(f"Expected a sharding of 2 dimensions (heads, q sequence), got {spec}")
    return SplashAttentionKernel(PartitionSpec(spec[0], spec[1], None), **self.kwargs)

  def tree_flatten(self):
    return (self.mask,), self.kwargs

  @classmethod
  def tree_unflatten(cls, kwargs, leaves):
    return cls(*leaves, **kwargs)


def _make_splash_attention(mask, *, block_sizes: BlockSizes | None = None, is_mqa: bool,
                           save_residuals: bool = False, mask_value: float = DEFAULT_MASK_VALUE,
                           attn_logits_soft_cap=None, downcast_smem_data: bool = True,
                           head_shards: int, q_seq_shards: int,
                           residual_checkpoint_name=None, interpret: bool = False):
  """A ``SplashAttentionKernel`` for ``mask`` (heads, q, kv): a NumPy array, a
  ``MultiHeadMask`` or an array."""
  del downcast_smem_data, residual_checkpoint_name, interpret   # (TPU kernel options)
  if len(mask.shape) != 3:
    raise ValueError(f"Unexpected mask shape: {mask.shape}")
  for n, what in ((head_shards, "head_shards"), (q_seq_shards, "q_seq_shards")):
    if n < 1:
      raise ValueError(f"{what} must be positive, got {n}")
  dense = mask[:, :, :] if isinstance(mask, Mask) else mask
  return SplashAttentionKernel(jnp.asarray(dense, jnp.bool_),
                               block_sizes=block_sizes or BlockSizes.get_default(),
                               is_mqa=is_mqa, save_residuals=save_residuals,
                               mask_value=mask_value, attn_logits_soft_cap=attn_logits_soft_cap)


make_splash_mha = functools.partial(_make_splash_attention, is_mqa=False)
make_splash_mqa = functools.partial(_make_splash_attention, is_mqa=True)
make_splash_mha_single_device = functools.partial(make_splash_mha, head_shards=1,
                                                  q_seq_shards=1)
make_splash_mqa_single_device = functools.partial(make_splash_mqa, head_shards=1,
                                                  q_seq_shards=1)
