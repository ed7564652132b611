"""Host callbacks: pure_callback, io_callback, debug.callback / debug.print, and the
jaxlib facts they rely on.  Expected values come from NumPy and from JAX 0.10.2."""
import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import lax
from xjax.experimental import io_callback
from xjax._src.backend import buffers, clients, executables
from xjax._src.core.avals import ShapedArray


def sds(x):
  return xjax.ShapeDtypeStruct(np.shape(x), jnp.result_type(x))


# ---------------------------------------------------------------------------------------
# Facts about jaxlib 0.10.2 that the runtime relies on

def test_jaxlib_host_callback_target_facts():
  """The FFI target ``xla_ffi_python_cpu_callback`` is registered statically; the custom
  call's ``backend_config = {index = i}`` picks ``host_callbacks[i]``, which receives NumPy
  arrays (None for a token operand) and returns a tuple with one value per result."""
  assert executables.HOST_CALLBACK_TARGET == "xla_ffi_python_cpu_callback"
  seen = []

  def cb0(token, x):
    seen.append(("cb0", token, type(x), x.dtype, x.shape))
    return (token, x * 2)

  def cb1(x):
    seen.append(("cb1", type(x)))
    return ()

  text = """module @m {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
    %t = "stablehlo.after_all"() : () -> !stablehlo.token
    %r:2 = "stablehlo.custom_call"(%t, %arg0) {call_target_name = "xla_ffi_python_cpu_callback", api_version = 4 : i32, has_side_effect = true, backend_config = {index = 0 : ui64}} : (!stablehlo.token, tensor<3xf32>) -> (!stablehlo.token, tensor<3xf32>)
    "stablehlo.custom_call"(%r#0, %arg0) {call_target_name = "xla_ffi_python_cpu_callback", api_version = 4 : i32, has_side_effect = true, backend_config = {index = 1 : ui64}} : (!stablehlo.token, tensor<3xf32>) -> (!stablehlo.token)
    func.return %r#1 : tensor<3xf32>
  }
}"""
  device = clients.default_device()
  exe = executables.compile(text, device, "m", [ShapedArray((3,), np.float32)],
                        [cb0, lambda tok, x: (tok, *cb1(x))])
  out = exe.run([buffers.put(np.arange(3, dtype=np.float32), device)])
  np.testing.assert_array_equal(np.asarray(out[0]), [0., 2., 4.])
  assert seen[0] == ("cb0", None, np.ndarray, np.float32, (3,))
  assert seen[1] == ("cb1", np.ndarray)  # the token chain orders the two calls


def test_host_callback_needs_a_parsed_module():
  """jaxlib takes host_callbacks only with an MLIR module object, not text: the runtime
  parses the text first (only for modules with callbacks)."""
  from jaxlib import xla_client as xc
  device = clients.default_device()
  text = 'module @m { func.func public @main() -> () { func.return } }'
  with pytest.raises(TypeError):
    device.client.compile_and_load(text, xc.DeviceList((device,)), xc.CompileOptions(),
                                   host_callbacks=[lambda: ()])


# ---------------------------------------------------------------------------------------
# pure_callback

def test_pure_callback_eager_jit_values():
  x = jnp.arange(4.0)
  f = lambda x: xjax.pure_callback(np.sin, sds(x), x)
  np.testing.assert_allclose(f(x), np.sin(np.arange(4.0)), rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(f)(x), np.sin(np.arange(4.0)), rtol=1e-6)


def test_pure_callback_receives_arrays_and_pytrees():
  seen = []

  def cb(d, scale):
    seen.append((type(d["a"]).__name__, type(scale).__name__))
    return {"s": np.asarray(d["a"]) * scale, "n": np.int32(d["a"].shape[0])}

  out_shape = {"s": xjax.ShapeDtypeStruct((3,), jnp.float32),
               "n": xjax.ShapeDtypeStruct((), jnp.int32)}
  out = xjax.jit(lambda a: xjax.pure_callback(cb, out_shape, {"a": a}, 2.0))(jnp.ones(3))
  np.testing.assert_array_equal(out["s"], [2., 2., 2.])
  assert int(out["n"]) == 3
  name = type(jnp.ones(1)).__name__  # ("ArrayImpl" once xjax stands in for jax)
  assert seen == [(name, name)]


def test_pure_callback_float64_results_are_canonicalized():
  # as JAX: with x64 off, a float64 result is accepted as float32
  out = xjax.jit(lambda x: xjax.pure_callback(
      lambda a: np.asarray(a, np.float64) + 1, sds(x), x))(jnp.ones(2))
  assert out.dtype == np.float32
  np.testing.assert_array_equal(out, [2., 2.])


def test_grad_of_pure_callback_raises_jax_error():
  f = lambda x: xjax.pure_callback(np.sin, sds(x), x)
  with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
    xjax.grad(f)(1.0)


def test_faq_pure_callback_with_custom_jvp_under_grad():
  @xjax.custom_jvp
  def f(x):
    return xjax.pure_callback(np.sin, sds(x), x, vmap_method="sequential")

  @f.defjvp
  def f_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return f(x), xjax.pure_callback(np.cos, sds(x), x, vmap_method="sequential") * t

  np.testing.assert_allclose(xjax.grad(f)(0.5), np.cos(0.5), rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(xjax.grad(f))(0.5), np.cos(0.5), rtol=1e-6)
  xs = jnp.linspace(0., 1., 4)
  np.testing.assert_allclose(xjax.vmap(xjax.grad(f))(xs), np.cos(np.asarray(xs)), rtol=1e-6)


def test_pure_callback_vmap_without_method_raises():
  f = lambda x: xjax.pure_callback(np.sin, sds(x), x)
  with pytest.raises(NotImplementedError, match="vmap_method"):
    xjax.vmap(f)(jnp.ones(3))
  with pytest.raises(ValueError, match="vmap_method"):
    xjax.pure_callback(np.sin, sds(1.0), 1.0, vmap_method="bogus")


@pytest.mark.parametrize("method,calls,shapes", [
    ("sequential", 4, [((), (3,))] * 4),
    ("expand_dims", 1, [((4,), (1, 3))]),
    ("broadcast_all", 1, [((4,), (4, 3))]),
    ("legacy_vectorized", 1, [((4,), (3,))]),
])
def test_pure_callback_vmap_methods(method, calls, shapes):
  seen = []

  def cb(x, y):
    seen.append((x.shape, y.shape))
    return (np.asarray(x)[..., None] * np.asarray(y)).sum(-1).astype(np.float32)

  def f(x, y):
    return xjax.pure_callback(cb, xjax.ShapeDtypeStruct((), jnp.float32), x, y,
                              vmap_method=method)

  xs, y = jnp.arange(4.0), jnp.array([1., 2., 3.])
  out = xjax.vmap(f, in_axes=(0, None))(xs, y)
  np.testing.assert_allclose(out, np.arange(4.0) * 6.0)
  assert len(seen) == calls and seen == shapes


# ---------------------------------------------------------------------------------------
# io_callback

def test_unordered_io_callback_with_unused_result_is_not_removed():
  log = []

  def record(x):
    log.append(float(x))
    return np.float32(0)

  @xjax.jit
  def f(x):
    io_callback(record, xjax.ShapeDtypeStruct((), jnp.float32), x)
    return x + 1

  assert float(f(2.0)) == 3.0
  assert log == [2.0]
  assert "has_side_effect = true" in f.lower(2.0).as_text()


def _recorder(log):
  """``rec(tag)``: a callback that logs (tag, value) and returns its argument."""
  def rec(tag):
    def cb(x):
      log.append((tag, float(x)))
      return np.asarray(x)
    return cb
  return rec


def test_io_callback_ordered_in_program_order_and_vmap():
  log = []
  rec = _recorder(log)

  @xjax.jit
  def f(x):
    for i in range(5):
      x = io_callback(rec(i), sds(x), x, ordered=True) + 1
    return x

  assert float(f(0.0)) == 5.0
  assert log == [(i, float(i)) for i in range(5)]
  with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
    xjax.vmap(lambda x: io_callback(rec(0), sds(1.0), x, ordered=True))(jnp.ones(2))
  log.clear()
  out = xjax.vmap(lambda x: io_callback(rec("v"), xjax.ShapeDtypeStruct((), jnp.float32),
                                        x))(jnp.arange(3.0))
  np.testing.assert_array_equal(out, [0., 1., 2.])
  assert log == [("v", 0.), ("v", 1.), ("v", 2.)]


def test_io_callback_is_not_differentiable():
  # JAX's class and message (jax 0.10.2): ValueError for JVP (grad, jvp, vjp, linearize)
  # and for transposition (linear_transpose).
  f = lambda x: io_callback(np.sin, sds(x), x)
  for transform in (xjax.grad(f), xjax.jit(xjax.grad(f)), lambda x: xjax.jvp(f, (x,), (x,)),
                    lambda x: xjax.vjp(f, x)):
    with pytest.raises(ValueError, match=r"^IO callbacks do not support JVP\."):
      transform(1.0)
  with pytest.raises(ValueError, match=r"^IO callbacks do not support transpose\."):
    xjax.linear_transpose(lambda x: io_callback(lambda v: v, sds(x), x), 1.0)(1.0)


# ---------------------------------------------------------------------------------------
# debug.print / debug.callback

def test_debug_print_formats_runtime_values(capsys):
  @xjax.jit
  def f(x, y):
    xjax.debug.print("x={x:.3f} y={y} {}", "s", x=x, y=y)
    return x

  f(jnp.float32(1.5), jnp.arange(3))
  xjax.debug.print("{} and {}", 1, jnp.arange(2))
  assert capsys.readouterr().out == "x=1.500 y=[0 1 2] s\n1 and [0 1]\n"


def test_debug_values_as_jax_passes_them(capsys):
  """Recorded from JAX 0.10.2: eagerly a debug callback gets Arrays (Python scalars weakly
  typed, typed keys as keys); under jit the values' types without weak types, and keys as
  their data; `debug.print` of a key prints the key array."""
  seen = []
  xjax.debug.callback(lambda *a: seen.append([repr(x) for x in a]), 1, jnp.int8(2), 2.5)
  xjax.jit(lambda: xjax.debug.callback(lambda *a: seen.append([repr(x) for x in a]), 1,
                                       jnp.int8(2), 2.5))()
  assert seen == [["Array(1, dtype=int32, weak_type=True)", "Array(2, dtype=int8)",
                   "Array(2.5, dtype=float32, weak_type=True)"],
                  ["Array(1, dtype=int32)", "Array(2, dtype=int8)", "Array(2.5, dtype=float32)"]]
  xjax.debug.print("tree {t}", t={"b": (1, 2.)})
  xjax.debug.print("key {}", xjax.random.key(0))
  xjax.jit(lambda k: xjax.debug.print("jkey {}", k))(xjax.random.key(1))
  assert capsys.readouterr().out == (
      "tree {'b': (Array(1, dtype=int32, weak_type=True), Array(2., dtype=float32, "
      "weak_type=True))}\nkey Array((), dtype=key<fry>) overlaying:\n[0 0]\njkey [0 1]\n")
  assert "{}".format(xjax.random.key(0)) == str(xjax.random.key(0))
  with pytest.raises(TypeError, match="unsupported format string"):
    "{:>5}".format(xjax.random.key(0))


def test_debug_print_format_errors_at_trace_time():
  with pytest.raises(KeyError, match="y"):
    xjax.jit(lambda x: xjax.debug.print("{y}", x=x))(1.0)
  with pytest.raises(ValueError, match="Unused keyword arguments"):
    xjax.debug.print("no fields", x=1.0)


def test_debug_print_under_vmap_grad_and_loops(capsys):
  xjax.vmap(lambda x: xjax.debug.print("v {}", x))(jnp.arange(3))
  g = xjax.grad(lambda x: (xjax.debug.print("g {x:.2f}", x=x), x * x)[1])(3.0)
  assert float(g) == 6.0
  xjax.jit(xjax.grad(lambda x: (xjax.debug.print("jg {}", x), x * x)[1]))(2.0)

  def body(i, c):
    xjax.debug.print("it {}", i)
    return c + 1
  xjax.jit(lambda x: lax.fori_loop(0, 3, body, x))(0)
  xjax.jit(lambda x: lax.cond(x > 0, lambda v: (xjax.debug.print("pos {}", v), v)[1],
                              lambda v: v, x))(1)
  scan_out = lax.scan(lambda c, x: (xjax.debug.print("s {}", x), (c, x))[1], 0, jnp.arange(2))
  assert capsys.readouterr().out.split("\n") == [
      "v 0", "v 1", "v 2", "g 3.00", "jg 2.0", "it 0", "it 1", "it 2", "pos 1", "s 0",
      "s 1", ""]
  del scan_out


def test_debug_callback_program_order_and_nested_jit():
  log = []

  @xjax.jit
  def f(x):
    xjax.debug.callback(lambda v: log.append("first"), x, ordered=True)

    @xjax.jit
    def inner(y):
      xjax.debug.callback(lambda v: log.append("inner"), y, ordered=True)
      return y * 2
    y = inner(x)
    for i in range(10):
      xjax.debug.callback(lambda v, i=i: log.append(i), y)
    xjax.debug.callback(lambda v: log.append("last"), x, ordered=True)
    return y

  f(1.0)
  assert log == ["first", "inner", *range(10), "last"]
  log.clear()
  g = xjax.jit(lambda x: xjax.debug.callback(lambda v: log.append(int(v)), x))
  for i in range(20):
    g(i)
  assert log == list(range(20))


def _effects_in_control_flow(x):
  """debug.print before, inside and after scan, while, cond, switch and fori_loops."""
  xjax.debug.print("before {}", x, ordered=True)

  def body(c, y):
    xjax.debug.print("scan c={} y={}", c, y, ordered=True)
    return c + y, c * y
  c, _ = lax.scan(body, x, jnp.arange(3.0))
  xjax.debug.print("mid {}", c, ordered=True)

  def wb(v):
    xjax.debug.print("while {}", v, ordered=True)
    return v + 1
  v = lax.while_loop(lambda v: v < 2, wb, 0)
  xjax.debug.print("after while {}", v, ordered=True)
  r = lax.cond(x > 0, lambda z: (xjax.debug.print("true {}", z, ordered=True), z + 1)[1],
               lambda z: (xjax.debug.print("false {}", z, ordered=True), z - 1)[1], x)
  xjax.debug.print("after cond {}", r, ordered=True)
  s = lax.switch(2, [lambda z: z, lambda z: z,
                     lambda z: (xjax.debug.print("sw {}", z, ordered=True), z)[1]], x)
  k = lax.fori_loop(0, 2, lambda i, a: (xjax.debug.print("fori {} {}", i, a, ordered=True),
                                        a + i)[1], 0.0)
  k2 = lax.fori_loop(0, jnp.asarray(2), lambda i, a: (
      xjax.debug.print("fori-dyn {} {}", i, a, ordered=True), a + i)[1], 0.0)
  xjax.debug.print("end {} {} {}", s, k, k2, ordered=True)
  return c + r


# What the reference JAX 0.10.2 prints (eagerly, under jit, nested jit and jit of grad).
_CONTROL_FLOW_LINES = [
    "before 1.0", "scan c=1.0 y=0.0", "scan c=1.0 y=1.0", "scan c=2.0 y=2.0", "mid 4.0",
    "while 0", "while 1", "after while 2", "true 1.0", "after cond 2.0", "sw 1.0",
    "fori 0 0.0", "fori 1 0.0", "fori-dyn 0 0.0", "fori-dyn 1 0.0", "end 1.0 1.0 1.0"]


@pytest.mark.parametrize("transform", [
    lambda f: f, xjax.jit, lambda f: xjax.jit(lambda x: xjax.jit(f)(x) * 2),
    lambda f: xjax.jit(xjax.grad(f)), xjax.grad])
def test_debug_print_in_control_flow_keeps_program_order(capsys, transform):
  transform(_effects_in_control_flow)(1.0)
  assert capsys.readouterr().out.splitlines() == _CONTROL_FLOW_LINES


def test_debug_print_in_control_flow_under_vmap(capsys):
  xjax.jit(xjax.vmap(_effects_in_control_flow))(jnp.array([1.0, -1.0]))
  assert capsys.readouterr().out.splitlines() == [  # as the reference prints
      "before 1.0", "before -1.0", "scan c=1.0 y=0.0", "scan c=-1.0 y=0.0",
      "scan c=1.0 y=1.0", "scan c=-1.0 y=1.0", "scan c=2.0 y=2.0", "scan c=0.0 y=2.0",
      "mid 4.0", "mid 2.0", "while 0", "while 1", "after while 2", "false 1.0",
      "false -1.0", "true 1.0", "true -1.0", "after cond 2.0", "after cond -2.0", "sw 1.0",
      "sw -1.0", "fori 0 0.0", "fori 1 0.0", "fori-dyn 0 0.0", "fori-dyn 1 0.0",
      "end 1.0 1.0 1.0", "end -1.0 1.0 1.0"]


def test_ordered_io_callback_in_nested_loops_and_cond(capsys):
  log = []
  rec = _recorder(log)

  def f(x):
    x = io_callback(rec("pre"), sds(1.0), x, ordered=True)

    def body(i, c):
      c = io_callback(rec("body"), sds(1.0), c, ordered=True)
      c = lax.fori_loop(0, 2, lambda j, d: (
          xjax.debug.print("inner {} {}", i, j, ordered=True), d + 1.0)[1], c)
      return lax.cond(i % 2 == 0, lambda c: c * 2, lambda c: (
          xjax.debug.print("odd {}", c, ordered=True), c)[1], c)
    y = lax.fori_loop(0, 3, body, x)
    xjax.debug.print("post {}", y, ordered=True)
    return y

  assert float(xjax.jit(f)(1.0)) == 20.0
  assert capsys.readouterr().out.splitlines() == [
      "inner 0 0", "inner 0 1", "inner 1 0", "inner 1 1", "odd 8.0", "inner 2 0",
      "inner 2 1", "post 20.0"]
  assert log == [("pre", 1.0), ("body", 1.0), ("body", 6.0), ("body", 8.0)]


def test_effects_in_while_cond_fun_and_no_token_without_effects(capsys):
  def f(x):
    def c(v):
      xjax.debug.print("cond {}", v, ordered=True)
      return v < 2

    def b(v):
      xjax.debug.print("body {}", v, ordered=True)
      return v + 1
    v = lax.while_loop(c, b, x)
    xjax.debug.print("post {}", v, ordered=True)
    return v
  xjax.jit(f)(0)
  assert capsys.readouterr().out.splitlines() == [
      "cond 0", "body 0", "cond 1", "body 1", "cond 2", "post 2"]
  pure = xjax.jit(lambda x: lax.cond(x > 0, lambda: lax.fori_loop(0, x, lambda i, c: c + i, x),
                                     lambda: x))
  assert "token" not in pure.lower(3).as_text()


def test_debug_callback_static_leaves_and_eager():
  seen = []
  xjax.debug.callback(lambda s, x, k=None: seen.append((s, float(x), k)), "tag",
                      jnp.float32(2.0), k=None)
  assert seen == [("tag", 2.0, None)]
  jaxpr = xjax.make_jaxpr(lambda x: xjax.debug.callback(print, x))(1.0)
  assert "debug_callback[" in str(jaxpr)


# ---------------------------------------------------------------------------------------
# Errors

def test_callback_exception_surfaces_and_runtime_stays_usable():
  def bad(x):
    raise ValueError("boom")

  f = xjax.jit(lambda x: xjax.pure_callback(bad, sds(x), x))
  with pytest.raises(xjax.errors.JaxRuntimeError, match="boom") as info:
    f(jnp.ones(3))
  assert isinstance(info.value.__cause__, ValueError)
  with pytest.raises(xjax.errors.JaxRuntimeError, match="boom") as info:
    xjax.pure_callback(bad, sds(jnp.ones(3)), jnp.ones(3))
  assert isinstance(info.value.__cause__, ValueError)
  np.testing.assert_array_equal(xjax.jit(lambda x: x + 1)(jnp.ones(2)), [2., 2.])
  ok = xjax.jit(lambda x: xjax.pure_callback(np.negative, sds(x), x))
  np.testing.assert_array_equal(ok(jnp.ones(2)), [-1., -1.])


@pytest.mark.parametrize("ret,msg", [
    (lambda a: np.asarray(a)[:2], r"Incorrect output shape for return value #0: "
                                  r"Expected: \(3,\), Actual: \(2,\)"),
    (lambda a: np.asarray(a, np.int32), "Incorrect output dtype for return value #0: "
                                        "Expected: float32, Actual: int32"),
    (lambda a: (a, a), "Mismatched number of outputs from callback. Expected: 1, Actual: 2"),
])
def test_callback_wrong_results_name_expected_and_got(ret, msg):
  x = jnp.ones(3)
  with pytest.raises(xjax.errors.JaxRuntimeError, match=msg):
    xjax.jit(lambda x: xjax.pure_callback(ret, sds(x), x))(x)
  with pytest.raises(xjax.errors.JaxRuntimeError, match=msg):
    xjax.pure_callback(ret, sds(x), x)


def test_eager_debug_callback_raises_the_callbacks_exception():
  """JAX 0.10.2 calls an eager debug callback in Python (also under vmap and grad): its
  exception propagates as it is (tinygp's sortedness check expects the ValueError); under
  jit it is a JaxRuntimeError naming it, as for pure and io callbacks."""
  def bad(*_):
    raise ValueError("Input coordinates must be sorted")
  x = jnp.ones(3)
  with pytest.raises(ValueError, match="must be sorted"):
    xjax.debug.callback(bad, x)
  with pytest.raises(ValueError, match="must be sorted"):
    xjax.vmap(lambda v: xjax.debug.callback(bad, v))(jnp.ones((2, 3)))
  with pytest.raises(xjax.errors.JaxRuntimeError, match="must be sorted"):
    xjax.jit(lambda v: (xjax.debug.callback(bad, v), v * 2)[1])(x).block_until_ready()
