"""``jax.interpreters`` beyond the primitive rule tables: dead-code elimination and its
rules, the partial-evaluation rule views, ``ad.jvp``/``ad.linearize``, vmappable
containers, ``xla.Backend``, ``pxla.create_compile_options`` (values from JAX 0.10.2)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.core import ShapedArray
from xjax.extend import core
from xjax.extend.core import primitives
from xjax.interpreters import ad, batching, mlir, partial_eval as pe, pxla, xla


# ---------------------------------------------------------------------------------------
# dce_jaxpr

def _dead_code_jaxpr():
  def f(x, y, z):
    a = jnp.sin(x)
    b = jnp.cos(y)
    c = a * 2
    d = jnp.exp(z) + b
    return c, d, x
  return xjax.make_jaxpr(f)(1., 2., 3.).jaxpr


@pytest.mark.parametrize("used, instantiate, used_inputs, prims, n_in", [
    ([True, False, False], False, [True, False, False], ["sin", "mul"], 1),
    ([False, True, False], False, [False, True, True], ["cos", "exp", "add"], 2),
    ([False, False, True], False, [True, False, False], [], 1),
    ([True, False, False], True, [True, True, True], ["sin", "mul"], 3),
    ([False, False, False], [False, True, False], [False, True, False], [], 1),
])
def test_dce_jaxpr(used, instantiate, used_inputs, prims, n_in):   # cases as JAX 0.10.2
  jaxpr, got = pe.dce_jaxpr(_dead_code_jaxpr(), used, instantiate)
  assert got == used_inputs
  assert [str(e.primitive) for e in jaxpr.eqns] == prims
  assert (len(jaxpr.invars), len(jaxpr.outvars)) == (n_in, sum(used))
  core.check_jaxpr(jaxpr)


def test_dce_jaxpr_everything_used_and_consts():
  assert pe.dce_jaxpr(_dead_code_jaxpr(), True)[1] == [True, True, True]
  c1, c2 = np.arange(3.), np.ones(3)
  closed = xjax.make_jaxpr(lambda x: (x * c1, jnp.sin(x) + c2))(jnp.ones(3))
  jaxpr, used_consts, used_inputs = pe.dce_jaxpr_consts(closed.jaxpr, [False, True])
  assert (used_consts, used_inputs) == ([False, True], [True])
  assert str(jaxpr) == ("{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = sin b; "
                        "d:f32[3] = add c a in (d,) }")
  jaxpr, used_consts, _ = pe.dce_jaxpr_consts(closed.jaxpr, [True, False])
  assert used_consts == [True, False]
  assert str(jaxpr) == "{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = mul b a in (c,) }"


def test_dce_call_rules():
  closed = xjax.make_jaxpr(lambda x, y: (jnp.sin(x), jnp.cos(y)))(1., 2.)
  x, y = core.Var(ShapedArray((), np.float32)), core.Var(ShapedArray((), np.float32))
  outs = [core.Var(ShapedArray((), np.float32)) for _ in range(2)]
  eqn = core.new_jaxpr_eqn([x, y], outs, primitives.closed_call_p, dict(call_jaxpr=closed))
  used_inputs, new = pe.dce_jaxpr_closed_call_rule([False, True], eqn)
  assert used_inputs == [False, True] and new.invars == [y] and new.outvars == [outs[1]]
  assert [str(e.primitive) for e in new.params["call_jaxpr"].eqns] == ["cos"]
  assert pe.dce_jaxpr_closed_call_rule([False, False], eqn) == ([False, False], None)
  eqn = core.new_jaxpr_eqn([x, y], outs, primitives.call_p, dict(call_jaxpr=closed.jaxpr))
  used_inputs, new = pe.dce_jaxpr_call_rule([True, False], eqn)
  assert used_inputs == [True, False] and new.params["call_jaxpr"].outvars == [
      closed.jaxpr.outvars[0]]


# A two-result primitive whose DCE rule (written into pe.dce_rules) is xjax's own.
pair_p = core.Primitive("pair")
pair_p.multiple_results = True
pair_p.def_impl(lambda x: [x * 2, x * 3])
pair_p.def_abstract_eval(lambda x: [x, x])
mlir.register_lowering(pair_p, mlir.lower_fun(lambda x: [x * 2, x * 3], multiple_results=True))
ad.primitive_jvps[pair_p] = lambda primals, tangents: (
    pair_p.bind(*primals), [ad.instantiate_zeros(tangents[0]) * k for k in (2, 3)])
first_p = core.Primitive("first")
first_p.def_impl(lambda x: x * 2)
first_p.def_abstract_eval(lambda x: x)
mlir.register_lowering(first_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
dce_calls = []


def _pair_dce(used_outputs, eqn):
  dce_calls.append(list(used_outputs))
  if not any(used_outputs):
    return [False], None
  if used_outputs == [True, False]:   # only the first result: a cheaper primitive
    return [True], eqn.replace(primitive=first_p, outvars=eqn.outvars[:1])
  return [True], eqn


pe.dce_rules[pair_p] = _pair_dce


def test_dce_rules_are_the_primitives_dce_slots():
  assert pe.dce_rules[pair_p] is _pair_dce and pair_p in pe.dce_rules
  jaxpr = xjax.make_jaxpr(lambda x: pair_p.bind(x)[0] + 1)(1.).jaxpr
  dced, used = pe.dce_jaxpr(jaxpr, [True])
  assert [e.primitive for e in dced.eqns] == [first_p, lax.add_p] and used == [True]
  assert dce_calls[-1] == [True, False]
  # xjax's own passes use it too: remat drops dead code with it
  n = len(dce_calls)
  f = xjax.checkpoint(lambda x: pair_p.bind(x)[0] * x)
  assert float(xjax.grad(f)(2.)) == 8.0
  assert [True, False] in dce_calls[n:]
  # xjax's own primitives read as JAX-style rules; those without one are absent
  from xjax._src.primitives.custom_derivatives import remat_opt_p
  assert callable(pe.dce_rules[remat_opt_p]) and lax.sin_p not in pe.dce_rules
  with pytest.raises(KeyError):
    pe.dce_rules[lax.sin_p]  # noqa: B018
  rule = pe.dce_rules.get(primitives.jit_p)
  assert rule is None


# ---------------------------------------------------------------------------------------
# Partial-evaluation rules

double_p = core.Primitive("double")
double_p.def_impl(lambda x: x * 2)
double_p.def_abstract_eval(lambda x: x)
mlir.register_lowering(double_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
ad.deflinear2(double_p, lambda ct, x: [double_p.bind(ct)])
pe_calls = []


def _double_pe(saveable, unks_in, inst_in, eqn):
  pe_calls.append(list(unks_in))
  return None, eqn, [True], [True], []   # all staged


pe.partial_eval_jaxpr_custom_rules[double_p] = _double_pe


def test_partial_eval_jaxpr_custom_rules_are_used_by_grad():
  assert pe.partial_eval_jaxpr_custom_rules[double_p] is _double_pe
  n = len(pe_calls)
  assert float(xjax.grad(lambda x: double_p.bind(x) * 3)(1.)) == 6.0
  assert pe_calls[n:] == [[True]]   # the tangent's equation, staged by the rule
  trace_rule = pe.custom_partial_eval_rules[double_p]   # the same slot, JAX's other form
  assert callable(trace_rule) and trace_rule is not _double_pe


def test_partial_eval_rules_of_xjax_primitives_split_equations():
  jaxpr = xjax.make_jaxpr(lambda x, y: xjax.jit(lambda a, b: (jnp.sin(b) * a, jnp.cos(b)))(
      x, y))(1., 2.).jaxpr
  eqn = jaxpr.eqns[0]
  rule = pe.partial_eval_jaxpr_custom_rules[primitives.jit_p]
  known, staged, unks_out, inst_out, residuals = rule(None, [True, False], [False, True], eqn)
  assert unks_out == [True, False] and len(residuals) == 1
  assert known.invars == [jaxpr.invars[1]] and staged.invars[-1] == jaxpr.invars[0]
  split = core.Jaxpr((), jaxpr.invars, jaxpr.outvars, [known, staged])
  core.check_jaxpr(split)
  got = core.jaxpr_as_fun(core.ClosedJaxpr(split, ()))(1.5, 2.)
  np.testing.assert_allclose(got, [np.sin(2.) * 1.5, np.cos(2.)], rtol=1e-6)
  trace_rule = pe.custom_partial_eval_rules[primitives.jit_p]
  pe.custom_partial_eval_rules[double_p] = trace_rule_double = (
      lambda trace, x: trace.stage(double_p, [x], {}))
  try:
    assert pe.custom_partial_eval_rules[double_p] is trace_rule_double
    assert float(xjax.grad(lambda x: double_p.bind(x) * 3)(1.)) == 6.0
  finally:
    pe.partial_eval_jaxpr_custom_rules[double_p] = _double_pe
  assert callable(trace_rule) and pe.Val is not None


# ---------------------------------------------------------------------------------------
# ad.jvp and ad.linearize (flat lists where JAX has FlatTrees)

P = [np.float32(2.), np.float32(3.)]


def test_ad_jvp():
  t = [np.float32(1.), ad.Zero(ShapedArray((), np.float32))]
  out, tangents, aux = ad.jvp(
      lambda x, y: ({"a": jnp.sin(x) * y, "b": y * 2, "c": jnp.ones(2)}, x), P, t,
      has_aux=True)
  np.testing.assert_allclose(out[:2], [2.7278922, 6.0], rtol=1e-6)   # JAX 0.10.2
  np.testing.assert_allclose(tangents[0], -1.2484405, rtol=1e-6)
  assert tangents[1] == 0 and tangents[2].tolist() == [0., 0.] and float(aux) == 2.
  out, tangents = ad.jvp(lambda x, y: (x * y, jnp.ones(2), y), P, t, instantiate=False)
  assert float(tangents[0]) == 3.0
  assert [type(z) for z in tangents[1:]] == [ad.Zero, ad.Zero]
  assert tangents[1].aval == ShapedArray((2,), np.float32)


def test_ad_linearize():
  out, zeros, jaxpr, consts = ad.linearize(lambda x, y: (jnp.sin(x) * y, jnp.ones(2), y), P)
  assert zeros == [False, True, False] and len(jaxpr.invars) == 2 and len(jaxpr.outvars) == 2
  np.testing.assert_allclose(out[0], 2.7278922, rtol=1e-6)
  tangents = core.jaxpr_as_fun(core.ClosedJaxpr(jaxpr, consts))(1., 0.)
  np.testing.assert_allclose(tangents, [3 * np.cos(2.), 0.], rtol=1e-6)
  *_, aux = ad.linearize(lambda x, y: ((x * y,), 7), P, has_aux=True)
  assert aux == 7
  assert ad.annotations is not None   # JAX's module shows its __future__ import


# ---------------------------------------------------------------------------------------
# Vmappable containers

class Stack:
  """An array ``data`` with a Python ``scale``: mapped along ``StackAxis(axis)``."""

  def __init__(self, data, scale):
    self.data, self.scale = data, scale


class StackAxis:
  def __init__(self, axis):
    self.axis = axis


def _to_elt(cont, get_idx, x, spec):
  return Stack(cont(x.data, spec.axis), x.scale)


def _from_elt(cont, axis_size, elt, spec):
  return Stack(cont(axis_size, elt.data, spec.axis), elt.scale)


def _with_index(cont, get_idx, x, spec):
  return Stack(cont(x.data, spec.axis), get_idx())


@pytest.fixture
def stack_vmappable():
  batching.register_vmappable(Stack, StackAxis, int, _to_elt, _from_elt, None)
  yield
  batching.unregister_vmappable(Stack)


def test_vmap_maps_registered_containers(stack_vmappable):   # values from JAX 0.10.2
  s = Stack(jnp.arange(6.).reshape(2, 3), 10.)
  f = lambda st, y: Stack(st.data * st.scale + y, st.scale + 1)  # noqa: E731
  out = xjax.vmap(f, in_axes=(StackAxis(1), 0), out_axes=StackAxis(0))(s, jnp.arange(3.))
  assert out.data.tolist() == [[0., 30.], [11., 41.], [22., 52.]] and out.scale == 11.
  out = xjax.vmap(f, in_axes=(StackAxis(0), None), out_axes=StackAxis(1), axis_size=2)(s, 1.)
  assert out.data.tolist() == [[1., 31.], [11., 41.], [21., 51.]]
  total, st = xjax.vmap(lambda st: (st.data.sum(), Stack(st.data, 0)),
                        in_axes=(StackAxis(1),), out_axes=(0, StackAxis(1)), axis_size=3)(s)
  assert total.tolist() == [3., 5., 7.] and st.data.tolist() == [[0., 1., 2.], [3., 4., 5.]]
  sines = xjax.vmap(lambda st: Stack(xjax.jit(jnp.sin)(st.data), 1), in_axes=(StackAxis(0),),
                    out_axes=StackAxis(1), axis_size=2)(s)
  np.testing.assert_allclose(sines.data, np.sin(np.arange(6.).reshape(2, 3)).T, rtol=1e-6)
  g = xjax.grad(lambda d: xjax.vmap(lambda st: (st.data ** 2).sum(), in_axes=(StackAxis(1),),
                                    axis_size=3)(Stack(d, 1.)).sum())(s.data)
  assert g.tolist() == [[0., 2., 4.], [6., 8., 10.]]
  nested = xjax.vmap(xjax.vmap(lambda st: st.data * 2, in_axes=(StackAxis(0),), axis_size=3),
                     in_axes=(StackAxis(0),), axis_size=2)(s)
  assert nested.tolist() == [[0., 2., 4.], [6., 8., 10.]]
  with pytest.raises(ValueError, match="at least one non-None value in in_axes"):
    xjax.vmap(lambda st: st, in_axes=(StackAxis(0),))(s)


def test_vmappable_index_and_unregister(stack_vmappable):
  s = Stack(jnp.arange(6.).reshape(2, 3), 10.)
  batching.register_vmappable(Stack, StackAxis, int, _with_index, _from_elt, None)
  out = xjax.vmap(lambda st: st.data * st.scale, in_axes=(StackAxis(0),), axis_size=2)(s)
  assert out.tolist() == [[0., 0., 0.], [3., 4., 5.]]   # row i times its index i
  batching.unregister_vmappable(Stack)
  with pytest.raises(TypeError, match="is not a valid JAX type"):
    xjax.vmap(lambda st: st, in_axes=(StackAxis(0),), axis_size=2)(s)
  assert xjax.vmap(jnp.sin)(jnp.zeros(2)).tolist() == [0., 0.]   # plain vmap unaffected


# ---------------------------------------------------------------------------------------
# xla / pxla

def test_xla_backend_and_pxla_compile_options():
  assert isinstance(xjax.extend.backend.get_backend(), xla.Backend)
  devices = np.array(xjax.devices()[:1], dtype=object)
  options = pxla.create_compile_options(None, False, [True], [False], None, devices,
                                        {"fdo_profile": None})
  build = options.executable_build_options
  assert (options.num_replicas, options.num_partitions) == (1, 1)
  assert build.use_spmd_partitioning and not options.parameter_is_tupled_arguments
  assert list(build.allow_spmd_sharding_propagation_to_parameters) == [True]
  assert options.device_assignment.replica_count() == 1


def test_ad_zero_instantiate():   # as JAX 0.10.2
  z = ad.Zero(ShapedArray((2, 3), np.float32)).instantiate()
  assert isinstance(z, xjax.Array) and z.dtype == np.float32 and z.tolist() == [[0.] * 3] * 2
  w = ad.Zero(ShapedArray((), np.int32, weak_type=True)).instantiate()
  assert str(xjax.typeof(w)) == "~int32[]" and int(w) == 0
  f0 = ad.Zero(ShapedArray((2,), xjax.dtypes.float0)).instantiate()
  assert f0.shape == (2,) and f0.dtype == xjax.dtypes.float0
