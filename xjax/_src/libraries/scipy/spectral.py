"""Windowed-FFT spectral analysis (``jax.scipy.signal``): stft, istft, csd and welch.

Segments of ``nperseg`` samples every ``nperseg - noverlap`` are gathered into a trailing
(segments, nperseg) pair of axes, detrended, windowed and transformed; ``istft`` inverts by
weighted overlap-add. Named windows other than "hann" come from ``scipy.signal.get_window``
(as the reference, which needs SciPy for them). Unlike SciPy, ``nperseg=None`` means the
whole signal, as in JAX.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.api.transformations import vmap
from xjax._src.primitives.lax.shapes import dynamic_slice_in_dim
from xjax._src.libraries.numpy import fft as jnp_fft
from xjax._src.libraries.numpy import namespace as jnp
from xjax._src.libraries.numpy.arguments import canonical_axis, arraylike
from xjax._src.libraries.numpy.promotion import promote_dtypes_inexact
from xjax._src.libraries.scipy.signal import detrend as _detrend


def _named_window(window, n: int):
  """A named window of length ``n``: "hann" computed in float32 on the device as JAX's
  ``sin(linspace(0, pi, n, endpoint=False)) ** 2``, others by ``scipy.signal.get_window``."""
  if isinstance(window, str) and window == "hann":
    return jnp.array([1.0]) if n == 1 else jnp.sin(jnp.linspace(0, np.pi, n, endpoint=False)) ** 2
  try:
    from scipy.signal import get_window
  except ImportError as err:
    raise ImportError(f"scipy must be available to use {window=}") from err
  return get_window(window, n)


def _window(window, nperseg, length: int, dtype):
  """The window array and segment length for ``window`` (a name, tuple or array)."""
  if isinstance(window, (str, tuple)):
    n = length if nperseg is None else nperseg
    if n > length:
      warnings.warn(f"nperseg={n} is greater than input_length={length}, using "
                    f"nperseg={length}")
      n = length
    return jnp.array(_named_window(window, n), dtype=dtype), n
  win = jnp.asarray(window, dtype=dtype)
  n = win.size if nperseg is None else nperseg
  if win.ndim != 1:
    raise ValueError("window must be 1-D")
  if length < win.size:
    raise ValueError("window is longer than input signal")
  if n != win.size:
    raise ValueError("value specified for nperseg is different from length of window")
  return win, n


def _odd_extension(x, n):
  if n > x.shape[-1] - 1:
    raise ValueError(f"The extension length n ({n}) is too big. It must not exceed "
                     f"x.shape[axis]-1, which is {x.shape[-1] - 1}.")
  left = 2 * x[..., :1] - jnp.flip(x[..., 1:n + 1], -1)
  right = 2 * x[..., -1:] - jnp.flip(x[..., -n - 1:-1], -1)
  return jnp.concatenate([left, x, right], -1)


def _extend(x, boundary, n):
  pad = [(0, 0)] * (x.ndim - 1) + [(n, n)]
  if boundary == "even":
    return jnp.pad(x, pad, "reflect")
  if boundary == "odd":
    return _odd_extension(x, n) if n >= 1 else x
  if boundary == "constant":
    return jnp.pad(x, pad, "edge")
  return jnp.pad(x, pad)  # "zeros"


def _detrender(detrend_type):
  if isinstance(detrend_type, str):
    return lambda d: _detrend(d, axis=-1, type=detrend_type)
  if callable(detrend_type):
    return detrend_type
  if not detrend_type:
    return lambda d: d
  raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _segment_spectra(x, win, detrend_func, nperseg, step, nfft, onesided):
  """FFTs of the windowed, detrended segments of ``x``: shape (..., segments, freqs)."""
  if nperseg == 1 and step == 1:
    segments = x[..., None]
  else:  # one dynamic slice per start, as JAX gathers them
    starts = jnp.arange(x.shape[-1] - nperseg + 1, step=step)
    segments = vmap(lambda i: dynamic_slice_in_dim(x, i, nperseg, axis=-1), out_axes=-2)(starts)
  segments = detrend_func(segments)
  if dtypes.issubdtype(win.dtype, np.complexfloating):
    segments = segments.astype(dtypes.to_complex_dtype(segments.dtype))
  segments = jnp.reshape(win, (1,) * (segments.ndim - 1) + (nperseg,)) * segments
  if onesided:
    return jnp_fft.rfft(jnp.real(segments), n=nfft)
  return jnp_fft.fft(segments, n=nfft)


def _as_int(value):
  try:
    return operator.index(value)
  except TypeError:
    return int(value)


_BOUNDARIES = ("even", "odd", "constant", "zeros", None)


def _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided,
              scaling, axis, mode, boundary=None, padded=False):
  """Shared core of stft (mode "stft") and csd/welch (mode "psd"): (freqs, times, result)
  with the segment axis last and the frequency axis at ``axis``."""
  if boundary not in _BOUNDARIES:
    raise ValueError(f"Unknown boundary option '{boundary}', must be one of: "
                     f"{list(_BOUNDARIES)}")
  if y is None:
    x, = arraylike("spectral_helper", x)
    (x,) = promote_dtypes_inexact(x)
    x = jnp.asarray(x)
  else:
    x, y = arraylike("spectral_helper", x, y)
    x, y = (jnp.asarray(v) for v in promote_dtypes_inexact(x, y))
    if x.ndim != y.ndim:
      raise ValueError(f"two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
  axis = canonical_axis(axis, x.ndim)
  result_dtype = dtypes.to_complex_dtype(x.dtype)
  freq_dtype = dtypes.finfo(result_dtype).dtype
  if nperseg is not None:
    nperseg = _as_int(nperseg)
    if nperseg < 1:
      raise ValueError("nperseg must be a positive integer")
  win, nperseg = _window(window, nperseg, x.shape[axis], x.dtype)
  noverlap = nperseg // 2 if noverlap is None else _as_int(noverlap)
  nfft = nperseg if nfft is None else _as_int(nfft)
  if x.size == 0 or (y is not None and y.size == 0):
    shape = list(x.shape)
    if y is not None:
      shape = list(np.broadcast_shapes(tuple(np.delete(x.shape, axis)),
                                       tuple(np.delete(y.shape, axis))))
      shape.insert(axis, min(x.shape[axis], y.shape[axis]))
    return (jnp.zeros(shape, freq_dtype), jnp.zeros(shape, freq_dtype),
            jnp.zeros(shape, result_dtype))
  x = jnp.moveaxis(x, axis, -1)
  if y is not None:
    y = jnp.moveaxis(y, axis, -1)
    n = max(x.shape[-1], y.shape[-1])
    x, y = (jnp.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, n - v.shape[-1])]) for v in (x, y))
  if nfft < nperseg:
    raise ValueError("nfft must be greater than or equal to nperseg.")
  if noverlap >= nperseg:
    raise ValueError("noverlap must be less than nperseg.")
  step = nperseg - noverlap
  signals = [x] if y is None else [x, y]
  if boundary is not None:
    signals = [_extend(v, boundary, nperseg // 2) for v in signals]
  if padded:
    extra = (-(signals[0].shape[-1] - nperseg) % step) % nperseg
    signals = [jnp.pad(v, [(0, 0)] * (v.ndim - 1) + [(0, extra)]) for v in signals]
  if scaling == "density":
    scale = 1.0 / (fs * jnp.sum(win * win))
  elif scaling == "spectrum":
    scale = 1.0 / jnp.sum(win) ** 2
  else:
    raise ValueError(f"Unknown scaling: {scaling}")
  if mode == "stft":
    scale = jnp.sqrt(scale)
  scale = scale.astype(dtypes.to_complex_dtype(scale.dtype))
  onesided = return_onesided
  if onesided and any(dtypes.issubdtype(v.dtype, np.complexfloating) for v in signals):
    onesided = False
    warnings.warn("Input data is complex, switching to return_onesided=False")
  freqs = (jnp_fft.rfftfreq if onesided else jnp_fft.fftfreq)(nfft, 1 / fs, dtype=freq_dtype)
  spectra = [_segment_spectra(v, win, _detrender(detrend_type), nperseg, step, nfft, onesided)
             for v in signals]
  if y is not None:
    result = jnp.conj(spectra[0]) * spectra[1]
  elif mode == "psd":
    result = jnp.conj(spectra[0]) * spectra[0]
  else:
    result = spectra[0]
  result = result * scale
  if onesided and mode == "psd":
    result = result.at[..., 1:None if nfft % 2 else -1].mul(2)
  length = signals[0].shape[-1]
  times = jnp.arange(nperseg / 2, length - nperseg / 2 + 1, step, dtype=freq_dtype) / fs
  if boundary is not None:
    times = times - (nperseg / 2) / fs
  result = result.astype(result_dtype)
  if y is None and mode != "stft":
    result = jnp.real(result)
  # (..., segments, freqs) -> frequencies at ``axis``, segments last
  return freqs, times, jnp.moveaxis(jnp.swapaxes(result, -1, -2), -2, axis)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):
  """Short-time Fourier transform: (frequencies, segment times, Zxx)."""
  return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                   "spectrum", axis, "stft", boundary, padded)


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
  """Cross power spectral density by Welch's method (``y=None``: the PSD of ``x``)."""
  freqs, _, pxy = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, scaling, axis, "psd")
  if y is not None:
    pxy = pxy + 0j
  if pxy.ndim >= 2 and pxy.size > 0:
    if pxy.shape[-1] > 1:
      if average == "median":
        even = jnp.arange(2., pxy.shape[-1], 2)  # the median's bias, in float32 as JAX
        bias = (1 + jnp.sum(1. / (even + 1) - 1. / even)).astype(pxy.dtype)
        if dtypes.issubdtype(pxy.dtype, np.complexfloating):
          pxy = jnp.median(jnp.real(pxy), -1) + 1j * jnp.median(jnp.imag(pxy), -1)
        else:
          pxy = jnp.median(pxy, -1)
        pxy = pxy / bias
      elif average == "mean":
        pxy = jnp.mean(pxy, -1)
      else:
        raise ValueError(f'average must be "median" or "mean", got {average}')
    else:
      pxy = jnp.reshape(pxy, pxy.shape[:-1])
  return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1, average="mean"):
  """Power spectral density by Welch's method: (frequencies, Pxx)."""
  freqs, pxx = csd(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                   scaling, axis, average)
  return freqs, jnp.real(pxx)


def _overlap_add(frames, step: int):
  """Sums (..., frames, length) frames placed every ``step`` samples, as JAX: each frame cut
  into ``step``-sample pieces, the pieces laid out with a one-frame skew and summed."""
  *batch, nframes, length = frames.shape
  flat = int(np.prod(batch))
  total = step * (nframes - 1) + length
  pieces = 1 + (length - 1) // step
  x = jnp.pad(frames.reshape((flat, nframes, length)),
              ((0, 0), (0, 0), (0, pieces * step - length)))
  x = x.reshape((flat, nframes, pieces, step)).transpose((0, 2, 1, 3))
  x = jnp.pad(x, ((0, 0), (0, 0), (0, nframes), (0, 0)))
  skew = x.shape[2] - 1
  x = x.reshape((flat, -1))[:, :pieces * skew * step].reshape((flat, pieces, skew * step))
  return x.sum(axis=1)[:, :total].reshape(tuple(batch) + (-1,))


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):
  """Inverse STFT by weighted overlap-add: (times, x)."""
  Zxx, = arraylike("istft", Zxx)
  zxx = jnp.asarray(Zxx)
  if zxx.ndim < 2:
    raise ValueError("Input stft must be at least 2d!")
  freq_axis = canonical_axis(freq_axis, zxx.ndim)
  time_axis = canonical_axis(time_axis, zxx.ndim)
  if freq_axis == time_axis:
    raise ValueError("Must specify differing time and frequency axes!")
  zxx = zxx.astype(dtypes.to_complex_dtype(zxx.dtype))
  n_default = 2 * (zxx.shape[freq_axis] - 1) if input_onesided else zxx.shape[freq_axis]
  nperseg = _as_int(nperseg or n_default)
  if nperseg < 1:
    raise ValueError("nperseg must be a positive integer")
  if nfft is None:
    nfft = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)
  nfft = _as_int(nfft)
  if nfft < nperseg:
    raise ValueError(f"FFT length ({nfft}) must be longer than nperseg ({nperseg}).")
  noverlap = _as_int(noverlap or nperseg // 2)
  if noverlap >= nperseg:
    raise ValueError("noverlap must be less than nperseg.")
  if time_axis != zxx.ndim - 1 or freq_axis != zxx.ndim - 2:
    outer = tuple(a for a in range(zxx.ndim) if a not in (time_axis, freq_axis))
    zxx = jnp.transpose(zxx, outer + (freq_axis, time_axis))  # (..., freqs, segments)
  inverse = jnp_fft.irfft if input_onesided else jnp_fft.ifft
  frames = inverse(zxx, n=nfft, axis=-2)[..., :nperseg, :]
  if isinstance(window, (str, tuple)):
    win = jnp.asarray(_named_window(window, nperseg), dtype=frames.dtype)
  else:
    win = jnp.asarray(window)
    if win.ndim != 1:
      raise ValueError("window must be 1-D")
    if win.shape[0] != nperseg:
      raise ValueError(f"window must have length of {nperseg}")
  frames = frames * jnp.sum(win)  # the 'spectrum' scaling
  win = jnp.expand_dims(win, (*range(frames.ndim - 2), -1))
  x = _overlap_add(jnp.swapaxes(frames * win, -2, -1), nperseg - noverlap)
  norm = _overlap_add(jnp.swapaxes(jnp.repeat(win * win, frames.shape[-1], axis=-1), -2, -1),
                      nperseg - noverlap)
  if boundary:
    x = x[..., nperseg // 2:-(nperseg // 2)]
    norm = norm[..., nperseg // 2:-(nperseg // 2)]
  x = x / jnp.where(norm > 1e-10, norm, 1.0)
  if x.ndim > 1 and time_axis != zxx.ndim - 1:
    x = jnp.moveaxis(x, -1, time_axis - (1 if freq_axis < time_axis else 0))
  times = jnp.arange(x.shape[0], dtype=dtypes.finfo(x.dtype).dtype) / fs
  return times, x
