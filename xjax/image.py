"""Image resampling, with the names of `jax.image`."""
from xjax._src.libraries.image.kernels import ResizeMethod as ResizeMethod
from xjax._src.libraries.image.scale import (
    resize as resize,
    scale_and_translate as scale_and_translate,
)
