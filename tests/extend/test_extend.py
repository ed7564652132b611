"""Primitives defined the JAX way: ``xjax.extend.core.Primitive`` with rules written into the
``xjax.interpreters`` registries, which are views onto xjax's own rule slots."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.core import ShapedArray
from xjax.extend import core
from xjax.interpreters import ad, batching, mlir, partial_eval

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"  # programs written against jax


# -- "fused multiply-add" written as a user would, after JAX's primitives tutorial --------

fma_p = core.Primitive("fused_mul_add")


def fma(a, b, c):
  return fma_p.bind(a, b, c)


@fma_p.def_impl
def _fma_impl(a, b, c):  # eager evaluation with NumPy, as the tutorial does
  return np.add(np.multiply(a, b), c)


@fma_p.def_abstract_eval
def _fma_abstract_eval(a, b, c):
  assert a.shape == b.shape == c.shape
  return ShapedArray(a.shape, a.dtype)


mlir.register_lowering(fma_p, mlir.lower_fun(lambda a, b, c: a * b + c,
                                             multiple_results=False))


def _fma_jvp(primals, tangents):
  a, b, c = primals
  ta, tb, tc = (lax.full_like(a, 0) if type(t) is ad.Zero else t for t in tangents)
  # d(a*b + c) = ta*b + (a*tb + tc), each product again an fma
  return fma(a, b, c), fma(ta, b, fma(a, tb, tc))


ad.primitive_jvps[fma_p] = _fma_jvp


def _fma_transpose(ct, a, b, c):
  # linear in exactly one of a, b (the other is a known primal) and in c
  if ad.is_undefined_primal(a):
    ct_a = ad.Zero(a.aval) if type(ct) is ad.Zero else fma(ct, b, lax.full_like(b, 0))
    return ct_a, None, ct
  ct_b = ad.Zero(b.aval) if type(ct) is ad.Zero else fma(a, ct, lax.full_like(a, 0))
  return None, ct_b, ct


ad.primitive_transposes[fma_p] = _fma_transpose


def _fma_batch(args, dims):
  size = next(x.shape[d] for x, d in zip(args, dims) if d is not None)
  return fma(*(batching.bdim_at_front(x, d, size) for x, d in zip(args, dims))), 0


batching.primitive_batchers[fma_p] = _fma_batch

A = np.array([1., 2., 3.], np.float32)
B = np.array([4., -5., 6.], np.float32)
C = np.array([.5, .25, -1.], np.float32)


def test_eager_runs_the_impl():
  out = fma(A, B, C)
  np.testing.assert_allclose(out, A * B + C)
  assert fma(2., 3., 10.) == 16.


def test_jit_lowers_through_lower_fun():
  out = xjax.jit(fma)(A, B, C)
  assert isinstance(out, xjax.Array)
  np.testing.assert_allclose(out, A * B + C)
  text = xjax.jit(fma).lower(A, B, C).as_text()
  assert "stablehlo.multiply" in text and "stablehlo.add" in text


def test_prints_in_jaxprs():
  text = str(xjax.make_jaxpr(fma)(A, B, C))
  assert "d:f32[3] = fused_mul_add a b c" in text


def test_jvp():
  ta, tb, tc = np.float32(1), np.float32(2), np.float32(3)
  out, t = xjax.jvp(fma, (A, B, C), (A * 0 + ta, B * 0 + tb, C * 0 + tc))
  np.testing.assert_allclose(out, A * B + C)
  np.testing.assert_allclose(t, ta * B + A * tb + tc)


def test_grad_through_the_transpose():
  f = lambda a, b, c: fma(a, b, c).sum()
  ga, gb, gc = xjax.grad(f, argnums=(0, 1, 2))(A, B, C)
  np.testing.assert_allclose(ga, B)
  np.testing.assert_allclose(gb, A)
  np.testing.assert_allclose(gc, np.ones(3))
  square_plus = lambda x: fma(x, x, 2.)
  assert xjax.grad(square_plus)(3.) == 6.
  assert xjax.jit(xjax.grad(square_plus))(3.) == 6.
  assert xjax.grad(xjax.grad(square_plus))(3.) == 2.


def test_vmap_with_unbatched_operands():
  out = xjax.vmap(fma, in_axes=(0, None, 1))(np.stack([A, B]), C, np.stack([A, C], 1))
  np.testing.assert_allclose(out, np.stack([A * C + A, B * C + C]))


def test_in_a_scan_body_and_its_gradient():
  def run(c0):
    return lax.scan(lambda c, x: (fma(c, x, 1.), c), c0, jnp.arange(1., 4.))

  last, seen = run(1.)
  np.testing.assert_allclose(seen, [1., 2., 5.])
  assert last == 16.   # ((1*1 + 1)*2 + 1)*3 + 1
  assert xjax.grad(lambda c: run(c)[0])(1.) == 6.   # 1 * 2 * 3
  assert xjax.jit(lambda c: run(c)[0])(1.) == 16.


# -- a primitive with several results --------------------------------------------------

divmod_p = core.Primitive("float_divmod")
divmod_p.multiple_results = True
divmod_p.def_impl(lambda x, y: (np.floor_divide(x, y), np.mod(x, y)))
divmod_p.def_abstract_eval(lambda x, y: [ShapedArray(x.shape, x.dtype)] * 2)
mlir.register_lowering(divmod_p, mlir.lower_fun(
    lambda x, y: (jnp.floor_divide(x, y), jnp.mod(x, y)), multiple_results=True))
batching.defvectorized(divmod_p)


def _divmod_jvp(primals, tangents):
  x, y = primals
  tx, ty = (ad.instantiate_zeros(t) for t in tangents)
  q, r = divmod_p.bind(x, y)
  return (q, r), (ad.Zero.from_primal_value(q), tx - q * ty)


ad.primitive_jvps[divmod_p] = _divmod_jvp

X = np.array([7., -7., 5.5], np.float32)
Y = np.array([2., 2., 1.5], np.float32)


def test_multiple_results_everywhere():
  expect = (np.floor_divide(X, Y), np.mod(X, Y))
  for f in (divmod_p.bind, xjax.jit(divmod_p.bind),
            xjax.vmap(divmod_p.bind)):
    q, r = f(X, Y)
    np.testing.assert_allclose(q, expect[0])
    np.testing.assert_allclose(r, expect[1])
  grad_r = xjax.grad(lambda x: divmod_p.bind(x, Y)[1].sum())(X)
  np.testing.assert_allclose(grad_r, np.ones(3))
  assert "c:f32[3] d:f32[3] = float_divmod a b" in str(xjax.make_jaxpr(divmod_p.bind)(X, Y))


# -- the registries are views onto xjax's own rules ------------------------------------

def test_registries_round_trip_with_xjax_primitives():
  assert ad.primitive_jvps[lax.sin_p] is lax.sin_p.jvp
  assert ad.primitive_transposes[lax.neg_p] is lax.neg_p.transpose
  assert lax.sin_p in batching.primitive_batchers
  assert lax.sin_p not in ad.primitive_transposes
  assert batching.fancy_primitive_batchers[lax.sin_p] is lax.sin_p.batch
  # xjax's batching rule, read in JAX's signature, batches
  out, dim = batching.primitive_batchers[lax.sin_p]((np.ones((2, 3), np.float32),), (1,))
  np.testing.assert_allclose(out, np.sin(np.ones((2, 3))))
  assert dim == 1
  # rules written in JAX's signature read back as themselves and are the ones xjax uses
  assert ad.primitive_jvps[fma_p] is _fma_jvp and fma_p.jvp is _fma_jvp
  assert batching.primitive_batchers[fma_p] is _fma_batch and fma_p.batch is not None
  with pytest.raises(KeyError):
    ad.primitive_transposes[divmod_p]
  assert ad.get_primitive_transpose(fma_p) is _fma_transpose
  with pytest.raises(NotImplementedError, match="Transpose rule .* 'float_divmod'"):
    ad.get_primitive_transpose(divmod_p)


def test_deflinear_and_defbroadcasting():
  double_p = core.Primitive("double")
  double_p.def_abstract_eval(lambda x: x)
  mlir.register_lowering(double_p, mlir.lower_fun(lambda x: x + x, multiple_results=False))
  ad.deflinear(double_p, lambda ct: [double_p.bind(ct)])
  batching.defvectorized(double_p)
  assert xjax.grad(lambda x: double_p.bind(x) * x)(3.) == 12.
  np.testing.assert_allclose(xjax.vmap(double_p.bind)(A), 2 * A)

  hyp_p = core.Primitive("hypot2")
  hyp_p.def_abstract_eval(lambda x, y: x)
  mlir.register_lowering(hyp_p, mlir.lower_fun(lambda x, y: x * x + y * y,
                                               multiple_results=False))
  ad.defjvp(hyp_p, lambda g, x, y: 2 * x * g, lambda g, x, y: 2 * y * g)
  batching.defbroadcasting(hyp_p)
  np.testing.assert_allclose(xjax.vmap(hyp_p.bind, (0, None))(np.stack([A, B]), C),
                             np.stack([A * A + C * C, B * B + C * C]))
  assert xjax.grad(hyp_p.bind, argnums=1)(3., 4.) == 8.


def test_lower_fun_rules_nested_inside_each_other():
  # equinox's primitives lower through lower_fun and bind each other: the inner rule's
  # emitted arguments must not retype the outer rule's (a diffrax solve under grad).
  pick_p = core.Primitive("pick_row")
  pick_p.def_abstract_eval(lambda pred, x, y: y)
  mlir.register_lowering(pick_p, mlir.lower_fun(lambda pred, x, y: lax.select(
      lax.broadcast(pred, y.shape), x, y), multiple_results=False))
  outer_p = core.Primitive("update_row")
  outer_p.def_abstract_eval(lambda pred, table, row, i: table)

  def outer(pred, table, row, i):
    new = pick_p.bind(pred, row, table[i])
    return table.at[i].set(new * 2) + table
  mlir.register_lowering(outer_p, mlir.lower_fun(outer, multiple_results=False))
  table, row = np.arange(14, dtype=np.float32).reshape(7, 2), np.array([10, 20], np.float32)
  got = xjax.jit(outer_p.bind)(True, table, row, 3)
  want = table + table
  want[3] = table[3] + 2 * row
  np.testing.assert_array_equal(got, want)


def test_axis_primitive_batchers_as_equinox_registers_them():
  def impl(x, y, *, k):
    return [x * k + y, x - y]

  pair_p = core.Primitive("scaled_pair")
  pair_p.multiple_results = True
  pair_p.def_impl(impl)
  pair_p.def_abstract_eval(lambda x, y, *, k: [ShapedArray(x.shape, x.dtype)] * 2)
  mlir.register_lowering(pair_p, mlir.lower_fun(impl, multiple_results=True))
  seen = []

  def batch_rule(axis_size, axis_name, trace_type, inputs, batch_axes, **params):
    seen.append((axis_size, axis_name))
    inputs = [batching.bdim_at_front(x, d, axis_size) for x, d in zip(inputs, batch_axes)]
    return pair_p.bind(*inputs, **params), (0, 0)

  batching.axis_primitive_batchers[pair_p] = batch_rule
  assert batching.axis_primitive_batchers[pair_p] is batch_rule
  x = np.arange(6., dtype=np.float32).reshape(2, 3)
  a, b = xjax.vmap(lambda x, y: pair_p.bind(x, y, k=2.), (1, None), axis_name="i")(x, C[:2])
  np.testing.assert_allclose(a, x.T * 2 + C[:2])
  np.testing.assert_allclose(b, x.T - C[:2])
  assert seen == [(3, "i")]
  a, b = xjax.jit(lambda x: pair_p.bind(x, x, k=3.))(A)
  np.testing.assert_allclose(a, A * 4)


def test_defreducer():
  sum_p = core.Primitive("my_sum")
  sum_p.def_abstract_eval(lambda x, *, axes: ShapedArray(
      tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype))
  mlir.register_lowering(sum_p, mlir.lower_fun(lambda x, *, axes: x.sum(axes),
                                               multiple_results=False))
  batching.defreducer(sum_p)
  x = np.arange(24., dtype=np.float32).reshape(2, 3, 4)
  out = xjax.vmap(lambda x: sum_p.bind(x, axes=(1,)), in_axes=1)(x)
  np.testing.assert_allclose(out, x.sum(2).T)


def test_extend_core_helpers_and_random():
  from xjax.extend import random as xrandom
  aval = ShapedArray((2, 3), np.float32)
  assert core.mapped_aval(3, 1, aval) == ShapedArray((2,), np.float32)
  assert core.unmapped_aval(5, 0, aval) == ShapedArray((5, 2, 3), np.float32)
  assert core.primal_dtype_to_tangent_dtype(np.int32) == xjax.dtypes.float0
  assert core.concrete_or_error(int, jnp.float32(3.5)) == 3
  with pytest.raises(xjax.errors.ConcretizationTypeError):
    xjax.jit(lambda x: core.concrete_or_error(int, x, "the count"))(1.)
  jaxpr = xjax.make_jaxpr(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(1.).jaxpr
  assert len(list(core.subjaxprs(jaxpr))) == 2
  assert core.primitives.sin_p is lax.sin_p and core.primitives.cond_p is lax.cond_p
  assert not core.unsafe_am_i_under_a_jit_DO_NOT_USE()
  assert xjax.jit(lambda x: x + core.unsafe_am_i_under_a_jit_DO_NOT_USE())(0) == 1
  assert xjax.grad(lambda x: x * (1 + core.unsafe_am_i_under_a_jit_DO_NOT_USE()))(1.) == 1.
  assert xjax.vmap(lambda x: x + core.unsafe_am_i_under_a_vmap_DO_NOT_USE())(A).tolist() == [
      2., 3., 4.]
  names = []
  xjax.vmap(lambda x: names.append(core.unsafe_get_axis_names_DO_NOT_USE()) or x,
            axis_name="rows")(A)
  assert names == [["rows"]]
  outside = core.get_opaque_trace_state()
  assert outside == core.get_opaque_trace_state()
  assert xjax.jit(lambda x: (core.get_opaque_trace_state() != outside) + x)(0) == 1
  # values from JAX 0.10.2's jax.extend.random.threefry_2x32
  keys = (np.uint32(1), np.uint32(2))
  np.testing.assert_array_equal(
      xrandom.threefry_2x32(keys, np.arange(5, dtype=np.uint32)),
      [2052595727, 3504730591, 2527474599, 1880214352, 1914734168])
  np.testing.assert_array_equal(
      xrandom.threefry_2x32(keys, np.arange(6, dtype=np.uint32).reshape(2, 3)),
      [[2052595727, 3504730591, 1038787879], [1880214352, 1914734168, 1027009547]])
  with pytest.raises(TypeError, match="uint32"):
    xrandom.threefry_2x32((1, 2), np.arange(4, dtype=np.uint32))
  from xjax.extend import backend
  client = backend.get_backend()
  assert backend.backends()[client.platform] is client
  assert backend.get_default_device() == xjax.devices()[0]
  key = xrandom.seed_with_impl(xrandom.threefry_prng_impl, 5)
  assert str(key.dtype) == "key<fry>" and xjax.random.key_data(key).tolist() == [0, 5]
  keys = xrandom.random_seed(jnp.arange(2), xrandom.threefry_prng_impl)
  assert keys.shape == (2,) and xjax.random.key_data(keys).tolist() == [[0, 0], [0, 1]]


def test_define_prng_impl():
  from xjax.extend import random as xrandom
  u = np.uint32

  def seed(s):
    s = lax.convert_element_type(s, np.uint32)
    return jnp.stack([s * u(3) + u(1), s ^ u(0x5A5A)])

  def split(k, shape):
    i = jnp.arange(int(np.prod(shape)), dtype=np.uint32)
    return jnp.stack([k[0] + i * u(7), k[1] * u(5) + i], axis=1).reshape(shape + (2,))

  def bits(k, bit_width, shape):
    i = jnp.arange(int(np.prod(shape)), dtype=np.uint32)
    return (k[0] * u(2654435761) + i * k[1] + u(12345)).reshape(shape)

  def fold_in(k, d):
    return jnp.stack([k[0] ^ d, k[1] + d])

  impl = xrandom.define_prng_impl(key_shape=(2,), seed=seed, split=split, random_bits=bits,
                                  fold_in=fold_in, name="toy", tag="toy")
  key = xjax.random.key(7, impl=impl)
  keys = xjax.random.split(key, 3)
  # the same implementation defined with JAX 0.10.2's jax.extend.random gives these
  assert str(key.dtype) == "key<toy>"
  assert xjax.random.key_data(key).tolist() == [22, 23133]
  assert xjax.random.key_data(keys).tolist() == [[22, 115665], [29, 115666], [36, 115667]]
  assert xjax.random.bits(keys[1], (4,)).tolist() == [3964205382, 3964321048, 3964436714,
                                                      3964552380]
  folded = xjax.vmap(lambda k: xjax.random.fold_in(k, 9))(keys)
  assert xjax.random.key_data(folded).tolist() == [[31, 115674], [20, 115675], [45, 115676]]
  assert xjax.jit(lambda k: xjax.random.bits(xjax.random.split(k, 2)[0], (3,)))(
      key).tolist() == [2563024239, 2563139904, 2563255569]
  np.testing.assert_allclose(xjax.random.uniform(keys[0], (2,)),
                             [0.5967504978179932, 0.5967774391174316])


def test_partial_eval_trace_to_jaxpr_dynamic():
  from xjax.extend import linear_util as lu
  fun = lu.wrap_init(lambda x, y, *, k: [fma(x, y, x) * k], {"k": 2.})
  aval = ShapedArray((3,), np.float32)
  jaxpr, out_avals, consts = partial_eval.trace_to_jaxpr_dynamic(fun, [aval, aval])
  assert out_avals == [aval] and consts == []
  assert [e.primitive for e in jaxpr.eqns] == [fma_p, lax.mul_p]
  np.testing.assert_allclose(core.jaxpr_as_fun(core.ClosedJaxpr(jaxpr, consts))(A, B)[0],
                             (A * B + A) * 2)


def test_partial_eval_trace_to_jaxpr_nounits():
  known, aval = np.float32(3.), ShapedArray((3,), np.float32)

  def f(k, u):
    kk = jnp.sin(jnp.full((3,), k))   # known: computed now
    return [kk, fma(u, kk, u), kk * 2]

  pvals = [partial_eval.PartialVal.known(known), partial_eval.PartialVal.unknown(aval)]
  jaxpr, out_pvals, consts = partial_eval.trace_to_jaxpr_nounits(f, pvals)
  assert [pv.is_known() for pv in out_pvals] == [True, False, True]
  np.testing.assert_allclose(out_pvals[0].get_known(), np.full(3, np.sin(known)))
  assert out_pvals[1].get_aval() == aval
  assert [e.primitive for e in jaxpr.eqns] == [fma_p]
  out = core.jaxpr_as_fun(core.ClosedJaxpr(jaxpr, consts))(A)
  np.testing.assert_allclose(out[0], A * np.sin(known) + A, rtol=1e-6)
  _, out_pvals, _ = partial_eval.trace_to_jaxpr_nounits(f, pvals, instantiate=True)
  assert not any(pv.is_known() for pv in out_pvals)


# -- bad input --------------------------------------------------------------------------

def test_missing_rules_name_the_primitive():
  p = core.Primitive("bare")
  with pytest.raises(NotImplementedError, match="Abstract evaluation for 'bare'"):
    xjax.jit(p.bind)(1.)
  p.def_abstract_eval(lambda x: x)
  with pytest.raises(NotImplementedError, match="MLIR translation rule for primitive 'bare' not found"):
    xjax.jit(p.bind)(1.)
  p.def_impl(lambda x: x)
  with pytest.raises(NotImplementedError, match="Differentiation rule for 'bare'"):
    xjax.grad(p.bind)(1.)
  with pytest.raises(NotImplementedError, match="Batching rule for 'bare'"):
    xjax.vmap(p.bind)(A)
  with pytest.raises(NotImplementedError, match="Transpose rule .* for 'fused_mul_add'"):
    ad.primitive_transposes.pop(fma_p)
    try:
      xjax.grad(lambda x: fma(x, 2., 1.))(1.)
    finally:
      ad.primitive_transposes[fma_p] = _fma_transpose


def test_wrong_shape_rule_result_or_lowering_arity():
  p = core.Primitive("bad_shape_rule")
  p.def_abstract_eval(lambda x: (x.shape, x.dtype))
  with pytest.raises(TypeError, match="'bad_shape_rule' returned .* expected a ShapedArray"):
    xjax.make_jaxpr(p.bind)(1.)
  q = core.Primitive("bad_lowering")
  q.def_abstract_eval(lambda x: x)
  mlir.register_lowering(q, mlir.lower_fun(lambda x: (x, x), multiple_results=True))
  with pytest.raises(ValueError, match="'bad_lowering' returned 2 values; .* gives 1"):
    xjax.jit(q.bind)(1.)
  r = core.Primitive("bad_rule_on_names")
  r.def_abstract_eval(lambda x: x)
  mlir.register_lowering(r, lambda ctx, x: [x, x])
  with pytest.raises(ValueError, match="'bad_rule_on_names' returned 2 values; .* gives 1"):
    xjax.jit(r.bind)(1.)


def test_lowerings_built_with_the_mlir_bindings():
  # facts about jaxlib's bindings this relies on: ops take values or single-result ops as
  # operands, and a reduction's body is a block appended to its region
  from jaxlib.mlir.dialects import stablehlo as hlo
  ir = mlir.ir
  fma2_p = core.Primitive("fma_by_bindings")
  fma2_p.def_abstract_eval(lambda a, b, c: a)
  mlir.register_lowering(fma2_p, lambda ctx, a, b, c: [hlo.AddOp(hlo.MulOp(a, b), c).result])
  f = lambda x: fma2_p.bind(x, x, 1.) + fma2_p.bind(x, 2., x)
  assert xjax.jit(f)(3.) == 19. and fma2_p.bind(3., 3., 1.) == 10.
  text = xjax.jit(f).lower(3.).as_text()
  assert text.count('"stablehlo.multiply"') == 2

  total_p = core.Primitive("total_by_bindings")
  total_p.def_abstract_eval(lambda x: ShapedArray((), x.dtype))

  def total_lowering(ctx, x):
    out_type = mlir.aval_to_ir_type(ctx.avals_out[0])
    assert isinstance(out_type, ir.Type)
    zero = mlir.ir_constant(np.zeros((), ctx.avals_in[0].dtype))
    red = hlo.ReduceOp([out_type], [x], [zero],
                       mlir.dense_int_array(range(len(ctx.avals_in[0].shape))))
    body = red.regions[0].blocks.append(out_type, out_type)
    with ir.InsertionPoint(body):
      hlo.ReturnOp([hlo.AddOp(*body.arguments).result])
    return red.results

  mlir.register_lowering(total_p, total_lowering)
  x = np.arange(12., dtype=np.float32).reshape(3, 4)
  assert xjax.jit(lambda x: total_p.bind(x) * 2)(x) == 132.
  assert total_p.bind(x) == 66.


def test_platform_specific_lowering():
  p = core.Primitive("per_platform")
  p.def_abstract_eval(lambda x: x)
  mlir.register_lowering(p, mlir.lower_fun(lambda x: x + 1, multiple_results=False))
  mlir.register_lowering(p, mlir.lower_fun(lambda x: x + 2, multiple_results=False),
                         platform=xjax.default_backend() if xjax.default_backend() != "gpu"
                         else "cuda")
  mlir.register_lowering(p, mlir.lower_fun(lambda x: x + 3, multiple_results=False),
                         platform="tpu")
  assert xjax.jit(p.bind)(1.) == 3.


# -- a library that defines its primitive at import, written against `jax` ---------------

LIBRARY = (DATA / "library_defining_a_primitive.txt").read_text()

PROGRAM = (DATA / "program_using_that_library.txt").read_text()


def test_library_defining_a_primitive_at_import(tmp_path):
  (tmp_path / "cubelib.py").write_text(LIBRARY)
  (tmp_path / "prog.py").write_text(PROGRAM)
  repo = str(pathlib.Path(__file__).resolve().parents[2])
  env = dict(os.environ, PYTHONPATH=os.pathsep.join([repo, str(tmp_path)]))
  out = subprocess.run([sys.executable, str(tmp_path / "prog.py")], capture_output=True,
                       text=True, env=env, cwd=tmp_path, timeout=300)
  assert out.returncode == 0, out.stderr
  assert out.stdout.split("\n")[:5] == [
      "eager [1.0, 8.0, 27.0]", "jit [1.0, 8.0, 27.0]", "grad [3.0, 12.0, 27.0]",
      "vmap [1.0, 8.0, 27.0]", "same True"]


def test_lower_fun_with_sub_jaxprs_and_effects():
  # a lowering that calls a private function of the module (a jitted inner function) and
  # one that prints: both inline correctly, in every module that uses them
  inner = xjax.jit(lambda x: jnp.sin(x) * 2)
  wrapped_p = core.Primitive("calls_jit")
  wrapped_p.def_abstract_eval(lambda x: x)
  mlir.register_lowering(wrapped_p, mlir.lower_fun(lambda x: inner(x) + 1,
                                                   multiple_results=False))
  once = np.sin(A) * 2 + 1
  np.testing.assert_allclose(xjax.jit(wrapped_p.bind)(A), once, rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(lambda x: wrapped_p.bind(wrapped_p.bind(x)))(A),
                             np.sin(once) * 2 + 1, rtol=1e-6)

  printing_p = core.Primitive("prints")
  printing_p.def_abstract_eval(lambda x: x)
  mlir.register_lowering(printing_p, mlir.lower_fun(
      lambda x: (xjax.debug.print("value {}", x), x * 3)[1], multiple_results=False))
  np.testing.assert_allclose(xjax.jit(lambda x: printing_p.bind(x) + printing_p.bind(x))(A),
                             6 * A)


def test_emit_python_callback_in_a_lowering_rule():
  # as equinox's noinline does: the primitive's compiled form calls back into Python
  host_p = core.Primitive("on_host")
  host_p.def_impl(lambda x: np.cumsum(x))
  host_p.def_abstract_eval(lambda x: x)
  calls = []

  def on_host(x):
    calls.append(x.shape)
    return (np.cumsum(x).astype(x.dtype),)

  def lowering(ctx, x):
    results, token, keepalive = mlir.emit_python_callback(
        ctx, on_host, None, [x], ctx.avals_in, ctx.avals_out, has_side_effect=False)
    ctx.module_context.add_keepalive(keepalive)
    return results

  mlir.register_lowering(host_p, lowering)
  np.testing.assert_allclose(xjax.jit(lambda x: host_p.bind(x) * 2)(A), np.cumsum(A) * 2)
  assert calls == [(3,)]


def test_trace_main_identifies_the_transformation():
  # equinox's filter_jvp: outputs that are tangents of *this* jvp have `_trace.main is main`
  def f(x):
    main = core.find_top_trace((x,)).main
    y = x * 2
    assert isinstance(y, ad.JVPTracer) and y._trace.main is main
    return y
  assert xjax.jvp(f, (1.,), (1.,)) == (2., 2.)


def test_custom_jvp_function_on_tangents_in_a_jvp_rule():
  # lineax's linear_solve_p: the JVP rule applies custom_jvp functions to tangents; in the
  # linear part their bodies are inlined (the rule is not needed there), so grad works
  @xjax.custom_jvp
  def twice(x):
    return x * 2
  twice.defjvp(lambda p, t: (twice(p[0]), twice(t[0])))

  p = core.Primitive("double_it")
  p.def_impl(lambda x: x * 2)
  p.def_abstract_eval(lambda x: x)
  mlir.register_lowering(p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
  ad.primitive_jvps[p] = lambda primals, tangents: (
      p.bind(*primals), twice(ad.instantiate_zeros(tangents[0])))
  assert xjax.grad(lambda x: p.bind(x) * 3)(1.) == 6.
  assert xjax.jit(xjax.grad(lambda x: p.bind(x) * 3))(1.) == 6.
  assert xjax.grad(lambda x: twice(x) * x)(3.) == 12.


def test_linear_util_transformation_and_core_atom():
  # haiku's to_dot defines its interpreter with lu.transformation; jaxpr tooling types
  # operands as jax.core.Atom
  import xjax.core
  import xjax.extend.linear_util as lu

  @lu.transformation
  def doubled_inputs(scale, *args):
    out = yield [scale * a for a in args], {}
    yield [o + 1 for o in out]

  f = lu.wrap_init(lambda x, y: [x * y])
  assert doubled_inputs(f, 2.0).call_wrapped(1.0, 3.0) == [13.0]
  jaxpr = xjax.make_jaxpr(lambda x: x + 1.0)(1.0).jaxpr
  assert all(isinstance(a, xjax.core.Atom) for a in jaxpr.eqns[0].invars)


def test_canonicalize_dtype_handlers_and_pytype_aval_mappings_take_new_array_types():
  # tensorflow_probability's JAX backend registers its ndarray subclass in both at import
  import xjax.core
  from xjax.interpreters import xla

  class Variable(np.ndarray):
    pass
  calls = []

  def handler(x):
    calls.append(type(x).__name__)
    return xla.canonicalize_dtype_handlers[np.ndarray](x)
  xla.canonicalize_dtype_handlers[Variable] = handler
  xjax.core.pytype_aval_mappings[Variable] = xjax.core.pytype_aval_mappings[np.ndarray]
  try:
    v = np.arange(3.0).view(Variable)
    out = xjax.jit(lambda x: x + 1)(v)
    np.testing.assert_array_equal(out, [1, 2, 3])
    assert out.dtype == np.float32 and calls == ["Variable"]
  finally:
    del xla.canonicalize_dtype_handlers[Variable], xjax.core.pytype_aval_mappings[Variable]


_CLEAR_BACKENDS = """
import numpy as np
import xjax, xjax.numpy as jnp
from xjax.extend import backend
f = xjax.jit(lambda x: x * 2)
x = jnp.arange(3.0)
assert f(x).tolist() == [0.0, 2.0, 4.0]
cleared = []
backend.register_backend_cache(type("C", (), {"cache_clear": lambda self: cleared.append(1)})(),
                               "a test cache")
old = xjax.devices()[0]
backend.clear_backends()
assert cleared == [1] and xjax.devices()[0] is not old
y = jnp.arange(4.0)
assert f(y).tolist() == [0.0, 2.0, 4.0, 6.0]
assert f(x).tolist() == [0.0, 2.0, 4.0]  # made before: moved to the new client
assert (x + y[:3]).tolist() == [0.0, 2.0, 4.0]
backend.clear_in_memory_compilation_cache()
assert f(x).tolist() == [0.0, 2.0, 4.0]
assert backend.backend_xla_version() is None  # as JAX's built-in CPU client
print("ok")
"""


def test_clear_backends_makes_new_clients_and_old_arrays_keep_working():
  done = subprocess.run([sys.executable, "-c", _CLEAR_BACKENDS], capture_output=True, text=True,
                        timeout=120)
  assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
