"""xjax.numpy.fft and lax.fft: values against NumPy, gradients, vmap, jit, errors."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.test_util import check_grads

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 8))
Z = X + 1j * RNG.standard_normal((3, 8))
NORMS = [None, "backward", "ortho", "forward"]


def _tol(dtype):
  return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


def test_public_names_match_numpy():
  names = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq",
           "rfftn"]
  assert sorted(n for n in dir(jnp.fft) if not n.startswith("_")) == names
  assert jnp.fft is xjax.numpy.fft


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "fftn", "ifftn", "fft2", "ifft2", "hfft",
                                  "irfft", "irfftn", "irfft2"])
def test_complex_input_transforms(name, norm):
  got = getattr(jnp.fft, name)(Z.astype(np.complex64), norm=norm)
  want = getattr(np.fft, name)(Z, norm=norm)
  np.testing.assert_allclose(got, want, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["rfft", "rfftn", "rfft2", "ihfft"])
def test_real_input_transforms(name, norm):
  got = getattr(jnp.fft, name)(X.astype(np.float32), norm=norm)
  np.testing.assert_allclose(got, getattr(np.fft, name)(X, norm=norm), atol=1e-4, rtol=1e-4)


def test_float64_and_complex128_keep_precision(x64):
  got = jnp.fft.fft(Z)
  assert got.dtype == np.complex128
  np.testing.assert_allclose(got, np.fft.fft(Z), atol=1e-12)
  r = jnp.fft.irfft(Z)
  assert r.dtype == np.float64
  np.testing.assert_allclose(r, np.fft.irfft(Z), atol=1e-12)


@pytest.mark.parametrize("kw", [dict(n=5), dict(n=12), dict(n=3, axis=0), dict(axis=0)])
def test_n_and_axis(kw):
  np.testing.assert_allclose(jnp.fft.fft(Z, **kw), np.fft.fft(Z, **kw), atol=1e-4)
  np.testing.assert_allclose(jnp.fft.rfft(X, **kw), np.fft.rfft(X, **kw), atol=1e-4)
  np.testing.assert_allclose(jnp.fft.irfft(Z, **kw), np.fft.irfft(Z, **kw), atol=1e-4)
  np.testing.assert_allclose(jnp.fft.hfft(Z, **kw), np.fft.hfft(Z, **kw), atol=1e-3)
  np.testing.assert_allclose(jnp.fft.ihfft(X, **kw), np.fft.ihfft(X, **kw), atol=1e-4)


@pytest.mark.parametrize("s,axes", [((3, 8), (1, 0)), ((2, 5), (0, 1)), (None, (0,)),
                                    ((4,), (-1,)), (None, (1, 0))])
def test_s_and_axes(s, axes):
  for name, x in (("fftn", Z), ("ifftn", Z), ("rfftn", X), ("irfftn", Z)):
    np.testing.assert_allclose(getattr(jnp.fft, name)(x, s=s, axes=axes),
                               getattr(np.fft, name)(x, s=s, axes=axes), atol=1e-4,
                               err_msg=name)


def test_more_than_three_axes():
  b = RNG.standard_normal((2, 3, 4, 5, 3))
  for name in ("fftn", "ifftn", "rfftn", "irfftn"):
    np.testing.assert_allclose(getattr(jnp.fft, name)(b), getattr(np.fft, name)(b),
                               atol=1e-3, err_msg=name)


def test_dtype_promotion():
  assert jnp.fft.fft(np.arange(4)).dtype == np.complex64
  assert jnp.fft.rfft(np.arange(4)).dtype == np.complex64
  assert jnp.fft.fft(np.ones(4, np.float16)).dtype == np.complex64
  assert jnp.fft.irfft(np.ones(4, np.float16)).dtype == np.float32
  assert jnp.fft.irfft(np.ones(4, np.complex64)).dtype == np.float32
  with pytest.raises(ValueError, match="RFFT input must be float32 or float64"):
    jnp.fft.rfft(np.ones(4, np.float16))


def test_freqs_and_shifts():
  np.testing.assert_allclose(jnp.fft.fftfreq(5, 0.5), np.fft.fftfreq(5, 0.5), atol=1e-7)
  np.testing.assert_allclose(jnp.fft.fftfreq(8), np.fft.fftfreq(8), atol=1e-7)
  np.testing.assert_allclose(jnp.fft.rfftfreq(7, 0.1), np.fft.rfftfreq(7, 0.1), rtol=1e-6)
  assert jnp.fft.fftfreq(4).dtype == np.float32
  assert jnp.fft.rfftfreq(5, dtype=jnp.float16).dtype == np.float16
  a = np.arange(15).reshape(3, 5)
  for axes in (None, 0, 1, (0, 1), [1]):
    np.testing.assert_array_equal(jnp.fft.fftshift(a, axes), np.fft.fftshift(a, axes))
    np.testing.assert_array_equal(jnp.fft.ifftshift(a, axes), np.fft.ifftshift(a, axes))


def _real_imag(f):
  return lambda x: (jnp.real(f(x)), jnp.imag(f(x)))


@pytest.mark.parametrize("f", [jnp.fft.fft, jnp.fft.ifft, jnp.fft.irfft, jnp.fft.hfft,
                               jnp.fft.rfft, jnp.fft.ihfft, jnp.fft.rfftn, jnp.fft.irfftn,
                               lambda x: jnp.fft.fft2(x, s=(4, 6)),
                               lambda x: jnp.fft.irfft(x, n=7),
                               lambda x: jnp.fft.rfft(x, n=5, norm="ortho")])
def test_gradients_of_real_inputs(f):
  check_grads(_real_imag(f), (X,), 2, atol=2e-2, rtol=2e-2, eps=1e-3)


@pytest.mark.parametrize("f", [jnp.fft.fft, jnp.fft.ifft, jnp.fft.irfft, jnp.fft.irfftn,
                               lambda x: jnp.fft.irfft(x, n=9)])
def test_gradients_of_complex_inputs(f):
  check_grads(lambda re, im: _real_imag(f)(re + 1j * im), (X, X[::-1]), 1, atol=2e-2,
              rtol=2e-2)


def test_vjp_matches_reference_convention():
  # Cotangents of complex outputs follow JAX's convention (numbers from JAX 0.10.2).
  _, pull = xjax.vjp(jnp.fft.rfft, np.arange(4.0, dtype=np.float32))
  (ct,) = pull(np.array([1 + 1j, 2 - 1j, 0.5j], np.complex64))
  np.testing.assert_allclose(ct, [3.0, 0.0, -1.0, 2.0], atol=1e-6)
  _, pull = xjax.vjp(jnp.fft.irfft, np.array([1 + 1j, 2 - 1j, 0.5j], np.complex64))
  (ct,) = pull(np.arange(4.0, dtype=np.float32))
  np.testing.assert_allclose(ct, [1.5 + 0j, -1 - 1j, -0.5 + 0j], atol=1e-6)


def test_vmap_matches_loop_and_jit_matches_eager():
  f = lambda x: jnp.fft.rfft2(x, s=(3, 6))
  xs = RNG.standard_normal((4, 3, 5))
  np.testing.assert_allclose(xjax.vmap(f, in_axes=2)(xs.transpose(1, 2, 0)),
                             np.stack([f(x) for x in xs]), atol=1e-5)
  np.testing.assert_allclose(xjax.jit(f)(xs[0]), f(xs[0]), atol=1e-6)
  text = xjax.jit(jnp.fft.fft).lower(Z.astype(np.complex64)).as_text()
  assert "stablehlo.fft" in text and "fft_type FFT" in text


def test_lax_fft():
  assert lax.FftType.RFFT == 2 and list(lax.FftType.__members__) == ["FFT", "IFFT", "RFFT",
                                                                    "IRFFT"]
  np.testing.assert_allclose(lax.fft(X, "fft", (8,)), np.fft.fft(X), atol=1e-4)
  np.testing.assert_allclose(lax.fft(X, lax.FftType.RFFT, (3, 8)), np.fft.rfft2(X), atol=1e-4)
  np.testing.assert_allclose(lax.fft(Z, "IRFFT", (3, 14)), np.fft.irfft2(Z), atol=1e-4)
  assert lax.fft(X, "fft", ()).dtype == np.complex64
  with pytest.raises(ValueError, match="Unknown FFT type"):
    lax.fft(X, "dct", (8,))
  with pytest.raises(ValueError, match="only real valued inputs"):
    lax.fft(Z, "rfft", (8,))
  with pytest.raises(ValueError, match="minor dimensions"):
    lax.fft(Z, "fft", (4,))


def test_bad_input():
  with pytest.raises(ValueError, match="out of bounds"):
    jnp.fft.fft(np.ones(3), axis=2)
  with pytest.raises(ValueError, match="Shape and axes have different lengths"):
    jnp.fft.fftn(np.ones((3, 3)), s=(2,), axes=(0, 1))
  with pytest.raises(ValueError, match="Shape should be positive"):
    jnp.fft.fft(np.ones(3), n=0)
  with pytest.raises(ValueError, match="only supports 2 axes"):
    jnp.fft.fft2(np.ones((3, 3)), axes=(0,))
  with pytest.raises(ValueError, match="does not support repeated axes"):
    jnp.fft.fftn(np.ones((3, 3)), axes=(0, 0))
  with pytest.raises(ValueError, match="Invalid norm value"):
    jnp.fft.fft(np.ones(3), norm="bad")
  with pytest.raises(ValueError, match="does not support multiple axes"):
    jnp.fft.fft(np.ones(3), axis=(0,))
  with pytest.raises(ValueError, match="at least as many input dimensions"):
    jnp.fft.fftn(np.ones(3), s=(2, 3))
  with pytest.raises(ValueError, match="only takes an int"):
    jnp.fft.fftfreq([3])
