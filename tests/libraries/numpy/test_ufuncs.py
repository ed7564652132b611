"""xjax.numpy's elementwise functions and ufunc objects against NumPy: values, dtypes,
NaNs and infinities, integer inputs, frexp, and frompyfunc's reduce(where=)."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp

from tests.checking import check
from tests.libraries.numpy.operands import A, I, N, V


UNARY_F = ["fabs", "log2", "log10", "deg2rad", "rad2deg", "degrees", "radians", "sinc",
           "signbit", "isfinite", "isinf", "isnan", "isposinf", "isneginf", "floor", "ceil",
           "trunc", "rint", "i0", "exp2"]


@pytest.mark.parametrize("name", UNARY_F)
def test_unary_float(name):
  x = np.abs(A) + 0.1 if name in ("log2", "log10") else A * 3
  check(getattr(jnp, name)(x), getattr(np, name)(x))
  with np.errstate(invalid="ignore"):
    check(getattr(jnp, name)(N[:3]), getattr(np, name)(N[:3]))


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "signbit", "floor", "ceil",
                                  "trunc"])
def test_unary_int_keeps_or_classifies(name):
  # floor, ceil and trunc keep integers (as NumPy 2.1 and newer; 2.0 gave floats)
  want = I - 5 if name in ("floor", "ceil", "trunc") else getattr(np, name)(I - 5)
  check(getattr(jnp, name)(I - 5), want)


BINARY_F = ["fmod", "hypot", "logaddexp", "logaddexp2", "heaviside", "copysign",
            "nextafter", "float_power"]


@pytest.mark.parametrize("name", BINARY_F)
def test_binary_float(name):
  y = np.float32(0.7) if name != "float_power" else np.float32(2.0)
  x = A if name != "float_power" else np.abs(A)
  check(getattr(jnp, name)(x, y), getattr(np, name)(x, y).astype(np.float32))
  check(getattr(jnp, name)(x, -x), getattr(np, name)(x, -x).astype(np.float32))


def test_integer_binary():
  check(jnp.fmod(I - 6, 5), np.fmod(I - 6, 5))
  check(jnp.gcd(I, 6), np.gcd(I, 6).astype(np.int32))
  check(jnp.lcm(I - 3, 4), np.lcm(I - 3, 4).astype(np.int32))
  check(jnp.divmod(I - 6, 5), np.divmod(I - 6, 5))
  check(jnp.ldexp(A, I), np.ldexp(A, I))
  check(jnp.modf(A * 3), np.modf(A * 3))
  for fn in (jnp.modf, jnp.isposinf, jnp.isneginf):   # `out` is refused, as JAX
    with pytest.raises(NotImplementedError, match="The 'out' argument to"):
      fn(A, np.zeros_like(A))
  check(jnp.around(A, 2), np.around(A, 2))


def test_binary_shapes_that_do_not_broadcast():
  # different ranks: jnp's rank promotion refuses them (ValueError, as JAX)
  with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: "
                     r"shapes=\[\(3, 4\), \(5,\)\]"):
    jnp.hypot(A, V)


def test_nan_to_num_and_clip():
  check(jnp.nan_to_num(N), np.nan_to_num(N))
  check(jnp.nan_to_num(N, nan=1.0, posinf=2.0, neginf=-2.0),
        np.nan_to_num(N, nan=1.0, posinf=2.0, neginf=-2.0))
  check(jnp.clip(A, -0.5, 0.5), np.clip(A, -0.5, 0.5))
  check(jnp.clip(I, 2, 5), np.clip(I, 2, 5))
  check(jnp.clip(I, max=3), np.clip(I, None, 3))
  assert jnp.clip(I, 0.5).dtype == np.float32


def test_frexp():
  x = np.array([0., -0., np.inf, -np.inf, np.nan, -3.5, 1.0, 0.3, 1e4, -7e-3], np.float32)
  for dt in (np.float32, np.float16):
    m, e = jnp.frexp(x.astype(dt))
    rm, re = np.frexp(x.astype(dt))
    assert m.dtype == dt and e.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(m), rm)
    np.testing.assert_array_equal(np.asarray(e), re)
  m, e = jnp.frexp(3)
  check(m, 0.75, np.float32)
  check(e, 2, np.int32)
  # Subnormals, as JAX 0.10.2 computes them on XLA (which flushes them in comparisons): a
  # bfloat16 one compares equal to zero and comes back as it is; a float32 one is scaled
  # first; eager and jit agree.
  sub = jnp.array([1e-40, -1e-40, 1.2e-38, 89.], jnp.bfloat16)
  for f in (jnp.frexp, xjax.jit(jnp.frexp)):
    m, e = f(sub)
    np.testing.assert_array_equal(np.asarray(m).view(np.uint16), [1, 32769, 16131, 16178])
    np.testing.assert_array_equal(e, [0, 0, -125, 7])
  m, e = jnp.frexp(jnp.array([1e-40, 1e-44], jnp.float32))
  np.testing.assert_array_equal(m, [0.5, 0.5])
  np.testing.assert_array_equal(e, [-149, -149])


def test_ufunc_reduce_where():
  a = np.arange(6.).reshape(2, 3)
  m = np.array([[True, False, True], [False, False, True]])
  add = jnp.frompyfunc(lambda x, y: x + y, 2, 1, identity=0)
  mul = jnp.frompyfunc(lambda x, y: x * y, 2, 1, identity=1)
  check(add.reduce(a, axis=1, where=m), np.add.reduce(a, axis=1, where=m))
  check(add.reduce(a, axis=0, where=m[0]), np.add.reduce(a, axis=0, where=m[0]))
  check(mul.reduce(a + 1, axis=None, where=m, keepdims=True),
        np.multiply.reduce(a + 1, axis=None, where=m, keepdims=True))
  f = jnp.frompyfunc(lambda x, y: x * y + 1, 2, 1)
  check(f.reduce(a, axis=0, where=m, initial=2.), [1., 2., 26.])
  with pytest.raises(ValueError, match="identity"):
    f.reduce(a, where=m)
  with pytest.raises(ValueError, match="dtype=bool"):
    add.reduce(a, where=1)
  with pytest.raises(NotImplementedError, match="out argument"):
    add.reduce(a, out=a)


def test_ufunc_reduceat_against_numpy():
  import xjax
  x = np.arange(1, 9, dtype=np.int32)
  for idx in ([0, 2, 5], [0, 4, 1, 5, 5, 7], [3], []):
    i = np.array(idx, dtype=np.int32)
    check(jnp.add.reduceat(x, i), np.add.reduceat(x, i))
  a = np.arange(12.).reshape(3, 4)
  for axis, i in ((1, [0, 1]), (0, [0, 2]), (-1, [0, 2]), (1, [2, 0, 3])):
    check(jnp.add.reduceat(a, np.array(i), axis=axis), np.add.reduceat(a, i, axis=axis))
  v = np.array([3., 1., 4., 1., 5.], np.float32)
  check(jnp.maximum.reduceat(v, np.array([0, 2, 4])), np.maximum.reduceat(v, [0, 2, 4]))
  check(jnp.multiply.reduceat(v, np.array([0, 3])), np.multiply.reduceat(v, [0, 3]))
  check(jnp.subtract.reduceat(v, np.array([0, 2])), np.subtract.reduceat(v, [0, 2]))
  # dtype is ignored, as by JAX 0.10.2 (NumPy's result would be float32)
  check(jnp.add.reduceat(x, np.array([0, 2]), dtype=jnp.float32), np.array([3, 33]), np.int32)
  f = jnp.frompyfunc(lambda p, q: p * 2 + q, 2, 1)
  check(f.reduceat(np.arange(5.), np.array([0, 2])), np.array([1., 18.]), np.float32)
  # values, grad and vmap recorded from JAX 0.10.2 (out-of-range starts: take's fill value)
  check(jnp.add.reduceat(x, np.array([0, -2])), np.array([1, 43]), np.int32)
  check(jnp.add.reduceat(np.array([True, True, False]), np.array([0, 2])), [True, False],
        np.bool_)
  check(xjax.jit(jnp.add.reduceat)(x, np.array([0, 2, 5])), np.array([3, 12, 21]), np.int32)
  check(xjax.grad(lambda a: jnp.multiply.reduceat(a, np.array([0, 2, 3])).sum())(
      np.arange(1., 6., dtype=np.float32)), np.array([2., 1., 1., 5., 4.], np.float32))
  check(xjax.vmap(lambda i: jnp.add.reduceat(x, i))(np.array([[0, 2], [1, 3]])),
        np.array([[3, 33], [5, 30]]), np.int32)
  assert (jnp.add.identity, jnp.add.nin, jnp.add.nout, jnp.add.nargs) == (0, 2, 1, 2)
  assert isinstance(jnp.ufunc.identity, property)


def test_ufunc_reduceat_checks_its_arguments():
  x = np.arange(4.)
  with pytest.raises(TypeError, match=r"add\.reduceat requires ndarray or scalar arguments, "
                                      r"got <class 'list'> at position 1\."):
    jnp.add.reduceat(x, [0, 3])
  with pytest.raises(ValueError, match=r"a must have 1 or more dimension, got a.shape=\(\)"):
    jnp.add.reduceat(np.float32(1), np.array([0]))
  with pytest.raises(ValueError, match=r"indices must be one-dimensional, got "
                                       r"indices.shape=\(1, 1\)"):
    jnp.add.reduceat(x, np.array([[0]]))
  with pytest.raises(ValueError, match="indices must have an integer type"):
    jnp.add.reduceat(x, np.array([0., 2.]))
  with pytest.raises(ValueError, match="reduceat requires a single integer axis"):
    jnp.add.reduceat(x, np.array([0]), axis=None)
  with pytest.raises(ValueError, match="reduceat only supported for binary ufuncs"):
    jnp.frompyfunc(jnp.sin, 1, 1).reduceat(x, np.array([0]))
  with pytest.raises(NotImplementedError, match=r"out argument of add\.reduceat\(\)"):
    jnp.add.reduceat(x, np.array([0]), out=1)


def test_ufunc_methods_check_their_arguments():
  f = jnp.frompyfunc(lambda x, y: x + y, 2, 1)
  for u in (f, jnp.add):
    with pytest.raises(TypeError, match=r"\.outer requires ndarray or scalar arguments, got "
                                        r"<class 'list'> at position 1\."):
      u.outer(np.ones(2), [1.])
    with pytest.raises(TypeError, match=r"\.reduce requires ndarray or scalar arguments"):
      u.reduce([1., 2.])
  with pytest.raises(TypeError, match=r"<lambda>\.accumulate requires ndarray or scalar"):
    f.accumulate([1., 2.])
  with pytest.raises(ValueError, match="axis 0 is out of bounds for array of dimension 0"):
    f.accumulate(np.float32(1))
  with pytest.raises(TypeError, match=r"add requires ndarray or scalar arguments, got "
                                      r"<class 'list'> at position 0\."):
    jnp.add([1., 2.], 1)


def test_complex_logaddexp_and_arctan2_as_jax():
  a = np.complex64([1 + 5j, -2 - 7j, 0])
  b = np.complex64([3j, 2 + 2j, -1])
  # JAX 0.10.2's values (the imaginary part wrapped into one period)
  np.testing.assert_allclose(jnp.logaddexp(a, b), np.complex64(
      [0.9063238 - 1.6593573j, 1.9832007 + 1.9923241j, 0.3132617 + 0j]), rtol=1e-6)
  np.testing.assert_allclose(jnp.logaddexp2(a, b), np.complex64(
      [1.2597493 + 4.3896914j, 2.0873826 + 2.003806j, 0.5849625 + 0j]), rtol=1e-6)
  c = np.complex64([1 + 2j, -1 + 0.5j])
  np.testing.assert_allclose(jnp.arctan2(c, c[::-1]), np.complex64(
      [1.5707963 - 0.54930615j, -4.7683713e-08 + 0.54930615j]), rtol=1e-6, atol=1e-7)


def test_fix_was_removed():
  # JAX 0.10 removed jnp.fix (deprecated in 0.9); its attribute access raises AttributeError
  assert not hasattr(jnp, "fix")
  with pytest.raises(AttributeError, match="jax.numpy.fix was deprecated.*jax.numpy.trunc"):
    jnp.fix  # noqa: B018


def test_ufuncs_under_jvp_type_tangents_as_jax_inline_jits():
  """JAX's ufuncs are inline jits: under jvp a tangent takes its primal's weak type and the
  outputs are arrays (values and types recorded from JAX 0.10.2)."""
  import xjax.scipy.stats as st
  w = jnp.asarray(0.3)
  for f, want in [(st.gennorm.logpdf, (-3.6157541, 4.5311007)),
                  (st.gennorm.cdf, (0.5095567, 0.05402999)),
                  (lambda x, b: b - x ** b, (-0.39684528, 0.34264123))]:
    p, t = xjax.jvp(f, (0.3, 0.3), (0.3, 0.3))
    np.testing.assert_allclose((p, t), want, rtol=1e-6)
    p, t = xjax.jvp(f, (w, w), (w, w))
    assert p.weak_type and t.weak_type
    p, t = xjax.jit(lambda a: xjax.jvp(f, (a, a), (a, a)))(w)
    assert p.weak_type and t.weak_type
  _, t = xjax.jvp(lambda x: x - 1, (0.7,), (1.0,))
  assert isinstance(t, xjax.Array) and t.weak_type and t == 1


def test_logaddexp_runs_as_one_program_when_eager():
  """As JAX's ufuncs, logaddexp/logaddexp2 compile as a whole when eager, so XLA's fused
  multiply-add shows as in jit and in JAX (op by op, logaddexp2(0, 0) was 0.0); their
  custom_jvp equations carry JAX's names, in JAX's order."""
  i = jnp.asarray([-3, -2, -1, 0, 2, 4], jnp.int32)
  expected = np.float32(-1.0601923e-08)   # JAX 0.10.2, eager and jit
  assert np.asarray(jnp.logaddexp2(i, i))[2] == expected
  assert np.asarray(xjax.jit(jnp.logaddexp2)(i, i))[2] == expected
  text = str(xjax.make_jaxpr(jnp.logaddexp)(jnp.ones(2), 1.0))
  assert "name=logaddexp\n" in text
  body = [line.split("= ")[1].split()[0] for line in text.splitlines()
          if ":f32[2] = " in line or ":bool[2] = " in line]
  assert body[1:7] == ["max", "sub", "ne", "add", "abs", "neg"], body


def test_ldexp_is_exact_and_differentiable_as_jax():
  """ldexp splits off x1's exponent (frexp) as JAX, so float16/bfloat16 results are exact
  (exp2 in float16 gave 0.5 * 2**3 = 4.004) and large exponents do not overflow on the
  way; frexp's custom JVP gives the mantissa's tangent (grad of ldexp(v, 3) is 8, not 0);
  a subnormal (flushed) frexp gives JAX's exponent. Values recorded from JAX 0.10.2."""
  e = np.array([0, 1, 2, 3, 1, 0, 200, -200, 127, -149], np.int32)
  x = np.array([-2.5, -1.5, -0.5, 0.5, 2.5, 4.5, 1e-30, 3e4, 0.0, np.inf], np.float32)
  np.testing.assert_array_equal(jnp.ldexp(x.astype(np.float16), e),
                                np.array([-2.5, -3, -2, 4, 5, 4.5, 0, 0, 0, np.inf], np.float16))
  np.testing.assert_array_equal(
      np.asarray(jnp.ldexp(x, e)),
      np.array([-2.5, -3, -2, 4, 5, 4.5, 1.6069380e+30, 0, 0, np.inf],
               np.float32))
  assert float(xjax.grad(lambda v: jnp.ldexp(v, 3))(1.5)) == 8.0
  assert float(xjax.jit(xjax.grad(lambda v: jnp.ldexp(v, 2) ** 2))(1.5)) == 48.0
  with pytest.raises(ValueError, match="ldexp not supported for input types"):
    jnp.ldexp(1.0 + 1j, 2)
  with pytest.raises(ValueError, match="ldexp not supported for input types"):
    jnp.ldexp(1.0, 2.0)
  assert int(jnp.frexp(np.float32(1e-40))[1]) == -149


def test_operand_errors_read_as_jax():
  """JAX 0.10.2's texts: bitwise ufuncs and shifts leave the dtype check to lax's
  primitives, negating booleans names neg, matmul names the scalar operand, and __index__
  of a non-integer or non-scalar array says what it takes."""
  cases = [
      (lambda: jnp.bitwise_and(np.ones(2, np.float32), 1), "and does not accept dtype "
       "float32 at position 0. Accepted dtypes at position 0 are subtypes of integer, bool."),
      (lambda: jnp.left_shift(np.ones(2, np.float32), 1), "shift_left does not accept dtype "
       "float32 at position 0. Accepted dtypes at position 0 are subtypes of integer."),
      (lambda: -jnp.ones(2, bool), "neg does not accept dtype bool. Accepted dtypes are "
       "subtypes of integer, floating, complexfloating."),
      (lambda: range(10)[jnp.float32(1.0)],
       "Only integer scalar arrays can be converted to a scalar index."),
      (lambda: range(10)[jnp.arange(2)],
       "Only integer scalar arrays can be converted to a scalar index."),
  ]
  for f, message in cases:
    with pytest.raises(TypeError) as info:
      f()
    assert str(info.value).startswith(message), info.value
  with pytest.raises(ValueError, match="matmul input operand 0 must have ndim at least 1, "
                                       "but it has ndim 0"):
    jnp.matmul(2.0, jnp.ones(3))
  np.testing.assert_array_equal(jnp.left_shift(np.array([True, False]), 1), [2, 0])


def test_sinc_derivatives_at_zero_are_its_maclaurin_terms():
  """sinc(x) = 1 - (pi x)^2/6 + (pi x)^4/120 - ...: at 0 the even derivatives are
  -pi^2/3, pi^4/5 (JAX 0.10.2's numbers; the value there used to be a constant, so every
  derivative was 0), the odd ones 0; away from 0 the quotient's."""
  import xjax
  d2 = xjax.grad(xjax.grad(jnp.sinc))
  np.testing.assert_allclose(d2(0.0), -np.pi ** 2 / 3, rtol=1e-6)
  np.testing.assert_allclose(xjax.grad(xjax.grad(d2))(0.0), np.pi ** 4 / 5, rtol=1e-5)
  assert xjax.grad(jnp.sinc)(0.0) == 0 and xjax.grad(d2)(0.0) == 0
  np.testing.assert_allclose(xjax.vmap(d2)(jnp.array([0.0, 0.5])), [-3.2898684, -1.190227],
                             rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(xjax.hessian(jnp.sinc))(0.0), -np.pi ** 2 / 3, rtol=1e-6)
  assert jnp.sinc(2.5).weak_type and jnp.sinc(0.0) == 1


def test_ufunc_methods_compute_as_jax():
  """JAX 0.10.2's bits: logaddexp.reduce is its own logsumexp; a frompyfunc's call and
  methods are compiled programs (a fori_loop or scan) rather than op-by-op folds."""
  x = jnp.array([0.3, -1.2, 2.5, 0.7, -0.1, 1.9], jnp.float32)
  bits = lambda v: np.asarray(v).view(np.uint32).tolist()
  assert bits(jnp.logaddexp.reduce(x)) == 1078583561
  import xjax
  assert bits(xjax.grad(lambda a: jnp.logaddexp.reduce(a))(x)) == [
      1030481482, 1012042644, 1057296371, 1034941917, 1025384660, 1049759074]
  f = jnp.frompyfunc(lambda a, c: a * c + 1, 2, 1)
  assert bits(f.reduce(x)) == 1075269389
  assert bits(f(x, x[::-1])) == [1070134723, 1066359849, 1076887552, 1076887552, 1066359849,
                                 1070134723]
  assert bits(f.accumulate(x)) == [1050253722, 1059313418, 1076258406, 1077181153, 1060622041,
                                   1075269389]
  np.testing.assert_array_equal(jnp.bitwise_xor.reduce(
      jnp.arange(6).reshape(2, 3), axis=1, where=jnp.array([True, False, True])), [2, 6])
  assert bool(jnp.logical_xor.reduce(jnp.array([True, False, True, True])))


# (error class, first line) recorded from JAX 0.10.2 for complex operands where the ufunc
# is not defined, and a boolean sign
_COMPLEX = jnp.ones(3, jnp.complex64)
_REFUSED = {
    "signbit": (lambda: jnp.signbit(_COMPLEX), ValueError,
                "jax.numpy.signbit is not well defined for complex64"),
    "isposinf": (lambda: jnp.isposinf(_COMPLEX), ValueError,
                 "isposinf/isneginf are not well defined for complex types"),
    "isneginf": (lambda: jnp.isneginf(_COMPLEX), ValueError,
                 "isposinf/isneginf are not well defined for complex types"),
    "remainder": (lambda: jnp.remainder(_COMPLEX, _COMPLEX), TypeError,
                  "rem does not accept dtype complex64 at position 0. Accepted dtypes at "
                  "position 0 are subtypes of integer, floating."),
    "divmod": (lambda: jnp.divmod(1.0, _COMPLEX), TypeError,
               "rem does not accept dtype complex64 at position 0. Accepted dtypes at "
               "position 0 are subtypes of integer, floating."),
    "operator %": (lambda: _COMPLEX % _COMPLEX, TypeError,
                   "rem does not accept dtype complex64 at position 0. Accepted dtypes at "
                   "position 0 are subtypes of integer, floating."),
    "sign bool": (lambda: jnp.sign(jnp.array([True])), TypeError,
                  "sign does not accept dtype bool. Accepted dtypes are subtypes of integer, "
                  "floating, complexfloating."),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
def test_refused_operands_raise_jax_errors(name):
  call, error, first_line = _REFUSED[name]
  with pytest.raises(error) as info:
    call()
  assert str(info.value).split("\n")[0] == first_line


def test_log10_multiplies_by_jaxs_constant_under_x64():
  """JAX 0.10.2 multiplies by 0.4342944819032518 (one ulp above float64's 1 / log(10)):
  log10(1000.) is 3.0 exactly, and geomspace(1, 1000, 4) ends at 1000.0 (values from it)."""
  with xjax.enable_x64(True):
    assert float(jnp.log10(np.float64(1000.0))) == 3.0
    np.testing.assert_array_equal(
        np.asarray(jnp.geomspace(1, 1000, 4)),
        np.frombuffer(bytes.fromhex("000000000000f03ffdffffffffff2340f9ffffffffff5840"
                                    "0000000000408f40"), np.float64))
