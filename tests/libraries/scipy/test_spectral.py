"""xjax.scipy.fft (DCT-II), scipy.signal fftconvolve and the windowed-FFT spectra
(stft/istft/csd/welch), and scipy.stats.gaussian_kde, against SciPy and values taken from
JAX 0.10.2, with jit/vmap/grad compositions and the reference's errors."""
import warnings

import numpy as np
import pytest
import scipy.fft
import scipy.signal
import scipy.stats

import xjax as jax
import xjax.numpy as jnp
from xjax.scipy import fft, signal, stats

RNG = np.random.RandomState(0)
X = RNG.randn(50).astype(np.float32)
Y = RNG.randn(50).astype(np.float32)
X2 = RNG.randn(3, 40).astype(np.float32)
M = RNG.randn(5, 6)


@pytest.mark.parametrize("kw", [{}, {"norm": "ortho"}, {"n": 8}, {"n": 3, "axis": 0},
                                {"norm": "ortho", "axis": 0}])
def test_dct_idct_match_scipy(kw):
  np.testing.assert_allclose(fft.dct(M, **kw), scipy.fft.dct(M, **kw), rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(fft.idct(M, **kw), scipy.fft.idct(M, **kw), rtol=1e-5,
                             atol=1e-5)


@pytest.mark.parametrize("kw", [{}, {"norm": "ortho"}, {"s": (3, 8)}, {"axes": (0,)},
                                {"s": (7,)}])
def test_dctn_idctn_match_scipy(kw):
  np.testing.assert_allclose(fft.dctn(M, **kw), scipy.fft.dctn(M, **kw), rtol=1e-5, atol=2e-5)
  np.testing.assert_allclose(fft.idctn(M, **kw), scipy.fft.idctn(M, **kw), rtol=1e-5,
                             atol=2e-5)


def test_dct_dtypes_complex_compositions_and_errors():
  assert fft.dct(jnp.arange(5)).dtype == jnp.float32  # ints -> default float
  assert fft.dct(X).dtype == jnp.float32
  z = X[:6] + 1j * Y[:6]
  np.testing.assert_allclose(fft.dct(z), scipy.fft.dct(X[:6]) + 1j * scipy.fft.dct(Y[:6]),
                             rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(jax.jit(fft.idct)(fft.dct(X)), X, rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(jax.vmap(fft.dct)(X2), scipy.fft.dct(X2), rtol=1e-5, atol=1e-4)
  # the DCT is linear: its gradient is the transform's column sums
  g = jax.grad(lambda v: fft.dct(v, norm="ortho").sum())(jnp.asarray(M[0]))
  np.testing.assert_allclose(g, scipy.fft.dct(np.eye(6), norm="ortho").sum(1), rtol=1e-5)
  with pytest.raises(NotImplementedError, match="type 2"):
    fft.dct(X, type=1)
  with pytest.raises(ValueError, match="norm='forward' is not implemented"):
    fft.idctn(M, norm="forward")
  with pytest.raises(TypeError, match="list"):
    fft.dct([1.0, 2.0])
  with pytest.raises(ValueError, match="out of bounds"):
    fft.dct(X, axis=3)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_fftconvolve_matches_scipy(mode):
  a, b = RNG.randn(7, 5), RNG.randn(3, 4)
  np.testing.assert_allclose(signal.fftconvolve(a, b, mode), scipy.signal.fftconvolve(a, b, mode),
                             rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(signal.fftconvolve(b, a, "valid" if mode == "valid" else mode),
                             scipy.signal.fftconvolve(b, a, mode), rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(signal.convolve(a, b, mode, method="fft"),
                             scipy.signal.convolve(a, b, mode), rtol=1e-5, atol=1e-5)
  c = RNG.randn(3, 9) + 1j * RNG.randn(3, 9)
  np.testing.assert_allclose(signal.fftconvolve(c, b[:, :2], mode, axes=1),
                             scipy.signal.fftconvolve(c, b[:, :2], mode, axes=1), atol=1e-5)


def test_fftconvolve_dtypes_compositions_and_errors():
  out = signal.fftconvolve(np.arange(5), np.arange(3))
  assert out.dtype == jnp.float32
  np.testing.assert_allclose(out, np.convolve(np.arange(5), np.arange(3)), atol=1e-5)
  np.testing.assert_allclose(jax.jit(signal.fftconvolve)(X[:9], Y[:4]),
                             np.convolve(X[:9], Y[:4]), atol=1e-5)
  np.testing.assert_allclose(jax.vmap(signal.fftconvolve)(X2[:, :9], X2[:, 9:12]),
                             [np.convolve(r[:9], r[9:12]) for r in X2], atol=1e-5)
  g = jax.grad(lambda a: signal.fftconvolve(a, Y[:3]).sum())(X[:6])
  np.testing.assert_allclose(g, np.full(6, Y[:3].sum()), rtol=1e-5)
  with pytest.raises(ValueError, match="same dimensionality"):
    signal.fftconvolve(X, X2)
  with pytest.raises(ValueError, match="mode must be one of"):
    signal.fftconvolve(X, Y, mode="bad")
  with pytest.raises(ValueError, match="mapped axes must have same shape"):
    signal.fftconvolve(X2, X2[:2, :5], axes=1)
  with pytest.raises(ValueError, match="at least as large"):
    signal.fftconvolve(np.ones((2, 5)), np.ones((3, 4)), "valid")


@pytest.mark.parametrize("kw", [
    {"nperseg": 16},
    {"nperseg": 8, "noverlap": 3, "nfft": 10, "return_onesided": False},
    {"nperseg": 8, "boundary": "even", "padded": False, "detrend": "linear"},
    {"nperseg": 9, "window": "hamming", "boundary": "odd"},
    {"nperseg": 8, "boundary": "constant", "window": np.ones(8)},
    {"nperseg": 10, "boundary": None, "fs": 4.0},
])
def test_stft_matches_scipy(kw):
  for x, axis in ((X, -1), (X2.T, 0)):
    for ours, ref in zip(signal.stft(x, axis=axis, **kw), scipy.signal.stft(x, axis=axis, **kw)):
      np.testing.assert_allclose(ours, ref, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("kw", [
    {"nperseg": 16},
    {"nperseg": 16, "scaling": "spectrum", "average": "median"},
    {"nperseg": 9, "nfft": 12, "detrend": "linear"},
    {"nperseg": 9, "fs": 10.0, "detrend": False, "return_onesided": False},
])
def test_welch_and_csd_match_scipy(kw):
  for ours, ref in zip(signal.welch(X2, **kw), scipy.signal.welch(X2, **kw)):
    np.testing.assert_allclose(ours, ref, rtol=2e-5, atol=1e-6)
  for ours, ref in zip(signal.csd(X, Y, **kw), scipy.signal.csd(X, Y, **kw)):
    np.testing.assert_allclose(ours, ref, rtol=2e-5, atol=1e-6)


def test_istft_inverts_stft_like_scipy():
  for kw in ({"nperseg": 9, "noverlap": 5}, {"nperseg": 10, "window": "hamming"}):
    _, _, z = scipy.signal.stft(X2, **kw)
    t, x = signal.istft(z, **kw)
    t_ref, x_ref = scipy.signal.istft(z, **kw)
    np.testing.assert_allclose(x, x_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(t, t_ref[:len(t)])
  _, _, z = scipy.signal.stft(X, nperseg=10, return_onesided=False)
  np.testing.assert_allclose(signal.istft(z, input_onesided=False)[1], X, atol=1e-5)
  _, _, z = scipy.signal.stft(X2[:, :20], nperseg=16)
  zt = np.swapaxes(z, 1, 2)
  np.testing.assert_allclose(signal.istft(zt, time_axis=1, freq_axis=2)[1],
                             scipy.signal.istft(zt, time_axis=1, freq_axis=2)[1], atol=1e-5)


def test_spectral_defaults_dtypes_compositions_and_errors():
  # JAX (unlike SciPy) takes the whole signal as one segment when nperseg is None
  np.testing.assert_allclose(signal.welch(jnp.arange(10.0))[1],
                             [1.6666654, 19.865582, 0.92131197, 0.051343076, 0.0049027768, 0.0],
                             rtol=1e-5, atol=1e-6)
  f, pxy = signal.csd(np.arange(20), np.arange(20)[::-1], nperseg=8)
  assert f.dtype == jnp.float32 and pxy.dtype == jnp.complex64
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    f, p = signal.welch(X + 1j * Y, nperseg=16)
  assert f.shape == (16,) and p.dtype == jnp.float32
  np.testing.assert_allclose(jax.jit(lambda x: signal.welch(x, nperseg=16)[1])(X),
                             scipy.signal.welch(X, nperseg=16)[1], rtol=2e-5, atol=1e-6)
  np.testing.assert_allclose(jax.vmap(lambda x: signal.stft(x, nperseg=8)[2])(X2),
                             scipy.signal.stft(X2, nperseg=8)[2], rtol=2e-5, atol=2e-6)
  g = jax.grad(lambda x: signal.welch(x, nperseg=16)[1].sum())(X)
  assert g.shape == X.shape and np.isfinite(np.asarray(g)).all()
  with pytest.raises(ValueError, match="noverlap must be less than nperseg"):
    signal.stft(X, nperseg=8, noverlap=8)
  with pytest.raises(ValueError, match="Unknown boundary option 'foo'"):
    signal.stft(X, boundary="foo")
  with pytest.raises(ValueError, match='average must be "median" or "mean"'):
    signal.welch(X, nperseg=8, average="foo")
  with pytest.raises(ValueError, match="Unknown scaling: foo"):
    signal.welch(X, nperseg=8, scaling="foo")
  with pytest.raises(ValueError, match="same rank"):
    signal.csd(X2, Y, nperseg=16)
  with pytest.raises(ValueError, match="at least 2d"):
    signal.istft(X)
  with pytest.raises(ValueError, match="differing time and frequency axes"):
    signal.istft(X2, time_axis=1, freq_axis=1)


D1 = RNG.randn(20).astype(np.float32)
D2 = RNG.randn(2, 30)
W = RNG.rand(30)


@pytest.mark.parametrize("data,kw", [(D1, {"bw_method": 0.3}), (D2, {"weights": W})])
def test_gaussian_kde_matches_scipy(data, kw):
  ours, ref = stats.gaussian_kde(data, **kw), scipy.stats.gaussian_kde(data, **kw)
  d = ref.d
  pts = np.linspace(-2, 2, 5 * d).reshape(d, 5)
  tol = {"rtol": 2e-5}
  np.testing.assert_allclose(ours.covariance, ref.covariance, **tol)
  np.testing.assert_allclose(ours.neff, ref.neff, **tol)
  np.testing.assert_allclose(ours.evaluate(pts), ref.evaluate(pts), **tol)
  np.testing.assert_allclose(ours.logpdf(pts), ref.logpdf(pts), **tol)
  np.testing.assert_allclose(ours.integrate_gaussian(np.zeros(d), np.eye(d)),
                             ref.integrate_gaussian(np.zeros(d), np.eye(d)), **tol)
  other = scipy.stats.gaussian_kde(data[..., ::2])
  np.testing.assert_allclose(ours.integrate_kde(stats.gaussian_kde(data[..., ::2])),
                             ref.integrate_kde(other), **tol)
  if d == 1:
    np.testing.assert_allclose(ours.integrate_box_1d(-1.0, 0.5), ref.integrate_box_1d(-1.0, 0.5),
                               **tol)


def test_gaussian_kde_resample_pytree_and_errors():
  kde = stats.gaussian_kde(D2.astype(np.float32), weights=W.astype(np.float32))
  rng = np.random.RandomState(0)
  d2, w = rng.randn(2, 30).astype(np.float32), rng.rand(30).astype(np.float32)
  sample = stats.gaussian_kde(d2, weights=w).resample(jax.random.key(0), (3,))
  np.testing.assert_allclose(sample, [[-0.9208537, -1.2969171, 1.6860759],
                                      [0.34855944, 0.2039358, -0.6124457]], rtol=1e-5)
  assert len(jax.tree_util.tree_leaves(kde)) == 5
  np.testing.assert_allclose(stats.gaussian_kde(D2, bw_method="silverman").covariance,
                             scipy.stats.gaussian_kde(D2, bw_method="silverman").covariance,
                             rtol=1e-5)
  k1 = stats.gaussian_kde(D1)
  ref = scipy.stats.gaussian_kde(D1)
  np.testing.assert_allclose(jax.jit(lambda k, x: k.logpdf(x))(k1, jnp.arange(3.0)),
                             ref.logpdf(np.arange(3.0)), rtol=1e-5)
  np.testing.assert_allclose(jax.vmap(k1.pdf)(jnp.arange(3.0))[:, 0], ref.pdf(np.arange(3.0)),
                             rtol=1e-5)
  x0, eps = 0.3, 1e-3
  fd = (ref.logpdf(x0 + eps) - ref.logpdf(x0 - eps)) / (2 * eps)
  np.testing.assert_allclose(jax.grad(lambda x: k1.logpdf(x)[0])(x0), fd[0], rtol=1e-3)
  np.testing.assert_allclose(kde.evaluate(np.array([0.1, 0.2])).shape, (1,))
  with pytest.raises(ValueError, match="points have dimension 3, dataset has dimension 2"):
    kde.evaluate(np.zeros((3, 2)))
  with pytest.raises(ValueError, match="multiple elements"):
    stats.gaussian_kde(np.ones(1))
  with pytest.raises(NotImplementedError, match="complex"):
    stats.gaussian_kde(np.ones(3) + 1j)
  with pytest.raises(ValueError, match="`bw_method` should be"):
    stats.gaussian_kde(D1, bw_method="foo")
  with pytest.raises(ValueError, match="should be of length n"):
    stats.gaussian_kde(D1, weights=np.ones(3))
  with pytest.raises(ValueError, match="only handles 1D"):
    kde.integrate_box_1d(-1.0, 0.5)
  with pytest.raises(NotImplementedError, match="integrate_box_1d"):
    k1.integrate_box([-1.0], [0.5])
  with pytest.raises(NotImplementedError, match="bandwidth"):
    k1.set_bandwidth("scott")
