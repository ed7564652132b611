"""Reliability: transformations of jitted functions and control flow hit their caches,
memory comes back, bad input raises JAX's error classes."""
import gc

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax._src.backend import executables
from xjax._src.core import jaxpr_cache


@pytest.fixture
def compiles(monkeypatch):
  """Counts XLA compilations."""
  count = [0]
  real = executables.compile

  def counting(*args, **kwargs):
    count[0] += 1
    return real(*args, **kwargs)
  monkeypatch.setattr(executables, "compile", counting)
  return count


def _steady(fn, x, calls=6):
  """Calls ``fn(x)`` twice to warm up, then ``calls`` more; returns the last result and
  the growth of (compilations, cached jaxpr transformations) over the later calls."""
  fn(x)
  fn(x)
  gc.collect()  # jaxprs of earlier tests go now, not during the measured calls
  before = jaxpr_cache.cache_size()
  out = None
  for _ in range(calls):
    out = fn(x)
  return out, jaxpr_cache.cache_size() - before


# --- item 1: grad/vmap/jvp/linearize/vjp of jit and control flow reuse their work ------

def test_grad_of_jit_traces_and_compiles_once(compiles):
  traces = []

  @xjax.jit
  def f(x):
    traces.append(1)
    return jnp.sum(jnp.sin(x) * x)

  x = np.linspace(0.0, 1.0, 5, dtype=np.float32)
  g = xjax.grad(f)
  g(x)
  n_compiles = compiles[0]
  out, grown = _steady(g, x)
  assert len(traces) == 1
  assert compiles[0] == n_compiles
  assert grown <= 0
  np.testing.assert_allclose(out, np.cos(x) * x + np.sin(x), rtol=1e-6)


@pytest.mark.parametrize("name", ["vmap", "jvp", "vjp", "linearize"])
def test_transformations_of_jit_reuse_executables(name, compiles):
  @xjax.jit
  def f(x):
    return jnp.sum(jnp.sin(x) * x)

  x = np.linspace(0.0, 1.0, 5, dtype=np.float32)
  fn = {"vmap": lambda x: xjax.vmap(f)(np.stack([x, 2 * x])),
        "jvp": lambda x: xjax.jvp(f, (x,), (np.ones_like(x),))[1],
        "vjp": lambda x: xjax.vjp(f, x)[1](np.float32(1.0))[0],
        "linearize": lambda x: xjax.linearize(f, x)[1](np.ones_like(x))}[name]
  fn(x)
  n = compiles[0]
  out, grown = _steady(fn, x)
  assert compiles[0] == n and grown <= 0
  expect = {"vmap": [np.sum(np.sin(x) * x), np.sum(np.sin(2 * x) * 2 * x)],
            "jvp": np.sum(np.cos(x) * x + np.sin(x)),
            "vjp": np.cos(x) * x + np.sin(x),
            "linearize": np.sum(np.cos(x) * x + np.sin(x))}[name]
  np.testing.assert_allclose(out, expect, rtol=1e-5)


def _scan_f(x):
  c, ys = lax.scan(lambda c, x: (c * 0.5 + jnp.sin(x), c), x[0], x)
  return c + ys.sum()


def _body(c, x):
  return c * 0.5 + jnp.sin(x), c


def _scan_named(x):
  c, ys = lax.scan(_body, x[0], x)
  return c + ys.sum()


def _cond_f(x):
  return lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x).sum()


def _step(i, c):
  return c * 1.5 + jnp.sin(c)


def _fori_f(x):
  return lax.fori_loop(0, 3, _step, x).sum()


def _while_cond(c):
  return c[0] < 3


def _while_body(c):
  return c[0] + 1, jnp.sin(c[1])


def _while_f(x):
  return lax.while_loop(_while_cond, _while_body, (0, x))[1]


@pytest.mark.parametrize("name", ["grad_scan", "vmap_scan", "grad_cond", "jvp_cond",
                                  "grad_fori", "vmap_while", "jvp_while"])
def test_transformations_of_control_flow_reuse_executables(name, compiles):
  x = np.linspace(0.1, 0.9, 4, dtype=np.float32)
  fn = {"grad_scan": xjax.grad(_scan_named),
        "vmap_scan": xjax.vmap(_scan_named),
        "grad_cond": xjax.grad(_cond_f),
        "jvp_cond": lambda x: xjax.jvp(_cond_f, (x,), (np.ones_like(x),))[1],
        "grad_fori": xjax.grad(_fori_f),
        "vmap_while": xjax.vmap(_while_f),
        "jvp_while": lambda x: xjax.jvp(_while_f, (x,), (np.ones_like(x),))[1]}[name]
  arg = np.stack([x, x + 1]) if name.startswith("vmap") else x
  fn(arg)
  n = compiles[0]
  out, grown = _steady(fn, arg)
  assert compiles[0] == n and grown <= 0
  eager = {"grad_scan": lambda x: xjax.grad(_scan_f)(x),
           "vmap_scan": lambda x: np.stack([_scan_f(r) for r in x]),
           "grad_cond": lambda x: np.cos(x),
           "jvp_cond": lambda x: np.sum(np.cos(x)),
           "grad_fori": lambda x: xjax.grad(lambda x: _fori_f(x))(x),
           "vmap_while": lambda x: np.sin(np.sin(np.sin(x))),
           "jvp_while": lambda x: np.cos(np.sin(np.sin(x))) * np.cos(np.sin(x)) * np.cos(x)}
  np.testing.assert_allclose(out, eager[name](arg), rtol=1e-5)


def test_control_flow_bodies_are_traced_once_per_function_as_in_jax():
  traces = []

  def body(c, x):
    traces.append(1)
    return c + x, c

  for _ in range(3):
    carry, _ = lax.scan(body, 0.0, jnp.arange(3.0))
  assert float(carry) == 3.0 and len(traces) == 1
  lax.scan(body, 0, jnp.arange(4))  # new argument types: traced again
  assert len(traces) == 2


def test_jaxpr_caches_die_with_the_function():
  gc.collect()
  start = jaxpr_cache.cache_size()
  for i in range(5):
    f = xjax.jit(lambda x, i=i: jnp.sum(jnp.sin(x) * i))
    xjax.grad(f)(np.ones(3, np.float32))
    xjax.vmap(f)(np.ones((2, 3), np.float32))
  del f
  gc.collect()
  assert jaxpr_cache.cache_size() <= start


def test_weak_lru_bounds_entries_per_owner():
  table = jaxpr_cache.WeakLRU(per_owner=3)
  owner = lax.scan  # any weakly referenceable object
  for i in range(10):
    table.put(owner, i, i)
  assert table.size() == 3
  assert table.get(owner, 9) == 9 and table.get(owner, 0) is None
  with pytest.raises(TypeError):
    table.get(1, 0)  # an int cannot be weakly referenced


@pytest.fixture
def small_budget(monkeypatch):
  """The executable budget shrunk to 3 programs and 64 KiB of constants."""
  from xjax._src.backend.executable_budget import budget
  monkeypatch.setattr(budget, "max_entries", 3)
  monkeypatch.setattr(budget, "max_bytes", 1 << 16)
  return budget


def test_the_budget_unloads_least_recently_used_programs_and_reloads_them(
    small_budget, compiles):
  fs = [xjax.jit(lambda x, i=i: x * i + 1) for i in range(6)]
  x = jnp.arange(4.0)
  start = compiles[0]
  for i, f in enumerate(fs):
    np.testing.assert_allclose(f(x), np.arange(4.0) * i + 1)
  assert small_budget.stats()[0] <= 3 and compiles[0] - start == 6
  hot = fs[5]
  for _ in range(3):  # hot keeps running while others are compiled: it stays loaded
    hot(x)
    for i in range(3):
      xjax.jit(lambda x, i=i: x - i)(x)
  before = compiles[0]
  np.testing.assert_allclose(hot(x), np.arange(4.0) * 5 + 1)
  assert compiles[0] == before
  np.testing.assert_allclose(fs[0](x), np.arange(4.0) * 0 + 1)  # unloaded: compiled again
  assert compiles[0] == before + 1
  assert small_budget.stats()[0] <= 3


def test_the_budget_bounds_bytes_of_constants_held(small_budget):
  consts = [np.full(4096, float(i), np.float32) for i in range(8)]  # 16 KiB each
  fs = [xjax.jit(lambda x, c=c: x + c) for c in consts]
  x = jnp.ones(4096)
  for f in fs:
    f(x)
  assert small_budget.stats()[1] <= 1 << 16
  for i, f in enumerate(fs):  # every program still gives its value, reloaded or not
    assert float(f(x)[7]) == i + 1


def test_one_function_keeps_a_bounded_number_of_traces(monkeypatch):
  from xjax._src.api import jit as jit_module
  monkeypatch.setattr(jit_module, "_TRACES_PER_FUNCTION", 4)
  f = xjax.jit(lambda x: x * 2)
  for n in range(1, 13):
    assert float(f(jnp.ones(n))[0]) == 2.0
  assert f._cache_size() == 4
  assert float(f(jnp.ones(1))[0]) == 2.0  # traced again


# --- item 2: memory comes back ---------------------------------------------------------

def test_distinct_python_scalars_do_not_accumulate_device_buffers():
  from xjax._src.execution import array as array_module
  from xjax._src.execution import dispatch
  x = jnp.ones(4)
  for i in range(3 * array_module.SCALAR_CACHE_SIZE):
    y = x * (float(i) + 0.25)
  assert float(y[0]) == 3 * array_module.SCALAR_CACHE_SIZE - 1 + 0.25
  assert len(array_module._SCALAR_ARRAYS) <= array_module.SCALAR_CACHE_SIZE
  assert len(dispatch._SCALAR_BUFFERS) <= array_module.SCALAR_CACHE_SIZE


def test_eager_ops_keep_no_python_memory():
  import tracemalloc
  x = jnp.ones(8)
  for _ in range(200):
    x = jnp.sin(x) * 0.5
  gc.collect()
  tracemalloc.start()
  try:
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(2000):
      x = jnp.sin(x) * 0.5
    gc.collect()
    per_op = (tracemalloc.get_traced_memory()[0] - before) / 4000
  finally:
    tracemalloc.stop()
  assert per_op < 8, f"{per_op:.1f} bytes kept per eager op"


# --- items 4 and 5: bad input raises JAX's class, in the user's terms --------------------

@pytest.mark.parametrize("fn, cls, match", [
    (lambda: lax.integer_pow(jnp.ones(3), 2.5), TypeError, "exponent y must be a Python integer"),
    (lambda: jnp.array(2**40, dtype=jnp.int32), OverflowError, "int32"),
    (lambda: jnp.float32("abc"), ValueError, "could not convert string to float"),
    (lambda: xjax.device_put(jnp.ones(2), 3), ValueError, "only accepts"),
    (lambda: jnp.zeros(2**63), TypeError, "64-bit signed integer"),
    (lambda: jnp.tile(jnp.ones(3), (2, -1)), ValueError, "reps must be non-negative"),
    (lambda: lax.slice(jnp.ones((3, 3)), (0,), (1,)), ValueError, "number of dimensions"),
    (lambda: jnp.array([[1, 2], [3]]), ValueError, "inhomogeneous"),
    (lambda: lax.fori_loop(0, 3.5, lambda i, c: c + i, 0.0), TypeError, "equal types"),
])
def test_bad_input_raises_the_reference_class(fn, cls, match):
  with pytest.raises(cls, match=match):
    fn()


def test_scalar_type_parses_numeric_text():
  assert float(jnp.float32("1.5")) == 1.5


def test_fori_loop_with_float_bounds_runs_as_in_jax():
  # JAX 0.10.2: concrete float bounds act as Python ints; the index is an integer.
  out = lax.fori_loop(0.0, 3.0, lambda i, c: c + i, 0.0)
  assert float(out) == 3.0


def test_repr_of_deleted_array_raises_runtime_error():
  a = jnp.ones(3)
  a.delete()
  with pytest.raises(RuntimeError, match="deleted"):
    repr(a)


def test_impossible_allocation_is_a_clear_memory_error_and_the_process_lives():
  with pytest.raises(MemoryError, match=r"shape \(2147483648, 2147483648\).*bytes"):
    jnp.ones((2**31, 2**31))
  with pytest.raises(MemoryError):
    xjax.jit(lambda x: jnp.broadcast_to(x, (2**31, 2**31)))(jnp.ones(1))
  np.testing.assert_array_equal(jnp.ones(2) + 1, [2.0, 2.0])


def test_eager_loops_with_new_closures_keep_a_bounded_number_of_programs(compiles):
  # distrax's multinomial sampler runs a while_loop whose body is a new closure on every
  # call: each makes a program, and every CPU executable holds memory maps the kernel
  # limits (past vm.max_map_count XLA's next compilation crashed the interpreter)
  from xjax._src.execution import eager_primitives
  xjax.clear_caches()
  for n in range(eager_primitives._BODY_CACHE_SIZE + 16):
    out = lax.while_loop(lambda c: c < n, lambda c, n=n: c + 1 + 0 * n, 0)
    assert int(out) == n
  assert len(eager_primitives._body_cache) <= eager_primitives._BODY_CACHE_SIZE
  # the same loop again is still compiled once
  cond, body = (lambda c: c < 5), (lambda c: c * 2 + 1)
  before = compiles[0]
  for _ in range(5):
    assert int(lax.while_loop(cond, body, 0)) == 7
  assert compiles[0] - before <= 1


def test_a_full_primitive_cache_keeps_its_programs_on_hits(compiles, monkeypatch):
  # at capacity, a hit evicted the oldest program (recompiled at its next use)
  from xjax._src.execution import eager_primitives
  xjax.clear_caches()
  monkeypatch.setattr(eager_primitives, "_PRIMITIVE_CACHE_SIZE", 2)
  x = xjax.device_put(jnp.arange(3.0))   # (a device value: no host evaluation)
  before = compiles[0]
  for f, ref in [(lax.sin, np.sin), (lax.cos, np.cos), (lax.cos, np.cos), (lax.sin, np.sin)]:
    np.testing.assert_allclose(f(x), ref(np.arange(3.0)), rtol=1e-6)
  assert compiles[0] - before == 2
  assert len(eager_primitives._primitive_cache) == 2
  np.testing.assert_allclose(lax.tan(x), np.tan(np.arange(3.0)), rtol=1e-6)   # the oldest goes
  assert len(eager_primitives._primitive_cache) == 2 and compiles[0] - before == 3
