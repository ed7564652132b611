"""Splash attention (``jax.experimental.pallas.ops.tpu.splash_attention``), computed as dense
masked attention on any backend."""
from xjax._src.libraries.pallas.splash_attention import (  # noqa: F401
    BlockSizes, CausalMask, FullMask, LocalMask, Mask, MultiHeadMask, NumpyMask, QKVLayout,
    SegmentIds, make_causal_mask, make_local_attention_mask, make_masked_mha_reference,
    make_masked_mqa_reference, make_random_mask, make_splash_mha, make_splash_mha_single_device,
    make_splash_mqa, make_splash_mqa_single_device)
