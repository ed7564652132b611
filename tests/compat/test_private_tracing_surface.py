"""The `jax._src` names brainstate (a state-based transformation system) traces with: the
current trace, vmap's tracers and entry helpers, eager primitive application, a jaxpr's
extra inputs, axis flattening and JAX's UNSPECIFIED sharding (values from JAX 0.10.2)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax._src.compat.jax_private_compat import api_util, core, dispatch, sharding_impls
from xjax._src.compat.jax_private_compat import source_info_util
from xjax._src.compat.jax_private_compat.interpreters import batching


def test_is_constant_dim_and_the_current_trace():
  assert core.is_constant_dim(3) and core.is_constant_dim(np.int64(2))
  assert not core.is_constant_dim(xjax.export.symbolic_shape("n")[0])
  assert core.trace_ctx.trace is core.current_trace()
  seen = []
  xjax.make_jaxpr(lambda a: seen.append(repr(core.trace_ctx.trace)) or a)(1.0)
  assert seen == ["DynamicJaxprTrace"]
  assert core.closed_call_p.name == "closed_call"


def test_extra_inputs_made_while_tracing_are_the_jaxprs_inputs():
  """brainstate's state values: ``trace.new_arg(aval, source_info=...)`` inside make_jaxpr."""
  def f(a):
    b = core.trace_ctx.trace.new_arg(xjax.core.ShapedArray((2,), np.float32),
                                     source_info=source_info_util.current())
    return a * b
  jaxpr = xjax.make_jaxpr(f)(jnp.ones(2))
  assert [str(v.aval) for v in jaxpr.jaxpr.invars] == ["float32[2]", "float32[2]"]
  assert str(jaxpr.jaxpr.eqns[0].primitive) == "mul"


def test_vmap_tracers_and_their_entry_helpers():
  dims = []

  def f(a):
    dims.append((type(a) is batching.BatchTracer, a.batch_dim))
    return a
  xjax.vmap(f, in_axes=1)(jnp.ones((2, 3)))
  assert dims == [(True, 1)]
  np.testing.assert_array_equal(np.asarray(batching.make_iota(4)), [0, 1, 2, 3])
  assert batching.make_iota(4).dtype == np.int32

  def g(x):
    trace = core.trace_ctx.trace
    assert type(trace) is batching.BatchTrace
    y = batching.to_elt(trace, None, jnp.arange(6.0).reshape(2, 3), 0)
    assert type(y) is batching.BatchTracer and y.batch_dim == 0 and y.shape == (3,)
    assert batching.to_elt(trace, None, 5.0, None) == 5.0
    return x + y.sum()
  np.testing.assert_array_equal(np.asarray(xjax.vmap(g)(jnp.zeros(2))), [3.0, 12.0])


def test_apply_primitive_flatten_axes_and_unspecified():
  out = dispatch.apply_primitive(xjax.lax.add_p, jnp.ones(2), jnp.full(2, 2.0))
  np.testing.assert_array_equal(np.asarray(out), [3.0, 3.0])
  tree = xjax.tree_util.tree_structure(((1, 2), {"a": 3}))
  assert api_util.flatten_axes("vmap in_axes", tree, (0, {"a": None})) == [0, 0, None]
  assert repr(sharding_impls.UNSPECIFIED) == "UnspecifiedValue"
  f = xjax.jit(lambda a: a * 2, in_shardings=sharding_impls.UNSPECIFIED,
               out_shardings=sharding_impls.UNSPECIFIED)
  np.testing.assert_array_equal(np.asarray(f(jnp.ones(2))), [2.0, 2.0])
  with pytest.raises(ValueError, match="tree prefix"):
    api_util.flatten_axes("vmap in_axes", tree, (0, 1, 2))


def test_literal_types_traceback_filtering_and_api_dtype():
  """equinox's ``is_array`` counts ``jax._src.literals.TypedNdArray`` among arrays;
  brainstate filters tracebacks with ``filter_traceback``; PennyLane reads ``api._dtype``."""
  import sys
  from xjax._src.compat.jax_private_compat import api, literals, traceback_util
  from xjax._src.core.typed_ndarray import TypedFloat, TypedNdArray
  assert literals.TypedNdArray is TypedNdArray and issubclass(TypedNdArray, np.ndarray)
  assert TypedFloat in literals.typed_scalar_types and len(literals.typed_scalar_types) == 3
  assert repr(xjax.vjp(lambda a: a, 3.0)[0]) == "TypedFloat(3.0, dtype=float32)"
  assert api._dtype(1.0) == np.float32 and api._dtype(2) == np.int32
  assert api._dtype(jnp.ones(2, jnp.int8)) == np.int8
  try:
    xjax.jit(lambda a: a.reshape(5))(jnp.ones(2))
  except TypeError:
    tb = sys.exc_info()[2]
  kept = traceback_util.filter_traceback(tb)
  files = []
  while kept is not None:
    files.append(kept.tb_frame.f_code.co_filename)
    kept = kept.tb_next
  assert files and __file__ in files and not any("/xjax/_src/" in f for f in files)


def test_lib_concrete_or_error_and_random_aliases():
  """dynamiqs catches ``jax._src.lib.xla_client.XlaRuntimeError`` and reads concrete values
  with ``core.concrete_or_error``; evermore annotates with ``jax._src.random.Shape``."""
  from collections.abc import Sequence
  from xjax._src.compat.jax_private_compat import lib, random
  assert lib.xla_client.XlaRuntimeError is xjax.errors.JaxRuntimeError
  assert len(lib.version) == 3 and lib.version_str.startswith("0.")
  assert isinstance(lib.jaxlib_extension_version, int)
  np.testing.assert_array_equal(core.concrete_or_error(None, jnp.arange(3.0)), [0, 1, 2])
  assert core.concrete_or_error(int, jnp.int32(4)) == 4
  with pytest.raises(xjax.errors.ConcretizationTypeError):
    xjax.jit(lambda a: core.concrete_or_error(None, a, "traced array"))(1.0)
  assert random.Shape == Sequence[int] and random.DTypeLikeFloat is xjax.typing.DTypeLike
  assert random.normal is xjax.random.normal


def test_hashable_partial_partial_eval_and_core_names():
  """Names libraries' source reads (tools/scan_private_jax.py over the ecosystem's): a
  hashable partial, partial evaluation's tracer class (scico), core's no_effects and
  get_referent."""
  from xjax._src.compat.jax_private_compat import util
  from xjax._src.compat.jax_private_compat.interpreters import partial_eval as pe

  def f(a, b, c=0):
    return a * 10 + b + c
  p, q = util.HashablePartial(f, 1, c=5), util.HashablePartial(f, 1, c=5)
  assert p == q and hash(p) == hash(q) and p(2) == 17
  assert util.HashablePartial(f, 2) != p
  seen = []
  xjax.make_jaxpr(lambda a: seen.append(isinstance(a, pe.DynamicJaxprTracer)) or a)(1.0)
  assert seen == [True]
  assert core.no_effects == frozenset()
  x = jnp.ones(2)
  assert core.get_referent(x) is x
