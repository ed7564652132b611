"""Weak types through transformations, recorded from JAX 0.10.2 (values and, for each result
leaf, dtype and weak type); tools/differential_weak_types.py sweeps many more."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
import xjax.scipy.stats as st

ZS = jnp.arange(3.0)
W3 = jnp.full(3, 0.7)
W, S = jnp.asarray(0.7), jnp.float32(0.7)


def _scan_ckpt(x, y):
  body = lambda c, z: (c * z + jnp.sin(c) * y, c)
  c, ys = lax.scan(xjax.checkpoint(body), x, ZS)
  return c + ys.sum()


CASES = {
    # the carry's cotangent sums a weak term first: weak, as in JAX
    "scan_sin_grad": (lambda: xjax.grad(lambda x: lax.scan(
        lambda c, z: (c * z + jnp.sin(c), None), x, ZS)[0])(0.7), [3.193577766418457], [True]),
    # a zero cotangent of ys is not summed into the carry's
    "scan_ys_grad": (lambda: xjax.grad(lambda x: lax.scan(
        lambda c, z: (c * z, c), x, ZS)[1].sum())(0.7), [1.0], [True]),
    "scan_ckpt_grad": (lambda: xjax.grad(_scan_ckpt, argnums=(0, 1))(0.7, 0.7),
                       [4.597942352294922, 6.544761657714844], [True, True]),
    "scan_ckpt_hessian": (lambda: xjax.hessian(_scan_ckpt, argnums=(0, 1))(0.7, jnp.asarray(0.7)),
                          [-3.703124761581421, 6.473888397216797, 6.4738874435424805,
                           4.727072238922119], [True] * 4),
    "scan_ckpt_hessian_strong": (
        lambda: xjax.hessian(_scan_ckpt, argnums=(0, 1))(jnp.asarray(0.7), jnp.float32(0.7)),
        [-3.703124761581421, 6.473888397216797, 6.4738874435424805, 4.727072238922119],
        [True, True, False, False]),
    "jvp_pytree": (lambda: xjax.jvp(lambda p: {"a": p["x"] * 2, "b": 3.0}, ({"x": 1.0},),
                                    ({"x": 1.0},)), [2.0, 3.0, 2.0, 0.0], [True] * 4),
    "mvn_weak": (lambda: st.multivariate_normal.logpdf(jnp.full(2, 0.0), jnp.full(2, 0.0), 1.0),
                 [-1.8378770351409912], [True]),
    "mvn_weak_cov": (lambda: st.multivariate_normal.logpdf(
        jnp.full(2, 0.0), jnp.full(2, 0.0), jnp.eye(2) * 1.0), [-1.8378770351409912], [False]),
    # pad is weak only when the operand and the padding value both are
    "pad_weak_strong": (lambda: lax.pad(W3, jnp.float32(0.0), [(1, 1, 0)]),
                        [0.0, 0.7, 0.7, 0.7, 0.0], [False]),
    "pad_weak_weak": (lambda: lax.pad(W3, 0.0, [(1, 0, 1)]), [0.0, 0.7, 0.0, 0.7, 0.0, 0.7], [True]),
    # its transpose pads with a strong zero
    "pad_grad": (lambda: xjax.grad(lambda x, v: lax.pad(lax.broadcast(x, (2,)), v, [(1, 1, 0)]).sum(),
                                   argnums=(0, 1))(0.7, 0.5), [2.0, 2.0], [False, False]),
    # a batched padding value: padded with a zero like the operand (weak), then selected
    "pad_vmap": (lambda: xjax.vmap(lambda x, v: lax.pad(lax.broadcast(x, (2,)), v, [(1, 1, 0)]),
                                   in_axes=(None, 0))(0.7, jnp.full(2, 0.5)),
                 [0.5, 0.7, 0.7, 0.5, 0.5, 0.7, 0.7, 0.5], [True]),
    # cumulative ops differentiate through associative_scan, whose pads make primal and tangent strong
    "cumprod_jvp": (lambda: xjax.jvp(lax.cumprod, (W3,), (jnp.ones(3),)),
                    [0.7, 0.49, 0.343, 1.0, 1.4, 1.47], [False, False]),
    "cummax_jvp": (lambda: xjax.jvp(lax.cummax, (W3,), (jnp.ones(3),)),
                   [0.7, 0.7, 0.7, 1.0, 1.0, 1.0], [False, False]),
    "associative_scan_grad": (lambda: xjax.grad(lambda x, y: lax.associative_scan(
        jnp.add, jnp.stack([x, y])).sum(), argnums=(0, 1))(0.7, 0.5), [2.0, 1.0], [False, False]),
    # clamp is weak only when all three operands are; a zero tangent is like the operand
    "clamp_strong_max": (lambda: lax.clamp(0.0, W, jnp.float32(0.5)), [0.5], [False]),
    "clamp_jvp": (lambda: xjax.jvp(lambda x, y: lax.clamp(0.0, x, y), (W, S),
                                   (jnp.ones_like(W), jnp.ones_like(S))), [0.7, 0.0], [False, False]),
    # the lower bound's tangent flows only where it is below the upper bound
    "clamp_grad_crossed": (lambda: xjax.grad(lax.clamp, argnums=(0, 1, 2))(
        jnp.float32(0.8), jnp.float32(0.5), jnp.float32(0.3)), [0.0, 0.0, 1.0], [False] * 3),
    # a jit's transpose is traced on the cotangents' own types
    "jit_vjp_strong_ct": (lambda: xjax.vjp(xjax.jit(lambda x, y: lax.clamp(0.0, x, y)), W, S)[1](
        jnp.float32(1.0)), [0.0, 0.0], [False, False]),
    # dynamic_update_slice is weak only if its (strong, normalised) indices were too
    "dus": (lambda: lax.dynamic_update_slice(W3, jnp.full(1, 0.5), (1,)), [0.7, 0.5, 0.7], [False]),
    # ... but batched it is a scatter, weak as the operand
    "dus_vmap": (lambda: xjax.vmap(lambda x, u: lax.dynamic_update_slice(x, u, (1,)))(
        jnp.full((2, 3), 0.5), jnp.full((2, 1), 2.0)), [0.5, 2.0, 0.5, 0.5, 2.0, 0.5], [True]),
    # top_k's indices keep the operand's weak type
    "top_k": (lambda: lax.top_k(jnp.full(3, 0.3).at[1].set(0.9), 2), [0.9, 0.3, 1, 0],
              [True, True], [np.float32, np.int32]),
    # sort's tangents are gathered (weak as the tangent), transposing to a strong scatter-add
    "sort_grad": (lambda: xjax.grad(lambda x, y: lax.sort(jnp.stack([x, y]))[0], argnums=(0, 1))(
        0.7, 0.5), [0.0, 1.0], [False, False]),
    # pow's exponent tangent is converted to the exponent's dtype (strong); two tangents
    # subtract with sub's own weak-type rule
    "pow_rhs_jvp": (lambda: xjax.jvp(lambda b: lax.pow(W, b), (W,), (jnp.ones_like(W),)),
                    [0.7790558934211731, -0.27786973118782043], [True, False]),
    "sub_jvp": (lambda: xjax.jvp(lambda a, b: lax.sub(a, lax.pow(W, b)), (W, W),
                                 (jnp.ones_like(W), jnp.ones_like(W))),
                [-0.07905590534210205, 1.277869701385498], [True, False]),
    # a FILL_OR_DROP gather (scatter-add's transpose) fills like its operand: weak here
    "at_add_grad": (lambda: xjax.grad(lambda x, y: (jnp.full(2, 1.).at[0].add(x) + y).sum(),
                                      argnums=(0, 1))(0.7, 0.7), [1.0, 2.0], [True, True]),
    "at_add_grad_jit": (lambda: xjax.grad(xjax.jit(
        lambda x, y: (jnp.full(2, 1.).at[0].add(x) + y).sum()), argnums=(0, 1))(
            0.7, jnp.float32(0.7)), [1.0, 2.0], [True, False]),
    "at_add_vmap_grad": (lambda: xjax.vmap(xjax.grad(
        lambda x, y: (jnp.full(2, 1.).at[0].add(x) + y).sum()), in_axes=(None, 0))(
            0.7, jnp.full(3, 0.7)), [1.0, 1.0, 1.0], [True]),
    "gather_fill": (lambda: lax.gather(jnp.full(3, 0.5), jnp.array([[1], [5]]),
                                       lax.GatherDimensionNumbers((), (0,), (0,)), (1,),
                                       mode="fill", fill_value=2.), [0.5, 2.0], [True]),
    # a rule's constant (JAX's _const) is weak only for a weakly typed scalar operand ...
    "square_jvp_weak_scalar": (lambda: xjax.jvp(lax.square, (W,), (jnp.asarray(1.0),)),
                               [0.49, 1.4], [True, True]),
    "square_grad_weak_array": (lambda: xjax.grad(lambda x: jnp.sum(lax.square(x)))(W3),
                               [1.4] * 3, [False]),
    # (under grad(vmap(f)) the rule sees the whole batch)
    "square_grad_vmap": (lambda: xjax.grad(lambda x: jnp.sum(xjax.vmap(lax.square)(x)))(W3),
                         [1.4] * 3, [False]),
    "atan_grad_weak_array": (lambda: xjax.grad(lambda x: jnp.sum(jnp.arctan(x)))(W3),
                             [0.6711409091949463] * 3, [False]),
    "digamma_jvp_weak_array": (lambda: xjax.jvp(lax.digamma, (W3,), (jnp.ones(3),)),
                               [-1.2200233936309814] * 3 + [2.8340487480163574] * 3,
                               [True, False]),
    # ... but a one (JAX's _one, a full_like) keeps the operand's weak type whatever its rank
    "tanh_grad_weak_array": (lambda: xjax.grad(lambda x: jnp.sum(jnp.tanh(x)))(W3),
                             [0.6347395777702332] * 3, [True]),
    # a function JAX jits (nn.standardize) is a jit call under eager grad too: its transpose
    # sums the cotangents with add_any inside the call, keeping the first one's weak type
    "jitted_library_function_grad": (lambda: xjax.grad(lambda x, y: jnp.sum(
        xjax.nn.standardize(jnp.stack([x, y, 0.1])) ** 3), argnums=(0, 1))(0.7, 0.5),
        [6.624612808227539, -9.938291549682617], [True, True]),
}


@pytest.mark.parametrize("name", CASES)
def test_weak_types_as_jax(name):
  fun, values, weak, *dtypes = CASES[name]
  leaves = xjax.tree_util.tree_leaves(fun())
  np.testing.assert_allclose(np.concatenate([np.ravel(x) for x in leaves]), values, rtol=1e-5)
  assert [xjax.typeof(x).dtype for x in leaves] == (dtypes or [[np.float32] * len(leaves)])[0]
  assert [xjax.typeof(x).weak_type for x in leaves] == weak


def test_linear_algebra_results_are_as_weak_as_their_operands():
  # JAX 0.10.2: a linear-algebra primitive's results (integer ones too) are weakly typed
  # where all operands are; jnp.pad keeps a weak array weak; the main diagonal of a square
  # matrix is strong (JAX takes it by a platform-dependent choice), other diagonals weak
  import xjax.scipy.linalg as jsl
  jax = xjax
  lin = jax.lax.linalg
  w = jax.lax.broadcast(jnp.asarray(4.0), (2, 2))
  s = jnp.array([[4., 4.], [4., 4.]])  # (strong)
  weak = lambda t: [x.weak_type for x in (t if isinstance(t, (tuple, list)) else [t])]
  assert weak(lin.cholesky(w)) == [True] and weak(lin.cholesky(s)) == [False]
  assert weak(lin.eigh(w)) == [True, True]
  assert weak(lin.qr(w)) == [True, True]
  assert weak(lin.svd(w)) == [True, True, True]
  assert weak(lin.lu(w)) == [True, True, True]  # (the int32 pivots too)
  assert weak(lin.triangular_solve(w, w, left_side=True)) == [True]
  assert weak(lin.triangular_solve(w, s, left_side=True)) == [False]
  assert weak(lin.eig(w)) == [True, True, True]
  assert weak(lin.tridiagonal_solve(w[0], w[0], w[0], w)) == [True]
  assert weak(jsl.cho_solve((w, True), w)) == [True]
  assert weak(jnp.linalg.lstsq(w, w)) == [False, False, False, True]
  assert weak(jsl.lu(w)) == [False, False, True]
  assert weak(jnp.pad(w, 1)) == [True] and weak(jnp.pad(s, 1)) == [False]
  m3 = jax.lax.broadcast(jnp.asarray(4.0), (2, 3, 3))
  assert weak(jnp.diagonal(m3[0])) == [False] and weak(jax.jit(jnp.diagonal)(m3[0])) == [False]
  assert weak(jnp.diagonal(m3[0], 1)) == [True] and weak(jnp.diagonal(m3, 0, 1, 2)) == [True]
  assert weak(jnp.diagonal(m3[0, :2])) == [True]
  assert weak(jnp.diag(m3[0, 0])) == [True] and weak(jnp.diag(m3[0, 0], 1)) == [True]
  # values and derivatives are those of the strong matrix
  a = jnp.array([[4., 1.], [1., 3.]])
  f = lambda m: jnp.sum(lin.cholesky(m) * 2.0)
  np.testing.assert_allclose(jax.grad(f)(a * jnp.asarray(1.0)), jax.grad(f)(a), rtol=1e-6)
  np.testing.assert_allclose(jax.vmap(lin.cholesky)(jnp.stack([w + 2 * jnp.eye(2)] * 2))[0],
                             lin.cholesky(s + 2 * jnp.eye(2)), rtol=1e-6)


def _kinds(tree):
  return [(type(leaf).__name__ if isinstance(leaf, (float, int)) else "Array",
           getattr(leaf, "weak_type", None)) for leaf in xjax.tree.leaves(tree)]


def test_eager_differentiation_of_asarray_gives_arrays_as_jax():
  # (JAX 0.10.2 converts a tracer of eager differentiation in jnp.asarray: a Python-scalar
  # primal comes back an Array, weakly typed)
  arrays = [("Array", True), ("Array", True)]
  assert _kinds(xjax.jvp(jnp.asarray, (1.0,), (1.0,))) == arrays
  assert _kinds(xjax.value_and_grad(jnp.asarray)(1.0)) == arrays
  assert _kinds(xjax.linearize(jnp.asarray, 1.0)[0]) == [("Array", True)]
  value, tangent = xjax.jvp(jnp.asarray, (2.0,), (3.0,))
  assert float(value) == 2.0 and float(tangent) == 3.0
  # a function that returns its input unchanged still hands back the Python scalars, and so
  # does one JAX jits, under grad (its jit forwards the input)
  assert _kinds(xjax.jvp(lambda x: x, (1.0,), (1.0,))) == [("float", None), ("float", None)]
  assert _kinds(xjax.vjp(jnp.real, 1.0)[0]) == [("TypedFloat", None)]
  # checkpoint forwards an unchanged input as it was given (JAX 0.10.2: typed scalars, a
  # TypedNdArray for NumPy, the Array itself), computed outputs as Arrays
  assert _kinds(xjax.checkpoint(lambda a, b: (a, b * 2))(3.0, 2)) == [("TypedFloat", None),
                                                                      ("Array", True)]
  assert type(xjax.checkpoint(lambda a: a)(np.float32(3.0))).__name__ == "TypedNdArray"
  x = jnp.ones(2)
  assert xjax.checkpoint(lambda a: a)(x) is x


def test_weak_booleans_join_as_a_strong_boolean():
  """JAX 0.10.2's jaxpr of ``fmax``'s mask: ``gt`` and ``ne`` of weak floats are weak
  booleans, converted to the strong boolean (their join) before ``or``."""
  jaxpr = xjax.make_jaxpr(jnp.fmax)(0.7, jnp.asarray(0.7)).jaxpr.eqns[0].params["jaxpr"].jaxpr
  prims = [e.primitive.name for e in jaxpr.eqns]
  assert prims[:5] == ["gt", "ne", "convert_element_type", "convert_element_type", "or"]
  assert [e.outvars[0].aval.weak_type for e in jaxpr.eqns[:5]] == [True, True, False, False,
                                                                  False]


def test_eager_jvp_of_functions_jax_jits_returns_arrays():
  """`jax.jvp(jnp.real, (1.,), (1.,))`: JAX's real, conj and positive are jitted, so their
  primal comes back a weakly typed Array (recorded from JAX 0.10.2), not the Python number."""
  for f in (jnp.real, jnp.conj, jnp.conjugate, jnp.positive):
    assert _kinds(xjax.jvp(f, (1.0,), (1.0,))) == [("Array", True), ("Array", True)], f
  x = jnp.arange(3.)
  primal, _ = xjax.jvp(jnp.real, (x,), (x,))
  assert primal is not x and primal.tolist() == [0., 1., 2.]
  assert "convert_element_type" not in str(xjax.make_jaxpr(
      lambda x: xjax.linearize(jnp.real, x)[1](x))(x))  # (forwarded, as JAX's jit)


# jvp with a strong primal and a weak tangent, and the reverse: the result tangent's weak
# type eagerly and in make_jaxpr, recorded from JAX 0.10.2. A tangent keeps its own weak
# type through lax's primitives and the functions JAX does not jit (reshape, indexing,
# broadcast_to); a function JAX jits types it from the primal, but, staged, passes an
# input tangent it forwards on as given (add1); a conversion to an operand's own type
# (concatenate's promotion) types it eagerly only.
_STRONG = jnp.asarray([1.0, 2.0, 3.0], jnp.float32)
_MIXED_TANGENTS = {
    "sum": (jnp.sum, "FFFF"), "sin": (jnp.sin, "FFTT"), "add1": (lambda x: x + 1, "FTTF"),
    "reshape": (lambda x: x.reshape(3, 1), "TTFF"), "T": (lambda x: x.T, "TTFF"),
    "jnp.reshape": (lambda x: jnp.reshape(x, (3, 1)), "TTFF"), "idx": (lambda x: x[0], "TTFF"),
    "broadcast_to": (lambda x: jnp.broadcast_to(x, (2, 3)), "TTFF"),
    "concat": (lambda x: jnp.concatenate([x, x]), "FTTF"),
    "stack": (lambda x: jnp.stack([x, x]), "FTTF"), "dot": (lambda x: jnp.dot(x, x), "FFTT"),
    "matmul": (lambda x: x @ x, "FFTT"), "einsum": (lambda x: jnp.einsum("i,i->", x, x), "FFTT"),
    "lax.add": (lambda x: lax.add(x, x), "TTFF"), "relu": (xjax.nn.relu, "TTFF"),
    "asarray": (jnp.asarray, "FTTF"), "identity": (lambda x: x, "TTFF"),
    "jit_identity": (xjax.jit(lambda x: x), "FFTT"),
    "inline_jit_identity": (xjax.jit(lambda x: x, inline=True), "FTTF"),
}


@pytest.mark.parametrize("name", sorted(_MIXED_TANGENTS))
def test_jvp_tangent_weak_types_as_jax(name):
  f, expected = _MIXED_TANGENTS[name]
  got = ""
  for primal, tangent in [(_STRONG, W3), (W3, _STRONG)]:
    out = xjax.jvp(f, (primal,), (tangent,))[1]
    got += "T" if out.weak_type else "F"
    jaxpr = xjax.make_jaxpr(lambda p, t: xjax.jvp(f, (p,), (t,))[1])(primal, tangent)
    got += "T" if jaxpr.out_avals[0].weak_type else "F"
  assert got == expected
  np.testing.assert_allclose(xjax.jvp(f, (_STRONG,), (W3,))[1],
                             xjax.jvp(f, (_STRONG,), (jnp.float32(0.7) * jnp.ones(3),))[1])


@xjax.custom_jvp
def _strong_exp(x):
  return jnp.exp(x).astype(jnp.float32)


_strong_exp.defjvp(lambda p, t: (_strong_exp(p[0]), jnp.exp(p[0]) * t[0]))


def test_custom_jvp_strong_output_of_a_weak_input_has_a_strong_gradient():
  """JAX 0.10.2: the rule's tangent is weak (exp of a weak input) but the gradient is typed
  by the cotangent of the strong output (jnp.sum, a jit in JAX, gives its input's cotangent
  its primal's type), with or without a Python scalar added."""
  for f in (lambda x: jnp.sum(_strong_exp(x)), lambda x: 0 + jnp.sum(_strong_exp(x))):
    assert not xjax.grad(f)(W3).weak_type
    g = xjax.jit(xjax.grad(f))(W3)
    assert not g.weak_type
    np.testing.assert_allclose(g, np.exp(0.7) * np.ones(3), rtol=1e-6)
    assert not xjax.make_jaxpr(xjax.grad(f))(W3).out_avals[0].weak_type


def test_gradient_of_a_jitted_function_of_weak_values_through_jnp_sum():
  """JAX 0.10.2: squareplus (a jit) of a weak vector has a weak result but strong tangents;
  jnp.sum converts its input to the strong type, and the gradient comes back strong."""
  f = lambda x: 0 + jnp.sum(xjax.vmap(xjax.nn.squareplus)(x))
  for g in (xjax.grad(f)(W3), xjax.jit(xjax.grad(f))(W3)):
    assert not g.weak_type
    np.testing.assert_allclose(g, 0.5 * (1 + 0.7 / np.sqrt(0.7 ** 2 + 4)) * np.ones(3),
                               rtol=1e-6)
  assert not xjax.eval_shape(lambda: xjax.grad(f)(W3)).weak_type
