"""xjax.monitoring: listeners receive what JAX 0.10.2 passes them, and jit records JAX's
compile-time events (sequences taken from the reference)."""
import contextlib

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import monitoring

TRACE = "/jax/core/compile/jaxpr_trace_duration"
LOWER = "/jax/core/compile/jaxpr_to_mlir_module_duration"
COMPILE = "/jax/core/compile/backend_compile_duration"


@contextlib.contextmanager
def recording():
  """Every record, as (kind, event, values, kwargs), while the block runs."""
  log = []
  listeners = [
      (monitoring.register_event_listener, monitoring.unregister_event_listener,
       lambda e, **k: log.append(("event", e, (), k))),
      (monitoring.register_event_duration_secs_listener,
       monitoring.unregister_event_duration_listener,
       lambda e, d, **k: log.append(("duration", e, (d,), k))),
      (monitoring.register_event_time_span_listener,
       monitoring.unregister_event_time_span_listener,
       lambda e, s, t, **k: log.append(("span", e, (s, t), k))),
      (monitoring.register_scalar_listener, monitoring.unregister_scalar_listener,
       lambda e, v, **k: log.append(("scalar", e, (v,), k))),
  ]
  for register, _, fn in listeners:
    register(fn)
  try:
    yield log
  finally:
    for _, unregister, fn in listeners:
      unregister(fn)


def stage(event, name):
  return [("scalar", event, name), ("duration", event, name), ("span", event, name)]


def summary(log):
  return [(kind, e, k.get("fun_name")) for kind, e, _, k in log if e.startswith("/jax/core")]


def test_listeners_get_event_values_and_keywords():
  with recording() as log:
    monitoring.record_event("/my/event", a=1, b="x")
    monitoring.record_event_duration_secs("/my/duration", 0.25, step=3)
    monitoring.record_event_time_span("/my/span", 10.0, 12.5)
    monitoring.record_scalar("/my/scalar", 7, unit="items")
  assert log == [("event", "/my/event", (), {"a": 1, "b": "x"}),
                 ("duration", "/my/duration", (0.25,), {"step": 3}),
                 ("span", "/my/span", (10.0, 12.5), {}),
                 ("scalar", "/my/scalar", (7,), {"unit": "items"})]
  monitoring.record_event("/nobody/listens")  # no listener: nothing happens


def test_listeners_run_in_registration_order_and_unregister():
  calls = []
  first, second = (lambda e: calls.append(("first", e))), (lambda e: calls.append(("second", e)))
  monitoring.register_event_listener(first)
  monitoring.register_event_listener(second)
  monitoring.record_event("/a")
  monitoring.unregister_event_listener(first)
  monitoring.record_event("/b")
  monitoring.unregister_event_listener(second)
  monitoring.record_event("/c")
  assert calls == [("first", "/a"), ("second", "/a"), ("second", "/b")]
  # JAX asserts the listener is registered.
  for unregister in (monitoring.unregister_event_listener,
                     monitoring.unregister_event_duration_listener,
                     monitoring.unregister_event_time_span_listener,
                     monitoring.unregister_scalar_listener):
    with pytest.raises(AssertionError):
      unregister(first)


def test_clear_event_listeners_keeps_scalar_listeners_as_jax():
  seen = []
  monitoring.register_event_listener(lambda e: seen.append(e))
  monitoring.register_event_duration_secs_listener(lambda e, d: seen.append(e))
  monitoring.register_event_time_span_listener(lambda e, s, t: seen.append(e))
  scalar = lambda e, v: seen.append(e)
  monitoring.register_scalar_listener(scalar)
  monitoring.clear_event_listeners()
  monitoring.record_event("/e")
  monitoring.record_event_duration_secs("/d", 1.0)
  monitoring.record_event_time_span("/t", 1.0, 2.0)
  monitoring.record_scalar("/s", 1.0)
  monitoring.unregister_scalar_listener(scalar)
  assert seen == ["/s"]


def test_jit_records_trace_lower_and_compile_once():
  def double_plus_one(x):
    return x * 2 + 1

  f = xjax.jit(double_plus_one)
  x = jnp.ones(3)
  with recording() as log:
    np.testing.assert_array_equal(f(x), [3.0, 3.0, 3.0])
  # As JAX 0.10.2: a scalar (the start time), a duration and a time span per stage.
  assert summary(log) == (stage(TRACE, "double_plus_one") + stage(LOWER, "jit(double_plus_one)")
                          + stage(COMPILE, "jit(double_plus_one)"))
  for kind, _, values, _ in log:
    if kind == "duration":
      assert 0 <= values[0] < 60
    if kind == "span":
      assert values[0] <= values[1]
  starts = [v[0] for kind, _, v, _ in log if kind == "scalar"]
  spans = [v for kind, _, v, _ in log if kind == "span"]
  assert starts == [s for s, _ in spans]
  with recording() as log:  # cached: nothing is traced or compiled
    f(x)
    f(jnp.zeros(3))
  assert log == []


def test_trace_only_apis_record_the_trace_event():
  def triple(x):
    return x * 3

  x = jnp.ones(2)
  for run in (lambda: xjax.make_jaxpr(triple)(x), lambda: xjax.eval_shape(triple, x),
              lambda: xjax.jit(triple).trace(x)):
    with recording() as log:
      run()
    assert summary(log) == stage(TRACE, "triple")


def test_nested_traces_are_not_timed_as_jax():
  def square(x):
    return x * x

  with recording() as log:  # under grad the jit is traced inside another trace
    assert xjax.grad(xjax.jit(square))(3.0) == 6.0
  assert all(e != TRACE or name != "square" for _, e, name in summary(log))
  assert ("duration", LOWER, "jit(square)") in summary(log)


def test_eager_primitive_records_lower_and_compile():
  x = jnp.arange(5.0)
  with recording() as log:
    xjax.lax.cosh(x)  # a primitive not yet compiled for this type
  assert summary(log)[-6:] == stage(LOWER, "jit(cosh)") + stage(COMPILE, "jit(cosh)")


def test_failed_trace_still_records_its_duration():
  def bad(x):
    return x[[1.5]]

  with recording() as log:
    with pytest.raises(TypeError):
      xjax.jit(bad)(jnp.ones(3))
  assert summary(log) == stage(TRACE, "bad")
