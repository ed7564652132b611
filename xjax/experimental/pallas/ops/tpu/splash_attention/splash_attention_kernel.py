"""Splash attention kernels, computed as dense masked attention (see
``xjax._src.libraries.pallas.splash_attention``)."""
from xjax._src.libraries.pallas.splash_attention import (  # noqa: F401
    DEFAULT_MASK_VALUE, BlockSizes, QKVLayout, SegmentIds, SplashAttentionKernel,
    attention_reference, make_attention_reference, make_masked_mha_reference,
    make_masked_mqa_reference, make_splash_mha, make_splash_mha_single_device, make_splash_mqa,
    make_splash_mqa_single_device)
