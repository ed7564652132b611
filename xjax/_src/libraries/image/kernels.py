"""Interpolation kernels of `jax.image` and the resize methods that name them."""
from __future__ import annotations

import enum

import numpy as np

from xjax._src.libraries.numpy import namespace as jnp


class ResizeMethod(enum.Enum):
  """Image resampling methods (``jax.image.ResizeMethod``)."""
  NEAREST = 0
  LINEAR = 1
  LANCZOS3 = 2
  LANCZOS5 = 3
  CUBIC = 4
  CUBIC_PYTORCH = 5
  AREA = 6

  @staticmethod
  def from_string(s: str) -> "ResizeMethod":
    method = _NAMES.get(s)
    if method is None:
      raise ValueError(f'Unknown resize method "{s}"')
    return method


_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    **dict.fromkeys(("linear", "bilinear", "trilinear", "triangle"), ResizeMethod.LINEAR),
    "lanczos3": ResizeMethod.LANCZOS3, "lanczos5": ResizeMethod.LANCZOS5,
    **dict.fromkeys(("cubic", "bicubic", "tricubic"), ResizeMethod.CUBIC),
    **dict.fromkeys(("cubic-pytorch", "bicubic-pytorch"), ResizeMethod.CUBIC_PYTORCH),
    "area": ResizeMethod.AREA,
}


def as_method(method) -> ResizeMethod:
  return method if isinstance(method, ResizeMethod) else ResizeMethod.from_string(method)


def triangle(d):
  return jnp.maximum(0., 1. - d)


def lanczos(radius: int):
  """sinc(d) sinc(d / radius) on |d| <= radius (d >= 0 here)."""
  def kernel(d):   # (JAX's expression, for its bits: pi**2 * d**2 below the line)
    value = radius * jnp.sin(np.pi * d) * jnp.sin(np.pi * d / radius)
    value = jnp.where(d > 1e-3, value / jnp.where(d != 0, np.pi ** 2 * d ** 2, 1), 1)
    return jnp.where(d > radius, 0., value)
  return kernel


def cubic(a: float):
  """Keys' cubic convolution kernel with parameter ``a`` (-0.5: Keys; -0.75: OpenCV)."""
  def kernel(d):
    near = ((a + 2.) * d - (a + 3.)) * d * d + 1.
    far = ((a * d - 5. * a) * d + 8. * a) * d - 4. * a
    return jnp.where(d >= 2., 0., jnp.where(d >= 1., far, near))
  return kernel


AREA = object()   # marks the box-overlap weights, which are not a function of distance

# method -> (support radius in input pixels, kernel)
KERNELS = {
    ResizeMethod.LINEAR: (1, triangle),
    ResizeMethod.LANCZOS3: (3, lanczos(3)),
    ResizeMethod.LANCZOS5: (5, lanczos(5)),
    ResizeMethod.CUBIC: (2, cubic(-0.5)),
    ResizeMethod.CUBIC_PYTORCH: (2, cubic(-0.75)),
    ResizeMethod.AREA: (1, AREA),
}
