"""Segment reductions, with the names of `jax.ops`."""
from xjax._src.libraries.segment_ops import (
    segment_max as segment_max,
    segment_min as segment_min,
    segment_prod as segment_prod,
    segment_sum as segment_sum,
)
