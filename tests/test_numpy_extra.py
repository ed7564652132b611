"""xjax.numpy's extended API (ufuncs, creation, rearranging, sorting, statistics, einsum...)
checked against NumPy: values, dtypes, empty and 0-d shapes, negative axes, jit/size=."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax._src.foundations.errors import ConcretizationTypeError

R = np.random.RandomState(0)
A = R.randn(3, 4).astype(np.float32)
I = np.arange(12, dtype=np.int32).reshape(3, 4)
N = np.array([1., np.nan, 3., -np.inf, np.inf, 0., -0.], np.float32)
V = np.array([3., 1., 2., 5., 4.], np.float32)


def check(x, y, dtype=None, rtol=2e-5, atol=1e-5):
  if isinstance(y, (tuple, list)):
    assert isinstance(x, (tuple, list)) and len(x) == len(y)
    for a, b in zip(x, y):
      check(a, b, dtype, rtol, atol)
    return
  x_np = np.asarray(x)
  y = np.asarray(y)
  assert x_np.shape == y.shape, (x_np.shape, y.shape)
  assert x_np.dtype == (np.dtype(dtype) if dtype is not None else y.dtype), (x_np.dtype, y.dtype)
  np.testing.assert_allclose(x_np, y, rtol=rtol, atol=atol, equal_nan=True)


UNARY_F = ["fabs", "log2", "log10", "deg2rad", "rad2deg", "degrees", "radians", "sinc",
           "signbit", "isfinite", "isinf", "isnan", "isposinf", "isneginf", "floor", "ceil",
           "trunc", "rint", "i0", "exp2", "fix"]


@pytest.mark.parametrize("name", UNARY_F)
def test_unary_float(name):
  x = np.abs(A) + 0.1 if name in ("log2", "log10") else A * 3
  check(getattr(jnp, name)(x), getattr(np, name)(x))
  with np.errstate(invalid="ignore"):
    check(getattr(jnp, name)(N[:3]), getattr(np, name)(N[:3]))


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "signbit", "floor", "ceil",
                                  "trunc"])
def test_unary_int_keeps_or_classifies(name):
  check(getattr(jnp, name)(I - 5), getattr(np, name)(I - 5))


BINARY_F = ["fmod", "hypot", "logaddexp", "logaddexp2", "heaviside", "copysign",
            "nextafter", "float_power"]


@pytest.mark.parametrize("name", BINARY_F)
def test_binary_float(name):
  y = np.float32(0.7) if name != "float_power" else np.float32(2.0)
  x = A if name != "float_power" else np.abs(A)
  check(getattr(jnp, name)(x, y), getattr(np, name)(x, y).astype(np.float32))
  check(getattr(jnp, name)(x, -x), getattr(np, name)(x, -x).astype(np.float32))


def test_integer_binary():
  check(jnp.fmod(I - 6, 5), np.fmod(I - 6, 5))
  check(jnp.gcd(I, 6), np.gcd(I, 6).astype(np.int32))
  check(jnp.lcm(I - 3, 4), np.lcm(I - 3, 4).astype(np.int32))
  check(jnp.divmod(I - 6, 5), np.divmod(I - 6, 5))
  check(jnp.ldexp(A, I), np.ldexp(A, I))
  check(jnp.modf(A * 3), np.modf(A * 3))
  check(jnp.around(A, 2), np.around(A, 2))


def test_nan_to_num_and_clip():
  check(jnp.nan_to_num(N), np.nan_to_num(N))
  check(jnp.nan_to_num(N, nan=1.0, posinf=2.0, neginf=-2.0),
        np.nan_to_num(N, nan=1.0, posinf=2.0, neginf=-2.0))
  check(jnp.clip(A, -0.5, 0.5), np.clip(A, -0.5, 0.5))
  check(jnp.clip(I, 2, 5), np.clip(I, 2, 5))
  check(jnp.clip(I, max=3), np.clip(I, None, 3))
  assert jnp.clip(I, 0.5).dtype == np.float32


def test_linspace_family():
  check(jnp.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
  check(jnp.linspace(0, 10, 5, dtype=int), np.linspace(0, 10, 5, dtype=np.int32))
  out, step = jnp.linspace(0, 1, 4, endpoint=False, retstep=True)
  ref, rstep = np.linspace(0, 1, 4, endpoint=False, retstep=True)
  check(out, ref.astype(np.float32))
  np.testing.assert_allclose(step, rstep)
  check(jnp.linspace(np.array([0., 1.]), np.array([1., 3.]), 3, axis=-1),
        np.linspace(np.array([0., 1.]), np.array([1., 3.]), 3, axis=-1).astype(np.float32))
  check(jnp.linspace(2, 3, 1), np.linspace(2, 3, 1).astype(np.float32))
  check(jnp.linspace(2, 3, 0), np.linspace(2, 3, 0).astype(np.float32))
  check(jnp.logspace(0, 2, 3), np.logspace(0, 2, 3).astype(np.float32), rtol=1e-5)
  check(jnp.geomspace(1, 1000, 4), np.geomspace(1, 1000, 4).astype(np.float32), rtol=1e-5)
  check(jnp.geomspace(-1, -100, 3), np.geomspace(-1, -100, 3).astype(np.float32), rtol=1e-5)


def test_matrices():
  check(jnp.eye(3), np.eye(3, dtype=np.float32))
  check(jnp.eye(2, 3, k=-1, dtype=int), np.eye(2, 3, k=-1, dtype=np.int32))
  check(jnp.identity(2, dtype=bool), np.identity(2, dtype=bool))
  check(jnp.tri(3, 4, k=1), np.tri(3, 4, k=1, dtype=np.float32))
  check(jnp.tril(A), np.tril(A))
  check(jnp.triu(I, -1), np.triu(I, -1))
  for k in (-2, 0, 1):
    check(jnp.diag(np.arange(3), k), np.diag(np.arange(3), k).astype(np.int32))
    check(jnp.diag(A, k), np.diag(A, k))
  check(jnp.diagonal(np.arange(24.).reshape(2, 3, 4), 1, -1, 0),
        np.diagonal(np.arange(24.).reshape(2, 3, 4), 1, -1, 0).astype(np.float32))
  check(jnp.diagflat(np.arange(2.)), np.diagflat(np.arange(2.)).astype(np.float32))
  check(jnp.trace(I), np.trace(I).astype(np.int32))
  check(jnp.trace(A, -1), np.trace(A, -1))
  for kw in ({}, {"indexing": "ij"}, {"sparse": True}):
    check(jnp.meshgrid(np.arange(3), np.arange(2.), np.arange(4), **kw),
          [x.astype(np.float32 if x.dtype == np.float64 else np.int32)
           for x in np.meshgrid(np.arange(3), np.arange(2.), np.arange(4), **kw)])


def test_stacking_and_splitting():
  x = np.arange(24.).reshape(2, 3, 4).astype(np.float32)
  check(jnp.moveaxis(x, 0, -1), np.moveaxis(x, 0, -1))
  check(jnp.moveaxis(x, (0, 1), (-1, 0)), np.moveaxis(x, (0, 1), (-1, 0)))
  check(jnp.swapaxes(x, 0, -1), np.swapaxes(x, 0, -1))
  for f in ("atleast_1d", "atleast_2d", "atleast_3d"):
    for v in (np.float32(1), V, A):
      check(getattr(jnp, f)(v), getattr(np, f)(v))
  for f in ("hstack", "vstack", "dstack", "column_stack"):
    check(getattr(jnp, f)([A, A]), getattr(np, f)([A, A]))
    check(getattr(jnp, f)([V, V]), getattr(np, f)([V, V]))
  check(jnp.split(np.arange(6), 3), np.split(np.arange(6, dtype=np.int32), 3))
  check(jnp.split(I, [1, 3], axis=-1), np.split(I, [1, 3], axis=-1))
  check(jnp.array_split(np.arange(7), 3), np.array_split(np.arange(7, dtype=np.int32), 3))
  check(jnp.hsplit(I, 2), np.hsplit(I, 2))
  check(jnp.vsplit(I, [1]), np.vsplit(I, [1]))
  with pytest.raises(ValueError):
    jnp.split(np.arange(7), 3)


def test_tile_repeat_flip_roll():
  check(jnp.tile(V, 2), np.tile(V, 2))
  check(jnp.tile(A, (2, 1, 2)), np.tile(A, (2, 1, 2)))
  check(jnp.repeat(I, 2), np.repeat(I, 2))
  check(jnp.repeat(I, 2, axis=-1), np.repeat(I, 2, axis=-1))
  check(jnp.repeat(V[:3], np.array([1, 0, 2])), np.repeat(V[:3], [1, 0, 2]))
  check(jnp.repeat(A, np.array([2, 0, 1]), axis=0), np.repeat(A, [2, 0, 1], axis=0))
  out = xjax.jit(lambda r: jnp.repeat(V[:3], r, total_repeat_length=4))(np.array([1, 0, 2]))
  check(out, np.array([3., 2., 2., 2.], np.float32))
  check(jnp.flip(A), np.flip(A))
  check(jnp.flip(A, -1), np.flip(A, -1))
  check(jnp.fliplr(I), np.fliplr(I))
  check(jnp.flipud(I), np.flipud(I))
  for k in range(-1, 4):
    check(jnp.rot90(I, k), np.rot90(I, k))
  check(jnp.roll(V, 2), np.roll(V, 2))
  check(jnp.roll(I, -1, axis=1), np.roll(I, -1, axis=1))
  check(jnp.roll(I, (1, 1), (0, 1)), np.roll(I, (1, 1), (0, 1)))
  check(jnp.roll(I, 5), np.roll(I, 5))
  check(jnp.roll(np.zeros((0,), np.float32), 1), np.zeros((0,), np.float32))


@pytest.mark.parametrize("mode,kw", [
    ("constant", {}), ("constant", {"constant_values": 7}),
    ("constant", {"constant_values": ((1, 2), (3, 4))}), ("edge", {}), ("reflect", {}),
    ("symmetric", {}), ("wrap", {}), ("maximum", {}), ("minimum", {"stat_length": 2}),
    ("mean", {}), ("linear_ramp", {"end_values": (5, -5)})])
def test_pad(mode, kw):
  check(jnp.pad(I, ((1, 2), (3, 0)), mode, **kw), np.pad(I, ((1, 2), (3, 0)), mode, **kw))
  if np.ndim(kw.get("constant_values", 0)) < 2:
    check(jnp.pad(V, (7, 9), mode, **kw), np.pad(V, (7, 9), mode, **kw))


def test_pad_grad_and_float_ramp():
  check(jnp.pad(A, (2, 3), "linear_ramp"), np.pad(A, (2, 3), "linear_ramp"))
  g = xjax.grad(lambda x: jnp.sum(jnp.pad(x, (2, 3), "reflect") ** 2))(np.arange(4.,
                                                                             dtype=np.float32))
  check(g, np.array([0., 6., 12., 6.], np.float32))


def test_cumulative():
  check(jnp.cumsum(I), np.cumsum(I).astype(np.int32))
  check(jnp.cumsum(I, axis=-1), np.cumsum(I, axis=-1, dtype=np.int32))
  check(jnp.cumprod(A, 0), np.cumprod(A, 0))
  check(jnp.nancumsum(N[:3]), np.nancumsum(N[:3]))
  check(jnp.nancumprod(N[:3]), np.nancumprod(N[:3]))
  check(jnp.cumsum(np.array([True, False, True])), np.array([1, 1, 2], np.int32))
  check(jnp.cumsum(np.zeros((0, 2), np.float32), axis=0), np.zeros((0, 2), np.float32))
  check(jnp.asarray(I).cumsum(axis=0), np.cumsum(I, axis=0, dtype=np.int32))


def test_sort_and_search():
  check(jnp.sort(V), np.sort(V))
  check(jnp.sort(N), np.sort(N))
  check(jnp.sort(A, axis=0), np.sort(A, axis=0))
  check(jnp.sort(I, axis=None), np.sort(I, axis=None))
  check(jnp.sort(V, descending=True), np.sort(V)[::-1])
  check(jnp.argsort(V), np.argsort(V).astype(np.int32))
  ties = np.array([1, 1, 0, 1])
  check(jnp.argsort(ties), np.argsort(ties, kind="stable").astype(np.int32))
  check(jnp.argsort(A, axis=-2), np.argsort(A, axis=-2).astype(np.int32))
  check(jnp.argsort(V, descending=True), np.argsort(-V).astype(np.int32))
  keys = (np.array([1, 2, 1]), np.array([0, 0, 1]))
  check(jnp.lexsort(keys), np.lexsort(keys).astype(np.int32))
  a = np.array([1., 2., 2., 3.], np.float32)
  v = np.array([2., 0., 5., np.nan], np.float32)
  for side in ("left", "right"):
    check(jnp.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side).astype(np.int32))
  check(jnp.searchsorted(V, 2.5, sorter=np.argsort(V)),
        np.int32(np.searchsorted(V, 2.5, sorter=np.argsort(V))))


def test_nonzero_family_and_size():
  check(jnp.nonzero(I > 5), [i.astype(np.int32) for i in np.nonzero(I > 5)])
  check(jnp.argwhere(I % 5 == 0), np.argwhere(I % 5 == 0).astype(np.int32))
  check(jnp.flatnonzero(I % 3), np.flatnonzero(I % 3).astype(np.int32))
  check(jnp.count_nonzero(I), np.int32(np.count_nonzero(I)))
  check(jnp.count_nonzero(I, axis=-1), np.count_nonzero(I, axis=-1).astype(np.int32))
  check(jnp.unique(np.array([3, 1, 3, 2])), np.array([1, 2, 3], np.int32))
  vals, counts = jnp.unique(np.array([3, 1, 3]), return_counts=True)
  check(counts, np.array([1, 2], np.int32))
  f = xjax.jit(lambda x: jnp.nonzero(x > 5, size=8, fill_value=-1))
  ref = np.full((2, 8), -1, np.int32)
  nz = np.nonzero(I > 5)
  ref[:, :6] = nz
  check(f(I), list(ref))
  check(xjax.jit(lambda x: jnp.where(x > 8, size=2))(I),
        [np.array([2, 2], np.int32), np.array([1, 2], np.int32)])
  check(xjax.jit(lambda x: jnp.unique(x, size=5))(np.array([3, 1, 3, 2])),
        np.array([1, 2, 3, 1, 1], np.int32))
  check(xjax.jit(lambda x: jnp.unique(x, size=5, fill_value=0))(np.array([3., 1, 3, 2])),
        np.array([1, 2, 3, 0, 0], np.float64 if xjax.config.read("jax_enable_x64")
                 else np.float32))
  with pytest.raises(ConcretizationTypeError, match="size"):
    xjax.jit(lambda x: jnp.nonzero(x))(I)
  with pytest.raises(ValueError):
    jnp.nonzero(np.float32(1))


@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanmax", "nanmin", "nanprod",
                                  "nanstd", "nanvar", "nanargmax", "nanargmin"])
def test_nan_reductions(name):
  x = np.array([[1., np.nan, 3.], [np.nan, 2., -1.]], np.float32)
  ref = getattr(np, name)(x)
  check(getattr(jnp, name)(x), ref.astype(np.int32) if "arg" in name else ref)
  ref = getattr(np, name)(x, axis=-1)
  check(getattr(jnp, name)(x, axis=-1), ref.astype(np.int32) if "arg" in name else ref)


def test_order_statistics():
  for kw in ({}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"axis": (0, 1)}):
    check(jnp.median(A, **kw), np.median(A, **kw))
  check(jnp.median(I), np.float32(np.median(I)))
  check(jnp.median(N), np.float32(np.nan))
  check(jnp.nanmedian(N[:3]), np.nanmedian(N[:3]))
  for m in ("linear", "lower", "higher", "nearest", "midpoint"):
    check(jnp.quantile(A, 0.3, method=m), np.quantile(A, 0.3, method=m))
  check(jnp.percentile(A, np.array([10., 50.]), axis=1),
        np.percentile(A, [10., 50.], axis=1).astype(np.float32))
  check(jnp.nanpercentile(N[:3], 50), np.nanpercentile(N[:3], 50))
  check(jnp.average(A), np.average(A))
  w = np.arange(4.).astype(np.float32)
  check(jnp.average(A, axis=1, weights=w), np.average(A, axis=1, weights=w))
  avg, ws = jnp.average(A, weights=np.abs(A), returned=True)
  ravg, rws = np.average(A, weights=np.abs(A), returned=True)
  check(avg, ravg)
  check(ws, rws)
  check(jnp.ptp(I), np.ptp(I))
  check(jnp.ptp(A, axis=0), np.ptp(A, axis=0))


def test_products():
  check(jnp.vdot(A, A), np.vdot(A, A), rtol=1e-5)
  check(jnp.inner(A, A), np.inner(A, A), rtol=1e-5)
  check(jnp.outer(np.arange(3), np.arange(2.)), np.outer(np.arange(3), np.arange(2.)).astype(
      np.float32))
  check(jnp.tensordot(A, A), np.tensordot(A, A), rtol=1e-5)
  check(jnp.tensordot(A, A.T, 1), np.tensordot(A, A.T, 1), rtol=1e-5)
  check(jnp.tensordot(A, A, (1, 1)), np.tensordot(A, A, (1, 1)), rtol=1e-5)
  check(jnp.tensordot(A, A, ([0, -1], [0, 1])), np.tensordot(A, A, ([0, 1], [0, 1])),
        rtol=1e-5)
  check(jnp.kron(np.eye(2, dtype=np.float32), V), np.kron(np.eye(2, dtype=np.float32), V))
  check(jnp.cross(np.array([1., 2, 3]), np.array([4., 5, 6])),
        np.cross([1., 2, 3], [4., 5, 6]).astype(np.float32))
  check(jnp.cross(np.array([1, 2]), np.array([3, 4])), np.int32(1 * 4 - 2 * 3))
  b = R.randn(5, 3).astype(np.float32)
  check(jnp.cross(b, b[::-1]), np.cross(b, b[::-1]), rtol=1e-5)


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk", [(3, 4), (4, 2)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]),
    ("...j,j->...", [(2, 3, 4), (4,)]), ("ij,kj,k->i", [(3, 4), (5, 4), (5,)]),
    ("ij->", [(3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("i,j", [(3,), (2,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("i...,i...->...", [(3, 2), (3, 2)]),
    ("ba,ab", [(2, 3), (3, 2)])])
def test_einsum(spec, shapes):
  ops = [R.randn(*s).astype(np.float32) for s in shapes]
  check(jnp.einsum(spec, *ops), np.einsum(spec, *ops).astype(np.float32), rtol=1e-4,
        atol=1e-4)


def test_comparisons():
  check(jnp.isclose(A, A + 1e-6), np.isclose(A, A + 1e-6))
  check(jnp.isclose(N, N), np.isclose(N, N))
  check(jnp.isclose(N, N, equal_nan=True), np.isclose(N, N, equal_nan=True))
  assert bool(jnp.allclose(A, A)) and not bool(jnp.allclose(A, A + 1))
  assert bool(jnp.array_equal(A, A)) and not bool(jnp.array_equal(A, A[:2]))
  assert bool(jnp.array_equal(N, N, equal_nan=True))
  assert bool(jnp.array_equiv(np.ones((2, 3)), 1.0)) and not bool(jnp.array_equiv(A, V))


def test_differences_and_integration():
  check(jnp.diff(I), np.diff(I))
  check(jnp.diff(A, 2, axis=0), np.diff(A, 2, axis=0))
  check(jnp.diff(np.array([True, False, False])), np.diff([True, False, False]))
  check(jnp.diff(np.arange(3), prepend=0, append=np.array([9])),
        np.diff(np.arange(3), prepend=0, append=[9]).astype(np.int32))
  check(jnp.ediff1d(I, to_begin=-1), np.ediff1d(I, to_begin=-1).astype(np.int32))
  check(jnp.gradient(V), np.gradient(V))
  check(jnp.gradient(A), np.gradient(A))
  xs = np.array([0., 1, 3, 4, 7], np.float32)
  check(jnp.gradient(V, xs), np.gradient(V, xs))
  check(jnp.trapezoid(V), np.float32(np.trapezoid(V)))
  check(jnp.trapezoid(A, dx=0.5, axis=0), np.trapezoid(A, dx=0.5, axis=0))
  check(jnp.trapezoid(V, xs), np.float32(np.trapezoid(V, xs)))


def test_interp_polyval_counting():
  x = np.array([-1., 0.5, 1.5, 2., 9.], np.float32)
  xp, fp = np.array([0., 1., 2.], np.float32), np.array([1., 3., 2.], np.float32)
  check(jnp.interp(x, xp, fp), np.interp(x, xp, fp).astype(np.float32))
  check(jnp.interp(x, xp, fp, left=-1, right=7), np.interp(x, xp, fp, -1, 7).astype(
      np.float32))
  check(jnp.polyval(np.array([1, 2, 3]), np.arange(3)), np.polyval([1, 2, 3], np.arange(
      3)).astype(np.int32))
  check(jnp.polyval(np.array([1., -2.], np.float32), A), np.polyval(np.float32([1, -2]), A))
  check(jnp.bincount(np.array([0, 1, 1, 3])), np.bincount([0, 1, 1, 3]).astype(np.int32))
  check(xjax.jit(lambda v: jnp.bincount(v, length=6))(np.array([0, 1, 1, 3])),
        np.bincount([0, 1, 1, 3], minlength=6).astype(np.int32))
  w = np.array([.5, 1., 2.], np.float32)
  check(jnp.bincount(np.array([0, 1, 1]), weights=w), np.bincount([0, 1, 1], w).astype(
      np.float32))
  counts, edges = jnp.histogram(A)
  rc, re = np.histogram(A)
  check(counts, rc.astype(np.float32))
  check(edges, re.astype(np.float32))
  counts, edges = jnp.histogram(A, bins=3, range=(-1, 1))
  check(counts, np.histogram(A, bins=3, range=(-1, 1))[0].astype(np.float32))
  bins = np.array([0., 1., 2.5, 4., 10.])
  xs = np.array([0.2, 6.4, 3.0, 1.6, 1.0])
  for right in (False, True):
    check(jnp.digitize(xs, bins, right=right), np.digitize(xs, bins, right).astype(np.int32))
    check(jnp.digitize(xs, bins[::-1], right=right),
          np.digitize(xs, bins[::-1], right).astype(np.int32))


def test_convolve_correlate_index_math():
  a, v = np.arange(5.).astype(np.float32), np.array([1., 2, 3], np.float32)
  for mode in ("full", "same", "valid"):
    check(jnp.convolve(a, v, mode), np.convolve(a, v, mode))
    check(jnp.convolve(v, a, mode), np.convolve(v, a, mode))
    check(jnp.correlate(a, v, mode), np.correlate(a, v, mode))
    check(jnp.correlate(v, a, mode), np.correlate(v, a, mode))
  idx = (np.array([1, 2]), np.array([3, 0]))
  check(jnp.ravel_multi_index(idx, (3, 4)), np.ravel_multi_index(idx, (3, 4)).astype(np.int32))
  check(jnp.unravel_index(np.array([5, 11]), (3, 4)),
        [i.astype(np.int32) for i in np.unravel_index([5, 11], (3, 4))])


def test_errors():
  with pytest.raises(ValueError, match="out of bounds"):
    jnp.cumsum(A, axis=2)
  with pytest.raises(ValueError):
    jnp.sort(A, axis=-3)
  with pytest.raises(ValueError):
    jnp.moveaxis(A, 0, 5)
  with pytest.raises(IndexError):
    jnp.mean(A, axis=2)
  with pytest.raises(TypeError, match=r"\(3, 4\).*\(5,\)"):
    jnp.hypot(A, V)
  with pytest.raises(NotImplementedError, match="immutable"):
    jnp.cumsum(A, out=A)
  with pytest.raises(NotImplementedError, match="padding mode"):
    jnp.pad(A, 1, "bogus")


def test_transforms_compose():
  f = xjax.jit(lambda x: (jnp.sort(x), jnp.median(x), jnp.cumsum(x), jnp.einsum("i,i", x, x)))
  x = np.array([3., 1., 3., 2.], np.float32)
  check(f(x), (np.sort(x), np.median(x), np.cumsum(x), np.float32(x @ x)))
  check(xjax.vmap(lambda r: jnp.roll(jnp.cumsum(r), 1))(A),
        np.roll(np.cumsum(A, axis=1), 1, axis=1))
  check(xjax.grad(lambda r: jnp.median(r))(np.array([3., 1., 2.], np.float32)),
        np.array([0., 0., 1.], np.float32))


def test_polynomials_and_index_helpers():
  p, q = np.array([1., 2., 3.], np.float32), np.array([4., 5.], np.float32)
  check(jnp.polyadd(p, q), np.polyadd(p, q))
  check(jnp.polysub(q, p), np.polysub(q, p))
  check(jnp.polymul(p, q), np.polymul(p, q))
  check(jnp.polyder(p), np.polyder(p).astype(np.float32))
  check(jnp.polyder(p, 2), np.polyder(p, 2).astype(np.float32))
  check(jnp.polyint(p), np.polyint(p).astype(np.float32))
  check(jnp.polyint(p, 2, k=np.array([1., 2.])), np.polyint(p, 2, k=[1., 2.]).astype(np.float32))
  check(jnp.vander(q), np.vander(q).astype(np.float32))
  check(jnp.vander(p, 4, increasing=True), np.vander(p, 4, increasing=True).astype(np.float32))
  check(jnp.append(I, V), np.append(I, V).astype(np.float32))
  check(jnp.append(I, I, axis=-1), np.append(I, I, axis=-1))
  conds, choices = [I < 3, I > 8], [I, -I]
  check(jnp.select(conds, choices, 99), np.select(conds, choices, 99))
  for f, args in (("tril_indices", (3, -1)), ("triu_indices", (3, 1, 4)),
                  ("diag_indices", (3,))):
    check(getattr(jnp, f)(*args), [i.astype(np.int32) for i in getattr(np, f)(*args)])
  check(jnp.indices((2, 3)), np.indices((2, 3)).astype(np.int32))
  check(jnp.indices((2, 3), sparse=True),
        [i.astype(np.int32) for i in np.indices((2, 3), sparse=True)])
