"""``jax.extend.linear_util``: wrapped functions and their transformations, stores, cache
(every value and error as JAX 0.10.2 gives them)."""
import pytest

import xjax
from xjax.extend import linear_util as lu


def _f(x, y, *, k=1):
  return x * 10 + y + k


@lu.transformation
def _scale(s, *args):
  out = yield [a * s for a in args], {}
  yield out + 1000


@lu.transformation_with_aux
def _record(tag, *args):
  out = yield args, {}
  yield out * 2, (tag, len(args))


@lu.transformation2
def _add_arg(f, extra, *args):
  return f(*args, extra)


@lu.transformation_with_aux2
def _count(f, store, *args):
  out = f(*args)
  store.store(("n", out))
  return -out


def test_wrap_init_and_transformations():
  w = lu.wrap_init(_f, {"k": 5})
  assert (w.call_wrapped(1, 2), w.params, w.__name__) == (17, (("k", 5),), "_f")
  assert repr(lu.wrap_init(_f)) == "Wrapped function:\n\nCore: _f\n"
  g = _scale(w, 3)
  assert g.call_wrapped(1, 2) == 1041
  h, aux = _record(g, "t")
  with pytest.raises(lu.StoreException, match="Store empty"):
    aux()
  assert h.call_wrapped(1, 2) == 2082 and aux() == ("t", 2)
  with pytest.raises(lu.StoreException, match="Store occupied"):
    h.call_wrapped(1, 2)
  assert (len(h.transforms), [s is None for s in h.stores]) == (2, [False, True])
  k, aux2 = _count(_add_arg(lu.wrap_init(lambda a, b, c: a + b * c), 7))
  assert k.call_wrapped(1, 2) == -15 and aux2() == ("n", 15)
  # wrapped functions are equal when they compute the same thing
  assert _add_arg(w, 3) == _add_arg(w, 3) and _add_arg(w, 3) != _add_arg(w, 4)
  assert hash(_add_arg(w, 3)) == hash(_add_arg(w, 3))
  assert _scale(w, 3) != _scale(w, 3)   # generator transformations are new each time (JAX)
  assert isinstance(lu.transformation2(lambda f, *a: f(*a), w), type(_add_arg))  # curried


def test_equal_stores_take_equal_values_again():
  w = lu.wrap_init(_f, {"k": 5})
  e, aux = lu.transformation_with_aux2(lambda f, store, *a: (store.store(a), f(*a))[1], w,
                                       use_eq_store=True)()
  assert (e.call_wrapped(1, 1), e.call_wrapped(1, 1), aux()) == (16, 16, (1, 1))
  with pytest.raises(lu.StoreException, match="Store occupied with not-equal value"):
    e.call_wrapped(2, 2)


def test_cache_memoizes_on_the_wrapped_function_and_fills_its_stores():
  w = lu.wrap_init(_f, {"k": 5})
  calls = []

  @lu.cache
  def traced(fun, n):
    calls.append(n)
    return fun.call_wrapped(n, n)
  assert (traced(w, 1), traced(w, 1), traced(w, 2), calls) == (16, 16, 27, [1, 2])
  flat = lambda f, store, *a: (store.store(len(a)), f(*a))[1]  # noqa: E731
  t = lu.transformation_with_aux2(flat)
  (f1, a1), (f2, a2) = t(w), t(w)
  assert f1 == f2
  assert traced(f1, 3) == 38 and traced(f2, 3) == 38 and calls == [1, 2, 3]
  assert a2() == 2   # filled from the call that computed the cached result
  xjax.config.update("jax_enable_x64", True)   # tracing configuration is in the key
  try:
    traced(w, 1)
  finally:
    xjax.config.update("jax_enable_x64", False)
  assert calls == [1, 2, 3, 1]
  traced.cache_clear()
  traced(w, 1)
  assert calls == [1, 2, 3, 1, 1]


def test_merge_linear_aux():
  w = lu.wrap_init(_f)
  s1, b1 = _record(w, "y")
  s2, b2 = _record(w, "z")
  s1.call_wrapped(1, 1)
  assert lu.merge_linear_aux(b1, b2) == (True, ("y", 2))
  assert lu.merge_linear_aux(b2, b1) == (False, ("y", 2))
  with pytest.raises(lu.StoreException, match="neither store occupied"):
    lu.merge_linear_aux(b2, b2)
  s2.call_wrapped(1, 1)
  with pytest.raises(lu.StoreException, match="both stores occupied"):
    lu.merge_linear_aux(b1, b2)


def test_transformed_functions_trace():
  f, aux = _record(_scale(lu.wrap_init(lambda x: x * 2.), 3.), "x")
  jaxpr = xjax.make_jaxpr(f.call_wrapped)(1.)
  assert [str(e.primitive) for e in jaxpr.eqns] == ["mul", "mul", "add", "mul"]
  assert aux() == ("x", 1)
