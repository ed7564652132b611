"""`jax._src.source_info_util`: the public ``jax.extend.source_info_util`` (brainstate
imports it from here)."""
from xjax.extend.source_info_util import (NameStack, SourceInfo, current,  # noqa: F401
                                          current_name_stack, extend_name_stack,
                                          new_name_stack, new_source_info, register_exclusion,
                                          reset_name_stack, set_name_stack, summarize,
                                          transform_name_stack, user_context)
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  raise missing("jax._src.source_info_util", name)
