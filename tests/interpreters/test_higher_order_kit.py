"""The kit of higher-order primitives (``xjax/_src/interpreters/higher_order.py``): the carry
fixpoint, hoisting, the known/unknown split of a call and the rules of call-like primitives
(checked on a call primitive of its own against NumPy, finite differences and loops)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax._src.core.jaxpr import ClosedJaxpr, jaxpr_as_fun
from xjax._src.execution.compiled_jaxprs import call_primitive
from xjax._src.interpreters import higher_order as ho
from xjax._src.interpreters.staging import trace_to_jaxpr
from xjax.core import ShapedArray
from xjax.test_util import check_grads

F3 = ShapedArray((3,), np.float32)
C = np.array([1.0, 2.0, 3.0], np.float32)   # a non-scalar constant: a constvar when traced


def _body(x, y):
  return [jnp.sin(x) * y + C, x * 2.0]


# ---------------------------------------------------------------------------------------
# Flags

def test_partition_and_merge_are_inverse():
  flags = [True, False, False, True, False]
  xs = list("abcde")
  falses, trues = ho.partition(flags, xs)
  assert (falses, trues) == (["b", "c", "e"], ["a", "d"])
  assert ho.merge(flags, falses, trues) == xs


def test_carry_fixpoint_propagates_flags_around_the_loop():
  calls = []

  def step(flags):   # carry i flows into carry i + 1, plus an output that is not a carry
    calls.append(list(flags))
    return [False] + flags[:-1] + [True]
  assert ho.carry_fixpoint(step, [False, True, False, False]) == [False, True, True, True]
  assert len(calls) == 3   # two changes, then one round that changes nothing
  assert ho.carry_fixpoint(step, [False] * 3) == [False] * 3
  assert ho.carry_fixpoint(lambda f: [False] * len(f), (True, False)) == [True, False]


# ---------------------------------------------------------------------------------------
# Hoisting

def test_hoist_moves_consts_to_leading_inputs_once():
  closed = trace_to_jaxpr(_body, [F3, F3])
  assert len(closed.consts) == 1
  hoisted, consts = ho.hoist(closed)
  assert hoisted.consts == [] and not hoisted.jaxpr.constvars
  assert [v.aval for v in hoisted.jaxpr.invars] == [F3, F3, F3]
  np.testing.assert_array_equal(consts[0], C)
  x, y = np.float32([0.5, 1.0, 2.0]), np.float32([3.0, 4.0, 5.0])
  np.testing.assert_allclose(jaxpr_as_fun(hoisted)(*consts, x, y)[0], np.sin(x) * y + C,
                             rtol=1e-6)
  assert ho.hoist(closed)[0] is hoisted        # the same jaxpr, so its programs are reused
  plain = trace_to_jaxpr(lambda x: [x * 2.0], [F3])
  assert ho.hoist(plain) == (plain, [])


def test_hoisted_jaxpr_and_as_closed():
  jaxpr = trace_to_jaxpr(_body, [F3, F3]).jaxpr
  open_ = ho.hoisted_jaxpr(jaxpr)
  assert open_.constvars == [] and open_.invars == jaxpr.constvars + jaxpr.invars
  assert open_.eqns == jaxpr.eqns and open_.outvars == jaxpr.outvars
  closed = ho.as_closed(open_)
  assert isinstance(closed, ClosedJaxpr) and closed.jaxpr is open_
  assert ho.as_closed(open_) is closed


def test_trace_hoisted_and_its_cache():
  jaxpr, consts = ho.trace_hoisted(_body, [F3, F3])
  assert len(jaxpr.jaxpr.invars) == 3 and len(consts) == 1

  class Owner:
    pass
  owner, traced = Owner(), []

  def fun(x, y):
    traced.append(1)
    return _body(x, y)
  first = ho.trace_hoisted(fun, [F3, F3], cache_on=(owner, "k"))
  assert ho.trace_hoisted(fun, [F3, F3], cache_on=(owner, "k"))[0] is first[0]
  assert len(traced) == 1
  ho.trace_hoisted(fun, [F3, F3], cache_on=(owner, "other key"))
  ho.trace_hoisted(fun, [ShapedArray((3,), np.int32), F3], cache_on=(owner, "k"))
  assert len(traced) == 3   # a new key or new types trace again


def test_traces_closing_over_tracers_are_not_cached():
  class Owner:
    pass
  owner, traced = Owner(), []

  def f(z):
    def fun(x):
      traced.append(1)
      return [x * z]
    jaxpr, consts = ho.trace_hoisted(fun, [F3], cache_on=(owner, "k"))
    return jaxpr_as_fun(jaxpr)(*consts, z)[0]
  z = np.float32([1, 2, 3])
  for _ in range(2):   # a new jit each time: f is traced twice
    np.testing.assert_allclose(xjax.jit(lambda z: f(z))(z), [1, 4, 9])
  assert len(traced) == 2   # the trace held a tracer of the jit: not kept


# ---------------------------------------------------------------------------------------
# A call primitive built from the kit: rules, and where each new operand comes from

seen = []


def _record(params, rule, origin):
  seen.append((rule, origin))
  return params


my_call_p = call_primitive("kit_call")
ho.call_rules(my_call_p, update=_record)


def my_call(x, y):
  jaxpr, consts = ho.trace_hoisted(_body, [xjax.typeof(x), xjax.typeof(y)])
  return my_call_p.bind(*consts, x, y, jaxpr=jaxpr)


X, Y = np.float32([0.5, 1.0, 2.0]), np.float32([3.0, 4.0, 5.0])


def test_call_rules_jvp():
  seen.clear()
  out, tangents = xjax.jvp(my_call, (X, Y), (np.ones(3, np.float32), np.zeros(3, np.float32)))
  np.testing.assert_allclose(out[0], np.sin(X) * Y + C, rtol=1e-6)
  np.testing.assert_allclose(tangents[0], np.cos(X) * Y, rtol=1e-6)
  np.testing.assert_allclose(tangents[1], [2, 2, 2])
  # operands: the body's constant (position 0), x, y, then the two nonzero tangents
  assert seen == [("jvp", [0, 1, 2, (ho.NEW, 1), (ho.NEW, 2)])]


def test_call_rules_partial_eval_and_transpose():
  seen.clear()
  g = xjax.grad(lambda x, y: my_call(x, y)[0].sum(), (0, 1))(X, Y)
  np.testing.assert_allclose(g[0], np.cos(X) * Y, rtol=1e-6)
  np.testing.assert_allclose(g[1], np.sin(X), rtol=1e-6)
  # jvp: (const, x, y, tangents); the known call takes the primal operands; the staged
  # one the residuals, then the tangents (its operands 3 and 4); its transpose takes the
  # residuals (nonlinear: operands 0 to 2 of the staged call) and the output cotangents
  # that are not symbolic zeros (output 1 is unused: it takes none, as JAX's jit).
  assert seen == [("jvp", [0, 1, 2, (ho.NEW, 1), (ho.NEW, 2)]), ("known", [0, 1, 2]),
                  ("unknown", [ho.NEW] * 3 + [3, 4]), ("transpose", [0, 1, 2, ho.NEW])]
  check_grads(lambda x, y: my_call(x, y)[0], (X, Y), order=2, modes=["fwd", "rev"])


def test_call_rules_batch():
  xs = np.float32(np.arange(12).reshape(4, 3) / 5)
  out = xjax.vmap(my_call, (0, None))(xs, Y)
  for i in range(4):
    np.testing.assert_allclose(out[0][i], np.sin(xs[i]) * Y + C, rtol=1e-6)
    np.testing.assert_allclose(out[1][i], xs[i] * 2)
  jaxpr = xjax.make_jaxpr(xjax.vmap(my_call, (0, None)))(xs, Y)
  assert [e.primitive for e in jaxpr.eqns] == [my_call_p]


def test_partial_eval_call_splits_known_from_unknown():
  seen.clear()
  value, lin = xjax.linearize(lambda y: my_call(X, y)[0].sum(), Y)   # x known, y not
  assert float(value) == pytest.approx(float((np.sin(X) * Y + C).sum()), rel=1e-6)
  assert float(lin(np.ones(3, np.float32))) == pytest.approx(float(np.sin(X).sum()), rel=1e-6)
  # the JVP call's known part takes the const, x and y; its unknown part the residuals and
  # y's tangent (operand 3; x's tangent is a symbolic zero, not an operand)
  rules = dict(seen)
  assert rules["known"] == [0, 1, 2] and rules["unknown"][-1] == 3
  assert set(rules["unknown"][:-1]) == {ho.NEW}


def test_jit_jvp_keeps_the_constants_its_jvp_creates():
  @xjax.custom_jvp
  def f(x):
    return jnp.sin(x)

  @f.defjvp
  def f_jvp(primals, tangents):
    return f(primals[0]), tangents[0] * np.float32([1, 2, 3])   # a constant of the JVP
  g = xjax.jit(lambda x: f(x) * 2)
  x = np.float32([0, 1, 2])
  closed = xjax.make_jaxpr(lambda x: xjax.jvp(g, (x,), (x,)))(x)
  eqn, = closed.eqns
  # as JAX 0.10.2 prints it: the constant stays in the jvp's body (`jit_p` is built with
  # keep_consts=("jvp",)), the call takes the primal and the tangent only
  assert not closed.jaxpr.constvars and len(eqn.invars) == 2
  assert len(eqn.params["jaxpr"].consts) == 1
  out, t = xjax.jvp(g, (x,), (x,))
  np.testing.assert_allclose(out, 2 * np.sin(x), rtol=1e-6)
  np.testing.assert_allclose(t, [0, 4, 12])
