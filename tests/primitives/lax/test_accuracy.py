"""lax.Tolerance / lax.AccuracyMode: the accuracy= of transcendental functions, written
on the StableHLO op as its result_accuracy (as JAX 0.10.2)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax

FUNCS = [lax.cbrt, lax.cos, lax.exp, lax.exp2, lax.expm1, lax.log, lax.log1p, lax.logistic,
         lax.rsqrt, lax.sin, lax.sqrt, lax.tan, lax.tanh]
X = np.array([0.1, 0.5, 2.], np.float32)


def test_tolerance_and_mode():
  t = lax.Tolerance(atol=1e-3)
  assert (t.atol, t.rtol, t.ulps) == (1e-3, 0.0, 0)
  assert [(m.name, m.value) for m in lax.AccuracyMode] == [("HIGHEST", 1), ("DEFAULT", 2)]
  with pytest.raises(ValueError, match="At least one of atol, rtol, or ulps must be set"):
    lax.Tolerance()
  with pytest.raises(ValueError, match="must be non-negative"):
    lax.Tolerance(atol=-1)


@pytest.mark.parametrize("accuracy", [lax.AccuracyMode.HIGHEST, lax.AccuracyMode.DEFAULT,
                                      lax.Tolerance(atol=1e-5), lax.Tolerance(rtol=1e-3, ulps=2)])
def test_values_unchanged_on_cpu(accuracy):
  for f in FUNCS:
    np.testing.assert_allclose(f(X, accuracy=accuracy), f(X), rtol=1e-6, err_msg=f.__name__)


def test_jaxpr_lowering_and_derivative():
  mode = lax.AccuracyMode.HIGHEST
  assert str(xjax.make_jaxpr(lambda x: lax.exp(x, accuracy=mode))(X)) == (
      "{ lambda ; a:f32[3]. let\n    b:f32[3] = exp[accuracy=AccuracyMode.HIGHEST] a\n"
      "  in (b,) }")
  assert str(xjax.make_jaxpr(lax.exp)(X)) == "{ lambda ; a:f32[3]. let b:f32[3] = exp a in (b,) }"
  text = xjax.jit(lambda x: lax.exp(x, accuracy=lax.Tolerance(atol=1e-5))).lower(X).as_text()
  assert ("result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, "
          "rtol = 0.000000e+00, ulps = 0, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>"
          in text)
  assert "result_accuracy_mode<HIGHEST>" in xjax.jit(
      lambda x: lax.sin(x, accuracy=mode)).lower(X).as_text()
  np.testing.assert_allclose(xjax.grad(lambda x: lax.exp(x, accuracy=mode))(1.), np.e,
                             rtol=1e-6)
  np.testing.assert_allclose(xjax.vmap(lambda x: lax.tanh(x, accuracy=mode))(X), np.tanh(X),
                             rtol=1e-6)
  np.testing.assert_allclose(xjax.grad(lambda x: lax.exp2(x, accuracy=mode))(1.),
                             2 * np.log(2), rtol=1e-6)


def test_bad_accuracy():
  with pytest.raises(NotImplementedError, match="Accuracy 3 not supported"):
    lax.exp(jnp.ones(2), accuracy=3)
