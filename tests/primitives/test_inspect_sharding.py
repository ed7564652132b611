"""xjax.debug.inspect_array_sharding: eagerly the value's sharding; staged, a debug-effect
primitive that reports the layout when the program is lowered (one device here; several
in tests/primitives/inspect_sharding_cases.py).  Behaviour as JAX 0.10.2's."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import debug
from xjax.sharding import SingleDeviceSharding
from tests.multi_device_run import run_cases

DEVICE = xjax.devices()[0]


def test_eager_values_report_their_sharding_per_leaf():
  got = []
  x = jnp.arange(8.0)
  assert debug.inspect_array_sharding({"a": x, "b": [x, x]}, callback=got.append) is None
  assert got == [SingleDeviceSharding(DEVICE)] * 3
  with pytest.raises(TypeError, match="'int' object is not callable"):
    debug.inspect_array_sharding(x, callback=3)


def test_under_jit_the_callback_runs_when_lowering():
  got = []

  def f(a):
    debug.inspect_array_sharding(a * 2, callback=got.append)
    return a + 1

  x = jnp.arange(8.0)
  jitted = xjax.jit(f)
  jitted.lower(x)
  assert got == [SingleDeviceSharding(DEVICE)]
  # calls, and lowering through another wrapper, reuse that lowering (as JAX's: once in all)
  np.testing.assert_array_equal(jitted(x), np.arange(8.0) + 1)
  np.testing.assert_array_equal(jitted(x), np.arange(8.0) + 1)
  xjax.jit(f).lower(x).compile()
  assert got == [SingleDeviceSharding(DEVICE)]
  got.clear()
  np.testing.assert_array_equal(xjax.jit(f)(x[:4]), np.arange(4.0) + 1)
  np.testing.assert_array_equal(xjax.jit(f)(x[:4]), np.arange(4.0) + 1)
  assert got == [SingleDeviceSharding(DEVICE)]  # a call compiles (and reports) once
  got.clear()
  jaxpr = xjax.make_jaxpr(f)(x)
  assert got == []  # tracing alone does not report
  assert "inspect_sharding[callback=<lambda>]" not in str(jaxpr)  # (a bound method)
  assert "inspect_sharding[callback=append]" in str(jaxpr)
  assert [type(e).__name__ for e in jaxpr.effects] == ["DebugEffect"]


def test_under_grad_and_vmap():
  got = []
  x = jnp.arange(8.0)
  grad = xjax.grad(lambda a: (debug.inspect_array_sharding(a, callback=got.append),
                              a.sum())[1])(x)
  np.testing.assert_array_equal(grad, np.ones(8))
  assert got == [SingleDeviceSharding(DEVICE)]
  got.clear()
  out = xjax.vmap(lambda a: (debug.inspect_array_sharding(a, callback=got.append), a)[1])(
      x.reshape(2, 4))
  assert out.shape == (2, 4) and got == [SingleDeviceSharding(DEVICE)]


def test_four_devices():
  assert run_cases("tests/primitives/inspect_sharding_cases.py") == 3
