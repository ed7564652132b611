"""Array layouts over devices (``jax.sharding``); single-device placement for now."""
from xjax._src.sharding import Sharding, SingleDeviceSharding  # noqa: F401
