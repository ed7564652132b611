"""``jax.make_user_context``: a value in jit's cache key (traces counted as JAX 0.10.2 counts
them), with JAX's global/local semantics."""
import pytest

import xjax


def test_changing_the_value_retraces_as_jax():
  ctx = xjax.make_user_context(default_value=None)
  assert (ctx.value, ctx.get_global()) == (None, None)
  traces = []

  @xjax.jit
  def f(x):
    traces.append(1)
    return x * 2

  f(1.)
  with ctx(1):
    assert (ctx.value, ctx.get_global()) == (1, None)
    f(1.)
    f(1.)
    assert len(traces) == 2
    ctx.set_global(5)
    assert (ctx.value, ctx.get_global()) == (1, 5)   # the block's value wins
  assert (ctx.value, ctx.get_global()) == (5, 5)
  f(1.)
  assert len(traces) == 3
  with ctx(1):
    f(1.)  # seen before: a cache hit
  ctx.set_global(None)
  assert float(f(1.)) == 2.
  assert len(traces) == 3


def test_value_read_while_tracing_and_nesting():
  ctx = xjax.make_user_context(7)
  assert ctx.value == 7
  g = xjax.jit(lambda x: x + ctx.value)
  assert float(g(1.)) == 8.
  with ctx(10):
    assert float(g(1.)) == 11.
    with ctx(2):
      assert ctx.value == 2
      assert float(g(1.)) == 3.
    assert ctx.value == 10
  assert float(g(1.)) == 8.
  manager = ctx(3)
  assert manager.__enter__() is None and ctx.value == 3
  manager.__exit__(None, None, None)
  assert ctx.value == 7
  assert xjax.make_user_context().value is None


def test_unhashable_value_is_a_type_error_as_jax():
  ctx = xjax.make_user_context()
  with pytest.raises(TypeError, match="unhashable type: 'list'"):
    with ctx([1, 2]):  # JAX raises at the jitted call, xjax when entering
      xjax.jit(lambda x: x + 1)(1.)
  assert ctx.value is None  # nothing changed
  assert float(xjax.jit(lambda x: x + 1)(1.)) == 2.
