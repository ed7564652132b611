"""Traces defined outside xjax, written against JAX's trace protocol (quax's way): a `Trace`
subclass with `process_primitive` and `process_custom_jvp_call`, made current with
`take_current_trace`/`set_current_trace`; custom_jvp functions reach it with their body and
rule as wrapped functions, also from a jaxpr's equations (a jitted jnp function's body
interpreted), and it re-binds them at its parent with `bind_with_trace(..., subfuns=...)`.
The raw-key threefry functions of `jax._src.random.threefry2x32` (numbers from JAX 0.10.2)."""
import math

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax._src.compat.jax_private_compat import core
from xjax._src.compat.jax_private_compat.random import threefry2x32 as tf
from xjax.extend import linear_util as lu


class Boxed(core.Tracer):
  __slots__ = ("val", "val_type")

  def __init__(self, trace, val):
    self._trace = trace
    self.val = val
    self.val_type = xjax.typeof(val)

  @property
  def aval(self):
    return self.val_type


class LogTrace(core.Trace):
  """Records the primitives and custom_jvp calls it sees; computes at its parent."""

  def __init__(self, parent, tag, log):
    self.parent_trace, self.tag, self.log = parent, tag, log
    super().__init__()

  def unbox(self, x):
    return x.val if isinstance(x, Boxed) and x._trace.tag is self.tag else x

  def process_primitive(self, prim, tracers, params):
    self.log.append(prim.name)
    if prim.name == "jit":  # interpret the body, as quax does
      with core.set_current_trace(self):
        return core.jaxpr_as_fun(params["jaxpr"])(*tracers)
    with core.set_current_trace(self.parent_trace):
      out = prim.bind(*map(self.unbox, tracers), **params)
    return [Boxed(self, o) for o in out] if prim.multiple_results else Boxed(self, out)

  def process_custom_jvp_call(self, prim, fun, jvp, tracers, *, symbolic_zeros):
    self.log.append("custom_jvp")
    assert isinstance(fun, lu.WrappedFun) and isinstance(jvp, lu.WrappedFun)
    vals = [self.unbox(t) for t in tracers]
    params = dict(subfuns=(logged(fun, self.tag, self.log), logged(jvp, self.tag, self.log)),
                  symbolic_zeros=symbolic_zeros)
    outs = prim.bind_with_trace(self.parent_trace, vals, [xjax.typeof(v) for v in vals],
                                params)
    return [Boxed(self, o) for o in outs]


def logged(fun, tag, log):
  """``fun`` run under a new LogTrace over whatever trace is current when it is called."""
  def run(*xs):
    with core.take_current_trace() as parent:
      trace = LogTrace(parent, tag, log)
      with core.set_current_trace(trace):
        outs = fun.call_wrapped(*[Boxed(trace, x) for x in xs])
      return [trace.full_raise(trace.unbox(o)) for o in outs]
  return lu.wrap_init(run)


def run_logged(f, *args):
  log = []
  out = logged(lu.wrap_init(lambda *xs: [f(*xs)]), core.TraceTag(), log).call_wrapped(*args)
  return core.full_lower(out[0]), log


@xjax.custom_jvp
def twice(x):
  return 2.0 * x


twice.defjvp(lambda primals, tangents: (twice(primals[0]), 10.0 * tangents[0]))


def test_primitives_reach_the_trace():
  out, log = run_logged(lambda x: jnp.sin(x) * 2.0, jnp.float32(0.5))
  np.testing.assert_allclose(np.asarray(out), 2 * np.sin(0.5), rtol=1e-6)
  # (as JAX: jnp's functions reach such a trace as jit calls; a Python scalar is converted
  # inside multiply's)
  assert log == ["jit", "sin", "jit", "convert_element_type", "mul"]


def test_a_custom_jvp_call_reaches_the_trace_with_wrapped_functions():
  out, log = run_logged(twice, jnp.float32(3.0))
  assert float(out) == 6.0 and log == ["custom_jvp", "jit", "convert_element_type", "mul"]
  # Differentiated outside the custom trace, the rule (10 t, not 2 t) still applies.
  assert float(xjax.grad(lambda x: run_logged(twice, x)[0])(3.0)) == 10.0
  assert float(xjax.jit(xjax.grad(lambda x: run_logged(twice, x)[0]))(3.0)) == 10.0
  assert float(xjax.vmap(lambda x: run_logged(twice, x)[0])(jnp.ones(3))[1]) == 2.0


def test_a_custom_jvp_equation_of_an_interpreted_jaxpr_reaches_the_trace():
  """jnp.sinc is a jitted function whose body holds a custom_jvp call (as in JAX)."""
  x = jnp.array([0.0, 0.25, 1.5], jnp.float32)
  out, log = run_logged(jnp.sinc, x)
  np.testing.assert_allclose(np.asarray(out), np.sinc(np.asarray(x)), rtol=1e-6, atol=1e-7)
  assert log[0] == "jit" and "custom_jvp" in log
  grad = xjax.grad(lambda a: run_logged(jnp.sinc, a)[0].sum())(x)
  eps = 1e-3
  fd = (np.sinc(np.asarray(x, np.float64) + eps) - np.sinc(np.asarray(x, np.float64) - eps))
  np.testing.assert_allclose(np.asarray(grad), fd / (2 * eps), atol=1e-4)


def test_jit_equations_carry_inline_always():
  jaxpr = xjax.make_jaxpr(lambda a: xjax.jit(jnp.sin)(a))(1.0)
  params = jaxpr.jaxpr.eqns[0].params
  assert params["inline"] is False and params["name"] == "sin"
  assert "inline" not in str(jaxpr)   # (as JAX, not printed)


def test_threefry_on_raw_keys():
  seeds = [0, 1, -1, 2 ** 31 - 1]
  got = [np.asarray(tf.threefry_seed(jnp.asarray(s))).tolist() for s in seeds]
  assert got == [[0, 0], [0, 1], [0, 4294967295], [0, 2147483647]]
  key = tf.threefry_seed(jnp.asarray(42))
  np.testing.assert_array_equal(np.asarray(tf.threefry_split(key, (3,))),
                                [[1832780943, 270669613], [64467757, 2916123636],
                                 [2465931498, 255383827]])
  assert tf.threefry_split(key, (2, 2)).shape == (2, 2, 2)
  expected = {8: [162, 217, 249, 215, 21], 16: [5026, 12505, 63993, 49623, 29461],
              32: [2098992034, 2919706841, 2646866425, 2409546199, 1935504149]}
  for width, bits in expected.items():
    out = tf.threefry_random_bits(key, width, (5,))
    assert out.dtype == np.dtype(f"uint{width}") and np.asarray(out).tolist() == bits
  assert np.asarray(tf.threefry_fold_in(key, jnp.asarray(5))).tolist() == [2765691542,
                                                                           824333390]
  np.testing.assert_array_equal(
      np.asarray(tf.threefry_2x32(key, jnp.arange(5, dtype=jnp.uint32))),
      [3134548294, 3733159049, 843694964, 894150801, 801545058])
  batched = xjax.vmap(lambda k: tf.threefry_random_bits(k, 32, (3,)))(
      tf.threefry_split(key, (2,)))
  np.testing.assert_array_equal(np.asarray(batched), [[2277453133, 1345880512, 3872043189],
                                                      [3125294276, 3383865362, 780371127]])
  with pytest.raises(TypeError, match="must be a scalar"):
    tf.threefry_seed(jnp.ones(2, jnp.int32))
  with pytest.raises(TypeError, match="must be an integer"):
    tf.threefry_seed(1.0)
  with pytest.raises(TypeError, match="field width"):
    tf.threefry_random_bits(key, 12, (2,))
  with pytest.raises(TypeError, match="invalid prng key"):
    tf.threefry_random_bits(jnp.ones(3, jnp.uint32), 32, (2,))
  assert math.prod(tf.threefry_random_bits(key, 32, (2, 3)).shape) == 6
