"""Symbolic dimensions (shape polymorphism) while tracing: ``jax.export.symbolic_shape``'s
expressions, their arithmetic and decisions, and ``eval_shape``/``make_jaxpr`` over them.
Expected values recorded from JAX 0.10.2."""
import operator

import pytest

import xjax
import xjax.numpy as jnp
from xjax import export, lax
from xjax.errors import InconclusiveDimensionOperation

sym = export.symbolic_shape


def test_expressions_print_and_normalize_as_jax():
  b, c = sym("b, c")
  got = [str(x) for x in (b + 1, 2 * b + c, c + 2 * b, b * c - 3, b * b, (b + 1) * (c + 2), -b,
                          3 - b, b // 2, b % 3, (2 * b + 4) // 2, b * c // c, b // c, b ** 2)]
  assert got == ["b + 1", "c + 2*b", "c + 2*b", "b*c - 3", "b^2", "b*c + c + 2*b + 2", "- b",
                 "- b + 3", "floordiv(b, 2)", "mod(b, 3)", "b + 2", "b", "floordiv(b, c)",
                 "b^2"]
  assert (b - b, b * 0, (b + 3) - b) == (0, 0, 3)            # constants are ints
  assert all(type(x) is int for x in (b - b, (b + 3) - b))
  assert repr(b + 1) == "b + 1"
  assert sym("floordiv(b, 2), mod(b, 3), max(b, 2), min(b, c)", scope=b.scope) == (
      b // 2, b % 3, xjax.core.max_dim(b, 2), xjax.core.min_dim(b, c))
  assert str(sym("max(b, 5)")[0]) == "max(b, 5)"
  assert (2 * b + 1).evaluate({"b": 4}) == 9 and (b // 2).evaluate({"b": 7}) == 3


def test_decisions():
  b, c = sym("b, c")
  assert (b == b, b == 3, b + 1 == 1 + b, b == c, b != c) == (True, False, True, False, True)
  assert b >= 1 and b >= 0 and b + 1 > 1 and -b < 0
  for decide, text in ((lambda: b > 1, "'b' > '1'"), (lambda: b < 5, "'b' < '5'")):
    with pytest.raises(InconclusiveDimensionOperation,
                       match=f"Symbolic dimension comparison {text} is inconclusive"):
      decide()
  with pytest.raises(InconclusiveDimensionOperation,
                     match="Symbolic dimension 'b' used in a context that requires a constant"):
    int(b)
  with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
    operator.index(b)
  assert xjax.core.max_dim(b, 1) is b and str(xjax.core.max_dim(b, 5)) == "max(b, 5)"
  d, = sym("d", constraints=["d >= 2"])
  assert d >= 2 and d > 1 and d != 1
  with pytest.raises(InconclusiveDimensionOperation, match="'d' >= '3' is inconclusive"):
    d >= 3
  with pytest.raises(ValueError, match="Invalid mixing of symbolic scopes"):
    b + sym("b")[0]


def test_specifications():
  assert sym("_, b, ...", like=(3, None, 4, 5))[::2] == (3, 4)
  assert str(sym("(b, 4)")) == "(b, 4)" and sym("") == ()
  with pytest.raises(ValueError, match="syntax error in symbolic shape 'b \\+' in dimension 0"):
    sym("b +")
  with pytest.raises(ValueError, match="polymorphic shape spec should be None or a string. "
                                       "Found 3."):
    sym(3)
  with pytest.raises(ValueError, match="Cannot specify both a `scope` and `constraints`"):
    sym("b", scope=export.SymbolicScope(), constraints=["b >= 2"])
  import numpy as np
  specs = export.symbolic_args_specs((np.zeros((3, 4)), np.zeros(2, np.int32)), ("b, _", None))
  assert [str(s.shape) for s in specs] == ["(b, 4)", "(2,)"]
  assert specs[0].dtype == np.float32 and specs[1].dtype == np.int32  # (typeof's dtypes)


def _shapes(f, *args):
  out = xjax.eval_shape(f, *args)
  return xjax.tree_util.tree_map(lambda s: (str(s.shape), str(s.dtype), s.weak_type), out)


def test_eval_shape_through_numpy_lax_and_transformations():
  b, c = sym("b, c")
  x = xjax.ShapeDtypeStruct((b, 4), jnp.float32)
  y = xjax.ShapeDtypeStruct((b, c), jnp.float32)
  img = xjax.ShapeDtypeStruct((b, 8, 8, 1), jnp.float32)
  f32 = lambda shape, weak=False: (shape, "float32", weak)
  cases = [
      (lambda x: x @ jnp.ones((4, 3)), (x,), f32("(b, 3)")),
      (lambda x: x.sum(0), (x,), f32("(4,)")),
      (lambda x: x.sum(1), (x,), f32("(b,)")),
      (lambda x: x.mean(0), (x,), f32("(4,)")),
      (lambda x: x.mean(), (x,), f32("()")),
      (lambda x: x.reshape(-1), (x,), f32("(4*b,)")),
      (lambda x: x.reshape((-1, 2)), (x,), f32("(2*b, 2)")),
      (lambda x: x.reshape((x.shape[0], 2, 2)), (x,), f32("(b, 2, 2)")),
      (lambda x: x.T, (x,), f32("(4, b)")),
      (lambda x: jnp.concatenate([x, x]), (x,), f32("(2*b, 4)")),
      (lambda x: jnp.stack([x, x]), (x,), f32("(2, b, 4)")),
      (lambda x: x[1:], (x,), f32("(b - 1, 4)")),
      (lambda x: x[:, 1:3], (x,), f32("(b, 2)")),
      (lambda x: x[::-1], (x,), f32("(b, 4)")),
      (lambda x: x[0], (x,), f32("(4,)")),
      (lambda x: x[:, None], (x,), f32("(b, 1, 4)")),
      (lambda x: jnp.zeros(x.shape), (x,), f32("(b, 4)")),
      (lambda x: jnp.broadcast_to(1., x.shape), (x,), f32("(b, 4)", True)),
      (lambda x, y: x[:, :1] + y, (x, y), f32("(b, c)")),
      (lambda x: x * x.shape[0], (x,), f32("(b, 4)")),
      (lambda x: x / x.shape[0], (x,), f32("(b, 4)")),
      (lambda x: jnp.arange(x.shape[0]), (x,), ("(b,)", "int32", False)),
      (lambda x: jnp.argmax(x, 1), (x,), ("(b,)", "int32", False)),
      (xjax.nn.softmax, (x,), f32("(b, 4)")),
      (lambda x: jnp.where(x > 0, x, 0.), (x,), f32("(b, 4)")),
      (xjax.grad(lambda x: (x ** 2).sum()), (x,), f32("(b, 4)")),
      (xjax.vmap(lambda r: r.sum()), (x,), f32("(b,)")),
      (xjax.jit(lambda x: x * 2), (x,), f32("(b, 4)")),
      (lambda z: lax.conv_general_dilated(z, jnp.ones((3, 3, 1, 4)), (1, 1), "VALID",
                                          dimension_numbers=("NHWC", "HWIO", "NHWC")),
       (img,), f32("(b, 6, 6, 4)")),
      (lambda z: lax.reduce_window(z, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
       (img,), f32("(b, 4, 4, 1)")),
  ]
  for f, args, want in cases:
    assert _shapes(f, *args) == want
  v = xjax.ShapeDtypeStruct((b,), jnp.float32)
  assert _shapes(xjax.hessian(lambda v: (v * v.shape[0]).sum()), v) == f32("(b, b)")
  assert _shapes(xjax.grad(lambda x: x.var()), x) == f32("(b, 4)")
  scan = lambda x: lax.scan(lambda c, r: (c + r, r.sum()), jnp.zeros(4), x)
  assert _shapes(scan, x) == (f32("(4,)"), f32("(b,)"))
  with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: "
                                      r"\(b, 4\), \(b, c\)"):
    xjax.eval_shape(lambda x, y: x + y, x, y)


def test_jaxprs_show_symbolic_types_and_dim_as_value():
  b, = sym("b")
  x = xjax.ShapeDtypeStruct((b, 4), jnp.float32)
  assert str(xjax.make_jaxpr(lambda x: x.mean(0))(x)).splitlines() == [
      "{ lambda ; a:f32[b,4]. let",
      "    b:i32[] = dim_as_value[dim=b] ",
      "    c:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b",
      "    d:f32[4] = reduce_sum[axes=(0,) out_sharding=None] a",
      "    e:f32[4] = div d c",
      "  in (e,) }"]



def test_eval_shape_sweep_with_a_constrained_dimension():
  """numpy, lax, nn, random, image and segment operations over a dimension ``b >= 2``,
  each result's shapes and dtypes as JAX 0.10.2 gives them."""
  b, = sym("b", constraints=["b >= 2"])
  x = xjax.ShapeDtypeStruct((b,), jnp.float32)
  x2 = xjax.ShapeDtypeStruct((b, 3), jnp.float32)
  img = xjax.ShapeDtypeStruct((b, 4, 4, 1), jnp.float32)
  key = xjax.random.key(0)
  dn = ("NHWC", "HWIO", "NHWC")
  cases = [
      (lambda x: jnp.histogram(x, bins=5), x, "('(5,):float32', '(6,):float32')"),
      (lambda x: jnp.median(x, axis=0), x2, "(3,):float32"),
      (lambda x: jnp.sort(x, 0), x2, "(b, 3):float32"),
      (lambda x: jnp.cumsum(x, 0), x2, "(b, 3):float32"),
      (lambda x: x[jnp.array([0, 1])], x2, "(2, 3):float32"),
      (lambda x: x[:, jnp.argmax(x[0])], x2, "(b,):float32"),
      (lambda x: xjax.nn.one_hot(jnp.argmax(x, 1), 4), x2, "(b, 4):float32"),
      (lambda x: jnp.pad(x, ((1, 1), (0, 0))), x2, "(b + 2, 3):float32"),
      (lambda x: jnp.tile(x, (2, 1)), x2, "(2*b, 3):float32"),
      (lambda x: jnp.repeat(x, 2, axis=0), x2, "(2*b, 3):float32"),
      (lambda x: jnp.roll(x, 1, 0), x2, "(b, 3):float32"),
      (lambda x: jnp.einsum("bi,bj->ij", x, x), x2, "(3, 3):float32"),
      (lambda x: lax.cond(True, lambda: x, lambda: -x), x2, "(b, 3):float32"),
      (lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2, x), x2, "(b, 3):float32"),
      (lambda x: x + xjax.random.normal(key, x.shape), x2, "(b, 3):float32"),
      (lambda x: jnp.where(xjax.random.bernoulli(key, 0.5, x.shape), x, 0), x2,
       "(b, 3):float32"),
      (lambda z: lax.conv_transpose(z, jnp.ones((3, 3, 1, 2)), (2, 2), "SAME",
                                    dimension_numbers=dn), img, "(b, 8, 8, 2):float32"),
      (lambda z: xjax.image.resize(z, (z.shape[0], 8, 8, 1), "bilinear"), img,
       "(b, 8, 8, 1):float32"),
      (lambda x: xjax.ops.segment_sum(x, jnp.zeros(x.shape[0], jnp.int32), 3), x2,
       "(3, 3):float32"),
      (lambda x: jnp.unique(x, size=3), x, "(3,):float32"),
      (lambda x: jnp.split(x, 3, axis=1), x2,
       "['(b, 1):float32', '(b, 1):float32', '(b, 1):float32']"),
      (lambda x: lax.top_k(x, 2), x2, "['(b, 2):float32', '(b, 2):int32']"),
      (lambda x: jnp.eye(x.shape[0]), x2, "(b, b):float32"),
      (lambda x: x.sum() / x.size, x2, "():float32"),
      (lambda x: lax.dynamic_slice_in_dim(x, 0, 2, 1), x2, "(b, 2):float32"),
      (lambda x: x.at[0].set(1.0), x2, "(b, 3):float32"),
      (lambda x: jnp.concatenate([x, jnp.zeros((2, 3))]), x2, "(b + 2, 3):float32"),
      (xjax.grad(lambda x: xjax.checkpoint(lambda y: jnp.sin(y).sum())(x)), x2,
       "(b, 3):float32"),
  ]
  for f, arg, want in cases:
    got = xjax.tree_util.tree_map(lambda s: f"{s.shape}:{s.dtype}", xjax.eval_shape(f, arg))
    assert str(got) == want, want


def test_slices_loops_and_transforms_of_symbolic_dimensions():
  # Shapes as JAX 0.10.2 gives them (max/min terms bounded as JAX's decision procedure).
  a, = sym("a")
  x = xjax.ShapeDtypeStruct((a,), jnp.float32)
  shape = lambda f: str(xjax.eval_shape(f, x).shape)
  assert shape(lambda x: x[-2:]) == "(- max(0, a - 2) + a,)"
  assert shape(lambda x: x[:2]) == "(min(a, 2),)"
  assert shape(lambda x: x[2:-1]) == "(max(0, - min(a, 2) + a - 1),)"
  assert shape(lambda x: x[:-2:2]) == "(floordiv(max(0, a - 2) + 1, 2),)"
  assert shape(lambda x: x[1:5]) == "(min(a, 5) - 1,)"
  assert shape(jnp.diff) == "(a - 1,)"
  assert shape(jnp.fft.fft) == "(a,)" and shape(jnp.fft.fftshift) == "(a,)"
  assert xjax.eval_shape(lambda x: lax.fori_loop(0, x.shape[0], lambda i, c: c + 1., 0.),
                         x).shape == ()
  assert xjax.core.max_dim(a - 2, 0) <= a   # (a - max(a - 2, 0) is min(2, a) >= 1)
  with pytest.raises(InconclusiveDimensionOperation,
                     match=r"Cannot divide evenly the sizes of shapes \(a,\) and \(2, -1\)"):
    xjax.eval_shape(lambda x: x.reshape(2, -1), x)
