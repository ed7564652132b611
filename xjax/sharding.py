"""Array layouts over devices (``jax.sharding``).  Arrays live on one device for now: meshes
and named shardings describe layouts, and placement accepts those of one device."""
from xjax._src.sharding import (AbstractMesh, AxisType, Mesh, NamedSharding,  # noqa: F401
                                PartitionSpec, Sharding, SingleDeviceSharding,
                                get_abstract_mesh)
