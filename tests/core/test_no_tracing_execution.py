"""The ``no_tracing`` / ``no_execution`` guards (``jax.no_tracing``, ``jax.no_execution``):
tracing for jit, or running any compiled program, raises RuntimeError while set, as in
JAX 0.10.2."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp


def test_states_read_and_scope():
  assert xjax.no_tracing.value is False and xjax.no_execution.value is False
  with xjax.no_tracing(True):
    assert xjax.no_tracing.value is True
  assert xjax.no_tracing.value is False


def test_no_execution_stops_every_compiled_run():
  x = jnp.ones(3)
  f = xjax.jit(lambda a: a + 1)
  np.testing.assert_array_equal(f(x), [2.0, 2.0, 2.0])  # cached, on the fast path
  with xjax.no_execution(True):
    for run in (lambda: f(x), lambda: jnp.sin(x), lambda: xjax.lax.add(x, x),
                lambda: jnp.ones(4), lambda: f.lower(x).compile()(x)):
      with pytest.raises(RuntimeError, match="JAX tried to execute function .*, but the "
                                             "no_execution config option is set"):
        run()
    # Tracing, lowering, compiling and transfers are allowed.
    xjax.device_put(1.0)
    assert "add" in str(xjax.make_jaxpr(lambda a: a * 2 + 1)(x))
    assert xjax.eval_shape(f, x).shape == (3,)
    f.lower(x).compile()
  np.testing.assert_array_equal(f(x), [2.0, 2.0, 2.0])  # the fast path is back


def test_no_tracing_stops_new_traces_only():
  x = jnp.ones(3)
  f = xjax.jit(lambda a: a * 3)
  f(x)
  with xjax.no_tracing(True):
    np.testing.assert_array_equal(f(x), [3.0, 3.0, 3.0])  # already traced
    for trace in (lambda: xjax.jit(lambda a: a - 1)(x), lambda: f(jnp.ones(4)),
                  lambda: xjax.make_jaxpr(lambda a: a * 2)(x),
                  lambda: xjax.eval_shape(lambda a: a * 5, x)):
      with pytest.raises(RuntimeError, match=r"^re-tracing function <lambda> at .*"
                                             r"test_no_tracing_execution\.py:\d+ for `jit`, "
                                             r"but 'no_tracing' is set"):
        trace()
