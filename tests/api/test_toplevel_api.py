"""Top-level names of `jax` added for issue 19: config states as context managers,
custom_gradient, fwd_and_bwd, ensure_compile_time_eval, named_scope, typeof, process
queries — checked against the reference's behaviour."""
import re

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax.test_util import check_grads


def test_config_states_as_context_managers():
  assert xjax.enable_x64.value is False and xjax.config.x64_enabled is False
  with xjax.enable_x64(True):
    assert xjax.enable_x64.value is True
    assert xjax.config.x64_enabled is True  # (the older name gymnax's tests read)
    assert jnp.ones(1).dtype == np.float64
  assert jnp.ones(1).dtype == np.float32
  with xjax.numpy_rank_promotion("raise"):
    with pytest.raises(ValueError, match=re.escape(
        "Operands could not be broadcast together for add on shapes (3,) (2, 3) and with the "
        "config option jax_numpy_rank_promotion='raise'. For more information, see "
        "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")):
      jnp.ones(3) + jnp.ones((2, 3))
  with xjax.numpy_rank_promotion("warn"):
    with pytest.warns(UserWarning, match=re.escape(
        "Following NumPy automatic rank promotion for add on shapes (3,) (2, 3). Set the "
        "jax_numpy_rank_promotion config option to 'allow'")):
      jnp.ones(3) + jnp.ones((2, 3))
  with xjax.debug_nans(True):
    with pytest.raises(FloatingPointError):
      xjax.jit(jnp.log)(-1.)
  assert xjax.debug_nans.value is False
  with xjax.transfer_guard("allow"):
    assert xjax.transfer_guard_host_to_device.value == "allow"
  assert xjax.transfer_guard_host_to_device.value is None
  with xjax.checking_leaks():
    assert xjax.check_tracer_leaks.value is True
  for name in ("log_compiles", "explain_cache_misses", "softmax_custom_jvp",
               "default_matmul_precision", "numpy_dtype_promotion", "debug_infs"):
    assert hasattr(getattr(xjax, name), "value")


def test_each_config_state_says_what_its_flag_does():
  """``help(jax.enable_x64)`` (and the API reference) describe the flag, not the class."""
  from xjax._src.foundations import config_states
  for name, state in config_states.STATES.items():
    assert getattr(xjax, name) is state is getattr(config_states, name)
    assert state.__doc__ and state.__doc__ != type(state).__doc__, name
  assert "64-bit" in xjax.enable_x64.__doc__


def test_custom_gradient():
  @xjax.custom_gradient
  def clipped_sin(x):
    return jnp.sin(x), lambda g: (jnp.clip(g * jnp.cos(x), -0.5, 0.5),)
  np.testing.assert_allclose(clipped_sin(1.), np.sin(1.))
  np.testing.assert_allclose(xjax.grad(clipped_sin)(1.), 0.5)
  np.testing.assert_allclose(xjax.grad(clipped_sin)(2.), np.cos(2.), rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(xjax.grad(clipped_sin))(2.), np.cos(2.), rtol=1e-6)
  np.testing.assert_allclose(xjax.vmap(xjax.grad(clipped_sin))(jnp.array([1., 2.])),
                             [0.5, np.cos(2.)], rtol=1e-6)

  @xjax.custom_gradient
  def two_args(x, y):
    return x * y, lambda g: (g * y, g * x)
  check_grads(two_args, (jnp.float32(1.5), jnp.float32(-2.)), order=1, modes=("rev",),
              atol=1e-3, rtol=1e-3)
  # Python numbers in, the rule's Python number out (as JAX's; its check_grads then fails
  # on the float, as it does on JAX)
  y = xjax.vjp(two_args, 1.5, -2.)[0]
  assert type(y) is float and y == -3.0


def test_fwd_and_bwd():
  x = W = ct = jnp.ones((4, 4))
  fwd, bwd = xjax.fwd_and_bwd(lambda x, W: x @ W, argnums=(0, 1))
  y, res = fwd(x, 2 * W)
  np.testing.assert_allclose(y, 8 * np.ones((4, 4)))
  cx, cW = bwd(res, ct)
  np.testing.assert_allclose(cx, 8 * np.ones((4, 4)))
  np.testing.assert_allclose(cW, 4 * np.ones((4, 4)))
  fwd, bwd = xjax.fwd_and_bwd(lambda x: (jnp.sin(x), "aux"), argnums=0, has_aux=True,
                              jitted=False)
  y, res, aux = fwd(1.)
  assert aux == "aux"
  np.testing.assert_allclose(bwd(res, 1.), np.cos(1.), rtol=1e-6)


def test_ensure_compile_time_eval():
  seen = []

  @xjax.jit
  def f(x):
    with xjax.ensure_compile_time_eval():
      y = jnp.sin(3.)
      seen.append(type(y))
      z = x + 1            # traced inputs are still staged
    return z + y
  np.testing.assert_allclose(f(1.), 2 + np.sin(3.), rtol=1e-6)
  assert seen[0] is type(jnp.ones(1))
  assert int(xjax.jit(lambda: _static_len())()) == 3


def _static_len():
  with xjax.ensure_compile_time_eval():
    n = int(jnp.sum(jnp.ones(3)))       # concrete: a Python int under jit
  return jnp.asarray(n)


def test_named_scope_typeof_and_process_queries():
  with xjax.named_scope("layer1"):
    assert "mul" in str(xjax.make_jaxpr(lambda x: x * 2)(1.))
  with pytest.raises(TypeError, match="must be a string"):
    with xjax.named_scope(3):
      pass
  t = xjax.typeof(jnp.ones((2, 3)))
  assert t.shape == (2, 3) and t.dtype == np.float32
  assert xjax.typeof(1.0).weak_type
  assert xjax.host_count() == 1 and xjax.host_id() == 0
  assert xjax.process_indices() == [0] and xjax.host_ids() == [0]
  assert isinstance(xjax.devices()[0], xjax.Device)
  xjax.effects_barrier()
  info = xjax.print_environment_info(return_string=True)
  assert "jaxlib" in info and "process_count: 1" in info


def test_devices_take_jax_keywords():
  assert xjax.local_devices(backend="cpu") == xjax.devices(backend="cpu")
  assert xjax.local_devices(process_index=0) == xjax.local_devices()
  with pytest.raises(ValueError, match="process_index"):
    xjax.local_devices(process_index=1)


def test_stages_custom_derivatives_and_dlpack_modules():
  import xjax.custom_derivatives as cd
  import xjax.dlpack
  import xjax.stages
  assert isinstance(xjax.jit(lambda x: x), xjax.stages.Wrapped)
  assert not isinstance(lambda x: x, xjax.stages.Wrapped)  # as JAX: no trace/lower
  info = xjax.stages.ArgInfo(xjax.ShapeDtypeStruct((2,), np.float32), donated=False)
  assert (info.shape, info.dtype, info.donated) == ((2,), np.float32, False)
  zeros = cd.zero_from_primal({"f": jnp.ones(2), "i": jnp.ones(3, np.int32)})
  np.testing.assert_array_equal(zeros["f"], np.zeros(2, np.float32))
  assert zeros["i"].dtype == xjax.dtypes.float0 and zeros["i"].shape == (3,)
  symbolic = cd.zero_from_primal({"f": jnp.ones(2), "i": jnp.ones(3, np.int32)},
                                 symbolic_zeros=True)
  assert repr(symbolic["f"]) == "SymbolicZero" and symbolic["f"].shape == (2,)
  assert symbolic["i"].dtype == xjax.dtypes.float0
  assert cd.custom_jvp is xjax.custom_jvp and cd.custom_vjp is xjax.custom_vjp
  assert all(xjax.dlpack.is_supported_dtype(t) for t in (np.bool_, np.uint64, jnp.bfloat16))
  np.testing.assert_array_equal(xjax.dlpack.from_dlpack(np.arange(3)), [0, 1, 2])


# -- ShapeDtypeStruct's format, update, is_ref and manual_axis_type (as JAX 0.10.2) -------
def test_shape_dtype_struct_format_and_like():
  from xjax.experimental.layout import Format, Layout
  x = xjax.device_put(jnp.ones(3), xjax.devices()[0])
  s = xjax.ShapeDtypeStruct.like(x)
  dev = "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
  layout = "Layout(major_to_minor=(0,), tiling=(), sub_byte_element_size_in_bits=0)"
  assert repr(s) == f"ShapeDtypeStruct(shape=(3,), dtype=float32, sharding={dev}, format={layout})"
  assert s.format == x.format and s.sharding == x.sharding
  uncommitted = xjax.ShapeDtypeStruct.like(jnp.ones(3))
  assert repr(uncommitted) == "ShapeDtypeStruct(shape=(3,), dtype=float32)"
  plain = xjax.ShapeDtypeStruct((3,), jnp.float32)
  assert (plain.format.layout, plain.format.sharding, plain.is_ref, plain.manual_axis_type) == (
      None, None, False, None)
  f = xjax.ShapeDtypeStruct((3,), jnp.float32, sharding=Format(Layout((0,)), x.sharding))
  assert f.sharding == x.sharding and f.format.layout == Layout((0,))
  assert hash(s) == hash(xjax.ShapeDtypeStruct.like(x)) and s != plain
  with pytest.raises(ValueError, match="sharding should be an instance of"):
    xjax.ShapeDtypeStruct((3,), jnp.float32, sharding=1)
  with pytest.raises(TypeError, match="should be of type `jax.sharding.ManualAxisType`"):
    xjax.ShapeDtypeStruct((3,), jnp.float32, manual_axis_type=1)
  with pytest.raises(NotImplementedError):
    xjax.ShapeDtypeStruct.like(xjax.new_ref(jnp.ones(2)))
  np.testing.assert_array_equal(xjax.jit(lambda a: a + 1).lower(s).compile()(x), [2., 2., 2.])


def test_shape_dtype_struct_update():
  x = xjax.device_put(jnp.ones(3), xjax.devices()[0])
  s = xjax.ShapeDtypeStruct.like(x)
  assert s.update(shape=(4,)).shape == (4,) and s.update(shape=(4,)).format == s.format
  with pytest.raises(ValueError, match="layout"):
    s.update(sharding=x.sharding)       # would drop the layout
  plain = xjax.ShapeDtypeStruct((2, 3), jnp.float32)
  assert repr(plain.update(weak_type=True)) == (
      "ShapeDtypeStruct(shape=(2, 3), dtype=float32, weak_type=True)")
  assert plain.update(dtype=jnp.int32).dtype == np.int32
  assert plain.update(foo=1) == plain   # (unknown names are ignored, as in JAX)


def test_shape_dtype_struct_is_ref():
  r = xjax.ShapeDtypeStruct((3,), jnp.float32, is_ref=True)
  assert repr(r) == "ShapeDtypeStruct(shape=(3,), dtype=float32, is_ref=True)"
  assert r != xjax.ShapeDtypeStruct((3,), jnp.float32) and not r.update(is_ref=False).is_ref
  assert str(xjax.make_jaxpr(lambda ref: ref[...] * 2)(r)) == (
      "{ lambda ; a:Ref{f32[3]}. let\n    b:f32[3] <- a[...]\n    c:f32[3] = mul b 2.0:f32[]\n"
      "  in (c,) }")
  assert repr(xjax.eval_shape(lambda ref: ref[...] + 1, r)) == (
      "ShapeDtypeStruct(shape=(3,), dtype=float32)")


def test_compile_time_eval_folds_constants_inside_called_jits():
  """ensure_compile_time_eval turns on eager_constant_folding (as JAX): operations on
  concrete values run at once even inside a jitted function it calls, so the jaxpr holds the
  folded constant and jax_debug_infs sees the masked division by zero (JAX 0.10.2 raises
  "invalid value (inf) encountered in div" there; e3nn-jax's tests rely on it)."""
  def g(x):
    with xjax.ensure_compile_time_eval():
      c = xjax.jit(lambda: jnp.sin(jnp.arange(3.)))()
    return x + c
  text = str(xjax.make_jaxpr(g)(jnp.ones(3)))
  assert text == "{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = add b a in (c,) }"

  @xjax.jit
  def masked(n):
    a = jnp.arange(3.)
    return jnp.where(a > 0, 1 / a, 0.) * n

  def h(x):
    with xjax.ensure_compile_time_eval():
      return x * masked(1.)
  with xjax.debug_infs(True):
    np.testing.assert_array_equal(xjax.jit(lambda x: x * masked(1.))(2.), [0., 2., 1.])
    with pytest.raises(FloatingPointError, match=r"invalid value \(inf\) encountered in div"):
      xjax.jit(h)(2.)
  assert not xjax.config.eager_constant_folding


class _DuckArray:
  """No JAX type, but a shape and a dtype: JAX abstractifies it where it traces only."""
  dtype = np.dtype("float32")
  shape = (2,)


def test_tracing_takes_abstract_values_and_objects_with_a_dtype():
  """make_jaxpr, AOT trace/lower and eval_shape take ShapedArrays and duck-typed arrays (as
  JAX's shaped_abstractify); calling a jitted function on them is a TypeError (JAX 0.10.2)."""
  f = lambda a: a + 1  # noqa: E731
  text = "{ lambda ; a:f32[2]. let b:f32[2] = add a 1.0:f32[] in (b,) }"
  for arg in (xjax.core.ShapedArray((2,), np.float32), _DuckArray(),
              xjax.ShapeDtypeStruct((2,), np.float32)):
    assert str(xjax.make_jaxpr(f)(arg)) == text
    assert str(xjax.jit(f).trace(arg).jaxpr) == text
    assert xjax.jit(f).eval_shape(arg) == xjax.ShapeDtypeStruct((2,), np.float32)
    compiled = xjax.jit(f).lower(arg).compile()
    np.testing.assert_array_equal(np.asarray(compiled(jnp.ones(2, np.float32))), [2.0, 2.0])
  weak = xjax.core.ShapedArray((), np.float32, weak_type=True)
  assert xjax.eval_shape(f, weak).weak_type
  for arg in (xjax.core.ShapedArray((2,), np.float32), _DuckArray()):
    with pytest.raises(TypeError):
      xjax.jit(f)(arg)
  assert len(xjax.ShapeDtypeStruct((4, 2), np.float32)) == 4
  with pytest.raises(TypeError, match=r"len\(\) of unsized object"):
    len(xjax.ShapeDtypeStruct((), np.float32))


def test_module_names_drop_trailing_underscores():
  """JAX 0.10.2's module names: ``jit__lambda``, ``jit_f`` for ``f_``."""
  def f_(a):
    return a
  assert xjax.jit(lambda a: a).lower(1.0).as_text().startswith("module @jit__lambda attributes")
  assert xjax.jit(f_).lower(1.0).as_text().startswith("module @jit_f attributes")


def test_a_shape_dtype_struct_is_no_value():
  """Where a ShapeDtypeStruct would be computed on, JAX 0.10.2 raises a TypeError saying its
  type is not a valid JAX type."""
  s = xjax.ShapeDtypeStruct((2,), np.float32)
  for f in (xjax.device_put, jnp.sin, xjax.vmap(lambda a: a * 2), xjax.jit(lambda a: a)):
    with pytest.raises(TypeError, match="is not a valid JAX type"):
      f(s)
