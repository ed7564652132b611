"""Calls third-party JAX libraries make that once stopped them under xjax; each test stands for
the library call quoted in its docstring."""
import functools

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.custom_derivatives import SymbolicZero


def test_at_least_vspace_in_a_symbolic_zeros_jvp():
  """distrax ``multiply_no_nan``'s JVP (reached from ``Categorical.log_prob`` under grad):
  ``result_aval = jax.typeof(primal_out).at_least_vspace()``; ``SymbolicZero(result_aval)``."""

  @xjax.custom_jvp
  def multiply_no_nan(x, y):
    return jnp.where(y == 0, jnp.zeros_like(x), x * y)

  @functools.partial(multiply_no_nan.defjvp, symbolic_zeros=True)
  def _(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    out = multiply_no_nan(x, y)
    aval = xjax.typeof(out).at_least_vspace()
    scale = lambda t, s: SymbolicZero(aval) if isinstance(t, SymbolicZero) else t * s
    t1, t2 = scale(x_dot, y), scale(y_dot, x)
    if isinstance(t1, SymbolicZero):
      return out, t2
    return out, t1 if isinstance(t2, SymbolicZero) else t1 + t2

  x = jnp.array([1.0, 2.0, 3.0])
  y = jnp.array([0.0, 2.0, 4.0])
  np.testing.assert_allclose(xjax.grad(lambda x: multiply_no_nan(x, y).sum())(x), [0, 2, 4])
  int_aval = xjax.typeof(jnp.arange(3)).at_least_vspace()
  assert int_aval.shape == (3,) and int_aval.dtype == xjax.dtypes.float0
  assert xjax.typeof(x).at_least_vspace() == xjax.typeof(x)


def test_vmap_passes_unmapped_non_array_leaves_unchanged():
  """gymnax: ``jax.vmap(env.step, in_axes=(0, 0, 0, None))(keys, states, actions, env_params)``
  where the unmapped argument holds Python objects (strings, environments) as leaves."""
  import dataclasses

  @dataclasses.dataclass(frozen=True)
  class Params:
    n: int
    name: str

  class Env:
    scale = 3

  x = jnp.arange(3.0)
  seen = []
  step = lambda env, p, x: (seen.append((type(env), type(p.n))), x * env.scale * p.n)[1]
  np.testing.assert_array_equal(
      xjax.vmap(step, in_axes=(None, None, 0))(Env(), Params(2, "a"), x), [0.0, 6.0, 12.0])
  assert seen == [(Env, int)]               # as given: not converted to arrays
  np.testing.assert_array_equal(
      xjax.vmap(lambda s, x: x, in_axes=(None, 0))(("a", object()), x), x)
  np.testing.assert_array_equal(
      xjax.vmap(lambda n, x: x * len(range(n)), in_axes=(None, 0))(2, x), [0.0, 2.0, 4.0])
  # A mapped or returned non-array is refused, with JAX's messages.
  with pytest.raises(TypeError, match="^Argument '.*' of type '.*Env.*' is not a valid JAX"):
    xjax.vmap(lambda e, x: x)(Env(), x)
  with pytest.raises(TypeError, match="^Output from batched function .* is not a valid JAX"):
    xjax.vmap(lambda e, x: (x, e), in_axes=(None, 0))(Env(), x)


def _norm_with_nondiff_defaults():
  """ott-jax's ``ott.math.utils.norm``: ``custom_jvp(jit(norm), nondiff_argnums=[1, 2, 3])``
  called as ``norm(z, p)``, the last two nondiff parameters left to their defaults."""

  @functools.partial(xjax.custom_jvp, nondiff_argnums=[1, 2, 3])
  @functools.partial(xjax.jit, static_argnames=("ord", "axis", "keepdims"))
  def norm(x, ord=None, axis=None, keepdims=False):
    return jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)

  @norm.defjvp
  def _(ord, axis, keepdims, primals, tangents):
    f = functools.partial(jnp.linalg.norm, ord=ord, axis=axis, keepdims=keepdims)
    return xjax.jvp(f, primals, tangents)

  return norm


def test_no_tracer_escapes_a_vmapped_loop_with_a_cond_over_a_custom_norm():
  """ott-jax: ``jax.vmap(solve)`` of ``Sinkhorn()(LinearProblem(PointCloud(x, y,
  cost_fn=costs.PNormP(1.5))))``, whose while_loop/scan body computes errors in a
  ``lax.cond`` branch through ``vmap(vmap(cost))`` of the custom norm (it raised
  UnexpectedTracerError: the call treated the array as a nondiff argument)."""
  norm = _norm_with_nondiff_defaults()
  lax = xjax.lax

  def cost(x, y):
    return xjax.vmap(lambda a: xjax.vmap(lambda b: norm(a - b, 1.5) ** 1.5 / 1.5)(y))(x)

  def solve(x, y, batched_pred):
    def body(c):
      i, v = c
      pred = (v.sum() > 0) if batched_pred else (i > 2)
      err = lax.cond(pred, lambda v, y: cost(v, y).sum(), lambda *_: jnp.array(jnp.inf), v, y)
      return i + 1, v * 0.5 + jnp.minimum(err, 1.0)
    return lax.while_loop(lambda c: c[0] < 5, body, (0, x))[1]

  x = jnp.arange(8.0).reshape(4, 2) / 8
  ys = jnp.arange(12.0).reshape(2, 3, 2) / 12 - 0.5
  for batched_pred in (False, True):
    f = functools.partial(solve, batched_pred=batched_pred)
    got = xjax.vmap(f, in_axes=(None, 0))(x, ys)
    want = np.stack([np.asarray(f(x, y)) for y in ys])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(xjax.jit(xjax.vmap(f, in_axes=(None, 0)))(x, ys), want,
                               rtol=1e-6)


def test_custom_jvp_nondiff_tracers_under_vmap():
  """A batched array passed as a nondiff argument (``custom_jvp(f, nondiff_argnums=(0,))``
  under ``vmap``) is batched, as JAX: it is not staged out of the vmap."""

  @functools.partial(xjax.custom_jvp, nondiff_argnums=(0,))
  def scale(a, x):
    return x * a

  scale.defjvp(lambda a, p, t: (scale(a, p[0]), t[0] * a))
  a = jnp.arange(3.0)
  np.testing.assert_array_equal(xjax.vmap(lambda a: scale(a, 2.0))(a), [0.0, 2.0, 4.0])
  np.testing.assert_array_equal(xjax.vmap(lambda a: xjax.grad(scale, 1)(a, 2.0))(a), a)
  norm = _norm_with_nondiff_defaults()
  np.testing.assert_allclose(norm(jnp.array([3.0, 4.0])), 5.0)
  np.testing.assert_allclose(xjax.grad(lambda z: norm(z, 2))(jnp.array([3.0, 4.0])),
                             [0.6, 0.8], rtol=1e-6)


# `sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.') and not
# m.startswith('jax._src'))` after `import jax`, recorded from JAX 0.10.2.
_JAX_MODULES_AFTER_IMPORT = [
    'jax', 'jax.api_util', 'jax.core', 'jax.custom_batching', 'jax.custom_derivatives',
    'jax.debug', 'jax.distributed', 'jax.dlpack', 'jax.dtypes', 'jax.errors', 'jax.experimental',
    'jax.experimental.compilation_cache', 'jax.experimental.compilation_cache.compilation_cache',
    'jax.export', 'jax.ffi', 'jax.image', 'jax.interpreters', 'jax.interpreters.ad',
    'jax.interpreters.batching', 'jax.interpreters.mlir', 'jax.interpreters.partial_eval',
    'jax.interpreters.pxla', 'jax.interpreters.xla', 'jax.lax', 'jax.lax.linalg', 'jax.lib',
    'jax.monitoring', 'jax.nn', 'jax.nn.initializers', 'jax.numpy', 'jax.numpy.fft',
    'jax.numpy.linalg', 'jax.ops', 'jax.profiler', 'jax.random', 'jax.ref', 'jax.scipy',
    'jax.sharding', 'jax.stages', 'jax.tree', 'jax.tree_util', 'jax.typing', 'jax.version']


def test_import_jax_loads_the_modules_jax_loads():
  """treescope: ``sys.modules["jax.tree_util"].SequenceKey`` right after ``import jax``
  (run with ``python -m xjax -c``)."""
  import os
  import pathlib
  import subprocess
  import sys
  repo = pathlib.Path(__file__).resolve().parents[2]
  code = ("import jax, sys, xjax.tree_util\n"
          "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.') and not "
          "m.startswith('jax._src')))\n"
          "print(sys.modules['jax.tree_util'] is xjax.tree_util, "
          "sys.modules['jax.tree_util'].SequenceKey is xjax.tree_util.SequenceKey)\n")
  out = subprocess.run([sys.executable, "-m", "xjax", "-c", code], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=str(repo)), timeout=300)
  assert out.returncode == 0, out.stderr
  modules, same = out.stdout.splitlines()
  assert eval(modules) == _JAX_MODULES_AFTER_IMPORT
  assert same == "True True"


def test_private_tree_registry_and_api_util():
  """jaxlie ``_registry[type(tree)].to_iter(tree)`` / ``.from_iter(meta, children)``, orbax
  ``jax._src.tree_util.flatten_one_level(x)``, e3nn-jax ``from jax._src.api_util import
  infer_argnums_and_argnames``: values recorded from JAX 0.10.2."""
  import collections
  import inspect
  from xjax._src.compat.jax_private_compat import api_util, tree_util
  reg = tree_util._registry
  assert all(t in reg for t in (type(None), tuple, list, dict, collections.OrderedDict,
                                collections.defaultdict))
  assert reg[tuple].to_iter((1, 2)) == ((1, 2), None)
  assert reg[tuple].from_iter(None, [1, 2]) == (1, 2)
  assert reg[dict].to_iter({"b": 1, "a": 2}) == ((2, 1), ("a", "b"))

  @xjax.tree_util.register_dataclass
  @__import__("dataclasses").dataclass
  class Pair:
    a: object
    b: object

  assert Pair in reg                                       # registered later: the view is live
  children, aux = reg[Pair].to_iter(Pair(1, 2))
  assert reg[Pair].from_iter(aux, [c * 10 for c in children]) == Pair(10, 20)
  assert tree_util.flatten_one_level({"a": 1, "b": (2, 3)}) == ((1, (2, 3)), ("a", "b"))
  assert tree_util.flatten_one_level(None) == ((), None)
  point = __import__("collections").namedtuple("Point", "x y")   # optax's states (orbax saving)
  assert tree_util.flatten_one_level(point(1, (2,))) == ((1, (2,)), None)
  with pytest.raises(ValueError, match="can't tree-flatten type: <class 'int'>"):
    tree_util.flatten_one_level(3)
  sig = inspect.signature(lambda a, b, *, c: 0)
  assert api_util.infer_argnums_and_argnames(sig, 0, None) == ((0,), ("a",))
  assert api_util.infer_argnums_and_argnames(sig, None, ("b", "c")) == ((1,), ("b", "c"))
  assert api_util.infer_argnums_and_argnames(sig, None, None) == ((), ())


def test_array_methods_read_from_the_public_type():
  """penzai ``named_axes.py``: ``array_method = getattr(jax.Array, name)``, then
  ``array_method(array, ...)`` on arrays and tracers."""
  x = jnp.arange(6.0).reshape(2, 3)
  for name in ("sum", "max", "reshape", "astype", "transpose", "clip", "cumsum", "argmax"):
    assert callable(getattr(xjax.Array, name)), name
  np.testing.assert_allclose(getattr(xjax.Array, "sum")(x, axis=0), [3.0, 5.0, 7.0])
  np.testing.assert_allclose(xjax.jit(lambda y: xjax.Array.cumsum(y, axis=1))(x),
                             np.cumsum(np.arange(6.0).reshape(2, 3), axis=1))
  assert xjax.Array.reshape(x, (3, 2)).shape == (3, 2)
  assert isinstance(xjax.Array.shape, property) and isinstance(xjax.Array.T, property)
  assert "byteswap" not in dir(xjax.Array) or callable(xjax.Array.byteswap)


def test_shape_of_none_and_of_lists_warns_as_jax():
  """tfp's JAX substrate (``random_generators.py``): ``max(len(shape), len(np.shape(minval)),
  len(np.shape(maxval)))`` with ``np`` being jax.numpy and ``maxval=None``."""
  with pytest.warns(DeprecationWarning, match="shape requires ndarray or scalar arguments, "
                    "got <class 'NoneType'> at position 0"):
    assert jnp.shape(None) == ()
  with pytest.warns(DeprecationWarning, match="ndim requires ndarray"):
    assert jnp.ndim(None) == 0
  with pytest.warns(DeprecationWarning, match="size requires ndarray"):
    assert jnp.size([[1, 2]]) == 2
  assert jnp.shape(np.float32(1)) == () and jnp.shape(jnp.ones((2, 1))) == (2, 1)
  assert jnp.shape(xjax.ShapeDtypeStruct((2, 3), jnp.float32)) == (2, 3)


def test_tracers_can_be_weakly_referenced():
  """dynamax through tfp (``internal/cache_util.py``): ``weakref.ref(x)`` of a tracer under
  jit, grad and vmap."""
  import weakref
  seen = []
  f = lambda x: (seen.append(weakref.ref(x)), x * 2)[1]
  assert float(xjax.jit(f)(1.0)) == 2.0
  assert float(xjax.grad(f)(1.0)) == 2.0
  np.testing.assert_allclose(xjax.vmap(f)(jnp.ones(2)), [2.0, 2.0])
  assert len(seen) == 3


def test_tracers_die_with_their_trace_without_a_garbage_collection():
  """distrax through tfp's bijector cache (``internal/cache_util.py``, shared by bijectors
  of equal parameters): an entry lives while its output does; a tracer a jitted function
  made (and returned, or flattened with key paths) must be freed when jit returns, as in
  JAX, or a later eager call finds a tracer in the cache."""
  import gc
  import weakref
  made = []

  def f(x):
    y = x * 2
    z = xjax.tree_util.tree_flatten_with_path({"a": y + 1, "b": [y]})[0][0][1]
    made.extend([weakref.ref(y), weakref.ref(z)])
    return z, {"out": y}
  enabled = gc.isenabled()
  gc.disable()
  try:
    xjax.jit(f)(1.0)
    xjax.jit(lambda: f(jnp.array(3.0)))()
    xjax.make_jaxpr(f)(2.0)
    assert [r() for r in made] == [None] * 6
  finally:
    if enabled:
      gc.enable()


def test_vmap_returns_pytrees_that_tell_data_from_metadata():
  """distrax ``Jittable`` (``utils/jittable.py``): a class flattening its ``__dict__`` whose
  Python ints are metadata and whose other values (arrays, tracers, bare ``object()``s)
  are data, returned from vmap (``test_vmap_outputs``)."""
  @xjax.tree_util.register_pytree_node_class
  class Box:
    def __init__(self, loc, n):
      self.loc, self.n = loc, n

    def tree_flatten(self):
      leaves, treedef = xjax.tree_util.tree_flatten(self.__dict__)
      data = [not isinstance(x, (bool, int, float)) for x in leaves]
      return ([x if d else None for x, d in zip(leaves, data)],
              ([None if d else x for x, d in zip(leaves, data)], data, treedef))

    @classmethod
    def tree_unflatten(cls, aux, children):
      meta, data, treedef = aux
      obj = object.__new__(cls)
      obj.__dict__ = xjax.tree_util.tree_unflatten(
          treedef, [c if d else m for c, m, d in zip(children, meta, data)])
      return obj
  out = xjax.vmap(lambda x: Box(x.sum(keepdims=True), 3))(jnp.arange(6.).reshape(3, 2))
  np.testing.assert_array_equal(out.loc, [[1.], [5.], [9.]])
  assert out.n == 3


def test_core_effects_alias_is_deprecated():
  """kfac-jax ``layers_and_loss_tags.py``: ``-> tuple[Arrays, jax.core.Effects]``."""
  import xjax.core
  from xjax.extend import core as extend_core
  with pytest.warns(DeprecationWarning, match="Effects is deprecated"):
    assert xjax.core.Effects is extend_core.Effects
  with pytest.warns(DeprecationWarning, match="Use xjax.errors.JaxprTypeError"):
    assert xjax.core.JaxprTypeError is xjax.errors.JaxprTypeError
  with pytest.warns(DeprecationWarning, match="DebugInfo is deprecated"):
    assert xjax.core.DebugInfo is extend_core.DebugInfo   # kfac-jax's tag_graph_matcher
  with pytest.raises(AttributeError):
    xjax.core.NotAName


def test_private_distributed_global_state_outside_a_run():
  # orbax-checkpoint reads these; JAX 0.10.2's values in a single process.
  from xjax._src.compat.jax_private_compat import distributed
  state = distributed.global_state
  assert (state.process_id, state.num_processes, state.client, state.service,
          state.coordinator_address) == (0, 1, None, None, None)


def test_segment_reduction_of_a_scalar_broadcasts_over_the_segments():
  """jraph's ``segment_softmax`` (GAT/attention networks whose logit function returns
  ``jnp.array(1.0)``): ``jax.ops.segment_max(scalar, segment_ids, num_segments)``."""
  ids = jnp.array([0, 0, 1, 2, 2, 2, 1, 0])
  np.testing.assert_array_equal(xjax.ops.segment_max(jnp.array(1.0), ids, 3), [1.0, 1.0, 1.0])
  np.testing.assert_array_equal(xjax.ops.segment_sum(jnp.array(2.0), ids, 3), [6.0, 4.0, 6.0])
  assert float(xjax.grad(lambda s: xjax.ops.segment_sum(s, ids, 3).sum())(2.0)) == 8.0
  with pytest.raises(ValueError, match=r"Incompatible types for broadcasting: input type="
                     r"float32\[3,2\] and requested type=float32\[8,2\]"):
    xjax.ops.segment_sum(jnp.ones((3, 2)), ids, 3)


def test_uniform_with_bounds_of_higher_rank_than_the_shape():
  """flashbax ``sum_tree.py``: ``vmap(jax.random.uniform, in_axes=(0, None, None, 0, 0))(keys,
  (), jnp.float32, lower, upper)`` with bounds of shape (batch, 1): each draw takes its
  bounds' shape, (1,) (values recorded from JAX 0.10.2)."""
  key = xjax.random.key(0)
  one = xjax.random.uniform(key, (), jnp.float32, jnp.zeros(1), jnp.ones(1))
  assert one.shape == (1,)
  np.testing.assert_allclose(one, [0.947667], rtol=1e-6)
  keys = xjax.random.split(key, 3)
  draws = xjax.vmap(xjax.random.uniform, in_axes=(0, None, None, 0, 0))(
      keys, (), jnp.float32, jnp.zeros((3, 1)), jnp.full((3, 1), 2.0))
  assert draws.shape == (3, 1)
  loop = [xjax.random.uniform(k, (), jnp.float32, jnp.zeros(1), jnp.full(1, 2.0)) for k in keys]
  np.testing.assert_array_equal(draws, np.stack(loop))
  with pytest.raises(TypeError, match="incompatible shapes for broadcasting"):
    xjax.random.uniform(key, (3,), jnp.float32, jnp.zeros(4), jnp.ones(4))


def test_private_typing_ufuncs_and_special_modules():
  """jaxctx ``from jax._src.typing import SupportsDType``; esquilax ``from
  jax._src.numpy.ufuncs import ufunc``; jaxns ``from jax._src.scipy.special import gammaln``."""
  from xjax._src.compat.jax_private_compat import typing, numpy, scipy  # noqa: F401
  from xjax._src.compat.jax_private_compat.numpy import ufuncs
  from xjax._src.compat.jax_private_compat.scipy import special
  assert isinstance(jnp.ones(2), typing.SupportsDType) and not isinstance(3, typing.SupportsDType)
  assert isinstance(np.ones(2), typing.DuckTypedArray)
  assert ufuncs.ufunc is jnp.ufunc and isinstance(ufuncs.add, ufuncs.ufunc)
  assert special.gammaln is xjax.scipy.special.gammaln
  np.testing.assert_allclose(special.logsumexp(jnp.array([0.0, 1.0])), 1.3132616875182228,
                             rtol=1e-6)
  with pytest.raises(AttributeError, match="jax._src.typing"):
    typing.NotAName


def test_private_numpy_util_promotions():
  """s2fft ``from jax._src.numpy.util import promote_dtypes_complex``; the dtypes and weak
  types are JAX 0.10.2's."""
  from xjax._src.compat.jax_private_compat.numpy import util

  def types(xs):
    return [(x.dtype.name, x.weak_type) for x in xs]
  assert types(util.promote_dtypes_complex(1.0)) == [("complex64", True)]
  assert types(util.promote_dtypes(1.0)) == [("float32", True)]   # one operand: an array too
  assert types(util.promote_dtypes_complex(1, jnp.float32(2))) == [("complex64", False)] * 2
  assert types(util.promote_dtypes_inexact(np.int32(3), 2.0)) == [("float32", True)] * 2
  assert types(util.promote_dtypes(jnp.ones(2, jnp.float16), 1j)) == [("complex64", False)] * 2
  out = util.promote_args_complex("f", jnp.ones(2), jnp.float32(2))
  assert types(out) == [("complex64", False)] * 2 and out[1].shape == ()  # (not rank-promoted)
  assert util.ensure_arraylike("f", 1.0).weak_type
  assert types(util.ensure_arraylike("f", 1, np.ones(2))) == [("int32", True), ("float32", False)]
  with pytest.raises(TypeError, match="f requires ndarray or scalar arguments"):
    util.check_arraylike("f", [1])


def test_private_canonicalize_sharding_and_auto_axes():
  """jaxns' copy of ``lax.map``: ``out_s = canonicalize_sharding(aval.sharding,
  'jax.lax.map')``; ``if out_s is not None and out_s.mesh._any_axis_explicit:
  return auto_axes(f, out_sharding=out_s, axes=out_s.mesh.explicit_axes)(leaf)``."""
  from xjax._src.compat.jax_private_compat.pjit import auto_axes
  from xjax._src.compat.jax_private_compat.sharding_impls import canonicalize_sharding
  from xjax.sharding import AxisType, NamedSharding, PartitionSpec as P, SingleDeviceSharding
  assert auto_axes is xjax.sharding.auto_axes
  assert canonicalize_sharding(None, "x") is None
  plain = canonicalize_sharding(xjax.typeof(jnp.ones(3)).sharding, "jax.lax.map")
  assert plain.mesh.empty and not plain.mesh._any_axis_explicit
  with pytest.raises(ValueError, match="not under a mesh context"):
    canonicalize_sharding(P(), "x")
  with pytest.raises(TypeError, match="only supports instances of `NamedSharding`"):
    canonicalize_sharding(SingleDeviceSharding(xjax.devices()[0]), "x")
  mesh = xjax.make_mesh((1,), ("a",), axis_types=(AxisType.Explicit,))
  other = xjax.make_mesh((1,), ("b",), axis_types=(AxisType.Explicit,))
  assert mesh._any_axis_explicit and mesh.abstract_mesh._any_axis_explicit
  with xjax.set_mesh(mesh):   # JAX 0.10.2: NamedSharding over the abstract context mesh
    out = canonicalize_sharding(P("a"), "api")
    assert out.mesh == mesh.abstract_mesh and out.spec == P("a")
    with pytest.raises(ValueError, match="Context mesh .* should match the mesh of sharding"):
      canonicalize_sharding(NamedSharding(other, P("b")), "api")
    kept = canonicalize_sharding(NamedSharding(other, P("b")), "api", check_mesh_consistency=False)
    assert kept.mesh == other.abstract_mesh
    with pytest.raises(ValueError, match="Resource axis: c"):
      canonicalize_sharding(P("c"), "api")


def test_equations_carry_a_source_info_with_a_name_stack():
  """dm-haiku ``jaxpr_info.py``: ``str(eqn.source_info.name_stack)`` of every equation
  (empty: xjax does not name equations by named_scope; see docs/differences.md)."""
  jaxpr = xjax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0).jaxpr
  for eqn in jaxpr.eqns:
    assert str(eqn.source_info.name_stack) == "" and eqn.source_info.traceback is None


def test_collectives_take_axis_index_groups():
  """dm-haiku ``BatchNorm(cross_replica_axis=...)``: ``lax.pmean(x, name,
  axis_index_groups=None)``; groups themselves are refused clearly."""
  f = lambda x: xjax.lax.pmean(x, "i", axis_index_groups=None)
  np.testing.assert_allclose(xjax.vmap(f, axis_name="i")(jnp.arange(4.)), [1.5] * 4)
  for collective in (xjax.lax.psum, xjax.lax.pmean, xjax.lax.pmax, xjax.lax.pmin):
    with pytest.raises(NotImplementedError, match="axis_index_groups is not supported"):
      xjax.vmap(lambda x: collective(x, "i", axis_index_groups=[[0, 1], [2, 3]]),
                axis_name="i")(jnp.arange(4.))


def test_jit_shows_the_functions_own_attributes():
  """dm-haiku ``summarise.py``: ``get_original_fn(jax.jit(f.init))`` reads the attribute
  haiku set on ``init``; JAX's jit wrapper copies the function's ``__dict__``."""
  def init(x):
    return x
  init._original_fn = "original"
  init.lower = "shadowed"
  jitted = xjax.jit(init)
  assert jitted._original_fn == "original"
  assert callable(jitted.lower)  # (jit's own attributes win)
  assert float(jitted(2.0)) == 2.0


def test_divmod_defers_to_an_operand_that_implements_it():
  """flax's ``Cursor``: ``divmod(array, cursor)`` reaches ``Cursor.__rdivmod__`` (JAX's
  ``__divmod__`` returns NotImplemented for operands it does not know)."""

  class Wrapped:
    def __init__(self, value):
      self.value = value

    def __rdivmod__(self, other):
      return divmod(other, self.value)

  q, r = divmod(jnp.array([7, 8]), Wrapped(3))
  np.testing.assert_array_equal(q, [2, 2])
  np.testing.assert_array_equal(r, [1, 2])
  q, r = divmod(7, jnp.arange(1, 4))  # (__rdivmod__ of the array)
  np.testing.assert_array_equal(q, [7, 3, 2])
  np.testing.assert_array_equal(r, [0, 1, 1])
  with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for divmod\(\)"):
    divmod(jnp.ones(2), [1, 2])


def test_private_tree_prefix_errors():
  """flax's struct tests: ``(e,) = prefix_errors(prefix, full)``, ``raise e('in_axes')``;
  texts recorded from JAX 0.10.2 (every mismatch, none below one)."""
  from xjax._src.compat.jax_private_compat.tree_util import prefix_errors
  assert prefix_errors((1, 2), (1, 2)) == [] and prefix_errors(0, {"a": [1, 2]}) == []
  (e,) = prefix_errors({"a": (1, [2.0]), "b": 3}, {"a": (1, 2.0), "b": (4, 5)})
  assert str(e("in_axes")) == (
      "pytree structure error: different types at key path\n    in_axes['a'][1]\n"
      "At that key path, the prefix pytree in_axes has a subtree of type\n    <class 'list'>\n"
      "but at the same key path the full pytree has a subtree of different type\n"
      "    <class 'float'>.")
  (e,) = prefix_errors((1, [2., 3.]), (1, [2.]))
  assert str(e("in_axes")) == (
      "pytree structure error: different lengths of list at key path\n    in_axes[1]\n"
      "At that key path, the prefix pytree in_axes has a subtree of type list of length 2, "
      "but the full pytree has a subtree of the same type but of length 1.")
  errs = prefix_errors([[1], [2]], [[1, 2], (3,)])
  assert len(errs) == 2 and all(isinstance(e("x"), ValueError) for e in errs)
