"""xjax.scipy.sparse.linalg, signal, ndimage, interpolate, cluster and integrate
against NumPy/SciPy, with jit and gradient compositions."""
import numpy as np
import pytest
import scipy.cluster.vq
import scipy.interpolate
import scipy.ndimage
import scipy.signal

import xjax as jax
import xjax.numpy as jnp
from xjax.scipy import cluster, integrate, interpolate, ndimage, signal
from xjax.scipy.sparse import linalg as sla

RNG = np.random.RandomState(0)
_A = RNG.randn(6, 6).astype(np.float32)
SPD = _A @ _A.T + 6 * np.eye(6, dtype=np.float32)
NONSYM = _A + 6 * np.eye(6, dtype=np.float32)
B = RNG.randn(6).astype(np.float32)


@pytest.mark.parametrize("solver,matrix", [(sla.cg, SPD), (sla.bicgstab, NONSYM),
                                           (sla.gmres, NONSYM)])
def test_krylov_solvers(solver, matrix):
  expected = np.linalg.solve(matrix, B)
  x, info = solver(lambda v: jnp.asarray(matrix) @ v, B, tol=1e-6)
  assert info is None
  np.testing.assert_allclose(x, expected, rtol=1e-4, atol=1e-5)
  x = jax.jit(lambda b: solver(jnp.asarray(matrix), b, tol=1e-6)[0])(B)
  np.testing.assert_allclose(x, expected, rtol=1e-4, atol=1e-5)
  # the gradient flows implicitly: d/db sum(A^-1 b) = A^-T 1
  g = jax.grad(lambda b: solver(lambda v: jnp.asarray(matrix) @ v, b, tol=1e-6)[0].sum())(B)
  np.testing.assert_allclose(g, np.linalg.solve(matrix.T, np.ones(6)), rtol=1e-3, atol=1e-5)


def test_krylov_pytrees_preconditioner_and_errors():
  tree = {"a": jnp.asarray(B[:3]), "b": jnp.asarray(B[3:])}
  x, _ = sla.cg(lambda t: {"a": 2 * t["a"], "b": 3 * t["b"]}, tree)
  np.testing.assert_allclose(x["a"], B[:3] / 2, rtol=1e-5)
  np.testing.assert_allclose(x["b"], B[3:] / 3, rtol=1e-5)
  jacobi = np.diag(1 / np.diag(SPD))
  x, _ = sla.cg(jnp.asarray(SPD), B, M=lambda v: jnp.asarray(jacobi) @ v, tol=1e-6)
  np.testing.assert_allclose(x, np.linalg.solve(SPD, B), rtol=1e-4, atol=1e-5)
  x, _ = sla.gmres(jnp.asarray(NONSYM), B, restart=2, tol=1e-6, solve_method="incremental")
  np.testing.assert_allclose(x, np.linalg.solve(NONSYM, B), rtol=1e-4, atol=1e-5)
  with pytest.raises(ValueError, match="matching shapes"):
    sla.cg(jnp.asarray(SPD), B, x0=np.zeros(5))
  with pytest.raises(ValueError, match="solve_method"):
    sla.gmres(jnp.asarray(SPD), B, solve_method="qr")


def test_signal():
  a, b = RNG.randn(10).astype(np.float32), RNG.randn(4).astype(np.float32)
  m2, k2 = RNG.randn(6, 7).astype(np.float32), RNG.randn(3, 2).astype(np.float32)
  for mode in ("full", "same", "valid"):
    for f in ("convolve", "correlate"):
      np.testing.assert_allclose(getattr(signal, f)(a, b, mode),
                                 getattr(scipy.signal, f)(a, b, mode), atol=1e-5)
      np.testing.assert_allclose(getattr(signal, f)(b, a, mode),
                                 getattr(scipy.signal, f)(b, a, mode), atol=1e-5)
    for f in ("convolve2d", "correlate2d"):
      np.testing.assert_allclose(getattr(signal, f)(m2, k2, mode),
                                 getattr(scipy.signal, f)(m2, k2, mode), atol=1e-5)
  d = RNG.randn(3, 20).astype(np.float32)
  np.testing.assert_allclose(signal.detrend(d), scipy.signal.detrend(d), atol=1e-5)
  np.testing.assert_allclose(signal.detrend(d, bp=[5, 12]), scipy.signal.detrend(d, bp=[5, 12]),
                             atol=1e-5)
  np.testing.assert_allclose(signal.detrend(d, axis=0, type="constant"),
                             scipy.signal.detrend(d, axis=0, type="constant"), atol=1e-6)
  with pytest.raises(ValueError, match="mode"):
    signal.convolve(a, b, mode="wide")
  with pytest.raises(ValueError, match="Trend type"):
    signal.detrend(d, type="cubic")
  with pytest.raises(NotImplementedError, match="boundary"):
    signal.convolve2d(m2, k2, boundary="wrap")


def test_map_coordinates_interpolator_vq_trapezoid():
  img = np.arange(20.0, dtype=np.float32).reshape(4, 5)
  coords = [np.array([0.4, -1.2, 3.7, 2.2, 5.6], np.float32),
            np.array([1.6, 0.3, 4.9, -0.6, 7.1], np.float32)]
  for mode, ref_mode in [("constant", "grid-constant"), ("nearest", "nearest"),
                         ("wrap", "grid-wrap"), ("mirror", "mirror"), ("reflect", "reflect")]:
    for order in (0, 1):
      np.testing.assert_allclose(
          ndimage.map_coordinates(img, coords, order, mode=mode, cval=-3.0),
          scipy.ndimage.map_coordinates(img, coords, order=order, mode=ref_mode, cval=-3.0),
          atol=1e-5, err_msg=f"{mode} order {order}")
  with pytest.raises(NotImplementedError, match="order"):
    ndimage.map_coordinates(img, coords, 3)
  x, y = np.linspace(0, 1, 5), np.linspace(-1, 2, 7)
  values = np.sin(x[:, None] * 3 + y[None, :]).astype(np.float32)
  pts = np.array([[0.1, 0.2], [0.9, 1.9], [0.5, -0.5], [1.2, 0.0], [0.33, 1.1]], np.float32)
  for method in ("linear", "nearest"):
    interp = interpolate.RegularGridInterpolator((x, y), values, method=method)
    ref = scipy.interpolate.RegularGridInterpolator((x, y), values, method=method,
                                                    bounds_error=False)
    np.testing.assert_allclose(interp(pts), ref(pts), rtol=1e-5)
    np.testing.assert_allclose(jax.jit(lambda f, p: f(p))(interp, pts), ref(pts), rtol=1e-5)
  obs = RNG.randn(6, 3).astype(np.float32)
  code, dist = cluster.vq.vq(obs, obs[:2] + 0.1)
  code2, dist2 = scipy.cluster.vq.vq(obs, obs[:2] + 0.1)
  np.testing.assert_array_equal(code, code2)
  np.testing.assert_allclose(dist, dist2, rtol=1e-6)
  np.testing.assert_allclose(integrate.trapezoid(np.arange(4.0), dx=0.5), 2.25)
