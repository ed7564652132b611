"""Second-order derivatives of every public numerical function (issue 34).

Each function of ``xjax.numpy``, ``xjax.nn``, ``xjax.scipy.special`` and the
``xjax.scipy.stats`` distributions that takes one, two or three float arrays of one shape
and returns one float array is wrapped in a scalar objective ``g(x) = sum(w * f(x, *others))``
and checked in float64:

* ``hessian(g)`` (eager) and ``jit(jacfwd(jacrev(g)))`` against central differences of
  ``grad(g)`` (whose own values the first-order tests check);
* ``vmap(grad(g))`` against a loop of ``grad(g)``.

Functions of vectors are tried at a vector, the others at a matrix; at the first input
domain where the function and its gradient are finite.  Whatever the function, no program
these transformations build may fail to compile (an invalid StableHLO module is a bug in
a primitive's rules).  The derivatives listed in ``_NOT_TWICE_DIFFERENTIABLE`` are not
defined in JAX either; anything else that raises fails the test.
"""
import inspect

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
import xjax.nn
import xjax.scipy.special
import xjax.scipy.stats

pytestmark = pytest.mark.slow

_DOMAINS = [(0.2, 0.8), (1.2, 2.0), (-0.9, -0.2)]
_SHAPES = [(3,), (3, 3)]
# Their derivatives raise in JAX too: data-dependent output shapes, traced values used as
# static ones, derivative rules JAX does not define.
_NOT_TWICE_DIFFERENTIABLE = {
    "jnp.compress", "jnp.extract", "jnp.ravel_multi_index", "jnp.trim_zeros", "jnp.unique",
    "jnp.unique_values", "special.gammainc",
    "special.gammaincc", "jnp.intersect1d", "jnp.setdiff1d", "jnp.setxor1d", "jnp.union1d",
    "jnp.nonzero", "jnp.flatnonzero", "jnp.argwhere",
}


def _modules():
  yield "jnp", jnp
  yield "nn", xjax.nn
  yield "special", xjax.scipy.special
  for name in sorted(dir(xjax.scipy.stats)):
    mod = getattr(xjax.scipy.stats, name)
    if inspect.ismodule(mod):
      yield f"stats.{name}", mod


def _functions():
  for prefix, mod in _modules():
    for name in sorted(dir(mod)):
      f = getattr(mod, name)
      if (name.startswith("_") or not callable(f) or inspect.isclass(f)
          or inspect.ismodule(f)):
        continue
      yield f"{prefix}.{name}", f


_FUNCTIONS = dict(_functions())


def _float_result(f, args):
  """f(*args)'s only leaf when it is one float xjax Array, else None."""
  try:
    leaves = xjax.tree.leaves(f(*args))
  except Exception:
    return None
  if (len(leaves) == 1 and isinstance(leaves[0], xjax.Array)
      and jnp.issubdtype(leaves[0].dtype, jnp.floating)):
    return leaves[0]
  return None


def _objective(f, rng):
  """(g, x0): a scalar objective of one float argument built on ``f`` and the point to
  check it at, or None where ``f`` takes no such arguments there."""
  for shape in _SHAPES:
    for lo, hi in _DOMAINS:
      x0 = rng.uniform(lo, hi, shape)
      for arity in (1, 2, 3):
        others = [jnp.asarray(rng.uniform(lo, hi, shape)) for _ in range(arity - 1)]
        out = _float_result(f, [jnp.asarray(x0), *others])
        if out is None or not np.all(np.isfinite(np.asarray(out, np.float64))):
          continue
        w = jnp.asarray(rng.standard_normal(out.shape))
        g = lambda x, f=f, others=others, w=w: jnp.sum(w * xjax.tree.leaves(f(x, *others))[0])
        try:
          grad = np.asarray(xjax.grad(g)(jnp.asarray(x0)))
        except (TypeError, ValueError) as e:  # not differentiable in this argument, as JAX
          assert "error:" not in str(e), e
          continue
        except NotImplementedError as e:  # not differentiable at all, as JAX (nextafter)
          assert "Differentiation rule for" in str(e), e
          return None
        if np.all(np.isfinite(grad)):
          return g, x0
  return None


def _central_hessian(g, x0, eps=1e-6):
  grad = xjax.jit(xjax.grad(g))
  cols = []
  for e in np.eye(x0.size):
    e = e.reshape(x0.shape)
    cols.append((np.asarray(grad(jnp.asarray(x0 + eps * e)))
                 - np.asarray(grad(jnp.asarray(x0 - eps * e)))).ravel() / (2 * eps))
  return np.stack(cols, -1)


@pytest.mark.parametrize("name", sorted(_FUNCTIONS))
def test_second_order_derivatives(name, x64):
  rng = np.random.RandomState(sum(map(ord, name)))
  found = _objective(_FUNCTIONS[name], rng)
  if found is None:
    pytest.skip("takes no float arrays of one shape to one float array")
  g, x0 = found
  if name in _NOT_TWICE_DIFFERENTIABLE:  # may raise, but xjax's error, not XLA's verifier's
    for transform in (xjax.hessian, lambda h: xjax.jit(xjax.hessian(h))):
      try:
        transform(g)(jnp.asarray(x0))
      except (TypeError, ValueError, NotImplementedError, xjax.errors.JAXTypeError) as e:
        assert "error:" not in str(e), e
    return
  want = _central_hessian(g, x0)
  scale = max(1.0, np.abs(want).max())
  for transform in (xjax.hessian, lambda h: xjax.jit(xjax.jacfwd(xjax.jacrev(h)))):
    got = np.asarray(transform(g)(jnp.asarray(x0))).reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * scale)
  xs = np.stack([x0, x0 + 0.01 * rng.standard_normal(x0.shape)])
  batched = np.asarray(xjax.vmap(xjax.grad(g))(jnp.asarray(xs)))
  loop = np.stack([np.asarray(xjax.grad(g)(jnp.asarray(x))) for x in xs])
  np.testing.assert_allclose(batched, loop, rtol=1e-9, atol=1e-12 * scale)


def test_hessian_of_logistic_loss_matches_finite_differences():
  """The program the regression was found with: logaddexp(0, X @ w) under hessian and
  jacfwd(jacrev), eagerly and under jit (a tangent sum's batching rule made an invalid
  program)."""
  rng = np.random.RandomState(0)
  X = jnp.asarray(rng.standard_normal((120, 4)).astype(np.float32))
  f = lambda w: jnp.sum(jnp.logaddexp(0.0, X @ w))
  w = np.full(4, 0.3, np.float32)
  p = 1 / (1 + np.exp(-(np.asarray(X, np.float64) @ w)))
  want = (np.asarray(X, np.float64).T * (p * (1 - p))) @ np.asarray(X, np.float64)
  for h in (xjax.hessian(f), xjax.jit(xjax.hessian(f)), xjax.jacfwd(xjax.jacrev(f))):
    np.testing.assert_allclose(np.asarray(h(jnp.asarray(w))), want, rtol=2e-5, atol=1e-4)


def test_tangent_sum_of_batched_and_unbatched_values():
  """vmap of a function whose cotangents sum a batched and an unbatched value (add_any):
  the unbatched one is broadcast along the batch, as JAX."""
  y = jnp.array([0.35, 0.5, 0.75])
  g = lambda x: jnp.sum(jnp.hypot(x, y))
  xs = jnp.array([[0.3, 0.6, 0.7], [0.6, 0.1, 0.2]])
  got = xjax.vmap(xjax.hessian(g))(xs)
  for x, h in zip(np.asarray(xs, np.float64), np.asarray(got)):
    yy = np.asarray(y, np.float64)
    np.testing.assert_allclose(np.diag(h), yy ** 2 / (x ** 2 + yy ** 2) ** 1.5, rtol=1e-5)


def test_a_lowering_that_contradicts_its_shape_rule_is_stopped_naming_the_primitive():
  """A result whose lowered type differs from its equation's aval never reaches XLA."""
  from xjax.extend import core
  from xjax.interpreters import mlir
  p = core.Primitive("claims_a_vector")
  p.def_abstract_eval(lambda x: xjax.core.ShapedArray((3,), x.dtype))
  mlir.register_lowering(p, mlir.lower_fun(lambda x: x, multiple_results=False))
  with pytest.raises(AssertionError, match="lowering of 'claims_a_vector' produced "
                     r"tensor<2x3xf32> for a result of type tensor<3xf32>"):
    xjax.jit(p.bind)(np.ones((2, 3), np.float32))


def test_an_invalid_module_is_reported_with_its_operation():
  from xjax._src.backend import executables
  text = ('module @m {\n  func.func public @main(%arg0: tensor<4x3xf32>) -> (tensor<3xf32>) {\n'
          '    %1 = "stablehlo.reshape"(%arg0) : (tensor<4x3xf32>) -> tensor<3xf32>\n'
          '    func.return %1 : tensor<3xf32>\n  }\n}\n')
  with pytest.raises(xjax.errors.JaxRuntimeError, match=r"line 3 of the program xjax built"
                     r"[^\n]*stablehlo\.reshape"):
    executables.compile(text, xjax.devices()[0], "m", None)
