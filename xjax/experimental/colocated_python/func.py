"""``jax.experimental.colocated_python.func``: colocated Python callables."""
from xjax._src.libraries.colocated_python import (FunctionInfo, Specialization,  # noqa: F401
                                                  make_callable)
