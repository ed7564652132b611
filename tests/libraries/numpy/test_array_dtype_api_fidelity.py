"""Array, dtype and pytree API behaviour found by the differential sweep
``tools/expressions/pytrees_dtypes_api.txt``; expected values and messages are the reference
JAX 0.10.2's."""
import warnings

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import tree_util


def _f32(x):
  return x.astype(jnp.float32).tolist()


def test_float4_arrays_compute_as_jax():
  a = jnp.array([1., 2., 0.5, 6., -3.], jnp.float4_e2m1fn)
  b = jnp.array([0.5, 1, 1.5, 2, 3], jnp.float4_e2m1fn)
  assert jnp.zeros(3, jnp.float4_e2m1fn).dtype == jnp.float4_e2m1fn
  assert _f32(a + b) == [1.5, 3.0, 2.0, 6.0, 0.0]       # 8 saturates to 6, -3 + 3 = 0
  assert _f32(a * b) == [0.5, 2.0, 1.0, 6.0, -6.0]
  assert _f32(xjax.jit(lambda x: x + b)(a)) == [1.5, 3.0, 2.0, 6.0, 0.0]
  assert _f32(xjax.vmap(lambda x: -x)(a)) == [-1.0, -2.0, -0.5, -6.0, 3.0]
  assert _f32(jnp.arange(-8., 8., 0.75).astype(jnp.float4_e2m1fn)) == [
      -6.0, -6.0, -6.0, -6.0, -4.0, -4.0, -4.0, -3.0, -2.0, -1.0, -0.5, 0.0, 1.0, 2.0, 2.0,
      3.0, 4.0, 4.0, 6.0, 6.0, 6.0, 6.0]


@pytest.mark.parametrize("values", [[np.uint8(1), 300], [np.int8(1), 200], [1, 2**40]])
def test_array_from_list_out_of_range_is_an_overflow_error(values):
  with pytest.raises(OverflowError, match="out of bounds"):
    jnp.array(values)


@pytest.mark.parametrize("values", [[1, None], [[1., None]]])
def test_array_from_list_with_none_is_a_value_error(values):
  with pytest.raises(ValueError, match="None is not a valid value for jnp.array"):
    jnp.array(values)


def test_array_from_mixed_list_keeps_jax_dtypes():
  assert jnp.array([np.float32(1), 2.5]).dtype == jnp.float32
  assert jnp.array([np.int64(1), 2]).dtype == jnp.int32
  assert jnp.array([1j, np.float32(2)]).dtype == jnp.complex64
  np.testing.assert_array_equal(jnp.array([np.array([1, 2]), [3, 4.]]), [[1, 2], [3, 4]])


def test_astype_copy_device_and_default_dtype():
  x = jnp.arange(3.)
  assert x.astype(jnp.float32, copy=False) is x
  y = x.astype(jnp.float32, copy=True)
  assert y is not x and y.tolist() == x.tolist()
  w = jnp.float32(1)
  assert jnp.astype(w, jnp.float32, copy=True) is not w
  assert jnp.astype(jnp.arange(3), None).dtype == jnp.float32    # the default float type
  dev = xjax.devices()[0]
  assert x.astype(jnp.int32, device=dev).sharding == xjax.sharding.SingleDeviceSharding(dev)
  assert xjax.jit(lambda v: v.astype(int, copy=True))(x).tolist() == [0, 1, 2]


def test_astype_complex_to_real_warns_and_to_bool_tests_nonzero():
  z = jnp.array([1 + 2j, 0, 0.5j])
  with pytest.warns(DeprecationWarning, match="Casting from complex to real"):
    assert z.astype(jnp.float32).tolist() == [1.0, 0.0, 0.0]
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    assert z.astype(bool).tolist() == [True, False, True]


def test_contains():
  x = jnp.arange(3.)
  assert 1. in x and np.float32(2) in x and jnp.int32(5) not in x
  with pytest.raises(TypeError, match="unsupported operand type <class 'str'>"):
    "a" in x
  with pytest.raises(TypeError, match="unsupported operand type <class 'NoneType'>"):
    None in x
  with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
    [1] in x
  with pytest.raises(ValueError, match=r"one-dimensional, got arr.shape=\(\)"):
    1. in jnp.asarray(1.)
  with pytest.raises(ValueError, match=r"query value must be a scalar, got query.shape=\(2,\)"):
    jnp.ones(2) in x
  with pytest.raises(xjax.errors.TracerBoolConversionError):
    xjax.jit(lambda v: 1. in v)(x)
  assert bool(xjax.jit(lambda v: v.__contains__(1.))(x))


def test_flat_is_not_implemented():
  with pytest.raises(NotImplementedError, match="consider arr.flatten"):
    jnp.arange(3).flat


def test_device_get():
  got = xjax.device_get({"a": np.float32(1), "b": 1.0, "c": jnp.float32(2), "d": "s"})
  assert type(got["a"]) is np.ndarray and got["a"].shape == ()
  assert type(got["b"]) is float and type(got["c"]) is np.ndarray and got["d"] == "s"
  key = xjax.random.key(0)
  assert xjax.device_get(key) is key                       # key arrays stay as they are
  assert xjax.jit(lambda v: xjax.device_get(v) * 2)(1.) == 2.   # tracers too


def test_config_read_unknown_is_an_attribute_error():
  assert xjax.config.read("jax_enable_x64") is False
  with pytest.raises(AttributeError, match="Unrecognized config option: jax_no_such_flag"):
    xjax.config.read("jax_no_such_flag")
  # (as JAX 0.10.2: options with a context manager are read as attributes instead)
  with pytest.raises(AttributeError, match="For flags with a corresponding contextmanager, "
                     "read their value via e.g. `config.jax_disable_jit` rather than "
                     "`config.FLAGS.jax_disable_jit`."):
    xjax.config.read("jax_disable_jit")
  assert xjax.config.jax_disable_jit is False and xjax.config.read("jax_platform_name") == ""


@pytest.mark.parametrize("kind, expected", [
    ("float32", True), ("f4", True), (np.float32, True), (jnp.float32, True), (float, False),
    (None, False), ((np.int8, "real floating"), True), (jnp.float32(1), True),
    (jnp.dtype, False)])
def test_isdtype_kinds(kind, expected):
  assert jnp.isdtype(jnp.float32, kind) is expected


@pytest.mark.parametrize("kind", [jnp.floating, np.number, jnp.generic, 1, [np.float32],
                                  xjax.dtypes.extended, xjax.dtypes.prng_key])
def test_isdtype_rejects_what_names_no_dtype(kind):
  with pytest.raises(TypeError, match="Expected kind to be a dtype, string, or tuple; got kind="):
    jnp.isdtype(jnp.float32, kind)


def test_isdtype_unknown_kind_name():
  with pytest.raises(ValueError, match="Unrecognized kind='foo' expected one of"):
    jnp.isdtype(jnp.float32, "foo")


@pytest.mark.parametrize("a, b, message", [
    ("int4", "int8", "Input dtypes ('int4', 'int8') have no available implicit dtype promotion "
     "path. To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do not support"),
    ("float16", "float8_e4m3fn", "Input dtypes ('float16', 'float8_e4m3fn') have no available "
     "implicit dtype promotion path. To avoid unintended promotion, 8-bit floats"),
    ("float4_e2m1fn", "float32", "Input dtypes ('float4_e2m1fn', 'float32') have no available "
     "implicit dtype promotion path. To avoid unintended promotion, 4-bit floats")])
def test_promotion_errors_name_the_arguments_in_order(a, b, message):
  with pytest.raises(xjax.dtypes.TypePromotionError) as info:
    jnp.promote_types(a, b)
  assert str(info.value).startswith(message)


def test_strict_promotion_message():
  with xjax.numpy_dtype_promotion("strict"):
    with pytest.raises(xjax.dtypes.TypePromotionError,
                       match=r"\('int8', 'float32'\) have no available implicit dtype promotion "
                             "path when jax_numpy_dtype_promotion=strict"):
      jnp.promote_types("int8", "float32")


def test_key_dtypes_in_dtype_functions():
  kdt = xjax.random.key(0).dtype
  with pytest.raises(ValueError, match="canonicalize_dtype called on extended dtype key<fry>"):
    xjax.dtypes.canonicalize_dtype(kdt)
  assert xjax.dtypes.canonicalize_dtype(kdt, allow_extended_dtype=True) == kdt
  with pytest.raises(TypeError, match="Cannot interpret 'key<fry>' as a data type"):
    jnp.promote_types(kdt, jnp.uint32)


def test_flatten_one_level_returns_tuples():
  tree = {"b": 1, "a": [2]}
  assert tree_util.flatten_one_level(tree) == (([2], 1), ("a", "b"))
  pairs, aux = tree_util.flatten_one_level_with_keys(tree)
  assert pairs == ((tree_util.DictKey("a"), [2]), (tree_util.DictKey("b"), 1))
  assert aux == ("a", "b")
  with pytest.raises(ValueError, match="can't tree-flatten type"):
    tree_util.flatten_one_level(1)
  assert tree_util.default_registry.flatten_one_level(1) is None


@pytest.mark.parametrize("value, spec, expected", [
    (jnp.bfloat16(3.140625), "", "3.140625"), (jnp.bfloat16(3.140625), ".3f", "3.141"),
    (jnp.array(0.1, jnp.bfloat16), "", "0.10009765625"),
    (jnp.float8_e4m3fn(0.3), "e", "3.125000e-01"), (jnp.array(3, jnp.int4), ">6", "     3"),
    (jnp.array(-1.5, jnp.float4_e2m1fn), ".3f", "-1.500")])
def test_format_of_narrow_scalars_is_the_python_numbers(value, spec, expected):
  assert format(value, spec) == expected



def test_enum_flags_hold_enum_members():
  value = xjax.config.jax_numpy_dtype_promotion
  assert repr(value) == "<NumpyDtypePromotion.STANDARD: 'standard'>" and value == "standard"
  with xjax.numpy_dtype_promotion("strict"):
    assert repr(xjax.config.jax_numpy_dtype_promotion) == "<NumpyDtypePromotion.STRICT: 'strict'>"
  assert repr(xjax.config.jax_legacy_prng_key) == "<LegacyPrngKeyState.ALLOW: 'allow'>"
  with pytest.raises(ValueError, match="'bad' is not a valid NumpyDtypePromotion"):
    xjax.config.update("jax_numpy_dtype_promotion", "bad")
  with pytest.raises(TypeError, match="must be an instance of <enum 'NumpyDtypePromotion'>"):
    xjax.config.update("jax_numpy_dtype_promotion", 3)
  assert xjax.config.jax_numpy_dtype_promotion == "standard"
