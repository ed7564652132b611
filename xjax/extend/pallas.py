"""``jax.extend.pallas``: extension points of Pallas, JAX's kernel language, which xjax
does not have (see docs/differences.md): both names refuse with NotImplementedError."""

_NO_PALLAS = ("xjax has no Pallas (jax.experimental.pallas): kernels written in it, and "
              "lowering rules for them, are not supported")


class GridMapping:
  """Pallas's description of a kernel's grid (not supported)."""

  def __init__(self, *args, **kwargs) -> None:
    raise NotImplementedError(_NO_PALLAS)


def register_lowering_rule(*args, **kwargs):
  """Pallas's registration of a primitive's lowering inside kernels (not supported)."""
  raise NotImplementedError(_NO_PALLAS)
