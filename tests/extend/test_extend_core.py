"""``jax.extend.core`` beyond primitives: check_jaxpr, CallPrimitive, tokens, trace tags and
the primitives JAX lists there (messages and values from JAX 0.10.2)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax, random
from xjax.ad_checkpoint import checkpoint_name
from xjax.core import ShapedArray
from xjax.extend import core, linear_util as lu
from xjax.extend.core import primitives
from xjax.interpreters import partial_eval as pe

F3 = ShapedArray((3,), np.float32)


# ---------------------------------------------------------------------------------------
# check_jaxpr

@xjax.custom_jvp
def _twice_sin(x):
  return jnp.sin(x)


_twice_sin.defjvp(lambda p, t: (_twice_sin(p[0]), 2 * t[0]))


def _with_ref(x):
  r = xjax.new_ref(x)
  r[...] += 1.0
  return r[...]


_X = jnp.arange(6.).reshape(2, 3) / 7 + 0.1
_V = jnp.arange(3.) + 0.5
_PROGRAMS = {
    "arith": (lambda x: jnp.tanh(x) @ x.T + 1, (_X,)),
    "grad": (xjax.grad(lambda x: jnp.sum(jnp.sin(x) ** 2)), (_X,)),
    "vmap": (xjax.vmap(lambda r: jnp.dot(r, r)), (_X,)),
    "jit": (xjax.jit(lambda x: jnp.cumsum(x, 1)), (_X,)),
    "scan": (lambda v: lax.scan(lambda c, a: (c + a, c * a), 0., v), (_V,)),
    "cond": (lambda v: lax.cond(v[0] > 0, jnp.sin, jnp.cos, v), (_V,)),
    "while": (lambda v: lax.while_loop(lambda c: c[0] < 10, lambda c: c * 2, v), (_V,)),
    "random": (lambda k: random.normal(k, (3,)) + random.gamma(k, _V), (random.key(0),)),
    "custom_jvp": (xjax.grad(lambda x: _twice_sin(x).sum()), (_V,)),
    "remat": (xjax.grad(lambda x: xjax.checkpoint(lambda y: jnp.sin(jnp.sin(y)))(x).sum()),
              (_V,)),
    "linalg": (lambda x: jnp.linalg.inv(x @ x.T + jnp.eye(2)), (_X,)),
    "refs": (_with_ref, (_V,)),
    "debug_print": (lambda v: (xjax.debug.print("{}", v), v * 2)[1], (_V,)),
    "vjp_of_jit": (lambda v: xjax.vjp(xjax.jit(lambda a: jnp.sin(a) * a), v)[1](v), (_V,)),
}


@pytest.mark.parametrize("name", sorted(_PROGRAMS))
def test_check_jaxpr_accepts_traced_programs(name):
  f, args = _PROGRAMS[name]
  assert core.check_jaxpr(xjax.make_jaxpr(f)(*args).jaxpr) is None


def _sample():
  def f(x, y):
    a = jnp.sin(x)
    b = a * y
    return b + 1.0, a
  return xjax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3)).jaxpr


def _with(j, **kw):
  parts = dict(constvars=j.constvars, invars=j.invars, outvars=j.outvars, eqns=j.eqns)
  parts.update(kw)
  return core.Jaxpr(parts["constvars"], parts["invars"], parts["outvars"], parts["eqns"],
                    j.effects)


def _type_error(jaxpr) -> str:
  with pytest.raises(core.JaxprTypeError) as info:
    core.check_jaxpr(jaxpr)
  return str(info.value)


def test_check_jaxpr_names_a_variable_used_before_its_definition():
  j = _sample()
  e = j.eqns
  msg = _type_error(_with(j, eqns=[e[1], e[0], e[2]]))
  assert msg == ("Variable 'd' not defined\n\nin equation:\n\n  c:f32[3] = mul d b\n\n"
                 "while checking jaxpr:\n\n"
                 "{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = mul d b\n"
                 "    d:f32[3] = sin a\n    e:f32[3] = add c 1.0:f32[]\n  in (e, d) }")


def test_check_jaxpr_rejects_binders_of_the_wrong_type():
  j = _sample()
  e = j.eqns
  msg = _type_error(_with(j, eqns=[e[0].replace(outvars=[core.Var(ShapedArray((4,), np.float32))]),
                                   *e[1:]]))
  assert msg.startswith("Value for variable '_' inconsistently typed as f32[3] for let-binder "
                        "of type f32[4]\n\nin equation:\n\n  _:f32[4] = sin a\n\n")
  msg = _type_error(_with(j, eqns=[e[0].replace(outvars=[core.Var(ShapedArray((3,), np.int32))]),
                                   *e[1:]]))
  assert msg.startswith("Value for variable '_' inconsistently typed as f32[3] for let-binder "
                        "of type i32[3]")


def test_check_jaxpr_rejects_rebinding_undefined_outputs_and_bad_literals():
  j = _sample()
  e = j.eqns
  assert _type_error(_with(j, eqns=[e[0], *e])).startswith(
      "Variable 'c' already bound\n\nin equation:\n\n  c:f32[3] = sin a")
  assert _type_error(_with(j, outvars=[core.Var(F3)])).startswith(
      "Variable 'e' not defined\n\nwhile checking jaxpr:")
  bad = core.Literal(1.5, ShapedArray((), np.int32))
  assert _type_error(_with(j, eqns=[e[0], e[1], e[2].replace(invars=[e[2].invars[0], bad])])
                     ).startswith("Literal value 1.5 does not match its type annotation i32[]")
  extra = core.Var(F3)
  assert "sin gives 1 results for operands of types f32[3], but the equation binds 2" in (
      _type_error(_with(j, eqns=[e[0].replace(outvars=[e[0].outvars[0], extra]), *e[1:]])))


def test_check_jaxpr_leaves_a_shape_rules_own_error_and_ignores_weak_types():
  j = _sample()
  e = j.eqns
  wide = core.Var(ShapedArray((4,), np.float32))
  with pytest.raises(TypeError, match="incompatible shapes for broadcasting"):
    core.check_jaxpr(_with(j, invars=[j.invars[0], wide],
                           eqns=[e[0], e[1].replace(invars=[e[1].invars[0], wide]), e[2]]))
  weak = core.Var(ShapedArray((3,), np.float32, weak_type=True))
  core.check_jaxpr(_with(j, eqns=[e[0].replace(outvars=[weak]),
                                  e[1].replace(invars=[weak, e[1].invars[1]]), e[2]],
                         outvars=[j.outvars[0], weak]))


def test_check_jaxpr_checks_jaxprs_inside_equations():
  outer = xjax.make_jaxpr(lambda x: xjax.jit(lambda z: jnp.sin(z) * 2.0)(x))(jnp.ones(3)).jaxpr
  call = outer.eqns[0]
  inner = call.params["jaxpr"]
  ie = inner.jaxpr.eqns
  broken = core.ClosedJaxpr(_with(inner.jaxpr, eqns=[ie[1], ie[0]]), inner.consts)
  msg = _type_error(_with(outer, eqns=[call.replace(params=dict(call.params, jaxpr=broken))]))
  # (JAX names the variable defined too late '_', as a result nothing reads after it)
  assert msg.startswith("Variable '_' not defined\n\nin equation:\n\n  b:f32[3] = mul _ "
                        "2.0:f32[]\n\nwhile checking jaxpr:\n\n{ lambda ; a:f32[3]. let b:f32[3] = mul _ "
                        "2.0:f32[]; _:f32[3] = sin a in (b,) }\n\nin equation:\n\n  b:f32[3] = jit[\n"
                        "    name=<lambda>\n    jaxpr={ lambda ; a:f32[3]. let\n")


def test_check_jaxpr_shows_the_equations_around_the_failing_one_in_a_long_jaxpr():
  def f(x):
    for _ in range(40):
      x = jnp.sin(x)
    return x
  j = xjax.make_jaxpr(f)(1.0).jaxpr
  e = list(j.eqns)
  e[30] = e[30].replace(invars=[core.Var(ShapedArray((), np.float32))])
  msg = _type_error(_with(j, eqns=e))
  assert msg.startswith("Variable 'bf' not defined")
  assert msg.endswith("(equations 20 to 39 of 40 shown)")
  assert msg.count(" = sin ") == 21   # the failing equation, and the 20 shown


# ---------------------------------------------------------------------------------------
# CallPrimitive: a primitive bound with a function, as JAX's core.call_p

my_call_p = core.CallPrimitive("my_call")
my_call_p.def_impl(core.call_impl)


def _f(x, y):
  return [jnp.sin(x) * y, x + 1.0]


def _run(x, y):
  return my_call_p.bind(x, y, subfuns=(lu.wrap_init(_f),))


X, Y = np.float32(0.5), np.float32(2.0)


def test_call_primitive_runs_eagerly_and_under_jit():
  assert my_call_p.call_primitive and my_call_p.multiple_results
  want = [np.sin(X) * Y, X + 1]
  np.testing.assert_allclose(_run(X, Y), want, rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(_run)(X, Y), want, rtol=1e-6)
  closed = xjax.make_jaxpr(_run)(X, Y)
  assert str(closed) == (
      "{ lambda ; a:f32[] b:f32[]. let\n"
      "    c:f32[] d:f32[] = my_call[\n"
      "      call_jaxpr={ lambda ; e:f32[] f:f32[]. let\n"
      "          g:f32[] = sin e\n"
      "          h:f32[] = mul g f\n"
      "          i:f32[] = add e 1.0:f32[]\n"
      "        in (h, i) }\n"
      "    ] a b\n"
      "  in (c, d) }")   # as JAX 0.10.2 prints it
  core.check_jaxpr(closed.jaxpr)
  np.testing.assert_allclose(core.jaxpr_as_fun(closed)(X, Y), want, rtol=1e-6)


def test_call_primitive_differentiates_and_batches():
  out, tangents = xjax.jvp(_run, (X, Y), (np.float32(1.), np.float32(0.)))
  np.testing.assert_allclose(tangents, [1.7551651, 1.0], rtol=1e-6)   # JAX 0.10.2
  assert float(xjax.grad(lambda x, y: _run(x, y)[0])(X, Y)) == pytest.approx(2 * np.cos(X))
  g = xjax.jit(xjax.grad(lambda x: _run(x, 3.0)[0] * _run(x, x)[1]))(X)
  assert float(g) == pytest.approx(3 * np.cos(X) * (X + 1) + 3 * np.sin(X), rel=1e-6)
  xs = np.arange(3, dtype=np.float32)
  out = xjax.vmap(_run)(xs, np.ones(3, np.float32))
  np.testing.assert_allclose(out[0], np.sin(xs), rtol=1e-6)
  np.testing.assert_allclose(out[1], xs + 1)
  assert [e.primitive for e in xjax.make_jaxpr(xjax.vmap(_run))(xs, xs).eqns] == [my_call_p]
  grad_eqns = xjax.make_jaxpr(xjax.grad(lambda x, y: _run(x, y)[0]))(X, Y).eqns
  assert [e.primitive for e in grad_eqns] == [my_call_p, my_call_p]  # primal, transposed


def test_call_primitive_closes_over_values_and_drops_dead_code():
  z = jnp.arange(3.)
  f = lambda a: my_call_p.bind(a, subfuns=(lu.wrap_init(lambda b: [b * z]),))  # noqa: E731
  np.testing.assert_allclose(xjax.jit(f)(jnp.ones(3))[0], [0, 1, 2])
  closed = xjax.make_jaxpr(f)(jnp.ones(3))
  assert len(closed.jaxpr.constvars) == 1 and len(closed.eqns[0].invars) == 2
  j = xjax.make_jaxpr(_run)(X, Y).jaxpr
  dced, used = pe.dce_jaxpr(j, [False, True])
  assert used == [True, False]
  callee = dced.eqns[0].params["call_jaxpr"]
  assert [str(e.primitive) for e in callee.eqns] == ["add"] and len(dced.eqns[0].invars) == 1
  core.check_jaxpr(dced)


def test_call_primitive_get_bind_params_and_operand_check():
  j = xjax.make_jaxpr(_run)(X, Y).jaxpr
  params = my_call_p.get_bind_params(j.eqns[0].params)
  fun, = params.pop("subfuns")
  assert params == {}
  np.testing.assert_allclose(fun.call_wrapped(X, Y), [np.sin(X) * Y, X + 1], rtol=1e-6)
  eqn = j.eqns[0]
  v = core.Var(ShapedArray((), np.int32))
  bad = core.Jaxpr((), [j.invars[0], v], j.outvars, [eqn.replace(invars=[j.invars[0], v])])
  assert _type_error(bad).startswith("Call primitive my_call passes an operand of type i32[] "
                                     "to jaxpr expecting type f32[]")


# ---------------------------------------------------------------------------------------
# Tokens, trace tags, array types, the axis environment

def test_tokens_and_their_type():
  token = core.Token()
  assert isinstance(token, core.Token) and not isinstance(jnp.ones(2), core.Token)
  assert isinstance(lax.create_token(), core.Token)
  assert isinstance(core.AbstractToken(), core.AbstractToken)
  assert isinstance(xjax.typeof(token), core.AbstractToken)
  assert not isinstance(F3, core.AbstractToken)
  assert core.Token.block_until_ready(token) is None   # (None in JAX 0.10.2 too)


def test_variables_and_literals_print_and_hash_as_jax():
  from xjax._src.compat.jax_private_compat.core import JaxprPpContext
  jaxpr = xjax.make_jaxpr(lambda x: jnp.sin(x) + 1)(1.0)
  ctx = JaxprPpContext()
  sin_eqn, add_eqn = jaxpr.eqns
  x, one = add_eqn.invars
  # (JAX 0.10.2 names variables in the order they are printed: a, b, ...)
  assert [x.pretty_print(ctx), one.pretty_print(ctx)] == ["a", "1.0:f32[]"]
  assert add_eqn.outvars[0].pretty_print(ctx) == "b" and x.pretty_print(ctx) == "a"
  assert one.pretty_print(ctx, print_dtype=False) == "1.0"
  assert core.DropVar(x.aval).pretty_print(ctx) == "_"
  lit = lambda v, shape, dtype: core.Literal(v, ShapedArray(shape, np.dtype(dtype)))
  assert lit(np.int32(3), (), "int32").pretty_print(ctx) == "3:i32[]"
  assert lit(np.bool_(True), (), "bool").pretty_print(ctx) == "True:bool[]"
  assert lit(np.complex64(1 + 2j), (), "complex64").pretty_print(ctx) == "(1+2j):c64[]"
  assert lit(np.array([1., 2.]), (2,), "float32").pretty_print(ctx) == "[...]:f32[2]"
  assert one.hash == hash(one.val) and lit(True, (), "bool").hash == 1
  assert lit(np.array(3, np.int32), (), "int32").hash == hash((3, np.dtype("int32")))
  assert lit(np.array([1., 2.]), (2,), "float32").hash is None
  assert lit(jnp.float32(2), (), "float32").hash is None   # an Array is unhashable


def test_equations_record_the_context_they_were_staged_in():
  from xjax.sharding import AxisType
  mesh = xjax.make_mesh((1,), ("x",), axis_types=(AxisType.Explicit,))
  plain = xjax.make_jaxpr(lambda x: x + 1)(1.0).eqns[0].ctx
  # (JAX 0.10.2's repr; equal contexts are one object)
  assert repr(plain) == (
      "JaxprEqnContext(compute_type=None, threefry_partitionable=True, cur_abstract_mesh="
      "AbstractMesh((), axis_types=()), remove_size_one_mesh_axis=False, xla_metadata=None)")
  assert xjax.make_jaxpr(lambda x: x * 2)(2.0).eqns[0].ctx is plain
  with xjax.set_mesh(mesh):
    meshed = xjax.make_jaxpr(lambda x: x + 1)(1.0).eqns[0].ctx
  assert meshed.cur_abstract_mesh == mesh.abstract_mesh
  with xjax.threefry_partitionable(False):
    assert xjax.make_jaxpr(lambda x: x + 1)(1.0).eqns[0].ctx.threefry_partitionable is False
  with meshed.manager:
    assert xjax.sharding.get_abstract_mesh() == mesh.abstract_mesh
  assert xjax.sharding.get_abstract_mesh().empty
  with pytest.raises(AttributeError, match="cannot assign to field 'compute_type'"):
    plain.compute_type = "device_host"
  eqn = xjax.make_jaxpr(lambda x: x + 1)(1.0).eqns[0]
  again = core.new_jaxpr_eqn(eqn.invars, eqn.outvars, eqn.primitive, eqn.params,
                             eqn.effects, ctx=meshed)
  assert again.ctx is meshed and again.replace(params=eqn.params).ctx is meshed


def test_a_ref_tells_its_buffer_address():
  ref = xjax.new_ref(jnp.arange(3.0))
  ptr = ref.unsafe_buffer_pointer()
  assert isinstance(ptr, int) and ptr and ptr == ref.unsafe_buffer_pointer()


def test_trace_tags_array_types_and_the_axis_environment():
  a, b = core.TraceTag(), core.TraceTag()
  assert a == a and a != b and len({a, b, a}) == 2
  assert {np.ndarray, np.float32, np.int8, np.bool_, np.complex64} <= core.array_types
  assert type(xjax.numpy.ones(1)) not in core.array_types
  seen = []

  def probe(x):
    seen.append(core.nonempty_axis_env_DO_NOT_USE())
    return x
  assert not core.nonempty_axis_env_DO_NOT_USE()
  xjax.vmap(probe)(jnp.ones(2))
  xjax.vmap(probe, axis_name="i")(jnp.ones(2))
  xjax.jit(probe)(jnp.ones(2))
  assert seen == [False, True, False]   # as JAX 0.10.2
  assert issubclass(core.JaxprTypeError, TypeError)
  assert core.InconclusiveDimensionOperation is xjax.errors.InconclusiveDimensionOperation


class _CountingTracer(xjax.core.Tracer):
  """A custom interpreter's tracer in JAX 0.10's form (haiku's ``to_dot`` is one)."""

  def __init__(self, trace, val):
    super().__init__(trace, xjax.typeof(val))
    self.val = val


class _CountingTrace(xjax.core.Trace):
  """Records each primitive's name, then runs it on the parent trace."""

  def __init__(self, parent, tag, seen):
    super().__init__()
    self.parent_trace, self.tag, self.seen = parent, tag, seen

  def to_val(self, x):
    return x.val if isinstance(x, _CountingTracer) and x._trace.tag is self.tag else x

  def process_primitive(self, prim, tracers, params):
    self.seen.append(str(prim))
    vals = [self.to_val(t) for t in tracers]
    out = prim.bind_with_trace(self.parent_trace, vals, [xjax.typeof(t) for t in tracers],
                               params)
    if prim.multiple_results:
      return [_CountingTracer(self, v) for v in out]
    return _CountingTracer(self, out)


def _counting(f, seen):
  def run(*args):
    with core.take_current_trace() as parent:
      trace = _CountingTrace(parent, core.TraceTag(), seen)
      with core.set_current_trace(trace):
        out = f(*[_CountingTracer(trace, a) for a in args])
      return trace.to_val(out)
  return run


def test_a_custom_interpreter_in_jaxs_form_runs_eagerly_and_under_transformations():
  f = lambda x, y: lax.add(lax.mul(lax.sin(x), y), 1.0)
  x, y = jnp.arange(3.0), jnp.float32(2.0)
  want = np.sin(np.arange(3.0, dtype=np.float32)) * 2 + 1
  seen = []
  np.testing.assert_allclose(np.asarray(_counting(f, seen)(x, y)), want, rtol=1e-6)
  assert seen == ["sin", "mul", "add"]   # (as JAX 0.10.2)
  tracer = _CountingTracer(_CountingTrace(None, None, []), x)
  assert tracer.aval == xjax.typeof(x) and tracer.shape == (3,) and tracer.dtype == np.float32
  np.testing.assert_allclose(np.asarray(xjax.jit(_counting(f, []))(x, y)), want, rtol=1e-6)
  np.testing.assert_allclose(
      np.asarray(xjax.grad(lambda v: _counting(f, [])(v, y).sum())(x)),
      2 * np.cos(np.arange(3.0)), rtol=1e-6)
  assert str(xjax.make_jaxpr(lambda v: _counting(f, [])(v, y))(x)) == """\
{ lambda a:f32[]; b:f32[3]. let
    c:f32[3] = sin b
    d:f32[3] = mul c a
    e:f32[3] = add d 1.0:f32[]
  in (e,) }"""   # (as JAX 0.10.2)


# ---------------------------------------------------------------------------------------
# Primitives JAX lists in jax.extend.core.primitives

def test_empty2_name_and_random_gamma_primitives():
  assert primitives.empty2_p.bind(dtype=np.float32, memory_space=None).dtype == np.float32
  out = xjax.jit(lambda: primitives.empty2_p.bind(dtype=np.int32, memory_space=None) + 1)()
  assert int(out) == 1 and out.dtype == np.int32   # JAX 0.10.2: 1
  assert str(xjax.make_jaxpr(lambda: primitives.empty2_p.bind(dtype=np.int32,
                                                             memory_space=None))()) == (
      # (an equation without operands ends in a space, as in JAX's jaxprs)
      "{ lambda ; . let a:i32[] = empty2[dtype=int32 memory_space=None]  in (a,) }")
  named = xjax.make_jaxpr(lambda x: checkpoint_name(x, "n"))(jnp.ones(1))
  assert named.eqns[0].primitive is primitives.name_p
  assert primitives.name_p.bind(jnp.ones(2), name="a").tolist() == [1., 1.]
  key = random.key(0)
  jaxpr = xjax.make_jaxpr(lambda a: primitives.random_gamma_p.bind(key, a, log_space=False))(
      jnp.ones(2))
  assert [str(e.primitive) for e in jaxpr.eqns] == ["random_gamma"]
  np.testing.assert_allclose(primitives.random_gamma_p.bind(key, jnp.ones(2) * 2.,
                                                            log_space=False),
                             random.gamma(key, jnp.ones(2) * 2.))

