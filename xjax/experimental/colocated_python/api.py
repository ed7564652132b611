"""``jax.experimental.colocated_python.api``."""
from xjax._src.libraries.colocated_python import (colocated_cpu_devices,  # noqa: F401
                                                  colocated_python, colocated_python_class)
