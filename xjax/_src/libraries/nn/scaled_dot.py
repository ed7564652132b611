"""Block-scaled matrix products (``jax.nn.scaled_matmul``, ``scaled_dot_general``).

A block-scaled operand stores low-precision values ``q[b, m, k]`` and one scale per block
of ``K / K_scales`` consecutive contraction elements; the product is
``sum_k (q_a * s_a)[b, m, k] * (q_b * s_b)[b, n, k]``. The reference lowers this to a cuDNN
custom call (GPU only); here it is computed portably by dequantising and contracting.
``scaled_dot_general`` quantises its operands per :class:`BlockScaleConfig` (MXFP8: E4M3
values with power-of-two scales rounded up; NVFP4: E2M1 values with E4M3 scales under a
global scale) and differentiates through a quantised backward product, as the reference.
"""
from __future__ import annotations

import dataclasses
import warnings

import ml_dtypes
import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.primitives.custom_derivatives import custom_vjp
from xjax._src.primitives.lax.bit_conversions import bitcast_convert_type
from xjax._src.primitives.lax.dot import dot_general, Precision
from xjax._src.libraries.numpy import namespace as jnp


@dataclasses.dataclass
class BlockScaleConfig:
  """How one operand is block-quantised."""
  mode: str
  block_size: int
  data_type: object
  scale_type: object
  global_scale: object
  infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None):
  """The standard :class:`BlockScaleConfig` for ``mode`` "mxfp8" or "nvfp4"."""
  if mode == "nvfp4":
    return BlockScaleConfig("nvfp4", 16, ml_dtypes.float4_e2m1fn, ml_dtypes.float8_e4m3fn,
                            jnp.ones((1,), np.float32) if global_scale is None else global_scale,
                            False)
  if mode == "mxfp8":
    return BlockScaleConfig("mxfp8", 32, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu,
                            None, False)
  raise ValueError(f"Unsupported mode: {mode}")


def _check_3d(lhs, rhs, lhs_scales, rhs_scales):
  if not all(np.ndim(x) == 3 for x in (lhs, rhs, lhs_scales, rhs_scales)):
    raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
  (b_a, m_a, k_a), (b_b, n_b, k_b) = np.shape(lhs), np.shape(rhs)
  if k_a != k_b or b_a != b_b:
    raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) and "
                     f"contract (K) dimensions, but got shapes {np.shape(lhs)} and "
                     f"{np.shape(rhs)}")
  (b_as, m_as, k_as), (b_bs, n_bs, k_bs) = np.shape(lhs_scales), np.shape(rhs_scales)
  if k_as != k_bs or b_as != b_bs:
    raise ValueError("scaled_matmul requires scales to have matching batch (B) and contract "
                     f"(K) dimensions, but got shapes {np.shape(lhs_scales)} and "
                     f"{np.shape(rhs_scales)}")
  if m_as != m_a or n_bs != n_b:
    raise ValueError("scaled_matmul requires scales to match non-contract dimensions of "
                     f"inputs, but got shapes a: {np.shape(lhs)}, b: {np.shape(rhs)}, "
                     f"a_scales: {np.shape(lhs_scales)}, b_scales: {np.shape(rhs_scales)}")
  if k_a % k_as:
    raise ValueError(f"scaled_matmul requires the contract dimension ({k_a}) to be a multiple "
                     f"of the scales' contract dimension ({k_as})")


def _dequantize(q, scales, dtype):
  block = q.shape[-1] // scales.shape[-1]
  return q.astype(dtype) * jnp.repeat(scales.astype(dtype), block, axis=-1)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
  """``out[b, m, n] = sum_k lhs[b, m, k] * rhs[b, n, k]`` with per-block scales
  (shapes (B, M, K), (B, N, K), (B, M, K/block), (B, N, K/block))."""
  _check_3d(lhs, rhs, lhs_scales, rhs_scales)
  dtype = dtypes.canonicalize_dtype(np.dtype(preferred_element_type))
  compute = np.promote_types(dtype, np.float32)
  a = _dequantize(jnp.asarray(lhs), jnp.asarray(lhs_scales), compute)
  b = _dequantize(jnp.asarray(rhs), jnp.asarray(rhs_scales), compute)
  out = dot_general(a, b, (((2,), (2,)), ((0,), (0,))),
                        precision=Precision.HIGHEST)
  return out.astype(dtype)


def _round_to_format(x, mantissa_bits: int, min_exponent: int, largest: float):
  """``x`` rounded half-to-even onto a small float grid (exponent >= ``min_exponent``,
  ``mantissa_bits`` stored bits, saturating at ``largest``)."""
  mag = jnp.abs(x)
  exponent = jnp.maximum(jnp.floor(jnp.log2(jnp.where(mag > 0, mag, 1.0))), min_exponent)
  ulp = jnp.exp2(exponent - mantissa_bits)
  return jnp.sign(x) * jnp.minimum(jnp.round(mag / ulp) * ulp, largest)


def _e8m0_round_up(x):
  """Power-of-two scale >= ``x`` (the E8M0 encoding, rounding any mantissa up)."""
  bits = bitcast_convert_type(x.astype(np.float32), np.uint32)
  exponent, mantissa = bits >> 23, bits & 0x7FFFFF
  up = (mantissa > 0) & (exponent != 0xFE) & ~((exponent == 0) & (mantissa <= 0x400000))
  exponent = jnp.where(up, exponent + 1, exponent)
  scale = bitcast_convert_type((exponent & 0xFF) << 23, np.float32)
  return jnp.where(scale == 0, np.float32(2.0 ** -127), scale)


def _quantize(x, config):
  """(values, scales): ``x`` (B, M, K) block-quantised per ``config``, both dequantised to
  float32 numbers that the low-precision formats represent exactly."""
  block = config.block_size
  k = x.shape[-1]
  if k < block or k % block:
    raise ValueError(f"scaled_dot_general: the contracting size {k} must be a multiple of the "
                     f"block size {block}")
  blocks = jnp.reshape(x.astype(np.float32), x.shape[:-1] + (k // block, block))
  largest = float(ml_dtypes.finfo(config.data_type).max)
  amax = jnp.max(jnp.abs(blocks), axis=-1, keepdims=True) / largest
  if config.mode == "mxfp8":
    scales = _e8m0_round_up(amax)
  elif config.mode == "nvfp4":
    blocks = blocks / config.global_scale
    scale_max = float(ml_dtypes.finfo(config.scale_type).max)
    scales = jnp.clip(amax, 0, scale_max).astype(config.scale_type).astype(np.float32)
  else:
    raise ValueError(f"Unrecognized mode: {config.mode}.")
  scaled = jnp.clip(blocks / scales, -largest, largest)
  if config.data_type == ml_dtypes.float4_e2m1fn:
    values = _round_to_format(scaled, 1, 0, largest)
  else:
    values = scaled.astype(config.data_type).astype(np.float32)
  return jnp.reshape(values, x.shape), scales[..., 0]


def _quantized_matmul(x, y, configs, dtype):
  """(B, M, K) x (B, N, K) -> (B, M, N) with both operands block-quantised."""
  (xq, xs), (yq, ys) = _quantize(x, configs[0]), _quantize(y, configs[1])
  if configs[0].mode == "nvfp4":
    out = scaled_matmul(xq, yq, xs, ys, np.float32)
    return (out * (configs[0].global_scale * configs[1].global_scale)).astype(dtype)
  return scaled_matmul(xq, yq, xs, ys, dtype)


def _scaled_matmul_3d(configs, dtype):
  """The quantised (B, M, K) x (B, N, K) product with the reference's quantised VJP."""

  @custom_vjp
  def product(x, y):
    return _quantized_matmul(x, y, configs, dtype)

  def fwd(x, y):
    return product(x, y), (x, y)

  def grad_of(g, other, cfg):  # (B, M, N) x (B, N, K) -> (B, M, K)
    other_t = jnp.swapaxes(other, 1, 2)
    if configs[2].mode == "nvfp4":
      return dot_general(g, other_t, (((2,), (2,)), ((0,), (0,))),
                             preferred_element_type=dtype)
    return _quantized_matmul(g, other_t, [configs[2], cfg], dtype)

  def bwd(res, g):
    x, y = res
    gx = grad_of(g, y, configs[1]).astype(x.dtype)
    gy = grad_of(jnp.swapaxes(g, 1, 2), x, configs[0]).astype(y.dtype)
    if configs[2].mode == "nvfp4":
      largest = float(ml_dtypes.finfo(configs[0].data_type).max)
      scale_max = float(ml_dtypes.finfo(configs[0].scale_type).max)
      gx = jnp.where(jnp.abs(x) <= configs[0].global_scale * largest * scale_max, gx, 0)
      gy = jnp.where(jnp.abs(y) <= configs[1].global_scale * largest * scale_max, gy, 0)
    return gx, gy

  product.defvjp(fwd, bwd)
  return product


def _to_3d(x, contract, batch):
  """``x`` transposed to (batch, free, contract) dims and flattened to rank 3."""
  free = [d for d in range(x.ndim) if d not in contract and d not in batch]
  t = jnp.transpose(x, list(batch) + free + list(contract))
  size = lambda dims: int(np.prod([x.shape[d] for d in dims], dtype=int))
  return jnp.reshape(t, (size(batch), size(free), size(contract))), [x.shape[d] for d in free]


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
  """``lax.dot_general`` on block-quantised operands (``configs``: [lhs, rhs, gradient]
  configs; ``None`` computes an ordinary ``dot_general``)."""
  if implementation is not None:
    warnings.warn("Backend selector, now ignored. The system chooses the backend "
                  "automatically.", DeprecationWarning)
  if configs is None:
    return dot_general(lhs, rhs, dimension_numbers,
                           preferred_element_type=preferred_element_type)
  dtype = np.dtype(preferred_element_type)
  if dtype not in (np.dtype("float32"), np.dtype(ml_dtypes.bfloat16), np.dtype("float16")):
    raise TypeError("Only support preferred_element_type in (f32, bf16, f16), but got "
                    f"{preferred_element_type}")
  (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dimension_numbers
  lhs, rhs = jnp.asarray(lhs), jnp.asarray(rhs)
  x, lhs_free = _to_3d(lhs, tuple(lhs_contract), tuple(lhs_batch))
  y, rhs_free = _to_3d(rhs, tuple(rhs_contract), tuple(rhs_batch))
  out = _scaled_matmul_3d(list(configs), dtype)(x, y)
  batch_shape = [lhs.shape[d] for d in lhs_batch]
  return jnp.reshape(out, batch_shape + lhs_free + rhs_free)
