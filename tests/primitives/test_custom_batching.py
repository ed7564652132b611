"""xjax.custom_batching: custom_vmap rules under vmap (nested, with pytrees), jit and jvp;
reverse mode as JAX allows it; sequential_vmap against loops.  Expected values are NumPy's
or JAX 0.10.2's."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.custom_batching import custom_vmap, sequential_vmap

X = np.arange(3.0, dtype=np.float32)


def _sin_times():
  """sin(x) * y, whose vmap rule computes cos(x) * y (so the rule's use is visible)."""
  @custom_vmap
  def f(x, y):
    return jnp.sin(x) * y

  calls = []

  @f.def_vmap
  def rule(axis_size, in_batched, x, y):
    calls.append((axis_size, in_batched))
    return jnp.cos(x) * y, in_batched[0] or in_batched[1]
  return f, calls


def test_docstring_example():
  @custom_vmap
  def f(x, y):
    return x + y

  @f.def_vmap
  def rule(axis_size, in_batched, xs, ys):
    assert all(in_batched) and xs.shape[0] == ys.shape[0] == axis_size
    return xs * ys, True
  out = xjax.vmap(f)(jnp.arange(3), jnp.arange(1, 4))
  np.testing.assert_array_equal(out, [0, 2, 6])
  assert out.dtype == np.int32


def test_rule_runs_only_under_vmap():
  f, calls = _sin_times()
  out = f(1.0, 2.0)   # JAX 0.10.2: Array(1.6829419, dtype=float32, weak_type=True)
  np.testing.assert_allclose(out, 2 * np.sin(1.0), rtol=1e-6)
  assert out.weak_type and calls == []
  np.testing.assert_allclose(xjax.vmap(f)(X, np.ones(3, np.float32)), np.cos(X), rtol=1e-6)
  np.testing.assert_allclose(xjax.vmap(f, (0, None))(X, 2.0), 2 * np.cos(X), rtol=1e-6)
  assert calls == [(3, [True, True]), (3, [True, False])]


def test_jit_stages_the_call():
  f, calls = _sin_times()
  jaxpr = xjax.make_jaxpr(f)(1.0, 2.0)
  assert [e.primitive.name for e in jaxpr.jaxpr.eqns] == ["custom_vmap_call"]
  np.testing.assert_allclose(xjax.jit(f)(1.0, 2.0), 2 * np.sin(1.0), rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(xjax.vmap(f, (0, None)))(X, 2.0), 2 * np.cos(X),
                             rtol=1e-6)
  np.testing.assert_allclose(xjax.vmap(xjax.jit(f), (0, None))(X, 2.0), 2 * np.cos(X),
                             rtol=1e-6)


def test_nested_vmap_applies_the_rule_of_the_inner_one():
  f, calls = _sin_times()
  ys = np.arange(2.0, dtype=np.float32)
  out = xjax.vmap(xjax.vmap(f, (0, None)), (None, 0))(X, ys)
  np.testing.assert_allclose(out, [[y * np.cos(x) for x in X] for y in ys], rtol=1e-6)
  assert calls == [(3, [True, False])]   # the outer vmap batches the rule's computation


def test_pytree_arguments_and_outputs():
  @custom_vmap
  def g(x, p):
    return {"a": x * p["s"], "b": x + p["t"]}

  seen = []

  @g.def_vmap
  def rule(n, in_batched, x, p):
    seen.append(in_batched)
    return ({"a": x * p["s"] * 10, "b": x + p["t"]},
            {"a": True, "b": in_batched[0] or in_batched[1]["t"]})
  out = xjax.vmap(g, (0, {"s": None, "t": 0}))(X, {"s": 2.0, "t": np.ones(3, np.float32)})
  np.testing.assert_allclose(out["a"], 20 * X)
  np.testing.assert_allclose(out["b"], X + 1)
  assert seen == [[True, {"s": False, "t": True}]]
  out = g(x=1.0, p={"s": 2.0, "t": 3.0})   # keywords resolve to positions, as JAX
  assert float(out["a"]) == 2.0 and float(out["b"]) == 4.0


def test_jvp_and_vmap_compose():
  f, _ = _sin_times()
  one = np.ones(3, np.float32)
  # JAX 0.10.2: jvp of the vmapped function differentiates the rule
  p, t = xjax.jvp(xjax.vmap(f, (0, None)), (X, 2.0), (one, 1.0))
  np.testing.assert_allclose(p, 2 * np.cos(X), rtol=1e-6)
  np.testing.assert_allclose(t, -2 * np.sin(X) + np.cos(X), rtol=1e-6)
  # vmap of jvp: primals and tangents batched alike, or only the primals
  p, t = xjax.vmap(lambda x, d: xjax.jvp(lambda v: f(v, 2.0), (x,), (d,)))(X, one)
  np.testing.assert_allclose(p, 2 * np.cos(X), rtol=1e-6)
  np.testing.assert_allclose(t, -2 * np.sin(X), rtol=1e-6)
  p, t = xjax.vmap(lambda x: xjax.jvp(lambda v: f(v, 2.0), (x,), (1.0,)))(X)
  np.testing.assert_allclose(t, -2 * np.sin(X), rtol=1e-6)
  # only the tangents batched (JAX 0.10.2 fails here with an IndexError): the rule's JVP,
  # vmapped as an ordinary function over the tangents
  p, t = xjax.vmap(lambda d: xjax.jvp(lambda v: f(v, 2.0), (1.0,), (d,)))(X)
  np.testing.assert_allclose(p, 2 * np.cos(1.0), rtol=1e-6)
  np.testing.assert_allclose(t, -2 * np.sin(1.0) * X, rtol=1e-6)
  # outside vmap, jvp differentiates the function itself (JAX: 1.0806046)
  _, t = xjax.jvp(f, (1.0, 2.0), (1.0, 0.0))
  np.testing.assert_allclose(t, 2 * np.cos(1.0), rtol=1e-6)


def test_reverse_mode_as_jax_allows_it():
  f, _ = _sin_times()
  msg = "Linearization failed to produce known values for all output primals"
  with pytest.raises(ValueError, match=msg):
    xjax.grad(f)(1.0, 2.0)
  with pytest.raises(ValueError, match=msg):
    xjax.linearize(f, 1.0, 2.0)
  # vmap first: the rule's computation is differentiated (JAX: [-0, -1.6829419, -1.8185948])
  g = xjax.grad(lambda x: xjax.vmap(f, (0, None))(x, 2.0).sum())(X)
  np.testing.assert_allclose(g, -2 * np.sin(X), rtol=1e-6)


def test_custom_vjp_around_custom_vmap():
  @xjax.custom_vjp
  @custom_vmap
  def f(x, y):
    return jnp.sin(x) * y

  @f.def_vmap   # custom_vjp passes def_vmap on to the function it wraps, as in JAX
  def rule(axis_size, in_batched, xs, ys):
    return jnp.cos(xs) * ys, True

  f.defvjp(lambda x, y: (f(x, y), (jnp.cos(x), jnp.sin(x), y)),
           lambda res, g: (res[0] * g * res[2], res[1] * g))
  np.testing.assert_allclose(xjax.vmap(f)(jnp.zeros(3), jnp.ones(3)), np.ones(3))
  assert float(xjax.grad(f)(jnp.zeros(()), jnp.ones(()))) == 1.0
  np.testing.assert_allclose(xjax.vmap(xjax.grad(f))(jnp.zeros(3), jnp.ones(3)), np.ones(3))


def test_sequential_vmap_loops(capsys):
  @sequential_vmap
  def f(x):
    xjax.debug.print("{}", x)
    return x + 1
  np.testing.assert_array_equal(xjax.vmap(f)(jnp.arange(3)), [1, 2, 3])
  assert capsys.readouterr().out == "0\n1\n2\n"   # one call per element, in order

  s = sequential_vmap(lambda x, p: jnp.sum(x) * p["s"] + p["t"])
  xs, ts = np.arange(6.0, dtype=np.float32).reshape(3, 2), np.arange(3.0, dtype=np.float32)
  out = xjax.vmap(s, (0, {"s": None, "t": 0}))(xs, {"s": 2.0, "t": ts})
  np.testing.assert_allclose(out, [x.sum() * 2 + t for x, t in zip(xs, ts)])
  jaxpr = xjax.make_jaxpr(xjax.vmap(s, (0, {"s": None, "t": 0})))(xs, {"s": 2.0, "t": ts})
  assert "scan" in str(jaxpr)
  nested = xjax.vmap(xjax.vmap(s, (0, None)), (None, {"s": 0, "t": None}))(
      xs, {"s": np.array([1.0, 3.0], np.float32), "t": 1.0})
  np.testing.assert_allclose(nested, [[x.sum() * k + 1 for x in xs] for k in (1.0, 3.0)])


def test_bad_input():
  g = custom_vmap(lambda x: x)
  with pytest.raises(AttributeError, match="No batching rule defined for custom_vmap "
                                           "function <lambda> using def_vmap"):
    xjax.vmap(g)(jnp.ones(2))

  @custom_vmap
  def two(x):
    return x, x

  two.def_vmap(lambda n, b, x: ((x, x), (True,)))
  with pytest.raises(ValueError, match="structure of output value and output batching "
                                       "specification returned by custom vmap rule"):
    xjax.vmap(two)(X)
  two.def_vmap(lambda n, b, x: ([x, x], [True, True]))
  with pytest.raises(ValueError, match="does not match that of original custom-vmapped"):
    xjax.vmap(two)(X)
  two.def_vmap(lambda n, b, x: ((x[0], x), (True, True)))
  with pytest.raises(ValueError, match="marked an output as batched"):
    xjax.vmap(two)(X)

  @custom_vmap
  def h(x, p):
    return x * p

  h.def_vmap(lambda n, b, x, p: (x * p, True))
  with pytest.raises(TypeError, match="could not be resolved to positional-only arguments"):
    h(1.0, 2.0, 3.0)
  with pytest.raises(ValueError, match="closes over a value that an enclosing vmap"):
    xjax.vmap(lambda y: custom_vmap_over(y)(y))(X)
  # closing over a value an outer vmap batches is fine: the outer vmap batches the rule
  out = xjax.vmap(lambda y: xjax.vmap(custom_vmap_over(y))(X))(X)
  np.testing.assert_allclose(out, np.outer(X, X))


def custom_vmap_over(y):
  f = custom_vmap(lambda x: x * y)
  f.def_vmap(lambda n, b, x: (x * y, True))
  return f


def test_custom_vjp_under_vmap_sums_the_cotangent_of_an_unbatched_input():
  """The bwd rule runs batched; an input vmap did not batch gets its cotangent summed over
  the batch (values recorded from JAX 0.10.2)."""
  f = xjax.custom_vjp(lambda x, y: x * y + 1.)
  f.defvjp(lambda x, y: (f(x, y), (x, y)), lambda r, g: (g * r[1], g * r[0]))
  h = lambda x, y: xjax.numpy.sum(xjax.vmap(f, in_axes=(None, 0))(x, y))
  gx, gy = xjax.grad(h, argnums=(0, 1))(0.7, xjax.numpy.full(3, 0.7))
  assert gx.shape == () and gy.shape == (3,)
  np.testing.assert_allclose(gx, 2.1, rtol=1e-6)
  np.testing.assert_allclose(gy, [0.7, 0.7, 0.7], rtol=1e-6)
  gx, gy = xjax.jit(xjax.grad(h, argnums=(0, 1)))(0.5, xjax.numpy.arange(3.))
  np.testing.assert_allclose((gx, *gy), (3.0, 0.5, 0.5, 0.5), rtol=1e-6)


def test_forward_mode_over_custom_vjp_raises_jax_type_error():
  """jvp, hessian and a linearized map of a custom_vjp function (also under checkpoint)
  raise JAX's TypeError; reverse mode, batched or not, still works."""
  f = xjax.custom_vjp(lambda x, y: x * y + 1.)
  f.defvjp(lambda x, y: (f(x, y), (x, y)), lambda r, g: (g * r[1], g * r[0]))
  msg = "can't apply forward-mode autodiff"
  with pytest.raises(TypeError, match=msg):
    xjax.jvp(xjax.checkpoint(f), (0.7, 0.5), (1., 1.))
  with pytest.raises(TypeError, match=msg):
    xjax.hessian(xjax.checkpoint(f), argnums=(0, 1))(0.7, 0.5)
  with pytest.raises(TypeError, match=msg):
    xjax.hessian(f, argnums=(0, 1))(0.7, 0.5)
  np.testing.assert_array_equal(xjax.vmap(xjax.grad(f))(jnp.arange(3.), jnp.ones(3)), [1, 1, 1])
  assert xjax.jit(xjax.grad(xjax.checkpoint(f)))(2., 3.) == 3.0
