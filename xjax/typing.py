"""Type annotations for xjax values, with the names of `jax.typing`."""
from typing import Any as _Any, Union as _Union

import numpy as _np

from xjax._src.execution.basearray import Array as _Array

# Anything xjax.numpy accepts as an array: Arrays, NumPy arrays and scalars, Python scalars.
ArrayLike = _Union[_Array, _np.ndarray, _np.bool_, _np.number, bool, int, float, complex]

# Anything accepted as a dtype: a NumPy dtype, a scalar type, or its name.
DTypeLike = _Union[str, type[_Any], _np.dtype]
