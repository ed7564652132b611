"""jit's fast path: what its cache key tells apart (and what it must not mix up), the
buffers it builds, its results, and AOT compilation reusing the lowered module.

Every case calls each signature at least twice, alternating, so the second call of each
runs from the fast-path table rather than the traced entry.  Expected dtypes and weak types
are JAX 0.10.2's."""
from collections import namedtuple

import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax._src.backend import lowering


def counting(fn):
  """``jit(fn)`` and the list of argument types it was traced for."""
  traces = []

  def traced(*args, **kwargs):
    traces.append(1)
    return fn(*args, **kwargs)
  return jax.jit(traced), traces


def alternate(f, calls, rounds=3):
  """Results of calling ``f`` on each argument tuple of ``calls``, ``rounds`` times over."""
  return [[f(*args) for args in calls] for _ in range(rounds)]


def test_python_scalar_types_trace_apart_with_jax_dtypes():
  f, traces = counting(lambda x: x + 1)
  expected = [(1, np.int32, 2), (1.0, np.float32, 2.0), (True, np.int32, 2),
              (1j, np.complex64, 1 + 1j)]
  for results in alternate(f, [(v,) for v, _, _ in expected]):
    for r, (_, dtype, value) in zip(results, expected):
      assert r.dtype == dtype and r.weak_type and r == value
  assert len(traces) == 4


def test_weak_and_strong_arrays_of_one_shape_trace_apart():
  f, traces = counting(lambda x: x * 2)
  weak, strong = jnp.asarray(1.0), jnp.float32(1.0)
  assert weak.weak_type and not strong.weak_type
  for r_weak, r_strong in alternate(f, [(weak,), (strong,)]):
    assert r_weak.weak_type and not r_strong.weak_type
    assert r_weak.dtype == r_strong.dtype == np.float32
  assert len(traces) == 2


def test_same_tree_different_dtypes_or_shapes():
  f, traces = counting(lambda t: [t[0] + t[1], t[1]])
  a32, b32 = jnp.ones(3, jnp.float32), jnp.full(3, 2.0, jnp.float32)
  i32 = jnp.arange(3, dtype=jnp.int32)
  short = jnp.ones(2, jnp.float32)
  for r1, r2, r3 in alternate(f, [([a32, b32],), ([a32, i32],), ([short, short],)]):
    assert r1[0].dtype == np.float32 and r1[1].dtype == np.float32
    np.testing.assert_array_equal(r1[0], [3.0, 3.0, 3.0])
    assert r2[1].dtype == np.int32
    np.testing.assert_array_equal(r2[0], [1.0, 2.0, 3.0])
    assert r3[0].shape == (2,)
  assert len(traces) == 3


def test_nesting_that_flattens_to_the_same_leaves_traces_apart():
  # ([[a, b]],) and ([[a], b],) both have two leaves at the same depth markers; lists and
  # tuples of the same leaves differ too.
  f, traces = counting(lambda t: jax.tree_util.tree_map(lambda x: x * 2, t))
  a, b = jnp.float32(1.0), jnp.float32(3.0)
  for r1, r2, r3, r4 in alternate(f, [([[a, b]],), ([[a], b],), ((a, b),), ([a, b],)]):
    assert isinstance(r1[0], list) and len(r1[0]) == 2 and float(r1[0][1]) == 6.0
    assert isinstance(r2[0], list) and len(r2[0]) == 1 and float(r2[1]) == 6.0
    assert type(r3) is tuple and type(r4) is list
  assert len(traces) == 4


def test_dict_keys_none_and_namedtuples_are_part_of_the_key():
  f, traces = counting(lambda t: jax.tree_util.tree_map(lambda x: x + 1, t))
  Point = namedtuple("Point", ["x", "y"])
  x = jnp.float32(1.0)
  calls = [({"a": x, "b": x},), ({"a": x, "c": x},), ((x, None),), ((None, x),),
           (Point(x, x),), ((x, x),)]
  for r in alternate(f, calls):
    assert sorted(r[0]) == ["a", "b"] and sorted(r[1]) == ["a", "c"]
    assert r[2][1] is None and r[3][0] is None and float(r[3][1]) == 2.0
    assert type(r[4]) is Point and type(r[5]) is tuple
  assert len(traces) == 6


def test_nested_dicts_key_by_sorted_names_whatever_their_order():
  f, traces = counting(lambda d: jax.tree_util.tree_map(lambda x: x * 2, d))
  x = jnp.float32(1.0)
  calls = [({"b": x, "a": {"d": x, "c": 1.0}},), ({"a": {"c": 1.0, "d": x}, "b": x},)]
  for r1, r2 in alternate(f, calls):
    for r in (r1, r2):
      assert list(r) == ["a", "b"] and list(r["a"]) == ["c", "d"]
      assert r["a"]["c"].weak_type and float(r["a"]["c"]) == 2.0
  assert len(traces) == 1
  for _ in range(2):   # keys that do not sort: the checked path's error, every call
    with pytest.raises(ValueError, match="keys must be sortable"):
      f({1: x, "a": x})


def test_python_scalars_inside_trees_and_kwargs():
  f, traces = counting(lambda t, *, y: (t[0] * 2, t[1] * 2, y * 2))
  for r1, r2 in alternate(lambda t, y: f(t, y=y), [([1, 2.0], [3]), ([1.0, 2], (3.0,))]):
    assert (r1[0].dtype, r1[1].dtype) == (np.int32, np.float32)
    assert (r2[0].dtype, r2[1].dtype) == (np.float32, np.int32)
    assert type(r1[2]) is list and type(r2[2]) is tuple and r2[2][0].dtype == np.float32
    assert int(r1[0]) == 2 and float(r2[1]) == 4.0
  assert len(traces) == 2


def test_static_values_of_equal_value_but_other_type_trace_apart():
  traces = []

  def g(x, n):
    traces.append(type(n))
    return x * n
  f = jax.jit(g, static_argnums=1)
  x = jnp.float32(2.0)
  for r_int, r_float, r_bool in alternate(f, [(x, 2), (x, 2.0), (x, True)]):
    assert float(r_int) == 4.0 and float(r_float) == 4.0 and float(r_bool) == 2.0
  assert traces == [int, float, bool]


def test_int_outside_int32_is_refused_after_small_ints_ran(x64=None):
  f = jax.jit(lambda x: x + 1)
  assert int(f(5)) == 6 and int(f(5)) == 6
  for _ in range(2):
    with pytest.raises(OverflowError, match="argument path is x"):
      f(2 ** 40)


def test_x64_scalars_get_64_bit_programs(x64):
  f, traces = counting(lambda x: x + 1)
  for r_int, r_float in alternate(f, [(1,), (1.0,)]):
    assert r_int.dtype == np.int64 and r_float.dtype == np.float64
  assert len(traces) == 2


def test_unhashable_aux_data_is_compared_by_value():
  class Box:
    def __init__(self, value, meta):
      self.value, self.meta = value, meta

  jax.tree_util.register_pytree_node(
      Box, lambda b: ((b.value,), b.meta), lambda meta, cs: Box(cs[0], meta))
  f, traces = counting(lambda b: Box(b.value * 3, b.meta))
  for meta in (["unhashable"], ["other"]) * 2:
    out = f(Box(jnp.float32(2.0), meta))
    assert float(out.value) == 6.0 and out.meta == meta
  assert len(traces) == 2
  assert len(f._fast) == 2  # both on the fast path, told apart by value


def test_results_are_fresh_containers_each_call():
  f = jax.jit(lambda t: t)
  a = jnp.ones(2)
  first = f([a, a])
  first.append("mine")
  second = f([a, a])
  assert len(second) == 2 and second is not first
  d = f({"k": a})
  d["other"] = 1
  assert list(f({"k": a})) == ["k"]


def test_empty_and_none_results():
  f = jax.jit(lambda x: ())
  g = jax.jit(lambda x: None)
  h = jax.jit(lambda x: {"a": (x, [x, None])})
  x = jnp.float32(1.0)
  for _ in range(3):
    assert f(x) == ()
    assert g(x) is None
    out = h(x)
    assert out["a"][1][1] is None and float(out["a"][1][0]) == 1.0


def test_committed_and_host_arguments_take_the_checked_path():
  f, traces = counting(lambda x: x * 2)
  x = jnp.arange(3.0)
  committed = jax.device_put(x, jax.devices()[0])
  host = np.arange(3, dtype=np.float32)
  for r1, r2, r3 in alternate(f, [(x,), (committed,), (host,)]):
    for r in (r1, r2, r3):
      np.testing.assert_array_equal(r, [0.0, 2.0, 4.0])
    assert r2.committed and not r1.committed and not r3.committed
  assert len(traces) == 1


def test_deleted_argument_on_the_fast_path_names_the_deletion():
  f = jax.jit(lambda t: t[0] + 1)
  a = jnp.ones(3)
  f([a]), f([a])
  a.delete()
  with pytest.raises(RuntimeError, match="Array has been deleted"):
    f([a])


def test_host_callback_error_keeps_its_cause_on_every_call():
  def bad(x):
    raise ValueError("boom")

  f = jax.jit(lambda x: jax.experimental.io_callback(
      bad, jax.ShapeDtypeStruct((), np.float32), x))
  for _ in range(3):
    with pytest.raises(Exception) as info:
      f(jnp.float32(1.0)).block_until_ready()
    assert isinstance(info.value.__cause__, ValueError)


@pytest.fixture
def lowerings(monkeypatch):
  """The list that gets one entry per module lowered from now on."""
  calls = []
  lower = lowering.lower_module

  def counted(*args, **kwargs):
    calls.append(1)
    return lower(*args, **kwargs)
  monkeypatch.setattr(lowering, "lower_module", counted)
  return calls


def test_compile_reuses_the_lowered_module(lowerings):
  calls = lowerings
  x = jnp.arange(4.0)
  lowered = jax.jit(lambda x: jnp.sin(x) * 2).lower(x)
  assert len(calls) == 1
  compiled = lowered.compile()
  assert len(calls) == 1
  np.testing.assert_allclose(compiled(x), np.sin(np.arange(4.0)) * 2, rtol=1e-6)
  assert "sine" in lowered.as_text()


def test_lowering_on_a_new_wrapper_reuses_the_module(lowerings):
  calls = lowerings

  def f(x, n):
    return jnp.cos(x) * n
  x = jnp.arange(4.0)
  text = jax.jit(f, static_argnums=1).lower(x, 3).as_text()
  again = jax.jit(f, static_argnums=1).lower(x, 3)   # a new wrapper, as JAX users write it
  assert len(calls) == 1 and again.as_text() == text
  np.testing.assert_allclose(again.compile()(x), np.cos(np.arange(4.0)) * 3, rtol=1e-6)
  # other static values, shapes, names and options are other programs
  others = [jax.jit(f, static_argnums=1).lower(x, 4), jax.jit(f, static_argnums=1).lower(x[:3], 3),
            jax.jit(f, static_argnums=1, keep_unused=True).lower(x, 3)]
  assert len(calls) == 4
  assert len({text, *(o.as_text() for o in others[:2])}) == 3
  assert others[2].as_text() == text   # (every argument is used: keep_unused changes nothing)
  np.testing.assert_allclose(others[1].compile()(x[:3]), np.cos(np.arange(3.0)) * 3, rtol=1e-6)
  # a call after lowering compiles the module lowered (as JAX's shared lowering cache)
  np.testing.assert_allclose(jax.jit(f, static_argnums=1)(x, 4), np.cos(np.arange(4.0)) * 4,
                             rtol=1e-6)
  assert len(calls) == 4


def test_compile_keeps_the_lowered_host_callbacks():
  seen = []
  f = jax.jit(lambda x: jax.debug.callback(lambda v: seen.append(float(v)), x) or x + 1)
  compiled = f.lower(jnp.float32(1.0)).compile()
  out = compiled(jnp.float32(2.0))
  out.block_until_ready()
  jax.effects_barrier()
  assert float(out) == 3.0 and seen == [2.0]


def test_scalars_next_to_constants_passed_as_buffers():
  big = np.arange(300_000, dtype=np.float32)  # over 1 MiB: a leading buffer, not embedded
  f = jax.jit(lambda x, s: x * s + jnp.asarray(big)[-2:])
  x = jnp.ones(2, jnp.float32)
  for s in (2, 0.5) * 2:
    np.testing.assert_array_equal(f(x, s), [s + 299_998.0, s + 299_999.0])
  assert len(f._fast) == 2
  assert all(call._compiled.const_bufs for call in f._fast.values())


def test_numpy_scalar_arguments_reuse_one_buffer_per_value():
  """A NumPy scalar argument is put on the device once per value (bytes and dtype): -0.0
  and 0.0, NaNs and each dtype keep their own buffers, so results stay exact."""
  f = jax.jit(lambda x, s: x * s)
  x = jnp.ones(2)
  for _ in range(2):   # (the second round reads the buffers the first one made)
    assert np.signbit(f(x, np.float32(-0.0))).all()
    assert not np.signbit(f(x, np.float32(0.0))).any()
    assert np.isnan(f(x, np.float32(np.nan))).all()
    np.testing.assert_array_equal(f(x, np.int8(3)), [3.0, 3.0])
    np.testing.assert_array_equal(f(x, np.float32(2.5)), [2.5, 2.5])
    np.testing.assert_array_equal(f(jnp.ones(2, jnp.int32), np.int32(-7)), [-7, -7])
    np.testing.assert_array_equal(f(jnp.ones(2, bool), np.bool_(False)), [False, False])
