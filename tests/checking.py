"""The comparisons tests make between an xjax result and what it should be (NumPy's or SciPy's
result, or numbers taken from JAX 0.10.2): values, shape, dtype and weak type, in one place."""
import numpy as np

import xjax
import xjax.numpy as jnp


# Bits and step counts some tests take from JAX 0.10.2 were recorded on an Intel CPU. XLA's
# and LAPACK's CPU kernels round differently on other CPUs (JAX's results differ there too:
# on AMD EPYCs, 27 such tests see other bits from JAX and xjax alike), so those tests
# (marked `cpu_bits`, or calling `skip_off_recording_cpu`) run only on that vendor's CPUs.
RECORDED_ON = "GenuineIntel"


def off_recording_cpu() -> str | None:
  """Why bits recorded on RECORDED_ON's CPUs do not apply here (None where they do)."""
  try:
    with open("/proc/cpuinfo") as f:
      vendor = next((line.split(":", 1)[1].strip() for line in f
                     if line.startswith("vendor_id")), None)
  except OSError:
    return None
  if vendor is None or vendor == RECORDED_ON:
    return None
  return (f"bits recorded from JAX on a {RECORDED_ON} CPU; this one is {vendor}, where "
          "JAX's own bits differ")


def skip_off_recording_cpu() -> None:
  reason = off_recording_cpu()
  if reason:
    import pytest
    pytest.skip(reason)


def check(got, want, dtype=None, weak=None, *, rtol=1e-5, atol=1e-6):
  """Asserts that ``got`` has ``want``'s shape and values within ``rtol``/``atol`` (NaN where
  NaN). Its dtype must be ``dtype``, or by default ``want``'s when ``want`` has one (a NumPy or
  xjax value; a literal or list has none) as xjax canonicalizes it (NumPy's 64-bit results
  are 32-bit ones unless jax_enable_x64 is on); its weak type ``weak`` when that is given.
  Values in a float type narrower than 32 bits are compared in float32. A tuple or list of
  results is compared item by item with ``want``'s items."""
  if _compare_items(got, want, lambda g, w: check(g, w, dtype, weak, rtol=rtol, atol=atol)):
    return
  g, w = _types_and_shape(got, want, dtype, weak)
  if _is_narrow_float(g.dtype) or _is_narrow_float(w.dtype):
    g, w = g.astype(np.float32), w.astype(np.float32)
  np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


def check_exact(got, want, dtype, weak=False):
  """Asserts that ``got`` is ``want`` read in ``dtype``, bit for bit (NaN where NaN), with
  ``want``'s shape, dtype ``dtype`` and weak type ``weak`` (a strong type unless told)."""
  if _compare_items(got, want, lambda g, w: check_exact(g, w, dtype, weak)):
    return
  g, _ = _types_and_shape(got, want, dtype, weak)
  np.testing.assert_array_equal(g, np.asarray(want, dtype))


def check_ulps(got, want, ulps=1):
  """Asserts that a float ``got`` is within ``ulps`` units in the last place of ``want`` in
  ``got``'s type (NaN where NaN, infinities equal), and that integers and booleans equal
  ``want`` (read in ``got``'s type)."""
  got = np.asarray(got)
  if not jnp.issubdtype(got.dtype, jnp.floating):
    np.testing.assert_array_equal(got, np.asarray(want, got.dtype))
    return
  want = np.asarray(want, np.float64)
  assert got.shape == want.shape, (got.shape, want.shape)
  spacing = np.abs(np.spacing(want.astype(got.dtype)).astype(np.float64))
  got = got.astype(np.float64)
  with np.errstate(invalid="ignore"):  # inf - inf
    same = (got == want) | (np.abs(got - want) <= ulps * spacing)
  assert (same | (np.isnan(want) & np.isnan(got))).all(), (got, want)


def _compare_items(got, want, compare) -> bool:
  if not (isinstance(got, (tuple, list)) and isinstance(want, (tuple, list))):
    return False
  assert len(got) == len(want), (len(got), len(want))
  for g, w in zip(got, want):
    compare(g, w)
  return True


def _types_and_shape(got, want, dtype, weak):
  """Checks the weak type, dtype and shape of ``got``; returns both sides as NumPy arrays."""
  if weak is not None:
    assert xjax.typeof(got).weak_type == weak, (xjax.typeof(got), weak)
  g, w = np.asarray(got), np.asarray(want)
  if dtype is not None:
    expected = np.dtype(dtype)
  elif hasattr(want, "dtype"):
    expected = xjax.dtypes.canonicalize_dtype(want.dtype)
  else:
    expected = None
  if expected is not None:
    assert g.dtype == expected, (g.dtype, expected)
  assert g.shape == w.shape, (g.shape, w.shape)
  return g, w


def _is_narrow_float(dtype) -> bool:
  return jnp.issubdtype(dtype, jnp.floating) and dtype.itemsize < 4


def message_of(error: BaseException) -> str:
  """``error``'s message without the note on filtered traceback frames that follows it."""
  return str(error).split("\n" + "-" * 20)[0]
