"""`jax.image.resize` and `scale_and_translate`: separable resampling, one weight matrix
per resized dimension contracted with the image."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from xjax._src.core.values import get_aval
from xjax._src.core.concrete import dim_or_int
from xjax._src.api.jit import jit
from xjax._src.primitives.lax.dot import Precision
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.image.kernels import AREA, KERNELS, ResizeMethod, as_method

_TINY_TOTAL = 1000. * float(np.finfo(np.float32).eps)


def _weights(in_size: int, out_size: int, scale, translation, kernel, antialias: bool,
             pad: int):
  """(in_size, out_size) weights: column j mixes the input pixels seen by output pixel j.

  Output pixel centres map to input coordinates ``(j + 0.5 - t) / s - 0.5``; when
  downscaling with ``antialias`` the kernel widens by ``1/s``.  With ``pad > 0`` taps up to
  ``pad`` pixels beyond the edges are folded onto the edge pixels (edge replication);
  otherwise output pixels centred outside the input get zero weight."""
  dtype = jnp.result_type(scale, translation)
  inv = 1. / scale
  centre = (jnp.arange(out_size, dtype=dtype) + 0.5) * inv - translation * inv - 0.5
  taps = jnp.arange(-pad, in_size + pad, dtype=dtype)
  if kernel is AREA:   # overlap of output pixel [j/s - t/s, +1/s] with input pixel [i, i+1]
    left = jnp.arange(out_size, dtype=dtype) * inv - translation * inv
    w = jnp.maximum(0., jnp.minimum(left + inv, taps[:, None] + 1.)
                    - jnp.maximum(left, taps[:, None]))
  else:
    width = jnp.maximum(inv, 1.) if antialias else 1.
    w = kernel(jnp.abs(centre[None, :] - taps[:, None]) / width)
  if pad:   # taps beyond an edge add onto the edge pixel (a scatter-add, as JAX's)
    edge = np.clip(np.arange(-pad, in_size + pad), 0, in_size - 1)
    w = jnp.zeros((in_size, out_size), w.dtype).at[edge[:, None], np.arange(out_size)].add(w)
  total = jnp.sum(w, axis=0, keepdims=True)
  w = jnp.where(jnp.abs(total) > _TINY_TOTAL, w / jnp.where(total != 0, total, 1.), 0.)
  if not pad:
    inside = (centre >= -0.5) & (centre <= in_size - 0.5)
    w = jnp.where(inside[None, :], w, 0.)
  return w


def _resample(x, shape, spatial_dims, scales, translations, method: ResizeMethod,
              antialias: bool, precision):
  if method is ResizeMethod.CUBIC_PYTORCH and antialias:
    method = ResizeMethod.CUBIC        # PyTorch antialiases with Keys' kernel
  radius, kernel = KERNELS[method]
  pad = radius if method is ResizeMethod.CUBIC_PYTORCH else 0
  if not spatial_dims:
    return x
  # one einsum over every resampled dimension, as JAX's (its contraction order, its bits)
  operands, out_indices = [x, list(range(x.ndim))], list(range(x.ndim))
  for i, (d, s, t) in enumerate(zip(spatial_dims, scales, translations)):
    w = _weights(x.shape[d], shape[d], s, t, kernel, antialias, pad).astype(x.dtype)
    operands += [w, [d, x.ndim + i]]
    out_indices[d] = x.ndim + i
  return jnp.einsum(*operands, out_indices, precision=precision)


def _check_shape(image, shape) -> tuple:
  shape = tuple(map(dim_or_int, shape))
  if len(shape) != get_aval(image).ndim:
    raise ValueError("shape must have length equal to the number of dimensions of x; "
                     f"{shape} vs {get_aval(image).shape}")
  return shape


def _resize_nearest(x, shape):
  for d, (m, n) in enumerate(zip(x.shape, shape)):
    if m != n:
      idx = np.floor((np.arange(n, dtype=np.float32) + 0.5) * np.float32(m / n)).astype(np.int32)
      x = jnp.take(x, np.minimum(idx, m - 1), axis=d)
  return x


def resize(image, shape: Sequence[int], method, antialias: bool = True,
           precision=Precision.HIGHEST):
  """``image`` resampled to ``shape`` (every dimension whose size changes) with ``method``:
  nearest, linear, cubic, cubic-pytorch, lanczos3, lanczos5 or area.  With ``antialias``
  the kernel widens when downscaling (a low-pass filter)."""
  image = jnp.asarray(image)
  return _resize(image, _check_shape(image, shape), as_method(method), bool(antialias),
                 precision)


@jit(static_argnums=(1, 2, 3, 4))
def _resize(image, shape, method, antialias, precision):
  if method is ResizeMethod.NEAREST:
    return _resize_nearest(image, shape)
  image, = promote_dtypes_inexact(image)
  dims = [d for d in range(len(shape)) if image.shape[d] != shape[d]]
  scales = [1. if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
  return _resample(image, shape, dims, scales, [0.] * len(dims), method, antialias, precision)


def scale_and_translate(image, shape: Sequence[int], spatial_dims: Sequence[int], scale,
                        translation, method, antialias: bool = True,
                        precision=Precision.HIGHEST):
  """Resamples ``image`` so that input coordinate ``x`` lands at ``x * scale + translation``
  in the output, along ``spatial_dims``; ``scale`` and ``translation`` may be traced."""
  image = jnp.asarray(image)
  shape = _check_shape(image, shape)
  method = as_method(method)
  if method is ResizeMethod.NEAREST:
    raise ValueError("Nearest neighbor resampling is not currently supported for "
                     "scale_and_translate.")
  spatial_dims = [d % len(shape) for d in spatial_dims]
  scale, translation = promote_dtypes_inexact(jnp.asarray(scale), jnp.asarray(translation))
  if scale.shape != (len(spatial_dims),) or translation.shape != (len(spatial_dims),):
    raise ValueError(f"scale and translation must have shape ({len(spatial_dims)},), one "
                     f"entry per spatial dimension; got {scale.shape} and {translation.shape}")
  return _scale_and_translate(image, shape, tuple(spatial_dims), scale, translation, method,
                              bool(antialias), precision)


def _scale_and_translate(image, shape, spatial_dims, scale, translation, method, antialias,
                         precision):   # (not jitted, as JAX's: eagerly each op runs alone)
  image, = promote_dtypes_inexact(image)
  return _resample(image, shape, spatial_dims, [scale[i] for i in range(len(spatial_dims))],
                   [translation[i] for i in range(len(spatial_dims))], method, antialias,
                   precision)
