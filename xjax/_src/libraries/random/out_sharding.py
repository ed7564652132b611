"""The samplers' ``out_sharding=`` keyword (JAX's): how their result is laid out.

As JAX's samplers do, one given ``out_sharding=`` over a mesh with Explicit axes runs the
sampler with those axes Auto (``auto_axes``: its operands' splits leave their types, the
result is resharded as asked). Over a context mesh whose axes are all Explicit, a sampler
with a ``shape`` parameter given no shape (a scalar, or its parameters' shape) and no
``out_sharding`` runs so too, with an unsplit result (JAX's default for samplers)."""
from __future__ import annotations

import functools
import inspect

import numpy as np

from xjax._src.api.explicit_sharding import auto_axes
from xjax._src.foundations.sharding import NamedSharding, PartitionSpec, get_abstract_mesh
from xjax._src.primitives.lax.sharding_constraint import place_out_sharding


def with_out_sharding(sampler, *, unsplit_without_shape: bool = True, shape_from=()):
  """``sampler`` taking JAX's keyword-only ``out_sharding`` (see the module's docstring;
  ``unsplit_without_shape=False`` for the samplers JAX gives no unsplit default).  A
  sampler whose missing shape JAX takes from its parameters ``shape_from`` first (their
  broadcast shape) has no shape only when they are scalars."""
  sig = inspect.signature(sampler)
  shaped = unsplit_without_shape and "shape" in sig.parameters

  def call(*args, out_sharding=None, **kwargs):
    if out_sharding is None and shaped:
      mesh = get_abstract_mesh()
      if not mesh.empty and mesh.are_all_axes_explicit:
        try:
          given = sig.bind(*args, **kwargs).arguments
        except TypeError:  # (the sampler's own error)
          return sampler(*args, **kwargs)
        shape = given.get("shape")
        if shape is None:
          shape = [d for name in shape_from for d in np.shape(given.get(name, 0))]
        if not shape:
          out_sharding = NamedSharding(mesh, PartitionSpec())
    if out_sharding is None:
      return sampler(*args, **kwargs)
    mesh = (out_sharding.mesh.abstract_mesh if isinstance(out_sharding, NamedSharding)
            else get_abstract_mesh())
    if mesh.empty or not mesh.explicit_axes:  # (a layout only: the result placed so)
      return place_out_sharding(sampler(*args, **kwargs), out_sharding)
    return auto_axes(sampler, axes=mesh.explicit_axes, out_sharding=out_sharding)(
        *args, **kwargs)
  wrapper = functools.wraps(sampler)(call)  # (its signature: the sampler's, out_sharding added)
  wrapper.__signature__ = sig.replace(parameters=[*sig.parameters.values(), inspect.Parameter(
      "out_sharding", inspect.Parameter.KEYWORD_ONLY, default=None)])
  return wrapper
