"""xjax.image: resize in every method (with and without antialiasing), scale_and_translate,
ResizeMethod — values taken from JAX 0.10.2, gradients, jit/vmap, errors."""
import numpy as np
import pytest

import xjax
from xjax import image
from xjax.test_util import check_grads

X = np.arange(12, dtype=np.float32).reshape(3, 4)

# jax.image.resize(X, (5, 3), method) with antialias=True (JAX 0.10.2)
UP_DOWN = {
    "nearest": [[0, 2, 3], [0, 2, 3], [4, 6, 7], [8, 10, 11], [8, 10, 11]],
    "linear": [[0.3, 1.5, 2.7], [1.9, 3.1, 4.3], [4.3, 5.5, 6.7], [6.7, 7.9, 9.1],
               [8.3, 9.5, 10.7]],
    "cubic": [[-0.111955, 1.198114, 2.508182], [1.413812, 2.72388, 4.033948],
              [4.189931, 5.5, 6.810068], [6.966052, 8.27612, 9.586188],
              [8.49182, 9.801888, 11.111957]],
    "lanczos3": [[-0.141934, 1.198673, 2.539281], [1.063446, 2.404053, 3.744661],
                 [4.159393, 5.5, 6.840607], [7.25534, 8.595946, 9.936554],
                 [8.460719, 9.801325, 11.141932]],
    "lanczos5": [[0.0641, 1.402861, 2.741623], [0.807303, 2.146065, 3.484826],
                 [4.161239, 5.5, 6.838762], [7.515175, 8.853936, 10.192698],
                 [8.258377, 9.597138, 10.9359]],
    "cubic-pytorch": [[-0.11196, 1.19811, 2.50818], [1.41381, 2.72388, 4.03395],
                      [4.18993, 5.5, 6.81007], [6.96605, 8.27612, 9.58619],
                      [8.49182, 9.80189, 11.11196]],
    "area": [[0.25, 1.5, 2.75], [1.58333, 2.83333, 4.08333], [4.25, 5.5, 6.75],
             [6.91667, 8.16667, 9.41667], [8.25, 9.5, 10.75]],
}
# jax.image.resize(X, (2, 7), method, antialias=False) (first row; second row is + 6.25..)
NO_AA = {
    "nearest": [[0, 0, 1, 2, 2, 3, 3], [8, 8, 9, 10, 10, 11, 11]],
    "linear": [[1., 1.357143, 1.928571, 2.5, 3.071429, 3.642857, 4.],
               [7., 7.357143, 7.928572, 8.5, 9.071429, 9.642858, 10.]],
    "cubic": [[0.592206, 0.935405, 1.595547, 2.171533, 2.747519, 3.40766, 3.75086],
              [7.24914, 7.592341, 8.252481, 8.828467, 9.404455, 10.064594, 10.407794]],
    "lanczos3": [[0.412568, 0.722689, 1.402404, 1.992856, 2.583309, 3.263025, 3.573146],
                 [7.426856, 7.736977, 8.416692, 9.007143, 9.597596, 10.277312, 10.587434]],
    "lanczos5": [[0.170296, 0.593083, 1.217987, 1.798383, 2.37878, 3.003684, 3.426471],
                 [7.57353, 7.996316, 8.62122, 9.201617, 9.782013, 10.406919, 10.829705]],
}
CUBIC_PYTORCH_NO_AA = [[-0.25784, 1.116, 2.48984], [1.39016, 2.764, 4.13784],
                       [4.12616, 5.5, 6.87384], [6.86215, 8.236, 9.60984],
                       [8.51016, 9.884, 11.25784]]


@pytest.mark.parametrize("method", sorted(UP_DOWN))
def test_resize_reference_values(method):
  np.testing.assert_allclose(image.resize(X, (5, 3), method), UP_DOWN[method], atol=2e-5)
  if method in NO_AA:
    np.testing.assert_allclose(image.resize(X, (2, 7), method, antialias=False),
                               NO_AA[method], atol=2e-5)


def test_resize_method_names_and_dtypes():
  np.testing.assert_allclose(image.resize(X, (5, 3), "cubic-pytorch", antialias=False),
                             CUBIC_PYTORCH_NO_AA, atol=2e-5)
  assert image.ResizeMethod.from_string("bilinear") is image.ResizeMethod.LINEAR
  assert image.ResizeMethod.from_string("tricubic") is image.ResizeMethod.CUBIC
  assert [m.value for m in image.ResizeMethod] == list(range(7))
  np.testing.assert_allclose(image.resize(X, (5, 3), image.ResizeMethod.LINEAR),
                             UP_DOWN["linear"], atol=2e-5)
  assert image.resize(np.ones((2, 3), np.uint8), (3, 5), "linear").dtype == np.float32
  assert image.resize(np.ones((2, 3), np.int32), (3, 5), "nearest").dtype == np.int32
  np.testing.assert_array_equal(image.resize(X, X.shape, "cubic"), X)   # identity
  # a constant image stays constant under every interpolating method
  for m in ("linear", "cubic", "lanczos3", "lanczos5", "area"):
    np.testing.assert_allclose(image.resize(np.full((4, 6), 2.5, np.float32), (7, 3), m), 2.5,
                               rtol=1e-5)


def test_scale_and_translate():
  got = image.scale_and_translate(X, (4, 6), (0, 1), np.array([1.3, 1.5], np.float32),
                                  np.array([0.2, -0.4], np.float32), "linear")
  want = [[0.1, 0.766667, 1.433333, 2.1, 2.766667, 3.],
          [2.1, 2.766667, 3.433333, 4.1, 4.766667, 5.],
          [5.176924, 5.84359, 6.510257, 7.176923, 7.84359, 8.076923],
          [8.1, 8.766665, 9.433332, 10.1, 10.766665, 11.]]
  np.testing.assert_allclose(got, want, atol=2e-5)
  # scale 2 without translation is resize to twice the size
  np.testing.assert_allclose(
      image.scale_and_translate(X, (6, 8), (0, 1), np.array([2., 2.]), np.zeros(2), "cubic"),
      image.resize(X, (6, 8), "cubic"), atol=1e-5)


def test_grads_jit_vmap():
  t = np.array([0.2, -0.4], np.float32)
  g = xjax.grad(lambda s: image.scale_and_translate(X, (4, 6), (0, 1), s, t, "cubic").sum())(
      np.array([1.3, 1.5], np.float32))
  np.testing.assert_allclose(g, [-82.7114, -26.566084], rtol=1e-4)   # JAX 0.10.2
  check_grads(lambda im: image.resize(im, (5, 3), "lanczos3"), (X,), order=1, atol=2e-2,
              rtol=2e-2)
  check_grads(lambda s: image.scale_and_translate(X, (4, 6), (0, 1), s, t, "linear"),
              (np.array([1.3, 1.5], np.float32),), order=1, atol=5e-2, rtol=5e-2)
  f = xjax.jit(lambda im: image.resize(im, (5, 3), "cubic"))
  np.testing.assert_allclose(f(X), UP_DOWN["cubic"], atol=2e-5)
  batch = np.stack([X, 2 * X])
  out = xjax.vmap(lambda im: image.resize(im, (5, 3), "linear"))(batch)
  np.testing.assert_allclose(out[1], 2 * np.asarray(UP_DOWN["linear"]), atol=5e-5)
  np.testing.assert_allclose(image.resize(batch, (2, 5, 3), "linear"), out, atol=1e-5)


def test_errors():
  with pytest.raises(ValueError, match="number of dimensions"):
    image.resize(X, (4,), "linear")
  with pytest.raises(ValueError, match="Unknown resize method"):
    image.resize(X, (4, 4), "foo")
  with pytest.raises(ValueError, match="Nearest neighbor"):
    image.scale_and_translate(X, (4, 6), (0, 1), np.ones(2), np.zeros(2), "nearest")


def test_resize_bits_match_jax():
  # Digests (sha256 of the float32 bytes, first 16 hex digits) of JAX 0.10.2's results and
  # gradients: one einsum over the resampled dimensions, JAX's Lanczos expression.
  import hashlib
  rng = np.random.RandomState(0)
  x = rng.randn(4, 5).astype(np.float32)
  img = rng.rand(2, 6, 7, 3).astype(np.float32)
  cases = {("linear", True, (8, 10)): ("7e3a50567a2f0777", "bc3036385dcac96d"),
           ("cubic", False, (2, 12, 5, 3)): ("e66db2ace36b2a43", "7bbb20883665dcdd"),
           ("lanczos3", True, (8, 10)): ("956e044b832d4d19", "48013672d6273ccd"),
           ("lanczos5", False, (2, 3)): ("51ab88ea82e7032f", "3de651a802173e5b"),
           ("cubic-pytorch", False, (2, 12, 5, 3)): ("fe6f83ba1f0ba564", "f9a257a5fa00483d")}
  # The same cases on an AMD EPYC CPU with AVX-512 (XLA's CPU kernels round differently
  # there; JAX 0.10.2 gives these digests on it too).
  other_cpu = {("linear", True, (8, 10)): ("490f782a847e04ed", "058127e164243606"),
               ("cubic", False, (2, 12, 5, 3)): ("ff900962c447e46f", "aeeb5bf8912abe07"),
               ("lanczos3", True, (8, 10)): ("dde92ac0441f01eb", "5beeda3fa31911ba"),
               ("lanczos5", False, (2, 3)): ("66548fd674ba7bf0", "efd5f19860ddfa6b"),
               ("cubic-pytorch", False, (2, 12, 5, 3)): ("521cecdb9a6b97fe",
                                                         "235b0040151a89db")}
  digest = lambda v: hashlib.sha256(np.asarray(v).tobytes()).hexdigest()[:16]
  for (method, aa, shape), want in cases.items():
    arr = x if len(shape) == 2 else img
    f = lambda a: xjax.image.resize(a, shape, method, antialias=aa)
    got = (digest(f(arr)), digest(xjax.grad(lambda a: (f(a) ** 2).sum())(arr)))
    assert got in (want, other_cpu[method, aa, shape]), (method, aa, shape)

  # scale_and_translate is not jitted (as JAX's): eagerly each operation runs alone
  sat = lambda a: xjax.image.scale_and_translate(a, (7, 4), (0, 1), xjax.numpy.array((1.5, 0.7)),
                                                 xjax.numpy.array((0.3, -0.2)), "linear")
  assert (digest(sat(x)), digest(xjax.grad(lambda a: (sat(a) ** 2).sum())(x))) in (
      ("c0ef70e971be635f", "d5e0c7ed2798130c"), ("4829361ad538d8d6", "4fd949e25d897e3d"))
