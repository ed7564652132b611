"""The one step that gives lower layers what only a higher layer can build (docs/design.md §1).

A slot is declared where it is used (``Primitive.impl``, the builders in
``interpreters/array_builders.py``, ``lowering.without_local_state``, ``AbstractRef``'s
indexing, ``device_put_p.impl``, ``Array``'s methods); the implementation is defined in the
layer that can build it; ``install`` connects the two, in layer order.  This module imports
from every layer, so it sits on top with the public modules; ``xjax/__init__.py`` runs
``install()`` once, before anything else is imported, and no other module assigns to another
layer's classes or modules.
"""
from __future__ import annotations

from xjax._src.core import varying
from xjax._src.core.trace import Primitive, Tracer
from xjax._src.backend import lowering
from xjax._src.execution.array import Array
from xjax._src.execution.eager_primitives import apply_primitive
from xjax._src.interpreters import array_builders
from xjax._src.primitives.lax import elementwise, extended_arrays, parallel, reductions, shapes
from xjax._src.primitives.lax.device_put import device_put_p
from xjax._src.primitives.state import discharge
from xjax._src.primitives.state import primitives as ref_primitives
from xjax._src.primitives.state.types import AbstractRef
from xjax._src.api import placement
from xjax._src.libraries.numpy import array_methods, namespace as numpy_namespace



def install() -> None:
  """Installs every implementation a lower layer takes from a higher one."""
  # core <- execution: every primitive's default eager evaluation.
  Primitive.impl = apply_primitive
  # interpreters <- primitives: the zeros, tangent sums and axis moves AD and batching build.
  array_builders.full = shapes.full
  array_builders.transpose = shapes.transpose
  array_builders.broadcast_in_dim = shapes.broadcast_in_dim
  array_builders.convert_element_type = elementwise.convert_element_type
  array_builders.retype_tangent = elementwise.retype_tangent
  array_builders.add_any = extended_arrays.add_tangents
  array_builders.reduce_sum = reductions.reduce_sum
  array_builders.pvary = parallel.pvary
  # core <- primitives: shard_map bodies cast operands to vary alike with lax's pvary.
  varying.cast = parallel.pvary
  # backend <- primitives: bodies that make and use their own refs lower as array operations.
  lowering.without_local_state[0] = discharge.without_local_state
  # primitives/state/types <- primitives/state/primitives: indexing a traced ref.
  AbstractRef._getitem = ref_primitives.ref_getitem
  AbstractRef._setitem = ref_primitives.ref_setitem
  AbstractRef._addupdate = ref_primitives.ref_addupdate_item
  # primitives <- api: device_put on concrete values; execution and core <- api: to_device.
  device_put_p.impl = placement.device_put_impl
  Array.to_device = Tracer.to_device = placement.to_device
  # execution and core <- libraries: Array's and Tracer's operators and methods, from jnp.
  array_methods.install(numpy_namespace)
