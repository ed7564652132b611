"""`jax._src.literals`: the typed host values jaxpr literals and some results are (equinox
counts `TypedNdArray` among arrays in `is_array`; brainstate and quax read them)."""
from xjax._src.core.typed_ndarray import (TypedComplex, TypedFloat, TypedInt,  # noqa: F401
                                          TypedNdArray)
from xjax._src.compat.jax_private_compat import missing

typed_scalar_types = {TypedInt, TypedFloat, TypedComplex}


def __getattr__(name: str):
  raise missing("jax._src.literals", name)
