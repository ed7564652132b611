"""``xjax.interpreters.mlir``'s module-building API and ``xjax.extend.mlir`` (jaxlib's MLIR
Python bindings), used on real binding objects: jaxprs lowered inside lowering rules
(``jaxpr_subcomp``, ``lower_jaxpr_to_fun``, ``core_call_lowering``) and to whole modules,
constant handlers, attributes, and the facts about jaxlib's bindings the bridge relies on."""
import re
import warnings

import numpy as np
import pytest

import xjax
import xjax.core as xcore
import xjax.numpy as jnp
from xjax import lax
from xjax.extend import core
from xjax.extend import mlir as emlir
from xjax.extend.mlir import ir, passmanager
from xjax.extend.mlir.dialects import func, stablehlo as hlo
from xjax.interpreters import ad, mlir

X = np.array([.1, .2, .3], np.float32)
Y = np.array([1., 2., 3.], np.float32)
SIN_MUL = xjax.make_jaxpr(lambda x, y: jnp.sin(x) * y)(X, Y)


def _sin_mul_primitive(name: str, with_bindings: bool):
  """sin(x) * y as a primitive whose lowering emits SIN_MUL with jaxpr_subcomp (after an
  operation built with the bindings when ``with_bindings``: x + 0)."""
  p = core.Primitive(name)
  p.def_abstract_eval(lambda x, y: x)

  def lowering(ctx, x, y):
    if with_bindings:
      x = hlo.AddOp(x, mlir.ir_constant(np.zeros(3, np.float32))).result
    outs, tokens = mlir.jaxpr_subcomp(ctx.module_context, SIN_MUL.jaxpr, ctx.name_stack,
                                      ctx.tokens_in, SIN_MUL.consts, x, y,
                                      dim_var_values=ctx.dim_var_values)
    assert tokens is ctx.tokens_in
    return outs

  mlir.register_lowering(p, lowering)
  ad.primitive_jvps[p] = lambda primals, tangents: (
      p.bind(*primals), ad.instantiate_zeros(tangents[0]) * jnp.cos(primals[0]) * primals[1]
      + jnp.sin(primals[0]) * ad.instantiate_zeros(tangents[1]))
  return p


@pytest.mark.parametrize("with_bindings", [True, False])
def test_jaxpr_subcomp_in_a_lowering_rule(with_bindings):
  p = _sin_mul_primitive(f"sin_mul_{with_bindings}", with_bindings)
  want = np.sin(X) * Y
  np.testing.assert_allclose(p.bind(X, Y), want, rtol=1e-6)            # eager
  np.testing.assert_allclose(xjax.jit(p.bind)(X, Y), want, rtol=1e-6)
  f = lambda x, y: p.bind(x, y).sum()
  gx, gy = xjax.grad(f, argnums=(0, 1))(X, Y)
  np.testing.assert_allclose(gx, np.cos(X) * Y, rtol=1e-6)
  np.testing.assert_allclose(gy, np.sin(X), rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(xjax.grad(f))(X, Y), np.cos(X) * Y, rtol=1e-6)
  text = xjax.jit(lambda x, y: p.bind(p.bind(x, y), y)).lower(X, Y).as_text()
  assert text.count('"stablehlo.sine"') == 2 and text.count('"stablehlo.multiply"') == 2
  assert text.count('"stablehlo.add"') == (2 if with_bindings else 0)


def test_jaxpr_subcomp_of_a_jaxpr_with_calls_consts_and_effects():
  # the sub-jaxpr calls a jitted function (a private function of the module), closes over
  # an array and prints: each module that uses the rule gets its own function and callback
  c = np.array([1., 10., 100.], np.float32)
  inner = xjax.jit(lambda a: jnp.cos(a) + c)
  printed = []
  sub = xjax.make_jaxpr(lambda a: (xjax.debug.callback(lambda v: printed.append(v), a),
                                   inner(a) * 2)[1])(X)
  p = core.Primitive("square_then_sub")
  p.def_abstract_eval(lambda x: x)

  def lowering(ctx, x):
    sq = hlo.MulOp(x, x).result
    return mlir.jaxpr_subcomp(ctx.module_context, sub.jaxpr, None, ctx.tokens_in,
                              sub.consts, sq)[0]

  mlir.register_lowering(p, lowering)
  f = xjax.jit(lambda x: p.bind(x) + p.bind(x + 1))
  want = (np.cos(X * X) + c) * 2 + (np.cos((X + 1) ** 2) + c) * 2
  np.testing.assert_allclose(f(X), want, rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(p.bind)(X), (np.cos(X * X) + c) * 2, rtol=1e-6)
  xjax.effects_barrier()
  np.testing.assert_allclose(np.array(printed), [X * X, (X + 1) ** 2, X * X], rtol=1e-6)


def test_lower_jaxpr_to_fun_in_a_rule_called_twice():
  expm1_twice = xjax.make_jaxpr(lambda a: xjax.jit(lambda b: jnp.exp(b) - 1)(a) * 2)(X)
  p = core.Primitive("calls_a_function")
  p.def_abstract_eval(lambda x: x)

  def lowering(ctx, x):
    assert isinstance(ctx.module_context.module.body, ir.Block)
    fn = mlir.lower_jaxpr_to_fun(ctx.module_context, "expm1_twice", expm1_twice, [],
                                 num_const_args=0, in_avals=expm1_twice.in_avals)
    assert isinstance(fn, func.FuncOp) and fn.name.value in ctx.module_context.symbol_table
    return func.CallOp(fn, [func.CallOp(fn, [x]).result]).results

  mlir.register_lowering(p, lowering)
  g = lambda v: (np.exp(v) - 1) * 2
  f = xjax.jit(lambda x: p.bind(x) + p.bind(x * 2))
  np.testing.assert_allclose(f(X), g(g(X)) + g(g(2 * X)), rtol=1e-6)
  np.testing.assert_allclose(p.bind(X), g(g(X)), rtol=1e-6)
  text = f.lower(X).as_text()
  assert text.count("func.func") == 4   # main, the jitted lambda, one function per rule run


def test_lower_jaxpr_to_fun_into_a_module_of_ones_own():
  inner = xjax.jit(lambda a: jnp.cos(a) * 3)
  closed = xjax.make_jaxpr(lambda a, b: inner(a) + b + np.float32(0.5))(X, Y)
  with mlir.make_ir_context() as context, ir.Location.unknown():
    module = ir.Module.create()
    mctx = mlir.ModuleContext(module=module, context=context)
    helper = mlir.lower_jaxpr_to_fun(mctx, "helper", closed, [], num_const_args=0,
                                     in_avals=closed.in_avals)
    main = mlir.lower_jaxpr_to_fun(mctx, "ignored", closed, [], main_function=True,
                                   num_const_args=0, in_avals=closed.in_avals)
    assert (helper.name.value, main.name.value) == ("helper", "main")
    assert module.operation.verify()
    names = [ir.StringAttr(op.attributes["sym_name"]).value for op in module.body.operations]
    visibility = [ir.StringAttr(op.attributes["sym_visibility"]).value
                  for op in module.body.operations]
  assert len(names) == len(set(names)) == 4    # both brought their own jitted lambda
  assert visibility.count("public") == 1 and visibility[names.index("main")] == "public"
  text = mlir.module_to_string(module)
  assert "loc(" not in text and text.count("stablehlo.cosine") == 2


def test_lower_jaxpr_to_module_string_bytecode_and_reparse():
  closed = xjax.make_jaxpr(lambda x, y: jnp.sin(x) * y + np.float32(1.5))(X, Y)
  res = mlir.lower_jaxpr_to_module(
      "jit_sin_mul", closed, num_const_args=0, in_avals=closed.in_avals, ordered_effects=[],
      platforms=["cpu"], backend=None, axis_context=mlir.ShardingContext(1),
      donated_args=[False, True], lowering_parameters=mlir.LoweringParameters())
  assert isinstance(res, mlir.LoweringResult) and isinstance(res.module, ir.Module)
  assert res.host_callbacks == [] and res.shape_poly_state.dim_vars == ()
  text = mlir.module_to_string(res.module)
  assert text.startswith("module @jit_sin_mul")
  for op in ("stablehlo.sine", "stablehlo.multiply", "stablehlo.add", "tf.aliasing_output = 0"):
    assert op in text
  again = ir.Module.parse(text, mlir.make_ir_context())
  assert mlir.module_to_string(again) == text
  data = mlir.module_to_bytecode(res.module)
  assert isinstance(data, bytes) and data[:4] == b"ML\xefR"   # MLIR's bytecode magic
  assert mlir.module_to_string(ir.Module.parse(data, res.module.context)) == text
  # the module compiles and computes the jaxpr (consts as parameters this time)
  with_consts = xjax.make_jaxpr(lambda x: x * np.arange(3, dtype=np.float32))(X)
  res2 = mlir.lower_jaxpr_to_module("m", with_consts, num_const_args=1)
  assert "%arg1" in mlir.module_to_string(res2.module)
  out = xjax.jit(lambda x: jnp.sin(x) * Y + 1.5)(X)
  np.testing.assert_allclose(out, np.sin(X) * Y + 1.5, rtol=1e-6)


def test_core_call_lowering():
  body = xjax.make_jaxpr(lambda a: jnp.exp(a) - 1)(X)
  call_p = core.Primitive("my_call")
  call_p.multiple_results = True
  call_p.def_abstract_eval(lambda *avals, call_jaxpr: call_jaxpr.out_avals)
  mlir.register_lowering(call_p, lambda ctx, *args, call_jaxpr: mlir.core_call_lowering(
      ctx, *args, name="my_call", call_jaxpr=call_jaxpr))
  f = xjax.jit(lambda a: call_p.bind(a, call_jaxpr=body)[0] * 2)
  np.testing.assert_allclose(f(X), np.expm1(X) * 2, rtol=1e-6)
  assert "func.func private @my_call" in f.lower(X).as_text()


def test_merge_mlir_modules():
  text = mlir.module_to_string(mlir.lower_jaxpr_to_module("m", SIN_MUL).module)
  with mlir.make_ir_context(), ir.Location.unknown():
    dst = ir.Module.parse(text)
    assert mlir.merge_mlir_modules(dst, "other", ir.Module.parse(text)) == "other"
    assert mlir.merge_mlir_modules(dst, "other", ir.Module.parse(text)) == "other_0"
    assert dst.operation.verify()
    ops = list(dst.body.operations)
    assert [ir.StringAttr(o.attributes["sym_name"]).value for o in ops] == [
        "main", "other", "other_0"]
    assert [ir.StringAttr(o.attributes["sym_visibility"]).value for o in ops] == [
        "public", "private", "private"]
  with pytest.raises(ValueError, match="different MLIR contexts"):
    mlir.merge_mlir_modules(ir.Module.parse(text, mlir.make_ir_context()), "x",
                            ir.Module.parse(text, mlir.make_ir_context()))


class _Scaled:
  """A user type xjax takes as an array: its handler lowers it as ten times its data."""

  def __init__(self, v):
    self.v = np.asarray(v, np.float32)


class _Doubled:
  """A scalar user type whose handler builds with the MLIR bindings: twice its value."""

  def __init__(self, v):
    self.v = np.float32(v)


def test_register_constant_handler_for_closed_over_values():
  xcore.pytype_aval_mappings[_Scaled] = lambda c: xcore.ShapedArray(c.v.shape, c.v.dtype)
  xcore.pytype_aval_mappings[_Doubled] = lambda c: xcore.ShapedArray((), np.float32)
  seen = []

  def scaled(c, aval):
    seen.append(aval)
    return mlir.ir_constant(c.v * 10)

  def doubled(c, aval):
    one = hlo.ConstantOp(ir.DenseElementsAttr.get(np.array(c.v, np.float32))).result
    return hlo.AddOp(one, one).result

  mlir.register_constant_handler(_Scaled, scaled)
  mlir.register_constant_handler(_Doubled, doubled)
  c = _Scaled([1., 2., 3.])
  f = xjax.jit(lambda x: lax.sin_p.bind(c, accuracy=None) + x)
  # the reference JAX 0.10.2 gives these (sin of 10, 20, 30, plus one)
  np.testing.assert_allclose(f(np.ones(3, np.float32)),
                             [0.45597887, 1.9129453, 0.01196837], rtol=1e-6)
  assert seen == [xcore.ShapedArray((3,), np.float32)]
  d = _Doubled(2.5)
  assert xjax.jit(lambda x: lax.mul_p.bind(x, d))(np.float32(2)) == 10.

  p = core.Primitive("adds_a_scaled_constant")
  p.def_abstract_eval(lambda x: x)
  mlir.register_lowering(p, lambda ctx, x: [hlo.AddOp(x, mlir.ir_constant(c)).result])
  np.testing.assert_allclose(xjax.jit(p.bind)(Y), Y + [10., 20., 30.])

  mlir.register_constant_handler(_Doubled, lambda c, aval: (mlir.ir_constant(c.v),) * 2)
  q = core.Primitive("two_value_constant")
  q.def_abstract_eval(lambda x: x)
  mlir.register_lowering(q, lambda ctx, x: [hlo.AddOp(x, mlir.ir_constant(d)).result])
  with pytest.raises(ValueError, match="single ir.Value"):
    xjax.jit(q.bind)(1.)


def test_ir_attribute():
  # the attributes JAX 0.10.2 makes of the same values
  cases = [(1, "1 : i64"), (2.5, "2.500000e+00 : f64"), (True, "true"),
           (np.int32(3), "3 : i32"), (np.float32(1.5), "1.500000e+00 : f32"),
           (np.uint8(7), "7 : ui8"), (np.bool_(False), "false"),
           (np.float16(2), "2.000000e+00 : f16"),
           (np.array([1, 2, 3], np.int32), "dense<[1, 2, 3]> : tensor<3xi32>"),
           (np.arange(6, dtype=np.float32).reshape(2, 3),
            "dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00], "
            "[3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>"),
           (np.array(5, np.int64), "dense<5> : tensor<i64>"),
           (np.array([True, False]), "dense<[true, false]> : tensor<2xi1>"),
           (np.dtype(np.float32), "f32"), ("hi", '"hi"'), (b"by", '"by"'),
           ({"a": 1, "b": [1, 2.0]}, "{a = 1 : i64, b = [1, 2.000000e+00]}"),
           ((1, "x"), '[1, "x"]'), ([], "[]")]
  with mlir.make_ir_context(), ir.Location.unknown():
    for value, want in cases:
      attr = mlir.ir_attribute(value)
      assert isinstance(attr, ir.Attribute) and str(attr) == want, (value, str(attr))
    assert mlir.ir_attribute(ir.StringAttr.get("q")) == ir.StringAttr.get("q")
    assert str(mlir.ir_attribute(ir.F32Type.get())) == "f32"
    with pytest.raises(TypeError, match="Unsupported scalar attribute type"):
      mlir.ir_attribute(1 + 2j)
    with pytest.raises(TypeError, match="No attribute handler defined for type"):
      mlir.ir_attribute(object())
    dense = mlir.dense_int_elements([1, 2, 3])
    assert isinstance(dense, ir.DenseElementsAttr)
    assert str(dense) == "dense<[1, 2, 3]> : tensor<3xi64>"
    assert str(mlir.dense_int_elements([])) == "dense<> : tensor<0xi64>"
    assert str(mlir.token_type()) == "!stablehlo.token"
    f32 = xcore.ShapedArray((2,), np.float32)
    assert str(mlir.aval_to_ir_type(None, f32)) == "tensor<2xf32>"    # JAX's (ctx, aval)
    assert str(mlir.ir_type_handlers[xcore.ShapedArray](f32)) == "tensor<2xf32>"


def test_shape_tensor_token_type_and_tokens_in_rules():
  p = core.Primitive("shape_and_seven")
  p.def_abstract_eval(lambda x: xcore.ShapedArray((2,), np.int32))

  def with_bindings(ctx, x):
    assert isinstance(mlir.token_type(), hlo.TokenType)
    tokens = mlir.TokenSet.create(["an effect"])
    assert str(tokens.get("an effect").type) == "!stablehlo.token"
    return [mlir.shape_tensor(ctx.module_context, [hlo.GetDimensionSizeOp(x, 0).result, 7])]

  mlir.register_lowering(p, with_bindings)
  np.testing.assert_array_equal(xjax.jit(p.bind)(np.ones((5, 2))), [5, 7])
  q = core.Primitive("constant_shape")
  q.def_abstract_eval(lambda x: xcore.ShapedArray((2,), np.int32))

  def on_text(ctx, x):
    assert mlir.token_type() == "!stablehlo.token"
    return [mlir.shape_tensor(ctx.module_context, [3, 4])]

  mlir.register_lowering(q, on_text)
  np.testing.assert_array_equal(xjax.jit(q.bind)(np.ones((5, 2))), [3, 4])


def test_ir_tree_registry():
  with mlir.make_ir_context():
    f32, f16 = ir.F32Type.get(), ir.F16Type.get()
    leaves, tree = mlir.ir_tree_registry.flatten([f32, (f32, f16)])
    assert leaves == [f32, f32, f16] and repr(tree) == "PyTreeDef([*, (*, *)])"
    assert tree.unflatten([1, 2, 3]) == [1, (2, 3)]
    assert mlir.ir_tree_registry.flatten(None)[0] == [None]
    assert mlir.ir_tree_registry.flatten({"a": 1})[0] == [{"a": 1}]
    with pytest.raises(ValueError, match="expected 3, got 2"):
      tree.unflatten([1, 2])
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter("always")
      assert mlir.unflatten_ir_values_like_types([1, 2, 3], [f32, (f32, f16)]) == [1, (2, 3)]
    assert "deprecated" in str(caught[0].message)


def test_records_and_constants():
  assert (mlir.DEVICE_TO_DEVICE_TYPE, mlir.SEND_TO_HOST_TYPE, mlir.RECV_FROM_HOST_TYPE) == (
      1, 2, 3)
  assert mlir.LoweringParameters() == mlir.LoweringParameters(
      override_lowering_rules=None, global_constant_computation=False, for_export=False,
      export_ignore_forward_compatibility=False, hoist_constants_as_args=False)
  state = mlir.ShapePolyLoweringState((), ("cpu", "cuda"))
  assert state.dim_vars == ("_platform_index",) and state.has_platform_index_argument
  assert not mlir.ShapePolyLoweringState((), ("cpu",)).uses_dim_vars
  with pytest.raises(ValueError, match="2 devices assigned"):
    mlir.ShardingContext(1, device_assignment=tuple(xjax.devices()) * 2)
  tokens = mlir.TokenSet({"a": 1, "b": 2})
  assert tokens.items() == (("a", 1), ("b", 2)) and tokens.effects() == {"a", "b"}
  assert tokens.update_tokens(mlir.TokenSet({"b": 3})).items() == (("a", 1), ("b", 3))
  assert len(tokens.subset(["b"])) == 1
  assert mlir.lowerable_effects.contains(core.Effect())
  assert mlir.Mesh is xjax.sharding.Mesh and mlir.Value is ir.Value and mlir.Token is ir.Value
  assert mlir.SPMDAxisContext(None).manual_axes == frozenset()


def test_extend_mlir_modules_are_jaxlibs_bindings():
  import jaxlib.mlir.ir
  import jaxlib.mlir.dialects.stablehlo
  assert ir.Module is jaxlib.mlir.ir.Module and hlo.AddOp is jaxlib.mlir.dialects.stablehlo.AddOp
  assert passmanager.PassManager is __import__("jaxlib.mlir.passmanager",
                                               fromlist=["x"]).PassManager
  text = xjax.jit(lambda x: jnp.sin(x) * 2).lower(X).as_text()
  target = hlo.get_version_from_compatibility_requirement(
      hlo.StablehloCompatibilityRequirement.WEEK_4)
  data = emlir.serialize_portable_artifact(text, target)
  back = emlir.deserialize_portable_artifact(data, mlir.make_ir_context())
  assert isinstance(back, ir.Module) and "stablehlo.sine" in str(back)
  proto = xjax.jit(lambda x: jnp.sin(x) * 2).lower(X).compiler_ir(
      "hlo").as_serialized_hlo_module_proto()
  with mlir.make_ir_context():
    assert "stablehlo.sine" in str(ir.Module.parse(emlir.hlo_to_stablehlo(proto)))
    refined = emlir.refine_polymorphic_shapes(mlir.module_to_bytecode(ir.Module.parse(text)))
    assert "stablehlo.sine" in str(ir.Module.parse(refined))
  assert emlir.lower_with_sharding_in_types(None, "op", None) == "op"
  with mlir.make_ir_context(), ir.Location.unknown():   # a pass pipeline runs on a module
    module = ir.Module.parse(text)
    passmanager.PassManager.parse("builtin.module(canonicalize)").run(module.operation)


def test_facts_about_jaxlibs_bindings():
  # operations move between modules of one context (detach, then insert at a point), a
  # value's uses are redirected to another value, operands are set in place; with no
  # context entered, the current one is None
  with mlir.make_ir_context(), ir.Location.unknown():
    assert ir.Context.current is not None
    src = ir.Module.parse("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
                          "  %0 = stablehlo.sine %a : tensor<f32>\n  return %0 : tensor<f32>\n}")
    dst = ir.Module.parse("func.func @g(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {\n"
                          "  return %a : tensor<f32>\n}\n"
                          "func.func @h(%c: tensor<f32>) -> tensor<f32> {\n"
                          "  return %c : tensor<f32>\n}")
    f, = src.body.operations
    g, _ = dst.body.operations
    sine = f.regions[0].blocks[0].operations[0]
    f.regions[0].blocks[0].arguments[0].replace_all_uses_with(
        g.regions[0].blocks[0].arguments[1])
    sine.detach_from_parent()
    ret = g.regions[0].blocks[0].operations[0]
    ir.InsertionPoint(ret).insert(sine)
    ret.operands[0] = sine.result
    assert dst.operation.verify()
    assert "stablehlo.sine %arg1" in str(dst)
    assert isinstance(sine.results, ir.OpResultList)
    # a function printed alone, in generic form, declares its arguments' names on its
    # block's label line; with another function after it in its module, they are not
    # always %arg0, ... (the bridge reads them from that line)
    t = ir.Type.parse("tensor<f32>")
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
      fns = [func.FuncOp(name, ([t], [t])) for name in ("rule", "added")]
    for fn in fns:
      with ir.InsertionPoint(fn.add_entry_block()):
        func.ReturnOp([fn.entry_block.arguments[0]])
    lines = fns[0].operation.get_asm(print_generic_op_form=True).split("\n")
    declared = re.findall(r"(%[\w$.\-]+):", lines[1])
    assert lines[1].startswith("^bb0(") and len(declared) == 1
    assert lines[2] == f'  "func.return"({declared[0]}) : (tensor<f32>) -> ()'
  assert ir.Context.current is None


def test_bad_input():
  closed = xjax.make_jaxpr(lambda x: x * np.arange(3, dtype=np.float32))(X)
  with pytest.raises(ValueError, match="num_const_args=2; the jaxpr has 1 consts"):
    mlir.lower_jaxpr_to_module("m", closed, num_const_args=2)
  with pytest.raises(NotImplementedError, match="one program per device"):
    mlir.lower_jaxpr_to_module("m", closed, num_partitions=2)
  with pytest.raises(ValueError, match="num_const_args=3"):
    mlir.lower_jaxpr_to_fun(mlir.ModuleContext(), "f", closed, [], num_const_args=3)
  with pytest.raises(RuntimeError, match="call it from a lowering rule, or under an MLIR"):
    mlir.jaxpr_subcomp(mlir.ModuleContext(), SIN_MUL.jaxpr, None, None, [], "%0", "%1")


def test_lower_fun_calling_a_jitted_function_in_one_module_after_another():
  # the second use in a module calls the function the first made: what it emitted belongs
  # to that module and is not reused in the next
  inner = xjax.jit(lambda x: jnp.sin(x) * 2)
  p = core.Primitive("calls_a_jitted_function")
  p.def_abstract_eval(lambda x: x)
  mlir.register_lowering(p, mlir.lower_fun(lambda x: inner(x) + 1, multiple_results=False))
  once = np.sin(X) * 2 + 1
  np.testing.assert_allclose(xjax.jit(lambda x: p.bind(p.bind(x)))(X), np.sin(once) * 2 + 1,
                             rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(lambda x: p.bind(x) * 3)(X), once * 3, rtol=1e-6)
