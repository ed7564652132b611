"""Exporting jitted functions as serializable StableHLO programs (``jax.export``)."""
from xjax._src.api.export.exported import (DisabledSafetyCheck, Exported,  # noqa: F401
                                           default_export_platform, export,
                                           maximum_supported_calling_convention_version,
                                           minimum_supported_calling_convention_version)
from xjax._src.api.export.serialization import (deserialize,  # noqa: F401
                                                register_namedtuple_serialization,
                                                register_pytree_node_serialization)
from xjax._src.api.export.shape_poly import (SymbolicScope, is_symbolic_dim,  # noqa: F401
                                             symbolic_args_specs, symbolic_shape)
