"""jax.numpy functions JAX jits run compiled when eager (one program, rounded as JAX's):
values bit for bit against literals taken from JAX 0.10.2, traced scalar arguments that
JAX keeps dynamic, and jaxprs that still show the primitives."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

F = np.array([-2.5, -1.5, -0.5, 0., 0.5, 1.5, 2.5, 3.7, -0.0, np.nan, np.inf, -np.inf],
             np.float32)
FF = np.array([-2.5, -1.25, -0.3, 0., 0.7, 1.5, 2.5, 3.7], np.float32)
R = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
nan = np.nan


def same(actual, expected, dtype=np.dtype(np.float32)):
  """Bit for bit with JAX's values (signed zeros included; NaN where JAX has NaN)."""
  actual, expected = np.asarray(actual), np.asarray(expected, dtype)
  assert actual.dtype == dtype
  nans = np.isnan(expected) if dtype.kind == "f" else np.zeros(expected.shape, bool)
  np.testing.assert_array_equal(np.isnan(actual) if dtype.kind == "f" else nans, nans)
  bits = f"u{expected.dtype.itemsize}"
  np.testing.assert_array_equal(np.where(nans, 0, actual.view(bits)),
                                np.where(nans, 0, expected.view(bits)))


def test_rounding_as_jax():
  same(jnp.log10(np.float32([100., 10., 3., 1000., 0.5])),
       [2.0, 1.0, 0.4771212637424469, 3.0, -0.3010300099849701])
  same(jnp.floor_divide(F, F[::-1]), [-0.0, -1.0, nan, nan, 0.0, 0.0, 1.0, 7.0, nan, nan,
                                      nan, nan])
  q, r = jnp.divmod(F, np.float32(-0.7))
  same(q, [3.0, 2.0, -0.0, -0.0, -1.0, -3.0, -4.0, -6.0, -0.0, nan, nan, nan])
  same(r, [-0.40000003576278687, -0.10000002384185791, -0.5, 0.0, -0.19999998807907104,
           -0.5999999642372131, -0.2999999523162842, -0.49999988079071045, -0.0, nan, nan,
           nan])
  same(jnp.spacing(np.float32([0., -0., 1., -3., 1e30])),
       [1.401298464324817e-45, -1.401298464324817e-45, 1.1920928955078125e-07,
        -2.384185791015625e-07, 7.555786372591432e+22])


def test_statistics_as_jax():
  same(jnp.median(R, axis=0), [-0.24877211451530457, -0.04538943991065025,
                               0.16206124424934387, -0.05694577470421791, -0.8907902240753174])
  same(jnp.quantile(R, np.float32([0.1, 0.9]), axis=1),
       [[-0.3742435872554779, -1.040747046470642, -1.8933829069137573, -0.6570640802383423],
        [0.434545636177063, 1.161232352256775, -0.06272110342979431, 0.7901601791381836]])
  same(jnp.nanvar(np.int32([-7, -3, 0, 1, 4, 12])), 35.13888931274414)
  same(jnp.trace(R, -1), 0.08662088960409164)
  same(jnp.trapezoid(R, dx=0.5), [0.20412415266036987, 0.5477163195610046,
                                  -1.7185447216033936, -0.14690285921096802])


def test_polynomials_as_jax():
  same(jnp.polysub(FF[:3], FF), [2.5, 1.25, 0.30000001192092896, -0.0, -0.699999988079071,
                                 -4.0, -3.75, -4.0])
  same(jnp.polyint(FF, 3, k=np.float32([1., 2., 3.])),
       [-0.0034722222480922937, -0.0024801588151603937, -0.0008928572060540318, 0.0,
        0.005833333358168602, 0.02500000037252903, 0.1041666641831398, 0.6166666746139526,
        0.5, 2.0, 3.0])
  same(jnp.polyval(FF, R, unroll=2)[0], [4.0394134521484375, 3.3943088054656982,
                                         5.871113300323486, 3.9795584678649902,
                                         2.6989831924438477])
  with pytest.raises(TypeError):
    jnp.polyint(FF, 2, k=[1.0, 2.0])  # a list is not an array (as JAX)


def test_partition_as_jax():
  # the smaller values ascending, then the larger ones descending (two top_k calls)
  same(jnp.partition(FF[::-1], 3), [-2.5, -1.25, -0.30000001192092896, 0.0,
                                     3.700000047683716, 2.5, 1.5, 0.699999988079071])
  same(jnp.argpartition(FF[::-1], 3), [7, 6, 5, 4, 0, 1, 2, 3], np.dtype(np.int32))
  same(jnp.partition(np.uint8([5, 0, 3, 200, 1]), 2), [0, 1, 3, 200, 5], np.dtype(np.uint8))
  with pytest.raises(NotImplementedError):
    jnp.partition(np.complex64([1, 2]), 0)


def test_scalars_jax_keeps_traced():
  f = xjax.jit(lambda x, v: jnp.nan_to_num(x, nan=v, posinf=v))
  same(f(F[8:], 5.0), [-0.0, 5.0, 5.0, -3.4028234663852886e+38])
  bins = np.float32([2., 1., 0., -1.])  # decreasing bins, traced
  np.testing.assert_array_equal(xjax.jit(jnp.digitize)(F[:9], bins),
                                np.digitize(F[:9], bins))
  np.testing.assert_array_equal(xjax.jit(lambda o: jnp.trace(R, o))(-1), jnp.trace(R, -1))
  np.testing.assert_array_equal(xjax.jit(lambda t: jnp.isclose(R, R * 1.001, rtol=t))(1e-2),
                                np.isclose(R, R * 1.001, rtol=1e-2))
  np.testing.assert_allclose(xjax.jit(lambda d: jnp.nanvar(R, ddof=d))(2),
                             np.var(R, ddof=2), rtol=1e-6)


def test_gcd_loop_and_searchsorted_bisection():
  a = np.array([12, -18, 0, 7, 0, 2**31 - 1], np.int32)
  b = np.array([8, 12, 5, 0, 0, 6], np.int32)
  for fn in (jnp.gcd, xjax.jit(jnp.gcd), xjax.vmap(jnp.gcd)):
    np.testing.assert_array_equal(fn(a, b), np.gcd(a, b))
  np.testing.assert_array_equal(jnp.lcm(a[:4], b[:4]), np.lcm(a[:4], b[:4]))
  rng = np.random.default_rng(1)
  for n in (0, 1, 7, 8, 100):
    s = np.sort(rng.integers(0, 10, n).astype(np.float32))
    s[max(n - 2, 0):] = np.nan
    v = np.concatenate([rng.integers(-1, 11, 20).astype(np.float32), [nan, np.inf, -np.inf]])
    for side in ("left", "right"):
      for method in ("scan", "compare_all"):
        np.testing.assert_array_equal(jnp.searchsorted(s, v, side=side, method=method),
                                      np.searchsorted(s, v, side=side))
  with pytest.raises(ValueError, match="method"):
    jnp.searchsorted(s, v, method="bisect")


def test_traced_calls_stage_a_nested_jit_as_jax_does():
  # JAX jits hypot: its jaxprs show one jit[name=hypot] equation holding the primitives
  jaxpr = xjax.make_jaxpr(lambda x: jnp.hypot(x, x))(FF)
  (eqn,) = jaxpr.jaxpr.eqns
  assert eqn.primitive.name == "jit" and eqn.params["name"] == "hypot"
  assert "sqrt" in {e.primitive.name for e in eqn.params["jaxpr"].jaxpr.eqns}
  # functions JAX leaves op by op (gelu) still show their primitives
  jaxpr = xjax.make_jaxpr(lambda x: xjax.nn.gelu(x))(FF)
  assert "jit" not in {e.primitive.name for e in jaxpr.jaxpr.eqns}


def test_linspace_is_jaxs_formula():
  # start * (1 - t) + stop * t, computed in the requested dtype's inexact type
  same(jnp.linspace(0.1, 2.3, 9, endpoint=False),
       [0.10000000149011612, 0.3444444239139557, 0.5888888835906982, 0.8333332538604736,
        1.0777777433395386, 1.322222113609314, 1.566666603088379, 1.8111109733581543,
        2.0555553436279297])
  same(jnp.linspace(jnp.array([0., 1.]), 3.0, 4, axis=1),
       [[0.0, 1.0, 2.0, 3.0], [1.0, 1.6666666269302368, 2.3333332538604736, 3.0]])
  same(jnp.linspace(np.float32(1e-3), 7.3, 11, dtype=jnp.bfloat16),
       [0.00099945068359375, 0.73046875, 1.4609375, 2.203125, 2.921875, 3.65625, 4.40625,
        5.125, 5.84375, 6.5625, 7.3125], np.dtype(jnp.bfloat16))
  same(jnp.linspace(-3, 5, 6, dtype=jnp.int32), [-3, -2, 0, 1, 3, 5], np.dtype(np.int32))
  out, step = jnp.linspace(0, 1, 1, endpoint=False, retstep=True)
  same(out, [0.0])
  same(step, 1.0)


def test_more_composites_run_as_one_program_when_eager():
  same(jnp.pad(jnp.arange(3.0), (2, 1), mode="reflect", reflect_type="odd"),
       [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0])
  same(jnp.pad(jnp.arange(3.0), [(1, 1)], constant_values=jnp.float32(9)),   # op by op
       [9.0, 0.0, 1.0, 2.0, 9.0])
  same(jnp.roll(jnp.arange(6).reshape(2, 3), (1, -1), (0, 1)), [[4, 5, 3], [1, 2, 0]],
       np.dtype(np.int32))
  same(jnp.roll(jnp.arange(4), jnp.int32(1)), [3, 0, 1, 2], np.dtype(np.int32))
  same(xjax.jit(lambda s: jnp.roll(jnp.arange(12).reshape(3, 4), s, axis=(0, 1)))(
      jnp.array([1, -2])), [[10, 11, 8, 9], [2, 3, 0, 1], [6, 7, 4, 5]], np.dtype(np.int32))
  same(jnp.flip(jnp.arange(4.0), [0]), [3.0, 2.0, 1.0, 0.0])
  same(xjax.nn.one_hot(jnp.array([0, 2, 5]), 3),
       [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
  # traced: linspace is a nested jit[name=_linspace], as in JAX
  jaxpr = xjax.make_jaxpr(lambda a: jnp.linspace(a, 1.0, 5))(0.0)
  assert [(e.primitive.name, e.params.get("name")) for e in jaxpr.jaxpr.eqns] == [
      ("jit", "_linspace")]


def test_diag_interp_and_average_as_jax():
  v = jnp.arange(1.0, 6.0)
  same(jnp.diag(v, 1)[0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
  same(jnp.interp(jnp.array([0., 2.5, 9.]), v, v * 2, left=-1.0, right="extrapolate"),
       [-1.0, 5.0, 18.0])
  same(jnp.interp(2.5, v, v * 2, left=jnp.float32(-1)), 5.0)   # an array bound: op by op
  avg, total = jnp.average(v, weights=v, returned=True)
  same(avg, 3.6666667461395264)
  same(total, 15.0)


@pytest.mark.parametrize("fn", [jnp.nansum, jnp.nanmax, jnp.nanmean, jnp.median, jnp.cumsum,
                                jnp.sort, jnp.argsort, jnp.count_nonzero])
def test_an_unhashable_axis_is_jaxs_value_error(fn):
  x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
  for axis in ([0], jnp.int32(0), np.array([0, 1])):   # JAX jits these with a static axis
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
      fn(x, axis=axis)
  assert fn(x, axis=np.int32(0)).shape[0] in (2, 3)     # a hashable NumPy scalar is fine
  assert jnp.sum(x, axis=[0]).shape == (3,)              # (sum takes a list, as JAX's)
