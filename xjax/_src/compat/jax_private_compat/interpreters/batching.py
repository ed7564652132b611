"""`jax._src.interpreters.batching`: the public `jax.interpreters.batching` names,
``is_vmappable`` (jaxoplanet flattens its object stacks with it as ``is_leaf``), and the
vmap trace's classes and entry helpers brainstate reads (``BatchTracer.batch_dim``)."""
from xjax.interpreters.batching import *  # noqa: F401,F403
from xjax.interpreters.batching import (axis_primitive_batchers,  # noqa: F401
                                        fancy_primitive_batchers, primitive_batchers)
from xjax._src.api.vmappable import is_vmappable, make_iota, to_elt  # noqa: F401
from xjax._src.interpreters.batching import BatchTrace, BatchTracer  # noqa: F401
from xjax._src.compat.jax_private_compat import missing


def __getattr__(name: str):
  raise missing("jax._src.interpreters.batching", name)
