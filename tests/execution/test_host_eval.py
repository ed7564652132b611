"""Host evaluation (execution/host_eval.py): every host kernel agrees with XLA:CPU bit for bit.

The oracle is the same primitive compiled by XLA (a user's jit always compiles, on device
Arrays), over edge values of every host dtype: signed zeros, subnormals and the values whose
products and differences are subnormal, infinities, NaNs of both signs, integer extremes.
"""
import itertools
import pickle
import warnings

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax._src.api.compiled_when_eager import compiled_when_eager
from xjax._src.execution import host_eval
from xjax._src.execution.array import Array
from xjax._src.primitives.lax import elementwise as ew
from xjax._src.primitives.lax import reductions as red
from xjax._src.primitives.lax import shapes

pytestmark = pytest.mark.skipif(not host_eval.enabled(),
                                reason="host evaluation needs a process with one CPU device")

@pytest.fixture(params=[False, True], ids=["x32", "x64"], autouse=True)
def precision(request):
  """Every test runs with 32-bit defaults and with jax_enable_x64 (64-bit dtypes then)."""
  xjax.config.update("jax_enable_x64", request.param)
  try:
    yield
  finally:
    xjax.config.update("jax_enable_x64", False)


def available(dtypes):
  """The dtypes of ``dtypes`` that exist under the current precision."""
  wide = xjax.config.jax_enable_x64
  return [d for d in dtypes if wide or np.dtype(d).itemsize < 8]


FLOATS = [np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def edge_values(dtype):
  dtype = np.dtype(dtype)
  if dtype == np.bool_:
    return np.array([False, True])
  if dtype.kind in "iu":
    info = np.iinfo(dtype)
    vals = [0, 1, 2, 3, 7, 100, info.max, info.max - 1, info.min, info.min + 1]
    if dtype.kind == "i":
      vals += [-1, -2, -7, -100]
    return np.array(sorted(set(vals)), dtype)
  info = np.finfo(dtype)
  tiny = float(info.tiny)
  nan = np.array(np.nan, dtype)
  neg_nan = -nan
  vals = [0.0, -0.0, 1.0, -1.0, 1.5, -2.5, 0.1, 1 / 3, tiny, -tiny, 1.5 * tiny, 2 * tiny,
          float(info.max), -float(info.max), np.inf, -np.inf, 1e-20 if dtype == np.float32
          else 1e-160, 3.0, 1e10, -1e10]
  return np.concatenate([np.array(vals, dtype), [nan, neg_nan]]).astype(dtype)


def device(value):
  """A device Array (never a host value, being committed): the compiled path's operand."""
  x = xjax.device_put(np.asarray(value), xjax.devices()[0])
  assert x._host is None
  return x


def bits(x):
  x = np.asarray(x)
  if x.dtype.kind == "f":
    return x.view(f"u{x.dtype.itemsize}")
  return x


def assert_same(host_out, device_out, what):
  d = np.asarray(device_out)   # (a result with subnormals XLA keeps is computed there)
  on_host = not (d.dtype.kind == "f" and np.any((np.abs(d) < np.finfo(d.dtype).tiny) & (d != 0)))
  assert type(host_out) is Array and (host_out._host is not None) == on_host, (
      f"{what}: {'not ' if on_host else ''}computed on host")
  assert host_out.aval == device_out.aval, (what, host_out.aval, device_out.aval)
  assert host_out.weak_type == device_out.weak_type, what
  h = np.asarray(host_out)
  assert h.dtype == d.dtype, what
  if not np.array_equal(bits(h), bits(d)):
    bad = np.nonzero(bits(h) != bits(d))
    raise AssertionError(f"{what}: host {h[bad][:5]} != XLA {d[bad][:5]}")


def compiled(prim, **params):
  return xjax.jit(lambda *xs: prim.bind(*xs, **params))


def run_both(prim, operands, **params):
  """(host result, compiled result) of ``prim`` on host and on device operands."""
  hosts = [jnp.asarray(v) for v in operands]
  assert all(h._host is not None for h in hosts)
  with warnings.catch_warnings():
    warnings.simplefilter("error")  # XLA raises no floating-point warnings; nor may we
    out = prim.bind(*hosts, **params)
  return out, compiled(prim, **params)(*map(device, operands))


BINARY = {
    ew.add_p: FLOATS + INTS, ew.sub_p: FLOATS + INTS, ew.mul_p: FLOATS + INTS,
    ew.div_p: FLOATS, ew.rem_p: FLOATS, ew.max_p: INTS + [np.bool_],
    ew.min_p: INTS + [np.bool_], ew.and_p: INTS + [np.bool_], ew.or_p: INTS + [np.bool_],
    ew.xor_p: INTS + [np.bool_], ew.add_any_p: FLOATS + INTS,
    **{p: FLOATS + INTS + [np.bool_] for p in (ew.eq_p, ew.ne_p, ew.lt_p, ew.le_p, ew.gt_p,
                                                ew.ge_p)},
}
UNARY = {
    ew.neg_p: FLOATS + INTS, ew.sign_p: FLOATS + INTS[:4], ew.floor_p: FLOATS,
    ew.ceil_p: FLOATS, ew.is_finite_p: FLOATS, ew.sqrt_p: FLOATS,
    ew.abs_p: FLOATS + INTS[:4], ew.not_p: INTS + [np.bool_], ew.copy_p: FLOATS + INTS,
}


@pytest.mark.parametrize("prim", list(BINARY), ids=lambda p: p.name)
def test_binary_kernels_agree_with_xla_bit_for_bit(prim):
  for dtype in available(BINARY[prim]):
    values = edge_values(dtype)
    x, y = (np.array(v, dtype) for v in zip(*itertools.product(values, values)))
    assert_same(*run_both(prim, [x, y]), f"{prim.name} {np.dtype(dtype).name}")


@pytest.mark.parametrize("prim", [p for p in BINARY if p.name in
                                  ("add", "sub", "mul", "div", "rem", "add_any")],
                         ids=lambda p: p.name)
def test_binary_kernels_with_a_broadcast_scalar_agree_with_xla(prim):
  """A rank-0 operand is broadcast in the compiled program, where XLA rewrites a division
  by it as a product with its reciprocal."""
  for dtype in available(FLOATS):
    values = edge_values(dtype)
    for scalar in values:
      scalar = np.array(scalar, dtype)
      assert_same(*run_both(prim, [values, scalar]), f"{prim.name} x, {scalar}")
      assert_same(*run_both(prim, [scalar, values]), f"{prim.name} {scalar}, x")


def test_programs_xla_would_rewrite_run_compiled():
  """A multiply feeding an add may become a fused multiply-add, and a multiply by a cast
  boolean a select (``x * False`` is +0.0 for x = -2.5, NaN or inf): such programs compile,
  so eager results stay XLA's."""
  x = jnp.asarray([0.1, 0.2, 0.3], np.float32)
  fma = compiled_when_eager(lambda a: a * 3.0 + a)
  assert fma(x)._host is None
  np.testing.assert_array_equal(fma(x), xjax.jit(lambda a: a * 3.0 + a)(x))
  f = jnp.asarray([-2.5, np.nan, np.inf, 1.5], np.float32)
  b = jnp.asarray([False, False, False, True])
  for out in (f * b, b * f):
    assert out._host is None
    np.testing.assert_array_equal(np.signbit(out), [False] * 3 + [False])
    np.testing.assert_array_equal(out, [0.0, 0.0, 0.0, 1.5])   # JAX's values
  out = xjax.numpy.true_divide(jnp.asarray([1, 2, 3]), 7)  # a cast then a division: host
  assert out._host is not None
  np.testing.assert_array_equal(out, xjax.jit(lambda a: a / 7)(jnp.asarray([1, 2, 3])))


@pytest.mark.parametrize("prim", list(UNARY), ids=lambda p: p.name)
def test_unary_kernels_agree_with_xla_bit_for_bit(prim):
  for dtype in available(UNARY[prim]):
    assert_same(*run_both(prim, [edge_values(dtype)]), f"{prim.name} {np.dtype(dtype).name}")


def test_powers_agree_with_xla():
  for dtype in available(FLOATS + INTS[:4]):
    x = edge_values(dtype)
    for y in (0, 1, 2, 3, 5, 8, 13) + ((-1, -2, -3) if np.dtype(dtype).kind == "f" else ()):
      assert_same(*run_both(lax.integer_pow_p, [x], y=y), f"x**{y} {np.dtype(dtype).name}")
    assert_same(*run_both(ew.square_p, [x]), f"square {np.dtype(dtype).name}")


def test_operations_with_subnormal_inputs_run_compiled():
  """XLA:CPU reads subnormal inputs of arithmetic as zeros: such values stay on the device."""
  sub = np.array([1e-40, 0.5], np.float32)
  x = jnp.asarray(sub)
  assert x._host is None
  np.testing.assert_array_equal(np.asarray(x), sub)   # the value itself is kept
  assert float((x * np.float32(1e30))[0]) == 0.0      # as XLA computes
  y = jnp.asarray([1.0, 2.0], np.float32) * 1e-40     # a subnormal Python scalar operand
  assert y._host is None and float(y[0]) == 0.0


def test_results_that_underflow_are_flushed_as_xla_does():
  x = jnp.asarray([1e-20, -1e-20, 1e-19], np.float32)
  out = x * x
  assert out._host is not None
  assert_same(out, device(np.asarray(x)) * device(np.asarray(x)), "mul underflow")
  assert np.signbit(np.asarray(x * -x)[0])


def test_conversions_agree_with_xla():
  dtypes = available(FLOATS + INTS + [np.bool_])
  for source, target in itertools.product(dtypes, dtypes):
    if np.dtype(source).kind == "f" and np.dtype(target).kind in "iu":
      continue  # XLA saturates: no host kernel
    x = edge_values(source)
    params = dict(new_dtype=np.dtype(target), weak_type=False)
    assert_same(*run_both(lax.convert_element_type_p, [x], **params),
                f"convert {np.dtype(source).name} -> {np.dtype(target).name}")


def test_float_to_int_casts_run_compiled():
  x = jnp.asarray([np.nan, 1e10, -1e10, 2.7], np.float32)
  out = x.astype(np.int32)
  assert out._host is None
  np.testing.assert_array_equal(out, device(np.asarray(x)).astype(np.int32))


def test_select_n_agrees_with_xla():
  for dtype in available(FLOATS + INTS + [np.bool_]):
    cases = [np.resize(edge_values(dtype), 8) for _ in range(3)]
    cases = [np.roll(c, i) for i, c in enumerate(cases)]
    which = np.array([True, False] * 4)
    assert_same(*run_both(lax.select_n_p, [which, *cases[:2]]), f"select_n bool {dtype}")
    which = np.array([0, 1, 2, 2, 1, 0, 5, -1], np.int32)  # out of range: clipped, as XLA
    assert_same(*run_both(lax.select_n_p, [which, *cases]), f"select_n int {dtype}")


SHAPE_CASES = [
    (shapes.reshape_p, [(2, 3, 4)], dict(new_sizes=(6, 4), dimensions=None, sharding=None)),
    (shapes.broadcast_in_dim_p, [(3, 1)], dict(shape=(2, 3, 4), broadcast_dimensions=(1, 2))),
    (shapes.transpose_p, [(2, 3, 4)], dict(permutation=(2, 0, 1))),
    (shapes.squeeze_p, [(2, 1, 4)], dict(dimensions=(1,))),
    (shapes.rev_p, [(2, 3, 4)], dict(dimensions=(0, 2))),
    (shapes.slice_p, [(5, 6)], dict(start_indices=(1, 0), limit_indices=(5, 6),
                                    strides=(2, 3))),
    (shapes.slice_p, [(5, 6)], dict(start_indices=(1, 2), limit_indices=(3, 4), strides=None)),
    (shapes.concatenate_p, [(2, 3), (4, 3)], dict(dimension=0)),
    (shapes.split_p, [(2, 6)], dict(sizes=(1, 0, 5), axis=1)),
    (shapes.split_p, [(3, 2)], dict(sizes=(3,), axis=0)),
]


@pytest.mark.parametrize("prim,shapes_,params", SHAPE_CASES,
                         ids=[f"{c[0].name}{i}" for i, c in enumerate(SHAPE_CASES)])
def test_shape_kernels_agree_with_xla(prim, shapes_, params):
  rng = np.random.default_rng(0)
  for dtype in available([np.float32, np.float64, np.int8, np.uint64, np.bool_]):
    operands = [rng.integers(0, 100, s).astype(dtype) for s in shapes_]
    on_host, on_device = run_both(prim, operands, **params)
    if not prim.multiple_results:
      on_host, on_device = [on_host], [on_device]
    assert len(on_host) == len(on_device)
    for h, d in zip(on_host, on_device):
      assert_same(h, d, f"{prim.name} {np.dtype(dtype).name}")


def test_dynamic_slice_clamps_start_indices_as_xla():
  x = np.arange(20, dtype=np.float32).reshape(4, 5)
  for starts in [(0, 0), (1, 2), (3, 4), (-2, 9), (100, -100)]:
    idx = [np.int32(i) for i in starts]
    assert_same(*run_both(shapes.dynamic_slice_p, [x, *idx], slice_sizes=(2, 3)),
                f"dynamic_slice {starts}")


def test_iota_on_the_host_is_xlas():
  for dtype in [np.float32, np.int32, np.uint8]:
    params = dict(dtype=np.dtype(dtype), shape=(3, 4), dimension=1, sharding=None)
    out = lax.iota_p.bind(**params)
    assert_same(out, compiled(lax.iota_p, **params)(), f"iota {dtype}")


WEAK_CASES = [
    lambda x: x + 1, lambda x: 2.5 * x, lambda x: x - x, lambda x: 1 - x, lambda x: x / 3,
    lambda x: x * x, lambda x: -x, lambda x: abs(x), lambda x: x > 0.5, lambda x: x == x,
    lambda x: jnp.where(x > 1, x, 0.0), lambda x: jnp.maximum(x, 1),
    lambda x: jnp.concatenate([x, x]), lambda x: jnp.stack([x, x]), lambda x: x[1],
    lambda x: x[::-1], lambda x: x.reshape(1, -1).T, lambda x: x.astype(jnp.int32)
    if x.dtype.kind != "f" else x.astype(jnp.float64 if xjax.config.jax_enable_x64 else
                                         jnp.float32),
    lambda x: jnp.sqrt(x * x), lambda x: jnp.floor(x + 0.5),
]


@pytest.mark.parametrize("case", range(len(WEAK_CASES)))
def test_numpy_functions_eager_equal_jit_with_weak_types(case):
  fun = WEAK_CASES[case]
  for value in ([0.5, 1.5, -2.0], [1, 2, 3], 2.0, 3):
    x = jnp.asarray(value)
    try:
      jitted = xjax.jit(fun)(x)  # a user's jit always compiles
    except (TypeError, ValueError, IndexError):  # (not defined for scalars)
      continue
    eager = fun(x)
    assert eager.aval == jitted.aval, (case, value, eager.aval, jitted.aval)
    assert np.array_equal(bits(eager), bits(jitted)), (case, value)


def test_host_arrays_behave_as_device_arrays():
  x = jnp.asarray([1.0, 2.0, 3.0])
  assert x._host is not None and x._b is None
  assert x.devices() == {xjax.devices()[0]} and x.device == xjax.devices()[0]
  assert x.sharding == xjax.sharding.SingleDeviceSharding(xjax.devices()[0])
  assert x.is_ready() and x.block_until_ready() is x and not x.committed
  with pytest.raises(ValueError):  # read-only, as JAX's host views
    np.asarray(x)[0] = 5.0
  y = pickle.loads(pickle.dumps(x))
  np.testing.assert_array_equal(y, x)
  z = xjax.jit(lambda a: a * 2)(x)  # a compiled call: the buffer is made then
  np.testing.assert_array_equal(z, [2.0, 4.0, 6.0])
  assert x._b is not None and x._host is not None  # still a host value
  assert x.unsafe_buffer_pointer()


def test_deleted_and_donated_host_arrays_are_gone():
  x = jnp.asarray([1.0, 2.0])
  x.delete()
  assert x.is_deleted()
  with pytest.raises(RuntimeError, match="deleted"):
    x + 1
  y = jnp.asarray([1.0, 2.0])
  copy = y.copy() if hasattr(y, "copy") else None
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    out = xjax.jit(lambda a: a + 1, donate_argnums=0)(y)
  np.testing.assert_array_equal(out, [2.0, 3.0])
  assert y.is_deleted()
  with pytest.raises(RuntimeError, match="deleted"):
    y * 2
  if copy is not None:  # sharing host memory with the donated array, a copy is untouched
    np.testing.assert_array_equal(copy, [1.0, 2.0])


def test_large_arrays_and_other_dtypes_stay_on_the_device():
  assert jnp.zeros(host_eval.HOST_MAX_SIZE + 1)._host is None
  assert jnp.asarray([1.0, 2.0], jnp.float16)._host is None
  assert jnp.asarray([1 + 2j])._host is None
  assert jnp.asarray([1.0, 2.0])._host is not None


REDUCTIONS = {
    red.reduce_sum_p: INTS, red.reduce_prod_p: INTS, red.reduce_max_p: INTS + [np.bool_],
    red.reduce_min_p: INTS + [np.bool_], red.reduce_and_p: INTS + [np.bool_],
    red.reduce_or_p: INTS + [np.bool_], red.reduce_xor_p: INTS + [np.bool_],
}


@pytest.mark.parametrize("prim", list(REDUCTIONS), ids=lambda p: p.name)
def test_integer_and_boolean_reductions_agree_with_xla(prim):
  """Exact in any order (wrapping sums and products included), so equal to XLA's."""
  for dtype in available(REDUCTIONS[prim]):
    values = edge_values(dtype)
    grid = np.array(list(itertools.product(values, values)), dtype)  # (n, 2)
    for axes in [(0,), (1,), (0, 1), ()]:
      assert_same(*run_both(prim, [grid], axes=axes), f"{prim.name} {axes} {grid.dtype}")
    empty = np.zeros((0, 2), dtype)
    out, expected = run_both(prim, [empty], axes=(0,))
    np.testing.assert_array_equal(out, expected)  # (max/min over nothing: run compiled)


@pytest.mark.parametrize("prim", [red.argmax_p, red.argmin_p], ids=lambda p: p.name)
def test_argmax_and_argmin_agree_with_xla(prim):
  """The first of equal values (signed zeros are equal) and the first NaN, as XLA's."""
  for dtype in available(FLOATS + INTS + [np.bool_]):
    values = edge_values(dtype)
    rows = values[np.random.RandomState(0).randint(len(values), size=(400, 3))]
    for axis in (0, 1):
      for index_dtype in available([np.int32, np.int64]):
        assert_same(*run_both(prim, [rows], axes=(axis,), index_dtype=np.dtype(index_dtype)),
                    f"{prim.name} {axis} {rows.dtype}")


def test_reductions_of_floats_run_compiled():
  """XLA picks the order of a float sum: no host kernel could promise its bits."""
  out = jnp.sum(jnp.asarray([0.1, 0.2, 0.3]))
  assert out._host is None
  assert jnp.sum(jnp.arange(5))._host is not None and int(jnp.sum(jnp.arange(5))) == 10


def test_transcendental_functions_run_compiled():
  x = jnp.asarray([0.5, 1.0])
  out = jnp.sin(x)
  assert out._host is None
  np.testing.assert_array_equal(out, xjax.jit(jnp.sin)(device(np.asarray(x))))


SHORTCUTS = [
    lambda x: x[1], lambda x: x[-1], lambda x: x[1:], lambda x: x[::-2], lambda x: x[5:1:-1],
    lambda x: x[0, 1], lambda x: x[:, 1], lambda x: x[-1, ::2], lambda x: x[1:100],
    lambda x: x[7], lambda x: x[-9],  # out of range: clamped, as JAX does
    lambda x: jnp.concatenate([x, x]), lambda x: jnp.concatenate([x, x], -1),
    lambda x: jnp.concatenate((x, x[:1]), 0), lambda x: jnp.stack([x, x]),
    lambda x: jnp.stack([x, x], -1), lambda x: jnp.stack((x, x, x), 1),
]
BAD_SHORTCUTS = [
    lambda x: x[0, 0, 0, 0], lambda x: x[::0], lambda x: x[1.5],
    lambda x: jnp.concatenate([x, x], 5), lambda x: jnp.concatenate([x, x[0]]),
    lambda x: jnp.stack([x, x[:1]]), lambda x: jnp.stack([x, x], 9),
]


@pytest.mark.parametrize("case", range(len(SHORTCUTS)))
def test_host_shortcuts_of_indexing_and_joining_equal_the_general_path(case):
  """Basic indexing, jnp.concatenate and jnp.stack of host Arrays take NumPy directly."""
  fun = SHORTCUTS[case]
  for value in (np.arange(6.0).reshape(2, 3), np.arange(5, dtype=np.int32), [1.5, 2.5]):
    x = jnp.asarray(value)
    try:
      expected = fun(device(np.asarray(x)))
    except (TypeError, ValueError, IndexError):
      continue
    out = fun(x)
    assert out._host is not None
    assert out.aval.update(weak_type=False) == expected.aval.update(weak_type=False)
    np.testing.assert_array_equal(out, expected)
  weak = jnp.full((2, 3), 2.0)  # weakly typed: kept as the general path keeps it
  assert weak.weak_type and weak._host is not None
  assert fun(weak).weak_type == xjax.jit(fun)(weak).weak_type


def _computed(value):
  """An uncommitted Array whose data is on the device only (a compiled result)."""
  x = xjax.jit(lambda v: lax.rev(lax.rev(v, (0,)), (0,)))(value)
  assert x._host is None and not x.committed
  return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint32, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_static_indexing_of_a_small_device_array_copies_it_to_the_host_once(dtype):
  """Eager ``x[i]`` of a small device Array: one copy to the host, then the host kernels
  (bit for bit the compiled slices, over edge values); the copy is kept for later ones."""
  if dtype not in available([dtype]):
    return
  values = edge_values(dtype)
  x = _computed(values)
  for fun in SHORTCUTS[:11]:
    try:
      expected = xjax.jit(fun)(device(values))
    except (TypeError, ValueError, IndexError):
      continue
    out = fun(x)
    assert x._host is not None and out._host is not None
    assert out.aval == expected.aval
    np.testing.assert_array_equal(bits(out), bits(expected))


def test_indexing_leaves_committed_large_subnormal_and_deleted_arrays_to_xla():
  committed = device([1.0, 2.0])
  assert float(committed[1]) == 2.0 and committed._host is None
  large = _computed(np.arange(host_eval.HOST_MAX_SIZE + 1.0))
  assert float(large[3]) == 3.0 and large._host is None
  tiny = np.finfo(np.float32).tiny
  subnormal = _computed(np.array([tiny / 4, 1.0], np.float32))
  np.testing.assert_array_equal(bits(subnormal[0]), bits(np.float32(tiny / 4)))
  assert subnormal._host is None
  gone = _computed(np.array([1.0, 2.0]))
  gone.delete()
  with pytest.raises(RuntimeError, match="deleted"):
    gone[0]
  keys = xjax.random.split(xjax.random.key(0))
  assert keys[0].shape == () and keys._host is None


@pytest.mark.parametrize("prim", [ew.add_p, ew.mul_p, ew.lt_p], ids=lambda p: p.name)
def test_eager_primitives_copy_small_compiled_results_to_the_host_for_a_while(prim):
  """A primitive with a host kernel, called eagerly on a small compiled result, copies it to
  the host (bit for bit the compiled primitive, over edge values) for its first
  FETCHES_BEFORE_COMPILING calls on such operands, then runs compiled."""
  for dtype in available([np.float32, np.float64, np.int8, np.uint32]):
    values = edge_values(dtype)
    expected = compiled(prim)(device(values), device(values[::-1]))
    fresh = [_computed(values) for _ in range(host_eval.FETCHES_BEFORE_COMPILING + 1)]
    outs = [prim.bind(x, jnp.asarray(values[::-1])) for x in fresh]
    for x, out in zip(fresh[:-1], outs):
      assert x._host is not None and out._host is not None, dtype
      assert out.aval == expected.aval
      np.testing.assert_array_equal(bits(out), bits(expected))
    assert fresh[-1]._host is None and outs[-1]._host is None, "compiled after that"
    np.testing.assert_array_equal(bits(outs[-1]), bits(expected))


def test_library_functions_copy_small_compiled_results_to_the_host_for_a_while():
  """A library function whose program has host kernels (a HostCall) does the same."""
  values = edge_values(np.float32)
  half = jnp.asarray(0.5, np.float32)  # (0.5 is cast from float64 under x64: two roundings)
  expected = xjax.jit(jnp.multiply)(device(values), half)
  multiply = compiled_when_eager(lambda x, y: x * y)
  fresh = [_computed(values) for _ in range(host_eval.FETCHES_BEFORE_COMPILING + 1)]
  outs = [multiply(x, half) for x in fresh]
  assert all(o._host is not None for o in outs[:-1]) and outs[-1]._host is None
  for out in outs:
    np.testing.assert_array_equal(bits(out), bits(expected))


def test_committed_large_subnormal_and_deleted_results_are_not_copied_to_the_host():
  one = jnp.asarray(1.0, np.float32)
  committed = device(np.array([1.0, 2.0], np.float32))
  large = _computed(np.arange(host_eval.HOST_MAX_SIZE + 1.0, dtype=np.float32))
  subnormal = _computed(np.array([np.finfo(np.float32).tiny / 4, 1.0], np.float32))
  for x in (committed, large, subnormal):
    out = lax.add(x, one)
    assert x._host is None and out._host is None
    np.testing.assert_array_equal(bits(out), bits(compiled(ew.add_p)(device(x), one)))
  gone = _computed(np.array([1.0, 2.0], np.float32))
  gone.delete()
  with pytest.raises(RuntimeError, match="deleted"):
    lax.add(gone, one)


@pytest.mark.parametrize("case", range(len(BAD_SHORTCUTS)))
def test_host_shortcuts_leave_bad_indices_to_the_general_path(case):
  fun = BAD_SHORTCUTS[case]
  x = jnp.asarray(np.arange(6.0).reshape(2, 3))
  with pytest.raises(Exception) as on_device:
    fun(device(np.asarray(x)))
  with pytest.raises(on_device.type):
    fun(x)


def test_host_shortcuts_are_staged_under_transformations():
  x = jnp.asarray([1.0, 2.0, 3.0])
  jaxpr = xjax.make_jaxpr(lambda: (x + x, x[1], jnp.concatenate([x, x])))()
  names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
  assert "add" in names and "concatenate" in names and "squeeze" in names


def test_array_of_python_floats():
  for value in ([1.0, 2.0, 3.0], [0.1], [1e-40, 1.0]):
    out = jnp.array(value)
    assert out.dtype == xjax.dtypes.canonicalize_dtype(np.float64) and not out.weak_type
    np.testing.assert_array_equal(out, np.array(value, out.dtype))


def test_a_host_array_whose_shared_buffer_is_donated_is_deleted():
  x = jnp.asarray([1.0, 2.0])
  y = xjax.device_put(x, xjax.devices()[0])  # shares x's buffer, as JAX's does
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    xjax.jit(lambda a: a + 1, donate_argnums=0)(y)
  assert x.is_deleted()
  for use in (lambda: x + 1, lambda: x[0], lambda: jnp.concatenate([x, x]), lambda: -x):
    with pytest.raises(RuntimeError, match="deleted"):
      use()


def test_host_programs_leave_closed_over_numpy_constants_writable():
  table = np.array([1.0, 2.0, 3.0], np.float32)
  fun = compiled_when_eager(lambda x: x * table)
  out = fun(jnp.asarray([1.0, 1.0, 1.0]))
  np.testing.assert_array_equal(out, table)
  assert table.flags.writeable
  table[0] = 5.0  # the program's copy is unaffected
  np.testing.assert_array_equal(fun(jnp.asarray([1.0, 1.0, 1.0])), [1.0, 2.0, 3.0])


def test_array_operators_take_the_host_shortcut(monkeypatch):
  """`x + y` on host Arrays is computed from the jitted ufunc's host call, not through the
  jit's full dispatch (a jnp.ufunc wraps the function that holds the shortcut)."""
  from xjax._src.api.jit import PjitFunction
  x = jnp.asarray([1.0, 2.0, 3.0])
  expected = [np.asarray(v) for v in (x + x, x * 2.0, 1.0 - x, x / x, x ** 2)]

  def refuse(self, *args, **kwargs):
    raise AssertionError(f"{self} dispatched through the jit")
  monkeypatch.setattr(PjitFunction, "__call__", refuse)
  for got, want in zip((x + x, x * 2.0, 1.0 - x, x / x, x ** 2), expected):
    np.testing.assert_array_equal(np.asarray(got), want)


def test_a_remainder_keeping_subnormals_is_computed_by_xla():
  """XLA:CPU's remainder keeps subnormal results, and the next operation reads them as zeros:
  a host value cannot hold them, so such a remainder runs compiled (JAX's values)."""
  a = jnp.array([3e-38, 1.5e-38, 7.], jnp.float32)
  b = jnp.array([2e-38, 1.4e-38, 2.], jnp.float32)
  r = lax.rem(a, b)
  assert r._host is None
  assert np.asarray(r).tolist() == [1.0000000751754868e-38, 1.0000002153053333e-39, 1.0]
  assert jnp.sqrt(r).tolist() == [0.0, 0.0, 1.0]
  assert (r == 0).tolist() == [True, True, False]
  assert xjax.jit(lambda a, b: lax.rem(a, b) == 0)(a, b).tolist() == [True, True, False]
  assert lax.rem(jnp.float32(7.), jnp.float32(2.))._host is not None


def test_host_values_reach_users_read_only():
  """Host results are made writable and frozen when a user gets them (``np.asarray``), so
  no user write can reach an array's value or a value another array shares."""
  x = jnp.asarray([1.0, 2.0, 3.0])
  for y in (x + x, x * 2.0, x[1:], x.reshape(3, 1), x[0], -x):
    assert y._host is not None
    view = np.asarray(y)
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
      view[...] = 0.0
  np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])


def test_python_scalar_operands_keep_their_value_sign_and_nan():
  """Python scalars' host values are reused between operations: -0.0 and 0.0, and NaN,
  which compare unlike their bits, are each their own."""
  x = jnp.asarray([1.0, -2.0, 3.0])
  for _ in range(2):
    assert np.signbit(np.asarray(x * -0.0)).tolist() == [True, False, True]
    assert np.signbit(np.asarray(x * 0.0)).tolist() == [False, True, False]
    assert np.isnan(np.asarray(x * float("nan"))).all()
    assert (x * 2.0).tolist() == [2.0, -4.0, 6.0]
    assert (jnp.asarray([1, 2]) + True).tolist() == [2, 3]
    assert (jnp.asarray([1, 2], jnp.uint8) * 200).tolist() == [200, 144]
