"""Type annotations for xjax values, with the names of `jax.typing`."""
from __future__ import annotations

from typing import Any, Union

import numpy as np

from xjax._src.execution.basearray import Array

# Anything xjax.numpy accepts as an array: Arrays, NumPy arrays and scalars, Python scalars.
ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]

# Anything accepted as a dtype: a NumPy dtype, a scalar type, or its name.
DTypeLike = Union[str, type[Any], np.dtype]
