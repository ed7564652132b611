"""jit: caching, static arguments, side effects, pytrees, nesting, AOT, errors."""
import functools
import types
from functools import partial

import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import errors
from xjax.extend.core import ClosedJaxpr


def test_jit_matches_eager_and_caches():
  calls = []

  def f(x, y):
    calls.append(1)
    return jnp.sin(x) * y + 2.0

  jf = jax.jit(f)
  x = np.linspace(0, 1, 5, dtype=np.float32)
  y = np.float32(3)
  np.testing.assert_allclose(jf(x, y), np.sin(x) * 3 + 2, rtol=1e-6)
  jf(x + 1, y)
  assert len(calls) == 1  # same signature: no retrace
  jf(x[:3], y)
  assert len(calls) == 2  # new shape: retrace


def test_impure_function_side_effects_only_while_tracing(capsys):
  # The FAQ's impure_func: the global is read once, at trace time.
  state = {"y": 0}

  def impure(x):
    print("Inside:", state["y"])
    return x + state["y"]

  jf = jax.jit(impure)
  results = []
  for y in range(3):
    state["y"] = y
    results.append(int(jf(y)))
  assert results == [0, 1, 2]
  assert capsys.readouterr().out.count("Inside:") == 1


def test_weak_type_is_part_of_the_signature():
  calls = []

  @jax.jit
  def f(x):
    calls.append(1)
    return x * 2

  assert f(1.0).weak_type
  assert not f(np.float32(1)).weak_type
  assert len(calls) == 2


def test_static_argnums_and_argnames():
  @partial(jax.jit, static_argnums=(1,))
  def f(x, neg):
    return -x if neg else x

  assert int(f(1, True)) == -1
  assert int(f(1, False)) == 1

  @partial(jax.jit, static_argnames="neg")
  def g(x, neg=False):
    return -x if neg else x

  assert int(g(2, neg=True)) == -2
  assert int(g(2)) == 2

  @partial(jax.jit, static_argnums=-1)
  def h(x, n):
    return x * n

  assert int(h(3, 4)) == 12


def test_unhashable_static_argument_is_a_clear_error():
  f = jax.jit(lambda x, s: x, static_argnums=1)
  with pytest.raises(ValueError, match="Non-hashable static arguments") as info:
    f(1, [1, 2])
  # JAX 0.10.2's text: the value as str() prints it, then the hashing error with its class
  assert str(info.value).startswith(
      "Non-hashable static arguments are not supported. An error occurred while trying to "
      "hash an object of type <class 'list'>, [1, 2]. The error was:\nTypeError: "
      "unhashable type: 'list'\n")


def test_static_self_uses_hash_and_eq():
  # FAQ strategy 2: with __hash__/__eq__ defined, a changed object retraces.
  class C:
    def __init__(self, mul):
      self.mul = mul

    @partial(jax.jit, static_argnums=0)
    def calc(self, y):
      return y * 2 if self.mul else y

    def __hash__(self):
      return hash(self.mul)

    def __eq__(self, other):
      return isinstance(other, C) and self.mul == other.mul

  assert int(C(True).calc(3)) == 6
  assert int(C(False).calc(3)) == 3


def test_method_self_not_a_valid_type():
  class C:
    @jax.jit
    def calc(self, y):
      return y

  with pytest.raises(TypeError, match="Error interpreting argument to <function .*C.calc at"):
    C().calc(3)


def test_a_jitted_method_binds_as_a_python_method():
  """As JAX's: ``obj.method`` is a bound method whose ``lower``/``trace`` are the jitted
  function's own, taking the instance explicitly (bayex lowers its ``self._fit`` so)."""
  class C:
    @functools.partial(jax.jit, static_argnums=0)
    def calc(self, y):
      return y * 2

    def __hash__(self):
      return 1

    def __eq__(self, other):
      return isinstance(other, C)

  c = C()
  bound = c.calc
  assert type(bound) is types.MethodType and bound.__self__ is c
  assert bound.__func__ is C.__dict__["calc"] and C.calc is C.__dict__["calc"]
  assert int(bound(3)) == 6 and bound == c.calc
  assert "stablehlo.multiply" in bound.lower(c, 3).as_text()


def test_string_argument_names_argument():
  with pytest.raises(TypeError, match=r"(?s)Error interpreting argument to <function .*<lambda> "
                     r"at .*path x.\nThis typically.*static_argnames parameters of jax.jit.\n-"):
    jax.jit(lambda x: x)("hello")


def test_pytree_arguments_and_results():
  @jax.jit
  def f(d, t):
    return {"s": d["a"] + t[0], "p": (d["b"] * t[1], None)}

  out = f({"a": 1.0, "b": np.arange(3.0)}, (2.0, 3.0))
  assert float(out["s"]) == 3.0
  np.testing.assert_allclose(out["p"][0], np.arange(3.0) * 3)
  assert out["p"][1] is None


def test_keyword_and_default_arguments():
  @jax.jit
  def f(x, y=2.0, *, z=3.0):
    return x * y + z

  assert float(f(1.0)) == 5.0
  assert float(f(1.0, y=4.0, z=0.0)) == 4.0


def test_nested_jit_and_jit_of_jit():
  inner = jax.jit(lambda x: x * 2)
  outer = jax.jit(lambda x: inner(x) + 1)
  assert float(outer(3.0)) == 7.0
  assert float(jax.jit(jax.jit(lambda x: x - 1))(3.0)) == 2.0
  assert "jit" in str(jax.make_jaxpr(outer)(1.0))


def test_closed_over_arrays_up_to_a_mebibyte_are_inlined_larger_ones_hoisted():
  # JAX writes every closed-over array into the module (XLA folds with the values known);
  # xjax does so up to 1 MiB and passes larger ones as arguments
  mid = jnp.arange(1000.0)
  f = jax.jit(lambda x: x + mid)
  params = f.lower(1.0).as_text().split("func.func public @main(")[1].split(")")[0]
  assert "tensor<1000xf32>" not in params
  np.testing.assert_allclose(f(1.0), np.arange(1000.0) + 1)
  big = jnp.arange(300_000.0)
  g = jax.jit(lambda x: x + big)
  params = g.lower(1.0).as_text().split("func.func public @main(")[1].split(")")[0]
  assert "tensor<300000xf32>" in params
  np.testing.assert_allclose(g(1.0)[-3:], np.arange(300_000.0)[-3:] + 1)


@pytest.mark.parametrize("shape", [(0,), (0, 1), (2, 0, 3)])
@pytest.mark.parametrize("dtype", [np.bool_, np.float32, np.int8, np.complex64])
def test_closed_over_empty_arrays_are_written_into_the_module(shape, dtype):
  """An empty constant of any rank (MuJoCo MJX closes over (0, 1) boolean masks of models
  without contacts) is a valid literal of its type."""
  empty = np.zeros(shape, dtype)
  out = jax.jit(lambda x: (x + 1, jnp.asarray(empty), jnp.asarray(empty).sum()))(1.0)
  assert out[1].shape == shape and out[1].dtype == dtype
  assert out[2] == 0


def test_lower_and_compile():
  f = jax.jit(lambda x: jnp.sin(x) + 1)
  lowered = f.lower(np.ones(3, np.float32))
  text = lowered.as_text()
  assert "stablehlo.sine" in text and "func.func public @main" in text
  compiled = lowered.compile()
  np.testing.assert_allclose(compiled(np.zeros(3, np.float32)), np.ones(3))
  assert "HloModule" in compiled.as_text()


def test_stages_describe_their_signature_as_jax():
  @partial(jax.jit, static_argnums=1, donate_argnums=2)
  def f(x, n, z, *, k=1.0):
    return {"a": x * n, "b": (z + k, 1.0)}

  x, z = jnp.ones(2), jnp.ones(3)
  traced = f.trace(x, 3, z, k=2.0)
  lowered = traced.lower()
  compiled = lowered.compile()
  # (the texts are JAX 0.10.2's for the same function)
  for stage in (traced, lowered, compiled):
    assert str(stage.in_tree) == "PyTreeDef(((*, *), {'k': *}))"
    assert str(stage.out_tree) == "PyTreeDef({'a': *, 'b': (*, *)})"
    assert repr(stage.in_avals) == ("((ShapedArray(float32[2]), ShapedArray(float32[3])), "
                                    "{'k': ShapedArray(float32[], weak_type=True)})")
    assert repr(stage.args_info) == (
        "((ArgInfo(_aval=ShapedArray(float32[2]), donated=False), ArgInfo(_aval="
        "ShapedArray(float32[3]), donated=True)), {'k': ArgInfo(_aval=ShapedArray(float32[], "
        "weak_type=True), donated=False)})")
    assert stage.donate_argnums == (1,)
  assert repr(lowered.out_info["b"][1]) == "ShapeDtypeStruct(shape=(), dtype=float32)"
  assert traced.out_info["b"][1].weak_type and traced.out_avals["b"][1].weak_type
  assert traced.fun_name == "f"
  device = jax.devices()[0]
  assert compiled.input_shardings == ((jax.sharding.SingleDeviceSharding(device),) * 2,
                                      {"k": jax.sharding.SingleDeviceSharding(device)})
  assert compiled.output_shardings["b"][0] == jax.sharding.SingleDeviceSharding(device)
  assert repr(compiled.input_formats[0][0].layout) == (
      "Layout(major_to_minor=(0,), tiling=(), sub_byte_element_size_in_bits=0)")
  assert compiled.output_formats["a"].sharding == jax.sharding.SingleDeviceSharding(device)
  stats = compiled.memory_analysis()   # (JAX 0.10.2's sizes; z is donated)
  assert (stats.argument_size_in_bytes, stats.output_size_in_bytes,
          stats.alias_size_in_bytes) == (24, 48, 12)
  assert lowered.cost_analysis()["flops"] == 5.0   # before optimization (JAX's count)
  assert hasattr(compiled.runtime_executable(), "execute_sharded")


def test_traced_stage_holds_its_jaxpr_and_name():
  def f(x):
    return jnp.sin(x) * 2

  traced = jax.jit(f).trace(jnp.arange(3.0))
  # (JAX 0.10.2's jaxpr and name for the same function; both are properties of the class)
  assert type(traced.jaxpr) is ClosedJaxpr
  assert str(traced.jaxpr) == (
      "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 2.0:f32[] in (c,) }")
  assert traced.fun_name == "f" and jax.jit(lambda x: x).trace(1.0).fun_name == "<lambda>"
  assert all(isinstance(getattr(jax.stages.Traced, n), property) for n in ("jaxpr", "fun_name"))
  info = traced.args_info[0][0]
  assert "donated" in dir(jax.stages.ArgInfo) and info.donated is False
  with pytest.raises(AttributeError):  # frozen, as JAX's
    info.donated = True


def test_eval_shape_and_shape_dtype_struct():
  out = jax.eval_shape(lambda x, y: jnp.dot(x, y), jax.ShapeDtypeStruct((3, 4), jnp.float32),
                       jax.ShapeDtypeStruct((4,), jnp.float32))
  assert out.shape == (3,) and out.dtype == np.float32
  out = jax.jit(lambda x: {"a": x.sum()}).eval_shape(np.ones((2, 2), np.float32))
  assert out["a"].shape == ()


def test_disable_jit_runs_python():
  seen = []

  @jax.jit
  def f(x):
    seen.append(x)
    return x

  with jax.disable_jit():
    f(jnp.ones(2))
  assert isinstance(seen[0], jax.Array) and not isinstance(seen[0], jax.core.Tracer)


def test_disable_jit_runs_control_flow_in_python(capsys):
  # As JAX 0.10.2: bodies see concrete values (Python control flow and print work), cond's
  # result is the branch's own, scan's ys are stacked (as weakly typed as all of them).
  def body(c, x):
    print("c", c)
    return c + (x if x > 1 else -x), c
  with jax.disable_jit():
    carry, ys = jax.lax.scan(body, 0, jnp.arange(3))
    assert capsys.readouterr().out == "c 0\nc 0\nc -1\n"
    assert int(carry) == 1 and ys.tolist() == [0, 0, -1] and not ys.aval.weak_type
    assert jax.lax.scan(lambda c, _: (c + 1, c), 0, None, length=2)[1].aval.weak_type
    assert jax.lax.scan(lambda c, x: (c + x, c), 0., jnp.ones(3), reverse=True)[1].tolist() \
        == [2., 1., 0.]
    out = jax.lax.cond(jnp.array(True), lambda: 1, lambda: 2)
    assert out == 1 and type(out) is int
    assert jax.lax.switch(jnp.array(5), [lambda: "a", lambda: "b"]) == "b"
    seen = []
    jax.lax.fori_loop(0, 3, lambda i, c: seen.append(type(i)) or c, 0)
    assert seen == [int, int, int]
    out = jax.lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0)
    assert int(out) == 3 and out.aval.weak_type
    # Traced values still stage: vmap of a while loop or a cond on a batched predicate.
    assert jax.vmap(lambda x: jax.lax.while_loop(lambda c: c < 3, lambda c: c + 1, x))(
        jnp.arange(5)).tolist() == [3, 3, 3, 3, 4]
    assert jax.vmap(lambda p: jax.lax.cond(p, lambda: 1., lambda: 2.))(
        jnp.array([True, False])).tolist() == [1., 2.]
    with pytest.raises(ValueError, match="zero-length scan is not supported in disable_jit"):
      jax.lax.scan(lambda c, x: (c, x), 0., jnp.zeros(0))


def test_log_compiles(caplog):
  jax.config.update("jax_log_compiles", True)
  try:
    with caplog.at_level("WARNING", logger="xjax"):
      jax.jit(lambda x: x * 7)(np.ones(7, np.int8))
  finally:
    jax.config.update("jax_log_compiles", False)
  assert any("Compiling" in r.message for r in caplog.records)


def test_tracer_printing_and_static_shape(capsys):
  @jax.jit
  def f(x):
    print(x)
    print(x.shape)
    return x

  f(np.ones((3, 4), np.float32))
  out = capsys.readouterr().out
  assert "Traced<ShapedArray(float32[3,4])>" in out
  assert "(3, 4)" in out


def test_control_flow_on_tracer_raises_concretization_errors():
  @jax.jit
  def f(x, neg):
    return -x if neg else x

  with pytest.raises(errors.TracerBoolConversionError) as info:
    f(1, True)
  assert isinstance(info.value, errors.ConcretizationTypeError)
  msg = str(info.value)
  assert "f" in msg and "neg" in msg and "static_argnums" in msg

  with pytest.raises(errors.TracerIntegerConversionError) as info:
    jax.jit(lambda x: [1, 2, 3][x])(1)
  # JAX 0.10.2's first line, as it is
  assert str(info.value).split("\n")[0] == ("The __index__() method was called on traced "
                                             "array with shape int32[]")
  with pytest.raises(errors.ConcretizationTypeError):
    jax.jit(lambda x: float(x))(1.0)
  with pytest.raises(errors.TracerArrayConversionError):
    jax.jit(lambda x: np.asarray(x))(1.0)


def test_reshape_with_traced_size_raises_concretization_error():
  # "How to think in JAX": x.reshape(jnp.array(x.shape).prod()) fails, np.prod works.
  x = jnp.ones((2, 3))
  with pytest.raises(TypeError):
    jax.jit(lambda x: x.reshape(jnp.array(x.shape).prod()))(x)
  out = jax.jit(lambda x: x.reshape((np.prod(x.shape),)))(x)
  assert out.shape == (6,)


def test_escaped_tracer_raises_unexpected_tracer_error():
  leaked = []

  @jax.jit
  def f(x):
    leaked.append(x)
    return x

  f(1.0)
  with pytest.raises(errors.UnexpectedTracerError):
    jnp.sin(leaked[0])
  with pytest.raises(errors.UnexpectedTracerError):
    jax.jit(lambda y: y + leaked[0])(1.0)


def test_bad_arguments_do_not_corrupt_cache():
  f = jax.jit(lambda x: x + 1)
  with pytest.raises(TypeError):
    f(object())
  assert float(f(1.0)) == 2.0


def test_debug_nans_raises_floating_point_error():
  jax.config.update("jax_debug_nans", True)
  try:
    with pytest.raises(FloatingPointError, match="nan"):
      jnp.log(-1.0)
    with pytest.raises(FloatingPointError, match="nan"):
      jax.jit(lambda x: jnp.sqrt(x))(-1.0)
  finally:
    jax.config.update("jax_debug_nans", False)
  assert np.isnan(float(jnp.log(-1.0)))


def test_common_config_options_are_accepted():
  jax.config.update("jax_traceback_filtering", "off")
  jax.config.update("jax_platform_name", "cpu")
  assert jax.config.jax_traceback_filtering == "off"
  with pytest.raises(AttributeError):
    jax.config.update("jax_not_an_option", 1)
  jax.config.update("jax_traceback_filtering", "auto")
  jax.config.update("jax_platform_name", "")


def test_lowered_compiler_ir_dialects():
  lowered = jax.jit(lambda x: x * 2).lower(jnp.ones(3))
  hlo = lowered.compiler_ir(dialect="hlo").as_hlo_text()
  assert hlo.startswith("HloModule") and "multiply" in hlo
  assert "stablehlo.multiply" in str(lowered.compiler_ir())
  with pytest.raises(ValueError, match="dialect"):
    lowered.compiler_ir(dialect="x")


def test_repeated_calls_take_the_fast_path_and_stay_correct():
  traces = []

  def f(a, tree):
    traces.append(1)
    return a * 2 + tree["b"][0], {"sum": a.sum()}

  g = jax.jit(f)
  x, b = jnp.arange(3.0), jnp.ones(3)
  for _ in range(3):  # the second and third calls run without retracing or re-flattening
    out, aux = g(x, {"b": [b]})
  assert len(traces) == 1
  np.testing.assert_array_equal(out, [1.0, 3.0, 5.0])
  assert float(aux["sum"]) == 3.0
  g(jnp.arange(4.0), {"b": [jnp.ones(4)]})  # a new shape is a new signature
  assert len(traces) == 2
  jax.clear_caches()  # forgets the fast path's table too
  g(x, {"b": [b]})
  assert len(traces) == 3


def test_fast_path_with_static_and_keyword_arguments_keys_on_their_values():
  traces = []

  def f(x, n, *, scale=1.0, mode="add"):
    traces.append((type(n), n, mode))
    return x * n * scale if mode == "mul" else x + n + scale

  g = jax.jit(f, static_argnums=1, static_argnames="mode")
  x = jnp.arange(3.0)
  for _ in range(3):
    np.testing.assert_array_equal(g(x, 2, scale=3.0, mode="mul"), [0.0, 6.0, 12.0])
  assert len(traces) == 1
  np.testing.assert_array_equal(g(x, 2, scale=jnp.float32(0.5), mode="mul"), [0.0, 1.0, 2.0])
  assert len(traces) == 2  # a float32 Array is not a weakly typed Python float
  np.testing.assert_array_equal(g(x, 2, scale=3.0), [5.0, 6.0, 7.0])  # another static value
  np.testing.assert_array_equal(g(x, 2, mode="add"), [3.0, 4.0, 5.0])  # scale left out
  r = g(x, 2.0, mode="add")  # 2.0 == 2 in Python, but a static float is another trace
  np.testing.assert_array_equal(r, [3.0, 4.0, 5.0])
  assert len(traces) == 5 and traces[-1][0] is float
  np.testing.assert_array_equal(g(x, True, mode="add"), [2.0, 3.0, 4.0])
  assert traces[-1][0] is bool
  with pytest.raises(ValueError, match="Non-hashable static arguments"):
    g(x, [2], mode="add")
  jnp_mean = jnp.mean(jnp.arange(6.0).reshape(2, 3), axis=0)  # a composite, called eagerly
  np.testing.assert_array_equal(jnp_mean, [1.5, 2.5, 3.5])
  np.testing.assert_array_equal(jnp.arange(6.0).reshape(2, 3).mean(1), [1.0, 4.0])


def test_fast_path_takes_numpy_values_and_reads_them_afresh():
  """NumPy arrays and scalars are fast-path leaves keyed by dtype and shape: no retrace,
  each call reads (and copies) the current values, the checked path's types and results,
  host values from host kernels where they apply; other NumPy dtypes take the checked path."""
  traces = []

  def f(a, b):
    traces.append(1)
    return a * b + 1

  g = jax.jit(f)
  x = jnp.arange(3.0)
  v = np.array([1.0, 2.0, 3.0], np.float32)
  for i in range(3):
    v[0] = i  # the same NumPy array, changed between calls
    out = g(x, v)
    np.testing.assert_array_equal(out, np.arange(3.0, dtype=np.float32) * v + 1)
  assert len(traces) == 1
  for value in (np.float32(2.0), np.float64(2.0), np.array(2.0)):  # one signature (x32)
    np.testing.assert_array_equal(g(x, value), [1.0, 3.0, 5.0])
  assert len(traces) == 2
  np.testing.assert_array_equal(g(x, np.int8(2)), [1.0, 3.0, 5.0])
  assert len(traces) == 3 and g(x, np.int8(2)).dtype == jnp.float32
  h = jnp.asarray([1.0, 2.0])  # a host value: operators and jnp functions stay on the host
  for out in (h * np.float32(0.5), jnp.multiply(h, np.float32(0.5)), h + np.ones(2)):
    assert out._host is not None and not out.weak_type
  np.testing.assert_array_equal(h * np.float32(0.5), [0.5, 1.0])
  bf16 = np.ones(3, jnp.bfloat16)  # (ml_dtypes: the checked path)
  np.testing.assert_array_equal(g(x.astype(jnp.bfloat16), bf16), [1.0, 2.0, 3.0])


def test_fast_path_respects_config_and_deleted_inputs():
  g = jax.jit(lambda a: a + 1)
  x = jnp.arange(3)
  g(x), g(x)
  with jax.disable_jit():
    assert g(x).dtype == jnp.int32
  with jax.debug_nans(True):
    with pytest.raises(FloatingPointError):
      jax.jit(lambda a: jnp.log(a - 1))(jnp.zeros(2))
  y = jnp.arange(3)
  g(y), g(y)
  y.delete()
  with pytest.raises(RuntimeError, match="deleted"):
    g(y)
  committed = jax.device_put(x, jax.devices()[0])
  assert g(committed).committed and not g(x).committed


def test_jitted_function_reports_the_wrapped_signature():
  import inspect

  def foo(x, y=1):
    return x * y
  assert str(inspect.signature(jax.jit(foo), follow_wrapped=False)) == "(x, y=1)"


def test_jitted_function_type_is_named_as_jax_names_it():
  # chex's is_traceable (assert_max_traces refuses to wrap a jitted function) looks for it.
  f = jax.jit(lambda x: x)
  assert type(f).__name__ == "PjitFunction" and repr(f).startswith("<PjitFunction of <function")


def test_pmap_maps_keyword_arguments_over_their_leading_axis():
  def foo(x, y=1.0):
    return x * y
  out = jax.pmap(foo)(jnp.ones((1, 2)), y=jnp.full((1,), 2.0))
  np.testing.assert_array_equal(out, [[2.0, 2.0]])
  assert out.shape == (1, 2)


def test_pmap_of_a_scalar_over_axis_0_is_a_value_error():
  with pytest.raises(ValueError, match="in_axes=None"):
    jax.pmap(lambda x, m: x * m)(jnp.ones((1, 2)), 100)


def test_pmap_runs_with_jit_disabled():
  with jax.disable_jit():
    out = jax.pmap(lambda x: jax.lax.psum(x, "i") * 2, axis_name="i")(jnp.ones((1, 3)))
  np.testing.assert_array_equal(out, [[2.0, 2.0, 2.0]])


def test_eval_shape_returns_shape_dtype_structs_it_is_given():
  # equinox's filter_closure_convert evaluates the shape of a function returning them
  s = jax.ShapeDtypeStruct((), np.float32)
  assert jax.eval_shape(lambda: s) == s
  out = jax.eval_shape(lambda x: (x, jax.ShapeDtypeStruct((3,), np.bool_)), 1)
  assert out == (jax.ShapeDtypeStruct((), np.int32, weak_type=True),
                 jax.ShapeDtypeStruct((3,), np.bool_))
  # the dtype is kept as given (JAX's); the 32-bit type is what it stands for without x64
  wide = jax.ShapeDtypeStruct((2,), np.int64)
  assert wide.dtype == np.int64
  assert jax.eval_shape(lambda x: x, wide) == jax.ShapeDtypeStruct((2,), np.int32)


def test_shape_dtype_struct_sharding_in_repr_and_equality():
  # orbax's abstract restore targets carry the shardings to restore into (JAX 0.10.2's repr)
  sharding = jax.sharding.SingleDeviceSharding(jax.devices()[0])
  s = jax.ShapeDtypeStruct((2,), np.float32, sharding=sharding, weak_type=True)
  assert repr(s) == ("ShapeDtypeStruct(shape=(2,), dtype=float32, sharding=SingleDeviceSharding("
                     "device=CpuDevice(id=0), memory_kind=device), weak_type=True)")
  plain = jax.ShapeDtypeStruct((2,), np.float32, weak_type=True)
  assert s != plain and len({s, plain}) == 2
  assert s == jax.ShapeDtypeStruct((2,), np.float32, sharding=sharding, weak_type=True)


def test_small_closed_over_constants_are_written_into_the_module():
  # as JAX writes constants: XLA folds them (numpyro's jitted gradients match JAX's bits)
  small, mask = np.arange(1, 9, dtype=np.float32), jnp.ones(8, bool)
  f = jax.jit(lambda x: jnp.where(mask, x / small, 0.0))
  text = f.lower(np.ones(8, np.float32)).as_text()
  params = text.split("func.func public @main(")[1].split(")")[0]
  assert params.count("%arg") == 1 and "stablehlo.constant" in text
  np.testing.assert_array_equal(f(np.ones(8, np.float32)), 1 / small)


def test_in_shardings_tuple_matches_the_dynamic_positional_arguments():
  with pytest.raises(ValueError, match=r"in_shardings specification must be a tree prefix of "
                                       r"the positional arguments tuple: got a tuple or list "
                                       r"of length 2 for an args tuple of length 1"):
    jax.jit(lambda x: x, in_shardings=(None, None))(1.0)
  with pytest.raises(ValueError, match="tree prefix"):  # when lowering too
    jax.jit(lambda x: x, in_shardings=(None, None)).lower(1.0)
  # static arguments have no entry
  assert jax.jit(lambda x, n: x * n, static_argnums=1, in_shardings=(None,))(2.0, 3) == 6.0
  with pytest.raises(ValueError, match="keyword arguments when in_shardings is specified"):
    jax.jit(lambda x, y: x, in_shardings=(None,))(1.0, y=2.0)
  assert jax.jit(lambda x, y: x + y, in_shardings=None)(1.0, y=2.0) == 3.0


def test_bare_partition_specs_need_a_context_mesh_as_in_jax():
  from xjax.sharding import PartitionSpec as P
  for kw in ("in_shardings", "out_shardings"):
    f = jax.jit(lambda a: a * 2, **{kw: P()})
    with pytest.raises(RuntimeError, match=f"non-empty mesh in context.*{kw}"):
      f(jnp.arange(3.0))
