"""xjax.scipy.optimize.minimize takes JAX 0.10.2's steps: for BFGS and L-BFGS the iteration
and evaluation counts, the status and the point and value reached equal the reference's
(numbers taken from JAX 0.10.2 on the same problems), eagerly, under jit and vmap, with
options, in float64 and float16."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax.scipy import optimize

BFGS, LBFGS = "BFGS", "l-bfgs-experimental-do-not-rely-on-this"
METHODS = {"BFGS": BFGS, "LBFGS": LBFGS}


def rosen(x):
  return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


_rng = np.random.RandomState(0)
_A = _rng.randn(6, 6)
A = _A @ _A.T + np.eye(6)
B = _rng.randn(6)


def quad(x):
  return 0.5 * x @ jnp.asarray(A, x.dtype) @ x - jnp.asarray(B, x.dtype) @ x


def linear(x):            # unbounded below: every line search runs out of steps
  return -jnp.sum(x)


def kink(x):              # not differentiable at its minimum: the zoom fails
  return jnp.sum(jnp.abs(x - 0.3))


PROBLEMS = {"rosen": rosen, "quad": quad, "linear": linear, "kink": kink}


def start(name, dtype=np.float32):
  if name.startswith("zeros"):
    return jnp.zeros(int(name[5:]), dtype)
  if name.startswith("rand"):
    n = int(name[4:])
    return np.random.RandomState(n).uniform(-2, 2, n).astype(dtype)
  return jnp.array([1., -2., 0.5], dtype)


# (method, problem, start) -> (nit, nfev, status, fun, x, or its first 3 entries), from JAX
REFERENCE = {
  ("BFGS", "rosen", "zeros2"): (1, 5, 3, 0.776570737361908, [0.17879489064216614, 0.0]),
  ("BFGS", "rosen", "zeros5"): (22, 36, 3, 0.21149811148643494, [
      0.9489682912826538, 0.900701642036438, 0.8060766458511353, 0.6436189413070679,
      0.3975251615047455]),
  ("BFGS", "rosen", "zeros100"): (2, 7, 3, 97.749755859375, [
      0.19648544490337372, 0.012255838140845299, 0.012255838140845299]),
  ("BFGS", "rosen", "rand2"): (24, 31, 3, 0.31479570269584656, [
      0.46785032749176025, 0.2011040449142456]),
  ("BFGS", "rosen", "rand5"): (28, 52, 3, 4.334310146035525e-13, [
      1.0, 1.0, 1.0, 0.9999999403953552, 0.9999999403953552]),
  ("BFGS", "quad", "zeros6"): (2, 5, 3, -0.5699917078018188, [
      0.09337075054645538, 0.3198797404766083, -0.1669466495513916, -0.03758711367845535,
      -0.2513188421726227, -0.21193166077136993]),
  ("BFGS", "linear", "zeros3"): (1, 11, 5, -0.0, [0.0, 0.0, 0.0]),
  ("BFGS", "kink", "k3"): (5, 11, 3, 0.46691223978996277, [
      0.19185295701026917, 0.012318411841988564, 0.3710835874080658]),
  ("LBFGS", "rosen", "zeros2"): (1, 6, 5, 0.7737371325492859, [0.1735464632511139, 0.0]),
  ("LBFGS", "rosen", "zeros5"): (6, 14, 5, 3.1531407833099365, [
      0.40085917711257935, 0.13158315420150757, 0.017469538375735283, 0.010787358507514,
      -0.0019225099822506309]),
  ("LBFGS", "rosen", "zeros100"): (7, 14, 5, 96.84312438964844, [
      0.5041224956512451, 0.23918841779232025, 0.03699120506644249]),
  ("LBFGS", "rosen", "rand2"): (18, 30, 4, 1.4779301914236154e-12, [
      1.000000238418579, 1.0000003576278687]),
  ("LBFGS", "rosen", "rand5"): (19, 33, 5, 3.09863543510437, [
      0.446344256401062, 0.1669434756040573, 0.015334769152104855, 0.020866654813289642,
      0.009021783247590065]),
  ("LBFGS", "quad", "zeros6"): (13, 34, 5, -0.7121149897575378, [
      0.15132567286491394, 0.5924751162528992, -0.1772175133228302, 0.02061920240521431,
      -0.3059372305870056, -0.1003328487277031]),
  ("LBFGS", "linear", "zeros3"): (1, 21, 5, -0.0, [0.0, 0.0, 0.0]),
  ("LBFGS", "kink", "k3"): (5, 10, 5, 0.16758213937282562, [
      0.25812089443206787, 0.23838873207569122, 0.23590826988220215]),
}


# JAX 0.10.2 on an AMD EPYC CPU (the reference above ran on an Intel CPU with AVX-512):
# float32 Rosenbrock runs of BFGS hang on the last bits of XLA's CPU kernels and take other
# steps there, and so do xjax's on that CPU.
ON_OTHER_CPU = {
  ("BFGS", "rosen", "rand5"): (29, 40, 0, 0.0, [1.0, 1.0, 1.0, 1.0, 1.0]),
  ("BFGS", "rosen", "rand5", "jit"): (28, 38, 0, 0.0, [1.0, 1.0, 1.0, 1.0, 1.0]),
  ("BFGS", "rosen", "zeros5", "float32 under x64"): (37, 68, 3, 1.0871301688725188e-12, [
      1.0, 0.9999999403953552]),
  ("BFGS", "rosen", "zeros5"): (43, 68, 3, 7.638332241016732e-13, [
      1.000000238418579, 1.000000238418579, 1.0000004768371582, 1.0000008344650269,
      1.0000017881393433]),
}


def check(res, expected, rtol=2e-6, atol=1e-7, other_cpu=None):
  if other_cpu is not None and (int(res.nit), int(res.nfev)) == other_cpu[:2]:
    expected = other_cpu
  nit, nfev, status, fun, x = expected
  assert (int(res.nit), int(res.nfev), int(res.njev), int(res.status)) == (
      nit, nfev, nfev, status)
  assert bool(res.success) == (status == 0)
  np.testing.assert_allclose(float(res.fun), fun, rtol=rtol, atol=atol)
  np.testing.assert_allclose(np.asarray(res.x)[:len(x)], x, rtol=rtol, atol=atol)


@pytest.mark.parametrize("key", sorted(REFERENCE), ids="-".join)
def test_steps_match_reference(key):
  method, problem, x0 = key
  res = optimize.minimize(PROBLEMS[problem], start(x0), method=METHODS[method])
  check(res, REFERENCE[key], other_cpu=ON_OTHER_CPU.get(key))


OPTIONS = {
  ("BFGS", "rosen", "rand5", "maxiter=3"): (
      dict(maxiter=3), (3, 7, 1, 9.356913566589355, [
          0.9175407886505127, 0.8707233667373657, 0.7262648940086365, 0.8274200558662415,
          0.7061209082603455])),
  ("BFGS", "rosen", "rand5", "line_search_maxiter=2"): (
      dict(line_search_maxiter=2), REFERENCE[("BFGS", "rosen", "rand5")]),
  ("BFGS", "quad", "zeros6", "norm=2,gtol"): (
      dict(norm=2, gtol=1e-3), REFERENCE[("BFGS", "quad", "zeros6")]),
  ("LBFGS", "quad", "zeros6", "maxiter=3"): (
      dict(maxiter=3), (4, 6, 1, -0.7026228308677673, [
          0.12560780346393585, 0.5462053418159485, -0.2076978087425232, 0.026133988052606583,
          -0.26907098293304443, -0.16022099554538727])),
  ("LBFGS", "quad", "zeros6", "maxfun=5"): (
      dict(maxfun=5), (4, 6, 2, -0.7026228308677673, [0.12560780346393585])),
  ("LBFGS", "quad", "zeros6", "maxgrad=7"): (
      dict(maxgrad=7, maxiter=None), (6, 8, 3, -0.7113750576972961, [
          0.15686634182929993, 0.590437114238739, -0.1828467845916748, 0.030530793592333794,
          -0.311271607875824, -0.09595035761594772])),
  ("LBFGS", "quad", "zeros6", "ftol=0.1"): (
      dict(ftol=1e-1), (4, 6, 4, -0.7026228308677673, [0.12560780346393585])),
  ("LBFGS", "quad", "zeros6", "gtol,norm=2"): (
      dict(gtol=1e-2, norm=2), (8, 10, 0, -0.7120879888534546, [
          0.15407417714595795, 0.5908492207527161, -0.18248601257801056, 0.020214783027768135,
          -0.3046970069408417, -0.09861103445291519])),
  ("LBFGS", "rosen", "rand5", "maxcor=2"): (
      dict(maxcor=2), (10, 22, 5, 4.422903537750244, [
          -0.21108512580394745, 0.04665396735072136, 0.01711328513920307, 0.03608807176351547,
          0.004817215260118246])),
  ("LBFGS", "linear", "zeros3", "maxls=4"): (dict(maxls=4), (1, 5, 5, -0.0, [0.0, 0.0, 0.0])),
}


@pytest.mark.parametrize("key", sorted(OPTIONS), ids="-".join)
def test_options_match_reference(key):
  method, problem, x0, _ = key
  options, expected = OPTIONS[key]
  res = optimize.minimize(PROBLEMS[problem], start(x0), method=METHODS[method], options=options)
  check(res, expected, other_cpu=ON_OTHER_CPU.get(key[:3]) if expected is REFERENCE.get(key[:3])
        else None)


W = np.array([1., 2., 5., 10.], np.float32)
C = np.array([1., -2., 0.5, 3.], np.float32)


def test_converges_on_a_quadratic_with_args():
  diag = lambda x, w, c: jnp.sum(w * (x - c) ** 2)
  res = optimize.minimize(diag, jnp.zeros(4), args=(W, C), method=BFGS)
  check(res, (11, 12, 0, 1.3944401189291966e-13, [1.0, -1.9999998807907104,
                                                   0.49999985098838806, 3.0]))
  np.testing.assert_allclose(res.jac, [0.0, 4.76837158203125e-07, -1.4901161193847656e-06, 0.0],
                             atol=1e-9)
  # the inverse-Hessian estimate approaches diag(1 / 2w)
  np.testing.assert_allclose(np.diag(res.hess_inv), 1 / (2 * W), rtol=0.05)
  np.testing.assert_allclose(res.hess_inv[0, :2], [0.5085296034812927, -0.0018774433992803097],
                             rtol=3e-5)  # (its last bits differ between CPUs, JAX's too)
  res = optimize.minimize(diag, jnp.zeros(4), args=(W, C), method=LBFGS)
  check(res, (10, 13, 0, 1.865174681370263e-14, [1.0000001192092896, -2.0,
                                                  0.4999999701976776, 3.0]))
  assert res.hess_inv is None


def test_result_types():
  for method in (BFGS, LBFGS):
    res = optimize.minimize(rosen, jnp.zeros(2), method=method)
    assert isinstance(res, optimize.OptimizeResults)
    for name in ("x", "fun", "jac"):
      assert getattr(res, name).dtype == np.float32 and not getattr(res, name).weak_type
    assert res.success.dtype == np.bool_ and res.x.shape == res.jac.shape == (2,)
    for name in ("status", "nfev", "njev", "nit"):   # weakly typed, as JAX's
      value = getattr(res, name)
      assert value.dtype == np.int32 and value.weak_type and value.shape == ()
  assert res.hess_inv is None
  res = optimize.minimize(rosen, jnp.zeros(2), method=BFGS)
  assert res.hess_inv.shape == (2, 2) and res.hess_inv.dtype == np.float32


STARTS = np.random.RandomState(7).uniform(-2, 2, (4, 3)).astype(np.float32)
BATCHED = {   # jit(vmap(minimize)) over STARTS: nit, nfev, status, fun per start; x
  "BFGS": ([18, 24, 24, 3], [34, 33, 47, 8], [3, 0, 3, 3],
           [2.5178003311157227, 0.0, 0.11979062110185623, 30.814733505249023],
           [[-0.24133653938770294, 0.03682846575975418, 0.007122373674064875], [1.0, 1.0, 1.0],
            [0.851110577583313, 0.719224750995636, 0.5045875310897827],
            [17.012893676757812, -1.852867603302002, -3.4413888454437256]]),
  "LBFGS": ([11, 13, 18, 5], [23, 29, 34, 16], [5, 5, 5, 5],
            [0.12941884994506836, 1.0365674495697021, 0.14969216287136078, 2.269519329071045],
            [[0.8760277032852173, 0.7482186555862427, 0.5480968952178955],
             [0.47204524278640747, 0.1928713470697403, 0.024298926815390587],
             [0.8550766110420227, 0.7505487203598022, 0.5463364124298096],
             [0.3255400061607361, 0.13186000287532806, -0.08231045305728912]]),
}


BATCHED_ON_OTHER_CPU = {  # JAX 0.10.2 on the AMD EPYC CPU (see ON_OTHER_CPU)
  "BFGS": ([18, 24, 24, 3], [34, 32, 47, 8], [3, 0, 3, 3],
           [2.51780104637146, 0.0, 0.11979062110185623, 30.814729690551758],
           [[-0.24134588241577148, 0.03683587908744812, 0.007126767188310623], [1.0, 1.0, 1.0],
            [0.851110577583313, 0.719224750995636, 0.5045875310897827],
            [17.012889862060547, -1.8528661727905273, -3.441387414932251]]),
  "LBFGS": ([11, 13, 18, 5], [23, 29, 34, 16], [5, 5, 5, 5],
            [0.12941688299179077, 1.0365500450134277, 0.14969216287136078, 2.2695231437683105],
            [[0.8760298490524292, 0.7482227683067322, 0.5481022000312805],
             [0.47204554080963135, 0.1928751915693283, 0.024296307936310768],
             [0.8550766110420227, 0.7505487203598022, 0.5463364124298096],
             [0.3255392909049988, 0.1318594068288803, -0.0823107361793518]]),
}


@pytest.mark.parametrize("method", sorted(BATCHED))
def test_jit_of_vmap_over_starts_matches_reference(method):
  res = jax.jit(jax.vmap(lambda x: optimize.minimize(rosen, x, method=METHODS[method])))(STARTS)
  reference = BATCHED[method]
  if not (np.array_equal(res.nfev, reference[1])
          and np.allclose(res.fun, reference[3], rtol=2e-6, atol=1e-7)):
    reference = BATCHED_ON_OTHER_CPU[method]
  nit, nfev, status, fun, x = reference
  np.testing.assert_array_equal(res.nit, nit)
  np.testing.assert_array_equal(res.nfev, nfev)
  np.testing.assert_array_equal(res.njev, nfev)
  np.testing.assert_array_equal(res.status, status)
  np.testing.assert_array_equal(res.success, np.asarray(status) == 0)
  np.testing.assert_allclose(res.fun, fun, rtol=2e-6, atol=1e-7)
  np.testing.assert_allclose(res.x, x, rtol=2e-6, atol=1e-7)
  if method == "BFGS":
    assert res.hess_inv.shape == (4, 3, 3)
    # eagerly a start rounds differently from its lane (in JAX too), and still takes JAX's steps
    check(optimize.minimize(rosen, STARTS[1], method=BFGS), (23, 31, 0, 0.0, [1.0, 1.0, 1.0]))


def test_jit_matches_reference():
  res = jax.jit(lambda x0: optimize.minimize(rosen, x0, method=BFGS))(start("rand5"))
  check(res, REFERENCE[("BFGS", "rosen", "rand5")],
        other_cpu=ON_OTHER_CPU[("BFGS", "rosen", "rand5", "jit")])


X64_REFERENCE = {
  ("BFGS", "rosen", "rand5"): (27, 37, 0, 6.634211592501819e-14, [
      0.9999999851869021, 0.9999999751094731, 0.9999999640520588, 0.9999999425775895,
      0.9999998715216675]),
  ("BFGS", "quad", "zeros6"): (2, 5, 3, -0.5699917567105198, [
      0.09337074700168124, 0.3198797239753923, -0.16694664929468964, -0.0375871151661176,
      -0.25131882897888735, -0.21193162815624264]),
  ("LBFGS", "rosen", "rand5"): (19, 33, 5, 3.098633197868464, [
      0.4463448444730315, 0.1669439566394673, 0.01533496948915153, 0.020866464896894477,
      0.009021618302895367]),
  ("LBFGS", "quad", "zeros6"): (13, 15, 0, -0.7121150442332038, [
      0.151325768480676, 0.5924752132089564, -0.17721756797222626, 0.02061919864668352,
      -0.30593728047323154, -0.10033277350552568]),
}


def test_float64_matches_reference(x64):
  for (method, problem, x0), expected in X64_REFERENCE.items():
    res = optimize.minimize(PROBLEMS[problem], start(x0, np.float64), method=METHODS[method])
    check(res, expected, rtol=1e-12, atol=1e-14)
    assert res.x.dtype == res.fun.dtype == np.float64
    assert res.nit.dtype == res.nfev.dtype == res.status.dtype == np.int64
  # float32 inputs keep float32 steps
  res = optimize.minimize(rosen, jnp.zeros(5, np.float32), method=BFGS)
  check(res, (22, 36, 3, 0.21043582260608673, [0.9493237137794495, 0.9012144804000854]),
        other_cpu=ON_OTHER_CPU[("BFGS", "rosen", "zeros5", "float32 under x64")])
  assert res.x.dtype == np.float32 and res.nit.dtype == np.int64


def test_float16_matches_reference():
  res = optimize.minimize(rosen, jnp.zeros(3, np.float16), method=BFGS)
  check(res, (25, 56, 3, 2.4080276489257812e-05, [1.0009765625, 1.001953125, 1.00390625]))
  assert res.x.dtype == res.hess_inv.dtype == np.float16


def test_bad_input():
  with pytest.raises(ValueError, match="Method nelder not recognized"):
    optimize.minimize(rosen, jnp.zeros(3), method="nelder")
  with pytest.raises(TypeError, match="args argument .* must be a tuple, got"):
    optimize.minimize(lambda x, c: jnp.sum((x - c) ** 2), jnp.zeros(3), args=[1.0], method=BFGS)
  with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
    optimize.minimize(rosen, jnp.zeros(3), method=LBFGS, options=dict(foo=1))
  with pytest.raises(TypeError, match="x0 must be a 1-D array, got shape"):
    optimize.minimize(rosen, jnp.zeros((2, 2)), method=BFGS)
  with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
    optimize.minimize(rosen, jnp.zeros(3, np.int32), method=BFGS)
