"""Building device meshes (``jax.experimental.mesh_utils``)."""
from xjax._src.mesh_utils import (create_device_mesh, create_hybrid_device_mesh,  # noqa: F401
                                  device_kind_handler_dict)
