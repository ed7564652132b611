"""Splash attention masks (NumPy objects indexed by query and key slices)."""
from xjax._src.libraries.pallas.splash_attention import (  # noqa: F401
    CausalMask, ChunkedCausalMask, FullMask, LocalMask, LogicalAnd, LogicalOr, Mask,
    MultiHeadMask, NumpyMask, make_causal_mask, make_chunk_attention_mask,
    make_local_attention_mask, make_random_mask)
