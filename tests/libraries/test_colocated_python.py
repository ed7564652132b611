"""`jax.experimental.colocated_python` in one process (orbax-checkpoint imports it at load
time: ``import jax.experimental.colocated_python as cp``; ``cp.colocated_cpu_devices(...)``)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.experimental import colocated_python as cp
from xjax.experimental.colocated_python import func, obj, serialization  # noqa: F401


def test_colocated_cpu_devices_are_the_local_cpu_devices():
  """``cp.colocated_cpu_devices((device,))[0]`` (orbax colocated_transport)."""
  devices = xjax.devices()
  assert cp.colocated_cpu_devices(devices) == devices      # as JAX: a list of CPU devices
  assert cp.colocated_cpu_devices(tuple(devices[:1])) == [xjax.devices("cpu")[0]]
  mesh = xjax.sharding.Mesh(np.array(devices), ("x",))
  cpu_mesh = cp.colocated_cpu_devices(mesh)
  assert cpu_mesh.axis_names == ("x",) and list(cpu_mesh.devices.flat) == devices
  with pytest.raises(ValueError, match="does not have enough local CPU devices"):
    cp.colocated_cpu_devices(tuple(devices) * (len(xjax.devices("cpu")) + 1))


def test_colocated_python_runs_on_the_host_with_the_arrays():
  """``@cp.colocated_python def f(x): ...; f.specialize(out_specs_fn=...)(arrays)``
  (orbax dispatchers)."""
  seen = []

  @cp.colocated_python
  def f(x, y):
    seen.append(np.asarray(x))
    return {"s": x + y}

  x = jnp.arange(3.0)
  np.testing.assert_array_equal(f(x, jnp.ones(3))["s"], [1.0, 2.0, 3.0])
  np.testing.assert_array_equal(seen[0], [0.0, 1.0, 2.0])
  g = f.specialize(out_specs_fn=lambda a, b: {"s": a})
  np.testing.assert_array_equal(g(x, x)["s"], [0.0, 2.0, 4.0])
  bad = f.specialize(out_specs_fn=lambda a, b: {"s": xjax.ShapeDtypeStruct((4,), a.dtype)})
  with pytest.raises(ValueError, match="does not match"):
    bad(x, x)
  with pytest.raises(ValueError, match="out_specs_fn already specified"):
    g.specialize(out_specs_fn=lambda a, b: a)
  with pytest.raises(ValueError, match="only supports jax.Array as input and output"):
    f(np.zeros(3), x)


def test_colocated_python_without_inputs_needs_devices():
  """``cp.colocated_python(fn).specialize(devices=cpu_devices)()``."""
  make = cp.colocated_python(lambda: jnp.full((2,), 7.0))
  with pytest.raises(ValueError, match="must be first specialized with devices"):
    make()
  out = make.specialize(devices=cp.colocated_cpu_devices(xjax.devices()))()
  np.testing.assert_array_equal(out, [7.0, 7.0])


def test_colocated_python_class_creates_the_object_on_first_call():
  """``@cp.colocated_python_class class Worker: ...; Worker(...).method(arrays)``."""
  made = []

  @cp.colocated_python_class
  class Scale:
    def __init__(self, k):
      made.append(k)
      self.k = k

    def apply(self, x):
      return x * self.k

  s = Scale(3.0)
  assert made == [] and Scale.__name__ == "Scale"
  np.testing.assert_array_equal(s.apply(jnp.arange(2.0)), [0.0, 3.0])
  np.testing.assert_array_equal(s.apply(jnp.ones(2)), [3.0, 3.0])
  assert made == [3.0]
