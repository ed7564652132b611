"""xjax.ffi: C++ XLA FFI handlers compiled at test time (g++ against ``include_dir()``),
registered with the runtime and called eagerly, under jit and under vmap.  Expected values
come from NumPy; the same source and calls give the same numbers on JAX 0.10.2."""
import ctypes
import shutil
import subprocess

import numpy as np
import pytest

import xjax
from xjax import ffi, lax
from xjax.errors import JaxRuntimeError
from xjax.extend.core import Primitive
from xjax._src.foundations.layout import Layout
from xjax.interpreters import mlir

KERNELS = r"""
#include <cmath>
#include <cstdint>
#include <string_view>
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

// y = x / sqrt(mean(x**2 over the last axis) + eps), for any leading batch dimensions.
static ffi::Error RmsNormImpl(float eps, ffi::Buffer<ffi::F32> x,
                              ffi::ResultBuffer<ffi::F32> y) {
  auto dims = x.dimensions();
  if (dims.size() == 0) return ffi::Error::InvalidArgument("rms_norm: rank 0 input");
  int64_t n = dims.back(), rows = n ? x.element_count() / n : 0;
  const float* in = x.typed_data();
  float* out = y->typed_data();
  for (int64_t r = 0; r < rows; ++r) {
    float sq = 0.f;
    for (int64_t i = 0; i < n; ++i) sq += in[r * n + i] * in[r * n + i];
    float scale = 1.f / std::sqrt(sq / n + eps);
    for (int64_t i = 0; i < n; ++i) out[r * n + i] = in[r * n + i] * scale;
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(RmsNorm, RmsNormImpl,
    ffi::Ffi::Bind().Attr<float>("eps").Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::F32>>());

// (x + y, x * y) on operands of equal size.
static ffi::Error SumProdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> y,
                              ffi::ResultBuffer<ffi::F32> s, ffi::ResultBuffer<ffi::F32> p) {
  if (x.element_count() != y.element_count())
    return ffi::Error::InvalidArgument("sum_prod: operands differ in size");
  for (size_t i = 0; i < x.element_count(); ++i) {
    s->typed_data()[i] = x.typed_data()[i] + y.typed_data()[i];
    p->typed_data()[i] = x.typed_data()[i] * y.typed_data()[i];
  }
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(SumProd, SumProdImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());

// x * scale + offset + n + k + len(mode) + sum(weights) (+ 1000 when flag): one attribute
// of each kind.
static ffi::Error AttrsImpl(int64_t n, int32_t k, double offset, float scale,
                            std::string_view mode, bool flag, ffi::Span<const float> weights,
                            ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  double extra = offset + n + k + mode.size() + (flag ? 1000.0 : 0.0);
  for (float w : weights) extra += w;
  for (size_t i = 0; i < x.element_count(); ++i)
    y->typed_data()[i] = x.typed_data()[i] * scale + static_cast<float>(extra);
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Attrs, AttrsImpl,
    ffi::Ffi::Bind().Attr<int64_t>("n").Attr<int32_t>("k").Attr<double>("offset")
        .Attr<float>("scale").Attr<std::string_view>("mode").Attr<bool>("flag")
        .Attr<ffi::Span<const float>>("weights").Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::F32>>());

// Counts its calls (a side effect) and returns the count.
static int64_t calls = 0;
extern "C" int64_t counter_value() { return calls; }
static ffi::Error CountImpl(ffi::ResultBuffer<ffi::S64> out) {
  out->typed_data()[0] = ++calls;
  return ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(Count, CountImpl, ffi::Ffi::Bind().Ret<ffi::Buffer<ffi::S64>>());

// A legacy custom call (original API, untyped): out = 2 * in on 4 float32 elements.
extern "C" void LegacyDouble(void* out, const void** in) {
  const float* x = static_cast<const float*>(in[0]);
  for (int i = 0; i < 4; ++i) static_cast<float*>(out)[i] = 2 * x[i];
}

// A user type id for register_ffi_type: XLA assigns the id when it is registered.
extern "C" XLA_FFI_TypeId counter_type_id = XLA_FFI_UNKNOWN_TYPE_ID;
"""

TARGETS = {"rms_norm": "RmsNorm", "sum_prod": "SumProd", "attrs": "Attrs", "count": "Count"}


@pytest.fixture(scope="session")
def lib(tmp_path_factory):
  """The handlers, built once per session and registered for the CPU."""
  cxx = shutil.which("g++") or shutil.which("c++")
  if cxx is None:
    pytest.skip("no C++ compiler (g++) to build the FFI handlers")
  folder = tmp_path_factory.mktemp("ffi")
  (folder / "kernels.cc").write_text(KERNELS)
  so = folder / "kernels.so"
  build = subprocess.run([cxx, "-std=c++17", "-O1", "-shared", "-fPIC", "-w",
                          f"-I{ffi.include_dir()}", str(folder / "kernels.cc"), "-o", str(so)],
                         capture_output=True, text=True, timeout=120)
  assert build.returncode == 0, build.stderr[-3000:]
  library = ctypes.cdll.LoadLibrary(str(so))
  library.counter_value.restype = ctypes.c_int64
  for name, symbol in TARGETS.items():
    ffi.register_ffi_target(name, ffi.pycapsule(getattr(library, symbol)), platform="cpu")
  ffi.register_ffi_target("legacy_double", ffi.pycapsule(library.LegacyDouble),
                          api_version=0)
  return library


def rms_np(x, eps):
  x = np.asarray(x, np.float32)
  return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(eps))


def rms(x, eps=1e-5, **options):
  out = xjax.ShapeDtypeStruct(np.shape(x), np.float32)
  return ffi.ffi_call("rms_norm", out, **options)(x, eps=np.float32(eps))


X = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 3


# ---------------------------------------------------------------------------------------
# Registration and the jaxlib facts it relies on

def test_public_names_match_jax():
  assert sorted(n for n in dir(ffi) if not n.startswith("_")) == [
      "build_ffi_lowering_function", "ffi_call", "ffi_lowering", "include_dir", "pycapsule",
      "register_ffi_target", "register_ffi_target_as_batch_partitionable",
      "register_ffi_type", "register_ffi_type_id"]
  assert xjax.ffi is ffi


def test_include_dir_holds_jaxlib_ffi_headers():
  import jaxlib
  import os
  d = ffi.include_dir()
  assert d == os.path.join(os.path.dirname(os.path.abspath(jaxlib.__file__)), "include")
  for header in ("ffi.h", "api.h", "c_api.h"):
    assert os.path.isfile(os.path.join(d, "xla", "ffi", "api", header))


def test_pycapsule_wraps_a_function_pointer(lib):
  cap = ffi.pycapsule(lib.Count)
  assert type(cap).__name__ == "PyCapsule"
  name = ctypes.pythonapi.PyCapsule_GetName
  name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
  pointer = ctypes.pythonapi.PyCapsule_GetPointer
  pointer.restype, pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
  assert name(cap) is None
  assert pointer(cap, None) == ctypes.cast(lib.Count, ctypes.c_void_p).value
  with pytest.raises(ValueError, match="function pointer"):
    ffi.pycapsule(None)


def test_jaxlib_registration_facts(lib):
  """register_custom_call_target (with the CPU handler installed) takes effect at once:
  a second registration of a name is accepted, a non-capsule is INVALID_ARGUMENT, API
  versions other than 0 and 1 are UNIMPLEMENTED; a dict registers FFI stages."""
  from jaxlib import xla_client
  ffi.register_ffi_target("count", ffi.pycapsule(lib.Count))
  ffi.register_ffi_target("count_stages", {"execute": ffi.pycapsule(lib.Count)})
  targets = xla_client._xla.custom_call_targets("Host")
  assert {"rms_norm", "count", "count_stages", "legacy_double"} <= set(targets)
  with pytest.raises(JaxRuntimeError, match="Unsupported custom call target type"):
    ffi.register_ffi_target("bad_target", 3)
  with pytest.raises(JaxRuntimeError, match="API version 7 is not supported"):
    ffi.register_ffi_target("bad_version", ffi.pycapsule(lib.Count), api_version=7)
  with pytest.raises(JaxRuntimeError, match="must provide an execute implementation"):
    ffi.register_ffi_target("bad_stage", {"prepare": ffi.pycapsule(lib.Count)})
  out = ffi.ffi_call("count_stages", np.zeros((), np.int64))()
  assert out.dtype == np.int64 and int(out) >= 1


def test_register_ffi_type_assigns_the_type_id(lib):
  type_id = ctypes.c_int64.in_dll(lib, "counter_type_id")
  ffi.register_ffi_type("xjax_test_counter", {"type_id": ffi.pycapsule(
      ctypes.addressof(type_id))})
  assert type_id.value != 0  # XLA wrote the id it assigned
  with pytest.raises(JaxRuntimeError, match="type_id"):
    ffi.register_ffi_type("xjax_test_bad", {"typeid": ffi.pycapsule(lib.Count)})
  with pytest.raises(ValueError, match="register_ffi_type"):
    ffi.register_ffi_type_id("xjax_test_counter", None)


def test_register_as_batch_partitionable(lib):
  assert ffi.register_ffi_target_as_batch_partitionable("rms_norm") is None


# ---------------------------------------------------------------------------------------
# ffi_call: eager, jit, lowering

def test_eager_and_jit_match_numpy(lib):
  expected = rms_np(X, 1e-5)
  np.testing.assert_allclose(rms(X), expected, rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(rms)(X), expected, rtol=1e-6)
  np.testing.assert_allclose(rms(X, eps=2.0), rms_np(X, 2.0), rtol=1e-6)
  # JAX 0.10.2 gives these numbers for the same handler and call
  np.testing.assert_allclose(rms(np.arange(4, dtype=np.float32) * 0.3 - 1, eps=1e-3),
                             [-1.5504342317581177, -1.0853039026260376, -0.6201736330986023,
                              -0.155043363571167], rtol=1e-7)


def test_lowering_is_a_typed_ffi_custom_call(lib):
  text = xjax.jit(rms).lower(X).as_text()
  assert ('"stablehlo.custom_call"(%arg0) {call_target_name = "rms_norm", '
          'api_version = 4 : i32, backend_config = {eps = 9.999999747378752e-06 : f32}, '
          'operand_layouts = [dense<[1, 0]> : tensor<2xindex>], '
          'result_layouts = [dense<[1, 0]> : tensor<2xindex>]}') in text
  jaxpr = xjax.make_jaxpr(rms)(X)
  eqn, = jaxpr.jaxpr.eqns
  assert eqn.primitive.name == "ffi_call"
  assert eqn.params["target_name"] == "rms_norm"
  assert eqn.params["input_layouts"] == ((1, 0),) == eqn.params["output_layouts"]
  assert "attributes=(('eps', np.float32(1e-05)),)" in str(jaxpr)


def attrs_np(x, n, k, offset, scale, mode, flag, weights):
  extra = offset + n + k + len(mode.encode()) + (1000 if flag else 0) + float(np.sum(weights))
  return x * np.float32(scale) + np.float32(extra)


ATTRS = dict(n=3, k=np.int32(4), offset=0.5, scale=np.float32(2), mode="abc", flag=True,
             weights=np.array([1, 2.5], np.float32))


def test_attributes_of_each_kind(lib):
  call = ffi.ffi_call("attrs", xjax.ShapeDtypeStruct(X.shape, np.float32))
  np.testing.assert_allclose(call(X, **ATTRS), attrs_np(X, **ATTRS), rtol=1e-6)
  other = dict(ATTRS, n=-7, mode="héllo", flag=False, weights=np.full(3, 0.25, np.float32))
  np.testing.assert_allclose(call(X, **other), attrs_np(X, **other), rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(lambda x: call(x, **other))(X), attrs_np(X, **other),
                             rtol=1e-6)
  text = xjax.jit(lambda x: call(x, **ATTRS)).lower(X).as_text()
  assert ('backend_config = {flag = true, k = 4 : i32, mode = "abc", n = 3 : i64, '
          'offset = 0.5 : f64, scale = 2.0 : f32, '
          'weights = dense<"0x0000803F00002040"> : tensor<2xf32>}') in text


def test_attribute_encoding():
  from xjax._src.backend.custom_call import attribute
  assert attribute(1.0e-5) == "1.0e-05 : f64"
  assert attribute(np.float16(1.5)) == "1.5 : f16"
  assert attribute(float("inf")) == "0x7FF0000000000000 : f64"
  assert attribute(np.float32("nan")) == "0x7FC00000 : f32"
  assert attribute(np.uint8(3)) == "3 : ui8"
  assert attribute(np.bool_(False)) == "false"
  assert attribute(np.dtype(np.int16)) == "i16"
  assert attribute('a"b\n\\é') == r'"a\22b\0A\\\C3\A9"'
  assert attribute({"a b": 1, "c": (2, "s")}) == '{"a b" = 1 : i64, c = [2 : i64, "s"]}'
  assert attribute(np.array(3.0, np.float32)) == 'dense<"0x00004040"> : tensor<f32>'
  assert attribute(np.broadcast_to(np.int32(1), (2, 2))) == 'dense<"0x01000000"> : tensor<2x2xi32>'


def test_attributes_key_the_compiled_program_by_type(lib):
  """``offset=1`` (an i64) is not ``offset=1.0`` (an f64), though 1 == 1.0 in Python."""
  call = ffi.ffi_call("attrs", xjax.ShapeDtypeStruct(X.shape, np.float32))
  np.testing.assert_allclose(call(X, **dict(ATTRS, offset=1.0)),
                             attrs_np(X, **dict(ATTRS, offset=1.0)), rtol=1e-6)
  with pytest.raises(JaxRuntimeError, match="Wrong scalar data type"):
    call(X, **dict(ATTRS, offset=1))


def test_two_results(lib):
  y = X[::-1] * 2
  out = xjax.ShapeDtypeStruct(X.shape, np.float32)
  as_list = ffi.ffi_call("sum_prod", [out, out])
  s, p = as_list(X, y)
  assert isinstance(as_list(X, y), list)
  np.testing.assert_allclose(s, X + y)
  np.testing.assert_allclose(p, X * y)
  as_tuple = xjax.jit(ffi.ffi_call("sum_prod", (out, out)))
  res = as_tuple(X, y)
  assert isinstance(res, tuple)
  np.testing.assert_allclose(res[1], X * y)


def test_layouts_are_major_to_minor(lib):
  """A column-major input reaches the handler transposed in memory: the handler's
  rows of 4 are then runs of the transposed data; results are written row-major unless
  output_layouts says otherwise."""
  flat = rms_np(X.T.ravel().reshape(3, 4), 1e-5).ravel()
  np.testing.assert_allclose(rms(X, input_layouts=[(1, 0)]), flat.reshape(3, 4), rtol=1e-6)
  a = X.T.copy()
  np.testing.assert_allclose(xjax.jit(lambda x: rms(x, output_layouts=(1, 0)))(a),
                             rms_np(a, 1e-5).ravel().reshape(3, 4).T, rtol=1e-6)
  text = xjax.jit(lambda x: rms(x, input_layouts=[(1, 0)])).lower(X).as_text()
  assert "operand_layouts = [dense<[0, 1]> : tensor<2xindex>]" in text


def test_input_output_aliases(lib):
  f = xjax.jit(lambda x: rms(x, input_output_aliases={0: 0}))
  alias = ("output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices "
           "= [], operand_index = 0, operand_tuple_indices = []>]")
  assert alias in f.lower(X).as_text()
  np.testing.assert_allclose(f(X), rms_np(X, 1e-5), rtol=1e-6)
  out = xjax.ShapeDtypeStruct(X.shape, np.float32)
  s, p = ffi.ffi_call("sum_prod", [out, out], input_output_aliases={1: 1})(X, X + 1)
  np.testing.assert_allclose(p, X * (X + 1))


def test_legacy_custom_call(lib):
  f = ffi.ffi_call("legacy_double", xjax.ShapeDtypeStruct((4,), np.float32),
                   custom_call_api_version=1, legacy_backend_config="opaque")
  x = np.arange(4, dtype=np.float32)
  np.testing.assert_allclose(f(x), 2 * x)
  assert ('api_version = 1 : i32, backend_config = "opaque"'
          in xjax.jit(f).lower(x).as_text())


# ---------------------------------------------------------------------------------------
# Side effects

def test_has_side_effect_keeps_an_unused_call(lib):
  kept = ffi.ffi_call("count", np.zeros((), np.int64), has_side_effect=True)
  dropped = ffi.ffi_call("count", np.zeros((), np.int64))

  def with_unused(call):
    def f(x):
      call()
      return x + 1
    return xjax.jit(f)

  before = lib.counter_value()
  with_unused(kept)(X)
  assert lib.counter_value() == before + 1
  with_unused(dropped)(X)   # XLA removes the unused call
  assert lib.counter_value() == before + 1
  assert [str(e) for e in xjax.make_jaxpr(with_unused(kept))(X).effects] == ["FFI"]
  assert "has_side_effect = true" in with_unused(kept).lower(X).as_text()
  out = kept()
  assert out.dtype == np.int64 and int(out) == before + 2


def test_side_effects_in_loops(lib):
  kept = ffi.ffi_call("count", np.zeros((), np.int64), has_side_effect=True,
                      vmap_method="sequential")
  before = lib.counter_value()

  def body(i, c):
    kept()
    return c + 1
  assert int(xjax.jit(lambda: lax.fori_loop(0, 5, body, 0))()) == 5
  assert lib.counter_value() == before + 5
  _, counts = lax.scan(lambda c, _: (c, kept().astype(np.int32)), 0, None, length=3)
  np.testing.assert_array_equal(counts, [before + 6, before + 7, before + 8])


# ---------------------------------------------------------------------------------------
# vmap

@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims",
                                    "broadcast_all", "legacy_vectorized"])
def test_vmap_methods_match_a_loop(lib, method):
  xs = np.stack([X, 2 * X + 1])
  f = lambda x: rms(x, vmap_method=method)
  expected = np.stack([rms_np(x, 1e-5) for x in xs])
  np.testing.assert_allclose(xjax.vmap(f)(xs), expected, rtol=1e-6)
  np.testing.assert_allclose(xjax.jit(xjax.vmap(f, in_axes=2, out_axes=1))(
      xs.transpose(1, 2, 0)), expected.transpose(1, 0, 2), rtol=1e-6)


def test_vmap_methods_with_an_unbatched_operand(lib):
  row, xs = X[0], X
  out = xjax.ShapeDtypeStruct((4,), np.float32)

  def f(method):
    return xjax.vmap(ffi.ffi_call("sum_prod", [out, out], vmap_method=method),
                     in_axes=(0, None))

  for method in ("sequential", "sequential_unrolled", "broadcast_all"):
    s, p = f(method)(xs, row)
    np.testing.assert_allclose(s, xs + row)
    np.testing.assert_allclose(p, xs * row)
  # expand_dims gives the unbatched operand a size-1 batch dimension, legacy_vectorized
  # none (this handler needs equal sizes, so both calls fail in it, as in JAX)
  for method, row_shape in (("expand_dims", (1, 4)), ("legacy_vectorized", (4,))):
    eqn, = xjax.make_jaxpr(f(method))(xs, row).jaxpr.eqns[-1:]
    assert [v.aval.shape for v in eqn.invars] == [(3, 4), row_shape]
    assert eqn.params["input_layouts"] == ((1, 0), (1, 0) if row_shape == (1, 4) else (0,))
    assert eqn.params["output_layouts"] == ((1, 0), (1, 0))
    with pytest.raises(JaxRuntimeError, match="operands differ in size"):
      f(method)(xs, row)
  jaxpr = str(xjax.make_jaxpr(f("sequential_unrolled"))(xs, row))
  assert "scan[" in jaxpr and "unroll=3" in jaxpr


def test_vmap_without_a_method_raises(lib):
  with pytest.raises(NotImplementedError, match="vmap_method"):
    xjax.vmap(rms)(np.stack([X, X]))


# ---------------------------------------------------------------------------------------
# Lowering rules for user primitives

def test_ffi_lowering_for_a_user_primitive(lib):
  p = Primitive("xjax_test_rms")
  p.def_abstract_eval(lambda x, **params: x)
  mlir.register_lowering(p, ffi.ffi_lowering("rms_norm"))
  f = xjax.jit(lambda x: p.bind(x, eps=np.float32(0.5)))
  np.testing.assert_allclose(f(X), rms_np(X, 0.5), rtol=1e-6)
  assert "backend_config = {eps = 0.5 : f32}" in f.lower(X).as_text()


def test_build_ffi_lowering_function_with_mlir_bindings(lib):
  """A rule building operations with jaxlib's MLIR bindings gets a bindings op back."""
  from jaxlib.mlir.dialects import stablehlo as hlo
  p = Primitive("xjax_test_rms_bindings")
  p.def_abstract_eval(lambda x, **params: x)

  def rule(ctx, x, eps):
    doubled = hlo.AddOp(x, x).result
    op = ffi.build_ffi_lowering_function("rms_norm")(ctx, doubled, eps=eps)
    return [hlo.NegOp(op.result).result]
  mlir.register_lowering(p, rule)
  out = xjax.jit(lambda x: p.bind(x, eps=np.float32(0.5)))(X)
  np.testing.assert_allclose(out, -rms_np(2 * X, 0.5), rtol=1e-6)


def test_build_ffi_lowering_function_options(lib):
  p = Primitive("xjax_test_rms_options")
  p.def_abstract_eval(lambda x, **params: x)

  def rule(ctx, x, **params):
    op = ffi.build_ffi_lowering_function(
        "rms_norm", backend_config={"eps": np.float32(0.25)}, has_side_effect=True,
        operand_layouts=[(0, 1)], result_layouts=[(1, 0)])(ctx, x)
    return [op.result]
  mlir.register_lowering(p, rule)
  f = xjax.jit(lambda x: p.bind(x))
  text = f.lower(X).as_text()
  assert "has_side_effect = true, backend_config = {eps = 0.25 : f32}" in text
  assert "operand_layouts = [dense<[0, 1]> : tensor<2xindex>]" in text
  np.testing.assert_allclose(f(X), rms_np(X.T.ravel().reshape(3, 4), 0.25), rtol=1e-6)


def test_build_ffi_lowering_function_errors():
  with pytest.raises(TypeError, match="unexpected keyword"):
    ffi.build_ffi_lowering_function("t", bogus=1)
  with pytest.raises(NotImplementedError, match="dynamic"):
    ffi.build_ffi_lowering_function("t", result_shapes=[1])
  for rule, match in ((ffi.ffi_lowering("t", backend_config="s"), "must be a dictionary"),
                      (ffi.ffi_lowering("t", api_version=2), "at least 4")):
    p = Primitive("xjax_test_bad_rule")
    p.def_abstract_eval(lambda x, **params: x)
    mlir.register_lowering(p, rule)
    with pytest.raises(ValueError, match=match):
      xjax.jit(lambda x: p.bind(x, eps=1.0)).lower(X)


# ---------------------------------------------------------------------------------------
# Bad input

def test_unknown_target_fails_at_compile_time(lib):
  call = ffi.ffi_call("xjax_no_such_target", xjax.ShapeDtypeStruct((3,), np.float32))
  message = "No FFI handler registered for xjax_no_such_target"
  with pytest.raises(JaxRuntimeError, match=message):
    call(np.ones(3, np.float32))
  lowered = xjax.jit(call).lower(np.ones(3, np.float32))  # lowering succeeds
  with pytest.raises(JaxRuntimeError, match=message):
    lowered.compile()


def test_bad_result_shape_dtypes():
  for bad, position in ((3, 0), ([xjax.ShapeDtypeStruct((2,), np.float32), "x"], 1),
                        ({"a": xjax.ShapeDtypeStruct((2,), np.float32)}, 0)):
    with pytest.raises(ValueError, match=f"must have 'shape' and 'dtype' attributes. "
                                         f"Got .* at position {position}"):
      ffi.ffi_call("rms_norm", bad)
  from xjax._src.primitives.lax.tokens import abstract_token
  with pytest.raises(NotImplementedError, match="token"):
    ffi.ffi_call("rms_norm", [abstract_token])


@pytest.mark.parametrize("value, error, match", [
    (object(), TypeError, "No attribute handler defined for type: <class 'object'>"),
    (None, TypeError, "NoneType"),
    (1 + 2j, TypeError, "complex"),
    (np.complex64(1), TypeError, "complex64"),
    (np.array(["a"]), TypeError, "dtype <U1"),
    (2**70, OverflowError, "does not fit in int64"),
])
def test_unsupported_attributes(value, error, match):
  call = ffi.ffi_call("rms_norm", xjax.ShapeDtypeStruct((3,), np.float32))
  with pytest.raises(error, match=match) as info:
    call(np.ones(3, np.float32), eps=value)
  assert "ffi_call keyword argument eps=" in str(info.value)


def test_bad_options():
  out = xjax.ShapeDtypeStruct((3,), np.float32)
  x = np.ones(3, np.float32)
  with pytest.raises(ValueError, match="vmap_method must be on of the allowed methods"):
    ffi.ffi_call("rms_norm", out, vmap_method="loop")
  with pytest.raises(ValueError, match="legacy_backend_config parameter requires"):
    ffi.ffi_call("rms_norm", out, legacy_backend_config="s")
  with pytest.raises(ValueError, match="API version of at least 4; got api_version=2"):
    ffi.ffi_call("rms_norm", out, custom_call_api_version=2)(x, eps=1.0)
  with pytest.raises(ValueError, match=r"number of input arguments \(1\) must equal the "
                                       r"number of input layouts \(2\)"):
    ffi.ffi_call("rms_norm", out, input_layouts=[None, None])(x)
  with pytest.raises(ValueError, match=r"number of outputs \(1\) must equal"):
    ffi.ffi_call("rms_norm", [out], output_layouts=[None, None])(x)
  with pytest.raises(ValueError, match="tiling"):
    ffi.ffi_call("rms_norm", out, input_layouts=[Layout((0,), tiling=((8,),))])(x)
  with pytest.raises(ValueError, match=r"mapping '1:0' with input index 1 outside the "
                                       r"range \[0, 1\)"):
    ffi.ffi_call("rms_norm", out, input_output_aliases={1: 0})(x)
  with pytest.raises(ValueError, match="abstract value float32\\[3\\] and an output with a "
                                       "different abstract value int32\\[3\\]"):
    ffi.ffi_call("rms_norm", xjax.ShapeDtypeStruct((3,), np.int32),
                 input_output_aliases={0: 0})(x)


def test_not_differentiable(lib):
  with pytest.raises(ValueError, match="The FFI call to `rms_norm` cannot be differentiated"):
    xjax.grad(lambda x: rms(x).sum())(X)
