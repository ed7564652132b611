"""Array layouts over devices (``jax.sharding``): meshes, named and single-device shardings,
and the mesh in context."""
from xjax._src.api.placement import get_mesh  # noqa: F401
from xjax._src.foundations.sharding import (AbstractDevice, AbstractMesh, AxisType,  # noqa: F401
                                            ManualAxisType, Mesh, NamedSharding, PartitionSpec,
                                            Sharding, SingleDeviceSharding, get_abstract_mesh,
                                            make_single_device_sharding, use_abstract_mesh)
from xjax._src.api.explicit_sharding import (auto_axes, explicit_axes, reshard,  # noqa: F401,E402
                                             set_mesh)
