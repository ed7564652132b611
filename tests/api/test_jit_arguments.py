"""jit's device=, backend=, compiler_options=, inline= and keep_unused= are honoured (never silently ignored), and
Lowered.compile takes compiler_options and device_assignment, as in JAX 0.10.2; jit and
make_jaxpr take no abstracted_axes.  Messages are JAX 0.10.2's.  Placement on one of
several devices: jit_arguments_cases.py, run with 4 CPU devices."""
import warnings

import numpy as np
import pytest
from tests.checking import check
from tests.multi_device_run import run_cases

import xjax
import xjax.numpy as jnp
from xjax.errors import JaxRuntimeError
from xjax.sharding import SingleDeviceSharding
from xjax._src.foundations.config import config

X = np.linspace(-1.0, 1.0, 5, dtype=np.float32)
WANT = np.sin(X) * 2.0 + 1.0
NO_PASSES = {"xla_disable_all_hlo_passes": True}


def f(x):
  return jnp.sin(x) * 2.0 + 1.0


def _quiet(make):
  """``make()`` with jit's DeprecationWarning for device=/backend= silenced."""
  with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    return make()


def test_placement_on_several_devices():
  assert run_cases("tests/api/jit_arguments_cases.py") == 5


# ---------------------------------------------------------------------------------------
# device= and backend=

def test_device_and_backend_warn_as_jax_where_jit_is_called():
  with pytest.warns(DeprecationWarning, match="backend and device argument on jit is "
                                              "deprecated") as caught:
    xjax.jit(f, backend="cpu")
    xjax.jit(device=xjax.devices()[0])(f)
  assert [w.filename for w in caught] == [__file__] * 2


@pytest.mark.parametrize("kw", [{"device": "dev"}, {"backend": "cpu"}])
def test_results_are_committed_to_the_device(kw):
  if "device" in kw:
    kw = {"device": xjax.devices()[0]}
  g = _quiet(lambda: xjax.jit(f, **kw))
  for _ in range(2):  # (the second call would take the fast path)
    out = g(X)
    check(out, WANT)
    assert out.committed and out.devices() == {xjax.devices()[0]}
  assert xjax.jit(f)(X).committed is False
  for out in (xjax.vmap(g)(X), xjax.grad(lambda x: g(x).sum())(X),
              g.lower(X).compile()(X)):
    assert out.committed
  check(xjax.grad(lambda x: g(x).sum())(X), 2.0 * np.cos(X))


def test_decorator_form_passes_everything_on():
  g = _quiet(lambda: xjax.jit(device=xjax.devices()[0], static_argnums=1)(
      lambda x, n: f(x) * n))
  out = g(X, 3)
  check(out, WANT * 3)
  assert out.committed
  with pytest.raises(JaxRuntimeError, match="No such compile option: 'not_an_option'"):
    xjax.jit(compiler_options={"not_an_option": True})(f)(X)
  a = xjax.jit(compiler_options=NO_PASSES)(f).lower(X).compile().as_text()
  assert a == xjax.jit(f, compiler_options=NO_PASSES).lower(X).compile().as_text()


def test_an_absent_backend_raises_as_jax_when_called_traced_or_lowered():
  g = _quiet(lambda: xjax.jit(f, backend="gpu"))
  msg = ("Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are "
         "present. Platforms present are: cpu")
  for call in (g, g.trace, g.lower):
    with pytest.raises(RuntimeError, match=msg):
      call(X)
  with pytest.raises(RuntimeError, match=r"Unknown backend foo. Available backends are "
                                         r"\['cpu'\]"):
    _quiet(lambda: xjax.jit(f, backend="foo"))(X)


def test_device_or_backend_with_shardings_raise_as_jax():
  d = xjax.devices()[0]
  s = SingleDeviceSharding(d)
  cases = [({"device": d, "in_shardings": s}, ValueError,
            "If backend or device is specified on jit, then in_shardings should not be "
            "specified."),
           ({"device": d, "out_shardings": s}, ValueError,
            "If backend or device is specified on jit, then out_shardings should not be "
            "specified."),
           ({"backend": "cpu", "out_shardings": s}, ValueError, "then out_shardings"),
           ({"device": d, "backend": "cpu"}, ValueError,
            "can't specify both a device and a backend for jit, got device=CpuDevice(id=0) "
            "and backend='cpu'"),
           ({"device": "cpu"}, TypeError, "jit's device must be a Device")]
  for kw, cls, msg in cases:
    with pytest.raises(cls) as err:
      _quiet(lambda: xjax.jit(f, **kw))
    assert msg in str(err.value)


def test_device_inside_a_compiled_computation_is_refused():
  g = _quiet(lambda: xjax.jit(f, device=xjax.devices()[0]))
  assert "device=cpu:0" in str(xjax.make_jaxpr(lambda x: g(x) + 1)(X))
  with pytest.raises(NotImplementedError, match="inside another compiled computation"):
    xjax.jit(lambda x: g(x) + 1)(X)


# ---------------------------------------------------------------------------------------
# compiler_options=

def test_compiler_options_reach_xla():
  plain = xjax.jit(f).lower(X).compile().as_text()
  raw = xjax.jit(f, compiler_options=NO_PASSES).lower(X).compile().as_text()
  assert "fusion" in plain and "fusion" not in raw   # XLA ran no pass: nothing fused
  assert xjax.jit(f).lower(X).compile(NO_PASSES).as_text() == raw
  # Lowered.compile's options add to and override jit's (as in JAX)
  assert xjax.jit(f, compiler_options=NO_PASSES).lower(X).compile(
      {"xla_disable_all_hlo_passes": False}).as_text() == plain
  check(xjax.jit(f, compiler_options=NO_PASSES)(X), WANT)
  check(xjax.jit(f, compiler_options={"xla_cpu_enable_fast_math": True})(X), WANT)
  check(xjax.jit(f, compiler_options={"exec_time_optimization_effort": 0.5})(X), WANT)


def test_functions_with_other_options_have_their_own_executables():
  g = lambda x: jnp.cos(x) * 3.0 - x
  a, b = xjax.jit(g), xjax.jit(g, compiler_options=NO_PASSES)
  check(a(X), np.cos(X) * 3.0 - X)
  check(b(X), np.cos(X) * 3.0 - X)
  assert a._cache is not b._cache
  assert "fusion" in a.lower(X).compile().as_text()
  assert "fusion" not in b.lower(X).compile().as_text()


def test_compiler_options_are_part_of_the_persistent_cache_key(tmp_path):
  old = config.jax_compilation_cache_dir
  config.update("jax_compilation_cache_dir", str(tmp_path))
  try:
    g = lambda x: jnp.tanh(x) * 0.75 + 0.5
    xjax.jit(g)(X)
    assert len(list(tmp_path.glob("*.xla"))) == 1
    out = xjax.jit(g, compiler_options=NO_PASSES)(X)   # the same module, other options
    assert len(list(tmp_path.glob("*.xla"))) == 2
    check(out, np.tanh(X) * 0.75 + 0.5)
  finally:
    config.update("jax_compilation_cache_dir", old)


def test_unknown_or_invalid_options_raise_xlas_error():
  with pytest.raises(JaxRuntimeError, match="INVALID_ARGUMENT: No such compile option: "
                                            "'not_an_option'"):
    xjax.jit(f, compiler_options={"not_an_option": True})(X)
  with pytest.raises(JaxRuntimeError, match="No such compile option: 'not_an_option'"):
    xjax.jit(f).lower(X).compile({"not_an_option": 1})
  with pytest.raises(JaxRuntimeError, match="While setting option xla_cpu_enable_fast_math, "
                                            "'notbool' is not a valid bool value."):
    xjax.jit(f, compiler_options={"xla_cpu_enable_fast_math": "notbool"})(X)


def test_compiler_options_only_on_a_top_level_jit():
  g = xjax.jit(f, compiler_options={"xla_cpu_enable_fast_math": True})
  msg = ("`compiler_options` can only be passed to top-level `jax.jit`. Got "
         "compiler_options={'xla_cpu_enable_fast_math': True} specified on a nested jit with "
         "name: f and source info: ")
  for staged in (xjax.jit(lambda x: g(x)), xjax.make_jaxpr(lambda x: g(x)),
                 xjax.grad(lambda x: g(x).sum())):
    with pytest.raises(ValueError) as err:
      staged(X)
    assert str(err.value).startswith(msg) and __file__ in str(err.value)
  check(xjax.vmap(g)(X[:, None]), WANT[:, None])   # evaluated, not staged: as in JAX
  bad = xjax.jit(f, compiler_options={"not_an_option": True})
  with pytest.raises(JaxRuntimeError, match="No such compile option"):
    xjax.vmap(bad)(X)


def test_lowered_compile_device_assignment_must_be_the_programs():
  d = xjax.devices()[0]
  check(xjax.jit(f).lower(X).compile(device_assignment=(d,))(X), WANT)
  with pytest.raises(ValueError, match=r"device_assignment passed to `.compile` must match "
                                       r"the device_assignment calculated from array "
                                       r"shardings and out_shardings. Got device ids passed "
                                       r"to compile \[0, 0\] on platform CPU and devices ids "
                                       r"calculated from array shardings and out_shardings "
                                       r"\[0\] on platform CPU"):
    xjax.jit(f).lower(X).compile(device_assignment=(d, d))


# ---------------------------------------------------------------------------------------
# inline=True: staged as the body's equations (the jaxprs are JAX 0.10.2's)

def sin_times(x, y):
  return jnp.sin(x) * y


def test_an_inline_jit_is_staged_as_its_body():
  g = xjax.jit(sin_times, inline=True)
  assert str(xjax.make_jaxpr(xjax.jit(lambda x: g(x, 2.0) + 1))(1.0)) == (
      "{ lambda ; a:f32[]. let\n    b:f32[] = jit[\n      name=<lambda>\n      jaxpr={ lambda "
      "; a:f32[]. let\n          c:f32[] = sin a\n          d:f32[] = mul c 2.0:f32[]\n"
      "          b:f32[] = add d 1.0:f32[]\n        in (b,) }\n    ] a\n  in (b,) }")
  assert str(xjax.make_jaxpr(g)(1.0, 2.0)) == (
      "{ lambda ; a:f32[] b:f32[]. let c:f32[] = sin a; d:f32[] = mul c b in (d,) }")
  plain = xjax.make_jaxpr(lambda x: xjax.jit(sin_times)(x, 2.0))(1.0)
  assert [e.primitive.name for e in plain.jaxpr.eqns] == ["jit"]
  check(xjax.jit(lambda x: g(x, 2.0) + 1)(X), WANT)
  check(g(X, 2.0), np.sin(X) * 2.0)   # called on values: compiled and run as any jit


def test_an_inline_jit_stays_inline_under_transformations():
  g = xjax.jit(sin_times, inline=True)
  cases = {
      "grad": (xjax.grad(lambda x: g(x, 3.0)), (1.0,),
               "{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    c:f32[] = cos a\n"
               "    _:f32[] = mul b 3.0:f32[]\n    d:f32[] = mul 1.0:f32[] 3.0:f32[]\n"
               "    e:f32[] = mul d c\n  in (e,) }"),
      "vmap": (xjax.vmap(lambda x: g(x, 3.0)), (jnp.ones(3),),
               "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 3.0:f32[] in (c,) }"),
      "cond": (lambda x: xjax.lax.cond(x > 0, lambda x: g(x, 2.0), lambda x: x, x), (1.0,),
               "{ lambda ; a:f32[]. let\n    b:bool[] = gt a 0.0:f32[]\n"
               "    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n"
               "    d:f32[] = cond[\n      branches=(\n        { lambda ; e:f32[]. let  in (e,) }"
               "\n        { lambda ; f:f32[]. let\n            g:f32[] = sin f\n"
               "            h:f32[] = mul g 2.0:f32[]\n          in (h,) }\n      )\n    ] c a\n"
               "  in (d,) }"),
  }
  for name, (fun, args, want) in cases.items():
    assert str(xjax.make_jaxpr(fun)(*args)) == want, name
  check(xjax.grad(lambda x: g(x, 3.0))(0.5), 3.0 * np.cos(np.float32(0.5)))
  check(xjax.jit(xjax.vmap(lambda x: g(x, 3.0)))(X), np.sin(X) * 3.0)


def test_an_inline_jit_keeps_the_types_it_was_traced_with():
  """Inlined, a call's equations keep their traced types, as JAX: under jvp its tangents
  are typed from the primals, so a strong tangent into a weak primal's place gives a weak
  result (values and types recorded from JAX 0.10.2)."""
  w = jnp.asarray(0.3)
  sub = xjax.jit(lambda a, b: xjax.lax.sub(a, b), inline=True)
  f = lambda x, b: sub(b, xjax.lax.pow(x, b))
  p, t = xjax.jit(lambda a, b: xjax.jvp(f, (a, b), (a, b)))(w, w)
  np.testing.assert_allclose((p, t), (-0.39684528, 0.34264123), rtol=1e-6)
  assert p.weak_type and t.weak_type
  closed = xjax.make_jaxpr(lambda a, b: xjax.jvp(f, (a, b), (a, b)))(w, w)
  assert [e.primitive.name for e in closed.eqns][-2:] == ["sub", "sub"]
  assert [a.weak_type for a in closed.out_avals] == [True, True]


def test_an_inline_jit_returns_tracers_of_the_bodys_types():
  swap = xjax.jit(lambda x, y: (y, x), inline=True)
  two, one = xjax.jit(lambda x: swap(x, 2.0))(np.float32(1.0))
  check(two, np.float32(2.0))
  assert two.weak_type and not one.weak_type
  assert str(xjax.make_jaxpr(lambda x: swap(x, 2.0))(1.0)) == (
      "{ lambda ; a:f32[]. let  in (2.0:f32[], a) }")
  c = jnp.arange(3.0)
  add_c = xjax.jit(lambda x: x + c, inline=True)
  closed = xjax.make_jaxpr(lambda x: add_c(x) * 2)(jnp.ones(3))
  assert [e.primitive.name for e in closed.jaxpr.eqns] == ["add", "mul"]
  check(closed.consts[0], np.arange(3.0, dtype=np.float32))


# ---------------------------------------------------------------------------------------
# keep_unused: without it, the program takes only the arguments it uses (as JAX's)

def _main_signature(lowered) -> str:
  line = next(l for l in lowered.as_text().splitlines() if "func.func public @main" in l)
  return line.split("@main(")[1].split(") ->")[0]


def test_unused_arguments_are_left_out_of_the_program():
  g = lambda x, y, z: (y * 2, x + z)[1]   # y feeds only a dead equation
  args = (jnp.ones(2), jnp.ones(3), 1.0)
  assert _main_signature(xjax.jit(g).lower(*args)) == (
      "%arg0: tensor<2xf32>, %arg1: tensor<f32>")
  assert _main_signature(xjax.jit(g, keep_unused=True).lower(*args)) == (
      "%arg0: tensor<2xf32>, %arg1: tensor<3xf32>, %arg2: tensor<f32>")
  device = xjax.devices()[0]
  assert xjax.jit(g).lower(*args).compile().input_shardings == (
      (SingleDeviceSharding(device), None, SingleDeviceSharding(device)), {})
  # the jaxpr keeps every argument; only the program leaves them out
  assert len(xjax.make_jaxpr(xjax.jit(g))(*args).jaxpr.eqns[0].invars) == 3
  for keep in (False, True):
    f = xjax.jit(g, keep_unused=keep)
    for y, z in ((jnp.ones(3), 1.0), (np.zeros(3, np.float32), 2.0), (jnp.ones(3), 1.0)):
      check(f(jnp.ones(2), y, z), np.full(2, 1.0 + z, np.float32))   # fast path too
    check(f.lower(*args).compile()(*args), np.full(2, 2.0, np.float32))


def test_an_unused_donated_argument_is_neither_donated_nor_warned_about():
  f = xjax.jit(lambda x, y: x * 2, donate_argnums=1)
  y = jnp.ones(3)
  with warnings.catch_warnings():
    warnings.simplefilter("error")   # (JAX 0.10.2 warns of nothing here)
    check(f(jnp.ones(2), y), np.full(2, 2.0, np.float32))
  assert not y.is_deleted()


# ---------------------------------------------------------------------------------------
# abstracted_axes: not a parameter in JAX 0.10.2

def test_abstracted_axes_is_not_a_parameter():
  with pytest.raises(TypeError, match=r"jit\(\) got an unexpected keyword argument "
                                      "'abstracted_axes'"):
    xjax.jit(f, abstracted_axes=None)
  with pytest.raises(TypeError, match=r"make_jaxpr\(\) got an unexpected keyword argument "
                                      "'abstracted_axes'"):
    xjax.make_jaxpr(f, abstracted_axes=None)


def test_arguments_after_static_ones_are_named_by_their_own_parameters():
  """JAX 0.10.2: with ``static_argnums=0`` the dynamic arguments of ``f(n, x, y)`` are named
  ``x`` and ``y`` (debug info, error paths), not shifted onto ``n``."""
  def f(n, x, y):
    return x * n + y
  j = xjax.jit(f, static_argnums=0)
  ones = jnp.ones(2)
  assert j.trace(2, ones, ones).jaxpr.debug_info.arg_names == ("x", "y")
  assert xjax.make_jaxpr(f, static_argnums=0)(2, ones, ones).jaxpr.debug_info.arg_names == (
      "x", "y")
  with pytest.raises(TypeError, match="passed to the function at path y"):
    j(2, ones, "s")
  with pytest.raises(OverflowError, match="whose argument path is x"):
    j(2, 2**100, ones)


def test_static_argnames_and_argnums_given_together_are_taken_as_they_are():
  """As JAX: only when one of the two is given is the other read off the signature. flax's
  lifted jit passes `static_argnums=(0,)` with the user's `static_argnames=['b']` to a function
  whose signature (through `functools.wraps`) has `b` at another position."""
  import functools

  def user(scope, a, b):
    return a

  @functools.partial(xjax.jit, static_argnums=(0,), static_argnames=["b"])
  @functools.wraps(user)
  def jitted(fingerprint, variables, rngs, *args, **kwargs):
    return args[0] + len(kwargs["b"])

  assert float(jitted("key", {}, {}, jnp.array(1.), b="hi")) == 3.  # ({} at position 2: dynamic)
  seen = []
  f = xjax.jit(lambda x, s: (seen.append(s), x)[1], static_argnums=(), static_argnames="s")
  with pytest.raises(TypeError, match="path s"):  # given by position: not static
    f(1., "a")
  assert float(f(1., s="a")) == 1. and seen == ["a"]
  g = xjax.jit(lambda x, s: x * len(s), static_argnames="s")  # names alone: positions too
  assert float(g(1., "ab")) == 2. and float(g(1., s="abc")) == 3.
