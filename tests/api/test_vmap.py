"""vmap against Python loops: batching rules, in/out axes, composition with jit and grad,
collectives over named axes, and error messages."""
import numpy as np
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import lax

from tests.checking import check

rng = np.random.RandomState(0)
X = rng.randn(3, 4).astype(np.float32)
Y = rng.randn(4, 3).astype(np.float32)
A = rng.randn(5, 3, 4).astype(np.float32)
B = rng.randn(5, 4, 2).astype(np.float32)
T = rng.randn(2, 3, 4).astype(np.float32)


def loop(f, in_axes, *args):
  """The oracle: apply ``f`` to each slice and stack the results along axis 0."""
  n = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
  outs = [np.asarray(f(*[a if ax is None else np.take(a, i, axis=ax)
                         for a, ax in zip(args, in_axes)])) for i in range(n)]
  return np.stack(outs)


DN = (((2,), (1,)), ((0,), (0,)))
C = rng.randn(5, 2, 3, 4).astype(np.float32)
D = rng.randn(5, 2, 4, 6).astype(np.float32)

CASES = {
    "add": (lambda a, b: a + b, (0, 1), X, Y),
    "add_unbatched": (lambda a, b: a + b, (0, None), X, Y[:, 0]),
    "mul_scalar": (lambda a, b: a * b + 1, (0, None), X, np.float32(2)),
    "batched_scalar": (lambda a, b: a * b, (None, 0), X[0], X[:, 0]),
    "lax_rank0": (lambda a, b: lax.add(a, b), (None, 0), X, X[:, 0]),
    "where": (lambda a, b: jnp.where(a > 0, a, b), (0, 1), X, Y),
    "where_unbatched": (lambda a, b: jnp.where(a > 0, a, b), (0, None), X, Y[:, 0]),
    "select_n": (lambda p, a, b: lax.select_n(p, a, b), (0, None, 1), X > 0, X[0], Y),
    "convert": (lambda a: a.astype(jnp.int32), (1,), X * 3),
    "broadcast_in_dim": (lambda a: lax.broadcast_in_dim(a, (2, 3), (1,)), (1,), X),
    "broadcast_scalar": (lambda a: lax.broadcast_in_dim(a, (2, 3), ()), (0,), X[:, 0]),
    "reshape": (lambda a: a.reshape(2, 2), (0,), X),
    "reshape_flat": (lambda a: a.reshape(-1), (1,), T),
    "transpose": (lambda a: a.T, (1,), T),
    "sum": (lambda a: a.sum(), (1,), X),
    "sum_axis": (lambda a: jnp.sum(a, axis=0), (2,), T),
    "max_axis": (lambda a: jnp.max(a, axis=1), (1,), T),
    "prod": (lambda a: lax.reduce_prod(a, (0,)), (0,), T),
    "argmax": (lambda a: jnp.argmax(a), (1,), X),
    "argmax_axis": (lambda a: jnp.argmax(a, axis=0), (1,), T),
    "dot_bb": (jnp.dot, (0, 0), A, B),
    "dot_bu": (jnp.dot, (0, None), A, B[0]),
    "dot_ub": (jnp.dot, (None, 0), A[0], B),
    "dot_moved": (jnp.dot, (1, 2), np.moveaxis(A, 0, 1), np.moveaxis(B, 0, 2)),
    "matvec": (jnp.matmul, (0, 0), A[:, 0], B),
    "vecdot": (jnp.dot, (0, 1), A[:, 0], A[:, 0].T),
    "vecdot_unbatched": (jnp.dot, (0, None), A[:, 0], A[0, 0]),
    "dot_general_bb": (lambda a, b: lax.dot_general(a, b, DN), (0, 0), C, D),
    "dot_general_bu": (lambda a, b: lax.dot_general(a, b, DN), (0, None), C, D[0]),
    "dot_general_ub": (lambda a, b: lax.dot_general(a, b, DN), (None, 0), C[0], D),
    "dot_general_moved": (lambda a, b: lax.dot_general(a, b, DN), (3, 2),
                          np.moveaxis(C, 0, 3), np.moveaxis(D, 0, 2)),
    "dot_general_batch_after_contract": (
        lambda a, b: lax.dot_general(a, b, (((2,), (0,)), ((1,), (1,)))), (3, 0),
        rng.randn(3, 2, 5, 4).astype(np.float32), rng.randn(4, 5, 2, 3).astype(np.float32)),
    "dot_general_lhs_only": (
        lambda a, b: lax.dot_general(a, b, (((0,), (2,)), ((2,), (1,)))), (1, None),
        rng.randn(4, 3, 5, 2).astype(np.float32), rng.randn(7, 2, 4).astype(np.float32)),
    "einsum_like": (lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))), (2, None),
                    T, Y.T),
    "slice": (lambda a: a[1:3], (1,), X),
    "strided_slice": (lambda a: lax.slice(a, (1,), (3,), (2,)), (1,), X),
    "pad": (lambda a: lax.pad(a, np.float32(0), ((1, 2, 1),)), (1,), X),
    "pad_batched_value": (lambda a, v: lax.pad(a, v, ((1, -1, 1),)), (1, 0), X, X[0]),
    "pad_only_value": (lambda a, v: lax.pad(a, v, ((1, 2, 0),)), (None, 0), X[0], X[0]),
    "concatenate": (lambda a, b: jnp.concatenate([a, b]), (0, None), X, Y[:, 0]),
    "concatenate_bb": (lambda a, b: jnp.concatenate([a, b]), (0, 1), X, Y),
    "dynamic_slice": (lambda a: lax.dynamic_slice(a, (1,), (2,)), (1,), X),
    "dynamic_update_slice": (lambda a, u: lax.dynamic_update_slice(a, u, (1,)), (1, None),
                             X, np.ones(2, np.float32)),
    "dynamic_update_slice_bb": (lambda a, u: lax.dynamic_update_slice(a, u, (1,)), (1, 0),
                                X, Y[:, :2]),
    "arange_inside": (lambda a: a * jnp.arange(3.), (1,), X),
    "integer_pow": (lambda a: lax.integer_pow(a, 3), (1,), X),
    "integer_pow_neg": (lambda a: lax.integer_pow(a, -2), (1,), X),
    "clamp": (lambda a: lax.clamp(np.float32(-.5), a, np.float32(.5)), (1,), X),
    "clamp_batched_bound": (lambda lo, a: lax.clamp(lo, a, np.float32(.5)), (0, 1),
                            np.full(4, -.2, np.float32), X),
    "rev": (lambda a: lax.rev(a, (0,)), (1,), X),
    "jit_inside": (jax.jit(lambda a, b: a @ b), (0, None), A, B[0]),
    "jit_inside_closure": (lambda a, b: jax.jit(lambda u, v: jnp.sin(u) @ v)(a, b), (0, 0),
                           A, B),
    "nested": (lambda a: jax.vmap(lambda r: r.sum() * r, 1)(a), (0,), T),
    "per_example_grad": (jax.grad(lambda w, x: jnp.sum(jnp.tanh(w * x))), (None, 0), X[0], X),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_loop(name):
  f, in_axes, *args = CASES[name]
  check(jax.vmap(f, in_axes)(*args), loop(f, in_axes, *args), rtol=1e-5, atol=1e-5)


def test_seed_grads():
  step = jax.vmap(jax.grad(lambda x: (x > 0).astype(float)))(jnp.array([-1., -.5, 0., .5, 1.]))
  np.testing.assert_array_equal(np.asarray(step), np.zeros(5))
  xs = np.array([-10., -1., 0., 1., 10.], np.float32)
  sig = jax.vmap(jax.grad(lambda x: 1 / (1 + jnp.exp(-x))))(xs)
  s = 1 / (1 + np.exp(-xs))
  np.testing.assert_allclose(np.asarray(sig), s * (1 - s), rtol=1e-4, atol=1e-6)
  np.testing.assert_allclose(np.asarray(sig), [0., .2, .25, .2, 0.], atol=5e-3)


def test_grad_of_vmap_and_jit_of_vmap():
  f = lambda w: jax.vmap(lambda r: jnp.sum(jnp.sin(r * w)))(X).sum()
  np.testing.assert_allclose(np.asarray(jax.grad(f)(X[0])),
                             (X * np.cos(X * X[0])).sum(0), rtol=1e-5)
  out = jax.jit(jax.vmap(lambda a, b: a @ b, (0, None)))(A, B[0])
  np.testing.assert_allclose(np.asarray(out), A @ B[0], rtol=1e-5)


def test_nested_different_axes():
  f = lambda a, b: a * b.sum()
  got = jax.vmap(jax.vmap(f, (0, None)), (2, 0))(T, Y)
  want = np.stack([np.stack([T[i, :, j] * Y[j].sum() for i in range(2)]) for j in range(4)])
  np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_axes_specs():
  np.testing.assert_allclose(np.asarray(jax.vmap(lambda a: a, -1)(X)), X.T)
  np.testing.assert_allclose(np.asarray(jax.vmap(lambda a: a * 2, out_axes=-1)(X)), 2 * X.T)
  d = jax.vmap(lambda d: d["a"] + d["b"], ({"a": 0, "b": None},))({"a": X, "b": X[0]})
  np.testing.assert_allclose(np.asarray(d), X + X[0])
  lst = jax.vmap(lambda l: l[0] * l[1], ([1, 0],))([X.T, X])
  np.testing.assert_allclose(np.asarray(lst), X * X)
  out = jax.vmap(lambda a: {"p": a, "q": (a, a * 2)}, out_axes={"p": 1, "q": 0})(X)
  np.testing.assert_allclose(np.asarray(out["p"]), X.T)
  np.testing.assert_allclose(np.asarray(out["q"][1]), 2 * X)
  unb = jax.vmap(lambda a, b: b * 2, (0, None), out_axes=None)(X, Y)
  np.testing.assert_allclose(np.asarray(unb), 2 * Y)
  assert jax.vmap(lambda a: 3)(X).tolist() == [3, 3, 3]
  sized = jax.vmap(lambda a: a + 1, in_axes=None, axis_size=3)(X[0])
  np.testing.assert_allclose(np.asarray(sized), np.broadcast_to(X[0] + 1, (3, 4)))
  kw = jax.vmap(lambda a, b=None: a - b)(X, b=X[::-1])
  np.testing.assert_allclose(np.asarray(kw), X - X[::-1])


def test_sum_match_sums_batched_outputs_whose_out_axes_is_none():
  """``sum_match=True``: a batched output with out_axes None is summed over the mapped axis
  (jnp's sum: small integers and bools come back as int32, as in JAX); unbatched outputs and
  mapped out_axes are left alone."""
  summed, flags, small, const = jax.vmap(
      lambda a: (a * 2, a > 0, a.astype(jnp.int8), 2.0), out_axes=None, sum_match=True)(X)
  np.testing.assert_allclose(np.asarray(summed), (2 * X).sum(0), rtol=1e-6)
  assert flags.dtype == np.int32 and flags.tolist() == (X > 0).sum(0).tolist()
  assert small.dtype == np.int32
  assert small.tolist() == X.astype(np.int8).astype(np.int32).sum(0).tolist()
  assert const == 2.0 and type(const) is float
  along1 = jax.vmap(lambda a: a * 2, in_axes=1, out_axes=None, sum_match=True)(X)
  np.testing.assert_allclose(np.asarray(along1), (2 * X).sum(1), rtol=1e-6)
  kept = jax.vmap(lambda a: a * 2, sum_match=True)(X)
  np.testing.assert_allclose(np.asarray(kept), 2 * X)
  mixed = jax.vmap(lambda a, b: (a * b, b), in_axes=(0, None), out_axes=(None, None),
                   sum_match=True)(X, Y[:, 0])
  np.testing.assert_allclose(np.asarray(mixed[0]), (X * Y[:, 0]).sum(0), rtol=1e-6)
  np.testing.assert_allclose(np.asarray(mixed[1]), Y[:, 0])
  jaxpr = jax.make_jaxpr(jax.vmap(lambda a: a * 2, out_axes=None, sum_match=True))(X)
  assert [e.primitive.name for e in jaxpr.eqns] == ["mul", "reduce_sum"]


@pytest.mark.parametrize("call, match", [
    (lambda: jax.vmap(lambda a, b: a, (0, 1))(X, X),
     r"inconsistent sizes(.|\n)*size 3: axis 0 of argument a (.|\n)*axis 1 of argument b "),
    (lambda: jax.vmap(lambda a, b=0: a)(X, b=Y), r"kwargs\['b'\]"),
    (lambda: jax.vmap(lambda a: a, axis_size=5)(X), "axis_size"),
    (lambda: jax.vmap(lambda a: a, 2)(X), "axis 2.*argument a"),
    (lambda: jax.vmap(lambda a, b: a, (0,))(X, Y), "len.in_axes.=1"),
    (lambda: jax.vmap(lambda a: a, ({"a": 0},))((X,)), r"in_axes\[0\] \(argument a\)"),
    (lambda: jax.vmap(lambda a: a, out_axes=None)(X), "out_axes.*None"),
    (lambda: jax.vmap(lambda a: a, out_axes=3)(X), "out of bounds"),
    (lambda: jax.vmap(lambda a: a, None)(X), "axis_size"),
    (lambda: jax.vmap(lambda a: a)(1.0), "rank should be at least 1"),
])
def test_errors(call, match):
  with pytest.raises(ValueError, match=match):
    call()


def test_bad_axis_type():
  with pytest.raises(TypeError, match="in_axes"):
    jax.vmap(lambda a: a, ("a",))


# ---------------------------------------------------------------------------------------
# Collectives

def named(f, **kw):
  return jax.vmap(f, axis_name="i", **kw)


def test_reducing_collectives():
  np.testing.assert_allclose(np.asarray(named(lambda a: lax.psum(a, "i"))(X)),
                             np.broadcast_to(X.sum(0), X.shape), rtol=1e-5)
  np.testing.assert_allclose(np.asarray(named(lambda a: lax.psum(a, "i"), out_axes=None)(X)),
                             X.sum(0), rtol=1e-5)
  np.testing.assert_allclose(np.asarray(named(lambda a: a / lax.psum(a, "i"), in_axes=1)(X)),
                             (X / X.sum(1, keepdims=True)).T, rtol=1e-5)
  np.testing.assert_allclose(
      np.asarray(named(lambda a, b: lax.psum(b, "i"), in_axes=(0, None))(X, X[0])),
      np.broadcast_to(3 * X[0], X.shape), rtol=1e-5)
  np.testing.assert_allclose(np.asarray(named(lambda a: lax.pmean(a, "i"))(X)),
                             np.broadcast_to(X.mean(0), X.shape), rtol=1e-5)
  np.testing.assert_allclose(np.asarray(named(lambda a: lax.pmax(a, "i"))(X)),
                             np.broadcast_to(X.max(0), X.shape))
  np.testing.assert_allclose(np.asarray(named(lambda a: lax.pmin(a, "i"))(X)),
                             np.broadcast_to(X.min(0), X.shape))
  tree = named(lambda a: lax.psum({"u": a, "v": 2 * a}, "i"))(X)
  np.testing.assert_allclose(np.asarray(tree["v"][0]), 2 * X.sum(0), rtol=1e-5)


def test_index_gather_permute():
  idx = named(lambda a: a * lax.axis_index("i"))(X)
  np.testing.assert_allclose(np.asarray(idx), X * np.arange(3)[:, None])
  g = named(lambda a: lax.all_gather(a, "i"))(X)
  np.testing.assert_allclose(np.asarray(g), np.broadcast_to(X, (3, 3, 4)))
  g1 = named(lambda a: lax.all_gather(a, "i", axis=1))(X)
  np.testing.assert_allclose(np.asarray(g1), np.broadcast_to(X.T, (3, 4, 3)))
  gt = named(lambda a: lax.all_gather(a, "i", tiled=True))(X)
  np.testing.assert_allclose(np.asarray(gt), np.broadcast_to(X.ravel(), (3, 12)))
  p = named(lambda a: lax.ppermute(a, "i", [(0, 1), (1, 2), (2, 0)]))(X)
  np.testing.assert_allclose(np.asarray(p), X[[2, 0, 1]])
  part = named(lambda a: lax.ppermute(a, "i", [(0, 1)]))(X)
  np.testing.assert_allclose(np.asarray(part), np.stack([0 * X[0], X[0], 0 * X[0]]))


def test_nested_named_axes():
  outer = lambda f: jax.vmap(lambda r: jax.vmap(f, axis_name="j")(r), axis_name="i")(X)
  np.testing.assert_allclose(np.asarray(outer(lambda a: lax.psum(a, "i"))),
                             np.broadcast_to(X.sum(0), X.shape), rtol=1e-5)
  np.testing.assert_allclose(np.asarray(outer(lambda a: lax.psum(a, "j"))),
                             np.broadcast_to(X.sum(1, keepdims=True), X.shape), rtol=1e-5)
  np.testing.assert_allclose(np.asarray(outer(lambda a: lax.psum(a, ("i", "j")))),
                             np.full(X.shape, X.sum()), rtol=1e-5)
  np.testing.assert_allclose(np.asarray(outer(lambda a: a + lax.axis_index("i"))),
                             X + np.arange(3)[:, None])
  np.testing.assert_allclose(np.asarray(outer(lambda a: lax.pmax(a, "i"))),
                             np.broadcast_to(X.max(0), X.shape))
  g = outer(lambda a: lax.all_gather(a, "i"))
  np.testing.assert_allclose(np.asarray(g), np.broadcast_to(X.T[None, :, :], (3, 4, 3)))


def test_all_gather_several_axis_names():
  x = np.arange(12., dtype=np.float32).reshape(2, 3, 2)
  run = lambda fn: np.asarray(jax.vmap(jax.vmap(fn, axis_name="j"), axis_name="i")(x))
  flat = x.reshape(6, 2)
  for i, j in np.ndindex(2, 3):
    check(run(lambda v: lax.all_gather(v, ("i", "j")))[i, j], flat)
    check(run(lambda v: lax.all_gather(v, ("i", "j"), axis=1))[i, j], flat.T)
    check(run(lambda v: lax.all_gather(v, ("j", "i"), tiled=True))[i, j],
          x.transpose(1, 0, 2).ravel())

  def loss(x):
    scale = jnp.arange(6.)[:, None]
    fn = lambda v: lax.all_gather(v, ("i", "j")) * scale
    return (jax.vmap(jax.vmap(fn, axis_name="j"), axis_name="i")(x) ** 2).sum()
  k = np.arange(6.).reshape(2, 3, 1)
  check(jax.grad(loss)(x), 6 * 2 * k ** 2 * x)


def test_collectives_with_jit_and_grad():
  want = X / X.sum(0)
  f = lambda a: a / lax.psum(a, "i")
  np.testing.assert_allclose(np.asarray(named(jax.jit(f))(X)), want, rtol=1e-5)
  np.testing.assert_allclose(np.asarray(jax.jit(named(f))(X)), want, rtol=1e-5)
  unb = named(lambda a, b: jax.jit(lambda c: lax.psum(c, "i"))(b), in_axes=(0, None))(X, X[0])
  np.testing.assert_allclose(np.asarray(unb), np.broadcast_to(3 * X[0], X.shape), rtol=1e-5)
  idx = named(lambda a: jax.jit(lambda: lax.axis_index("i"))())(X)
  assert np.asarray(idx).tolist() == [0, 1, 2]
  # JAX's convention: psum transposes to psum, so d/da_i sum(a_i * pmean(a)) = mean + sum/n
  per_example = named(jax.grad(lambda a: jnp.sum(a * lax.pmean(a, "i"))))(X)
  np.testing.assert_allclose(np.asarray(per_example),
                             np.broadcast_to(X.mean(0) + X.sum(0) / 3, X.shape), rtol=1e-5)
  # d/dz_k of sum_i sum_j (z_ij / s_j)^2 with s = sum_i z_i, by central differences
  loss = lambda z: named(lambda a: jnp.sum((a / lax.psum(a, "i")) ** 2))(z).sum()
  z = (X + 3).astype(np.float64)
  np_loss = lambda z: ((z / z.sum(0)) ** 2).sum()
  eps = 1e-3
  fd = np.zeros_like(z)
  for k in np.ndindex(z.shape):
    e = np.zeros_like(z)
    e[k] = eps
    fd[k] = (np_loss(z + e) - np_loss(z - e)) / (2 * eps)
  np.testing.assert_allclose(np.asarray(jax.grad(loss)(X + 3)), fd, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("call", [
    lambda: lax.psum(X, "i"),
    lambda: lax.axis_index("i"),
    lambda: lax.all_gather(X, "i"),
    lambda: named(lambda a: lax.psum(a, "k"))(X),
    lambda: jax.jit(lambda a: lax.pmax(a, "i"))(X),
])
def test_unbound_axis_name(call):
  with pytest.raises(NameError, match="unbound axis name"):
    call()


def test_all_gather_is_differentiable():
  # Each member's cotangent sums over the members (as JAX): d/dv_i = size * w_i.
  x = jnp.arange(3.0)
  w = jnp.arange(3.0) + 1
  g = jax.vmap(jax.grad(lambda v: (lax.all_gather(v, "i") * w).sum()), axis_name="i")(x)
  np.testing.assert_allclose(g, [3.0, 6.0, 9.0])
  y = jnp.arange(6.0).reshape(3, 2)
  g = jax.vmap(jax.grad(lambda v: (lax.all_gather(v, "i", tiled=True) * jnp.arange(6.0)).sum()),
               axis_name="i")(y)
  np.testing.assert_allclose(g, 3 * np.arange(6.0).reshape(3, 2))


@pytest.mark.parametrize("in_axes", [0, 1, 2])
def test_sort_and_concatenate_keep_batch_axis(in_axes):
  x = np.random.RandomState(0).randn(3, 4, 5).astype(np.float32)
  f = lambda v: jnp.concatenate([jnp.sort(v, 0), v], 1)
  got = jax.vmap(f, in_axes=in_axes)(x)
  want = np.stack([f(np.take(x, i, in_axes)) for i in range(x.shape[in_axes])])
  np.testing.assert_allclose(got, want)
  eqns = jax.make_jaxpr(jax.vmap(f, in_axes=in_axes, out_axes=in_axes))(x).eqns
  # sort is a nested jit[name=sort] equation, as in JAX 0.10.2, whose jaxpr has the same
  # number of transposes: none batched along axis 0, else three (recorded)
  names = [e.primitive.name for e in eqns]
  assert names.count("transpose") == (0 if in_axes == 0 else 3)
  assert names.count("jit") == 1 and names.count("concatenate") == 1


def test_vmap_of_indexing_over_zero_members():
  x, i = jnp.zeros((0, 3)), jnp.zeros(0, jnp.int32)
  assert jax.vmap(lambda x, i: x[i])(x, i).shape == (0,)
  assert jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)))(x, i).shape == (0, 2)
  assert jax.jit(jax.vmap(lambda x, i: x[i]))(x, i).shape == (0,)


def test_transformations_wrap_callables_whose_name_is_not_a_string():
  # an equinox Module's __name__ can be a field placeholder (tinygp's mean functions)
  class Scaled:
    __name__ = property(lambda self: 3)

    def __call__(self, x):
      return 2 * x
  f = Scaled()
  np.testing.assert_array_equal(jax.vmap(f)(np.ones(2, np.float32)), [2, 2])
  assert float(jax.grad(f)(1.)) == 2.0
  assert float(jax.jacfwd(f)(1.)) == 2.0
  assert float(jax.checkpoint(f)(1.)) == 2.0
  np.testing.assert_array_equal(jnp.vectorize(f)(np.ones(2, np.float32)), [2, 2])


def test_elementwise_batching_puts_the_batch_dim_first_as_jax():
  # JAX moves a batched operand's dim to the front when operands disagree (and gives
  # unbatched ones a leading 1): the layout decides XLA's summation order downstream,
  # so equinox's vmapped MLP gradients match JAX's bit for bit only with the same layout.
  text = str(jax.make_jaxpr(jax.vmap(lambda a, b: a + b, (1, None)))(
      jnp.ones((4, 3)), jnp.ones(4)))
  assert "transpose[permutation=(1, 0)] a" in text and "f32[1,4] = broadcast_in_dim" in text
  text = str(jax.make_jaxpr(jax.vmap(lambda a, b: lax.add(a, b), (0, 0)))(
      jnp.ones((3,)), jnp.ones((3, 4))))
  assert "f32[3,1] = broadcast_in_dim" in text
  same = str(jax.make_jaxpr(jax.vmap(lambda a, b: a + b, (1, 1)))(
      jnp.ones((4, 3)), jnp.ones((4, 3))))
  assert same.count("transpose") == 1   # only the result, to out_axes=0
  out = jax.vmap(lambda a, b: a * b, (1, None), 0)(jnp.arange(12.).reshape(4, 3), jnp.arange(4.))
  np.testing.assert_array_equal(out, (np.arange(12.).reshape(4, 3) * np.arange(4.)[:, None]).T)


def test_plain_vmap_is_unchanged_once_sparse_registers_its_containers():
  """Importing jax.experimental.sparse registers BCOO/BCSR as vmappables (spec type int);
  a vmap of plain arrays still reports its arguments by name."""
  import xjax.experimental.sparse  # noqa: F401
  with pytest.raises(ValueError, match="size 3: axis 0 of argument a (.|\\n)*argument b"):
    xjax.vmap(lambda a, b: a + b)(xjax.numpy.ones(3), xjax.numpy.ones(4))


def test_a_string_argument_is_named_once_quoted():
  with pytest.raises(TypeError, match=r"^Argument 'abc' of type <class 'str'> is not a valid "
                                      r"JAX type"):
    jax.vmap(lambda x: x)("abc")


_R = np.random.RandomState(0)
_CX = np.asarray(_R.randn(4, 3), np.float32)
_CLO, _CHI = np.asarray(_R.randn(4), np.float32) - 1, np.asarray(_R.randn(3), np.float32) + 1
_CLAMP_CASES = {  # (function, in_axes, arguments)
    "scalar_bound": (lambda a, b: lax.clamp(0., a, b), (0, 0), (_CX[:, 0], _CHI[0] * np.ones(4, np.float32))),
    "all_batched": (lambda lo, a, hi: lax.clamp(lo, a, hi), (0, 0, 0), (_CLO, _CX[:, 0], _CLO + 2)),
    "bound_batched": (lambda lo, a: lax.clamp(lo, a, 2.0), (0, None), (_CLO, _CX[0])),
    "vector_bounds": (lambda a, lo, hi: lax.clamp(lo, a, hi), (0, None, None),
                      (_CX, np.full(3, -.3, np.float32), np.full(3, .4, np.float32))),
}


@pytest.mark.parametrize("name", sorted(_CLAMP_CASES))
def test_vmap_of_clamp_is_the_loop(name):
  f, in_axes, args = _CLAMP_CASES[name]
  n = next(a.shape[d] for a, d in zip(args, in_axes) if d is not None)
  loop = [f(*[a if d is None else np.take(a, i, d) for a, d in zip(args, in_axes)])
          for i in range(n)]
  np.testing.assert_array_equal(np.asarray(jax.vmap(f, in_axes=in_axes)(*args)),
                                np.stack([np.asarray(v) for v in loop]))


def test_vmap_of_clamp_broadcasts_bounds_as_jax():
  f, in_axes, args = _CLAMP_CASES["bound_batched"]
  # (JAX 0.10.2: a scalar bound is broadcast first, then a batched one)
  assert str(jax.make_jaxpr(jax.vmap(f, in_axes=in_axes))(*args)) == """\
{ lambda ; a:f32[4] b:f32[3]. let
    c:f32[4,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b
    d:f32[4,3] = broadcast_in_dim 2.0:f32[]
    e:f32[4,3] = broadcast_in_dim[broadcast_dimensions=(0,)] a
    f:f32[4,3] = clamp e c d
  in (f,) }"""


def test_vmap_of_cond_keeps_a_forwarded_operand_unbatched():
  # (as JAX 0.10.2: an output every branch forwards is the operand itself, so a batched
  # predicate does not batch it, and out_axes=None accepts it)
  f = lambda p, w, v: lax.cond(p, lambda a, b: (a, b + 1), lambda a, b: (a, b * 2), w, v)
  w, v = jnp.arange(3.0), jnp.arange(4.0)
  same, out = jax.vmap(f, in_axes=(0, None, 0), out_axes=(None, 0))(
      jnp.array([True, False, True, False]), w, v)
  np.testing.assert_array_equal(np.asarray(same), np.arange(3.0))
  np.testing.assert_array_equal(np.asarray(out), [1.0, 2.0, 3.0, 6.0])


def test_inconsistent_sizes_message_is_jaxs():
  """The sizes most common first, each with its first leaf (JAX 0.10.2's text); ``*args``
  leaves are named as JAX names them."""
  with pytest.raises(ValueError) as e:
    jax.vmap(lambda a, b, c: a, axis_size=4)(jnp.ones((2, 3)), jnp.ones((3,)),
                                             {"k": jnp.ones(2)})
  assert str(e.value) == (
      "vmap got inconsistent sizes for array axes to be mapped:\n"
      "  * the `axis_size` argument was 4;\n"
      "  * most axes (2 of them) had size 2, e.g. axis 0 of argument a of type float32[2,3];\n"
      "  * one axis had size 3: axis 0 of argument b of type float32[3]")
  with pytest.raises(ValueError) as e:
    jax.vmap(lambda *xs: xs[0])(jnp.ones(2), jnp.ones(3), jnp.ones(3))
  assert str(e.value).splitlines()[1:] == [
      "  * most axes (2 of them) had size 3, e.g. axis 0 of args[1] of type float32[3];",
      "  * one axis had size 2: axis 0 of argument xs of type float32[2]"]
  with pytest.raises(ValueError, match=r"pmap got inconsistent sizes(.|\n)*one axis had size "
                     r"10: axis 0 of argument b of type int32\[10\]"):
    jax.pmap(lambda a, b: a + b.sum())(jnp.ones((1, 3)), jnp.arange(10))


@pytest.mark.cpu_bits  # (recorded on an Intel CPU; an AMD one rounds other bits, JAX too)
def test_eager_vmap_runs_jitted_library_functions_as_programs():
  # JAX 0.10.2's bits: under an eager vmap, jnp.average runs batched as one program, where
  # XLA turns its division by the (constant) weight sum into a product.
  rng = np.random.RandomState(0)
  rng.standard_normal(12)
  m = jnp.asarray(rng.standard_normal((3, 4)).astype(np.float32))
  got = jax.vmap(lambda r: jnp.average(r, weights=jnp.arange(4.0)))(m)
  np.testing.assert_array_equal(np.asarray(got).view(np.uint32),
                                [1051430502, 3199646115, 1020591248])
  t = jnp.asarray(np.random.RandomState(1).randn(2, 3, 4).astype(np.float32))
  np.testing.assert_array_equal(
      np.asarray(jax.vmap(lambda a: a.sum(), in_axes=2)(t)).view(np.uint32),
      [1067142737, 3226593571, 1083716553, 3229231970])


def test_vmap_of_a_jit_batches_its_body_in_place():
  # JAX's jaxpr: no transpose before the call; the one after moves the result to out_axes=0
  t = jnp.asarray(np.random.RandomState(1).randn(2, 3, 4).astype(np.float32))
  eqns = jax.make_jaxpr(jax.vmap(jax.jit(lambda a: jnp.sort(a, 0)), in_axes=1))(t).eqns
  assert [e.primitive.name for e in eqns] == ["jit", "transpose"]
  assert eqns[0].outvars[0].aval.shape == (2, 3, 4)


def test_vectorize_outputs_are_checked_by_their_shape_attribute():
  """As JAX's (``np.shape`` of each output): a pytree with a ``shape`` (dynamiqs' QArray)
  comes back mapped, its leaves stacked as a loop would."""
  import dataclasses

  @jax.tree_util.register_dataclass
  @dataclasses.dataclass
  class Box:
    data: jax.Array

    @property
    def shape(self):
      return self.data.shape

  f = jnp.vectorize(lambda x: Box(jnp.stack([x, 2 * x])), signature="()->(k)")
  np.testing.assert_array_equal(np.asarray(f(np.float32(1.0)).data), [1.0, 2.0])
  xs = np.arange(3.0, dtype=np.float32)
  np.testing.assert_array_equal(np.asarray(f(xs).data), [[x, 2 * x] for x in xs])
  with pytest.raises(ValueError, match="does not match core dimensions"):
    jnp.vectorize(lambda x: Box(x), signature="()->(k)")(xs)
