"""`jax._src.api`: ``_dtype``, the canonical dtype of a value (PennyLane checks tangents'
dtypes with it in ``qml.jvp``)."""
from xjax._src.compat.jax_private_compat import missing
from xjax._src.compat.jax_private_compat.dtypes import dtype as _dtype  # noqa: F401


def __getattr__(name: str):
  raise missing("jax._src.api", name)
