"""The samplers' ``out_sharding=`` keyword (JAX's): how their result is laid out."""
from __future__ import annotations

from xjax._src.primitives.lax.sharding_constraint import place_out_sharding
from xjax._src.foundations.wrapping import with_keyword


def with_out_sharding(sampler):
  """``sampler`` taking JAX's keyword-only ``out_sharding`` (see ``place_out_sharding``)."""
  return with_keyword(sampler, "out_sharding", place_out_sharding)
