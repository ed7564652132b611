"""Building device meshes (``jax.experimental.mesh_utils``)."""
from xjax._src.libraries.mesh_utils import (create_device_mesh,  # noqa: F401
                                            create_hybrid_device_mesh, device_kind_handler_dict)
