"""Running Python on the hosts of arrays' devices (``jax.experimental.colocated_python``); in
one process, on this host."""
from xjax.experimental.colocated_python.api import (colocated_cpu_devices,  # noqa: F401
                                                    colocated_python, colocated_python_class)
