"""`python -m xjax SCRIPT` and `xjax.install_as_jax()`: real JAX programs, written against
`jax`, run unmodified in a subprocess."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

# The program is kept as text (not a .py file): xjax's own tree never imports `jax`; only
# the subprocess does, and there the redirection answers with xjax.
PROGRAM = (REPO / "tests" / "data" / "program_written_for_jax.txt").read_text()


def run(args, tmp_path, code=PROGRAM):
  script = tmp_path / "prog.py"
  script.write_text(code)
  env = dict(os.environ, PYTHONPATH=str(REPO))
  out = subprocess.run([sys.executable, *args(script)], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=300)
  assert out.returncode == 0, out.stderr
  return out.stdout


def check_output(stdout):
  assert "version 0.10.2 (0, 10, 2)" in stdout
  assert "version module 0.10.2 True" in stdout
  assert "loss True (33,)" in stdout
  assert "ode 0.36788" in stdout
  assert "segment [2.0, 1.0]" in stdout
  assert "numpy is xjax.numpy True" in stdout
  assert "missing jax.experimental.mosaic True" in stdout


def test_python_dash_m_xjax(tmp_path):
  stdout = run(lambda s: ["-m", "xjax", str(s), "a", "b"], tmp_path)
  check_output(stdout)
  assert "args ['a', 'b']" in stdout


def test_install_as_jax(tmp_path):
  code = ("import xjax\nxjax.install_as_jax()\nassert xjax.__version__ != '0.10.2'\n"
          + PROGRAM)
  check_output(run(lambda s: [str(s)], tmp_path, code))


PRIVATE_NAMES = (REPO / "tests" / "data" / "program_using_private_names.txt").read_text()


def test_private_jax_names_map_to_the_compatibility_package(tmp_path):
  out = run(lambda s: ["-m", "xjax", str(s)], tmp_path, PRIVATE_NAMES)
  assert "compiled via jax._src.compiler True" in out
  assert "backends ['cpu']" in out
  assert "missing module True" in out and "missing name True" in out


def test_libraries_register_their_frames_for_filtering(tmp_path):
  # flax and equinox call jax._src.traceback_util.register_exclusion at import: their frames
  # are then left out of filtered tracebacks together with xjax's.
  import importlib
  import sys
  import xjax
  from xjax._src.foundations import errors
  traceback_util = importlib.import_module("xjax._src.compat.jax_private_compat.traceback_util")
  lib = tmp_path / "somelib"
  lib.mkdir()
  (lib / "layer.py").write_text("def apply(x):\n  raise ValueError('bad input')\n")
  sys.path.insert(0, str(tmp_path))
  before = list(errors.excluded_paths)
  try:
    import somelib.layer
    traceback_util.register_exclusion(str(lib))
    assert traceback_util._exclude_paths is errors.excluded_paths
    try:
      xjax.grad(lambda x: somelib.layer.apply(x))(1.0)
    except ValueError as e:
      files = []
      tb = e.__traceback__
      while tb is not None:
        files.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert not any(f.startswith(str(lib)) for f in files) and __file__ in files
    assert traceback_util.path_starts_with(str(lib / "layer.py"), str(lib))
  finally:
    errors.excluded_paths[:] = before
    sys.path.remove(str(tmp_path))
    sys.modules.pop("somelib.layer", None)
    sys.modules.pop("somelib", None)


def test_private_core_and_dtypes_modules():
  import importlib
  import ml_dtypes
  import xjax
  core = importlib.import_module("xjax._src.compat.jax_private_compat.core")
  dts = importlib.import_module("xjax._src.compat.jax_private_compat.dtypes")
  assert core.trace_state_clean()
  seen = []
  xjax.jit(lambda x: seen.append(core.trace_state_clean()) or x)(1.0)
  assert seen == [False]
  assert core.ShapedArray is xjax.core.ShapedArray
  assert dts.supports_inf(np.float32) and dts.supports_inf(ml_dtypes.float8_e5m2)
  assert not dts.supports_inf(ml_dtypes.float8_e4m3fn)
  with pytest.raises(AttributeError, match="jax._src.core"):
    core.no_such_name


def test_private_dtypes_canonicalizing_dtype():
  """optree's ``tree_ravel`` of leaves of several dtypes: ``dtypes.dtype(leaf)`` then
  ``dtypes.result_type``; JAX's private ``dtype`` canonicalizes (float32 without x64, and a
  64-bit specifier warns as it is narrowed)."""
  import importlib
  dts = importlib.import_module("xjax._src.compat.jax_private_compat.dtypes")
  assert dts.dtype(1.0) == np.float32 and dts.dtype(1) == np.int32
  assert dts.dtype(np.ones(2)) == np.float32 and dts.dtype(True) == np.bool_
  with pytest.warns(UserWarning, match="Explicitly requested dtype float64"):
    assert dts.dtype("float64") == np.float32
  assert dts.result_type(dts.dtype(np.ones(2)), dts.dtype(np.arange(2))) == np.float32
  assert dts.check_and_canonicalize_user_dtype(np.int16) == np.int16


def test_private_dispatch_module_waits_for_effects():
  # equinox calls jax._src.dispatch.wait_for_tokens() before reading callback output; xjax's
  # computations with host callbacks have finished when their results are returned.
  import importlib
  import xjax
  dispatch = importlib.import_module("xjax._src.compat.jax_private_compat.dispatch")
  seen = []
  xjax.jit(lambda x: xjax.debug.callback(lambda v: seen.append(float(v)), x) or x)(2.0)
  dispatch.wait_for_tokens()
  assert seen == [2.0]
  with pytest.raises(AttributeError, match="jax._src.dispatch"):
    dispatch.runtime_tokens


def test_private_flatten_util_module():
  import importlib
  import xjax.flatten_util
  flat = importlib.import_module("xjax._src.compat.jax_private_compat.flatten_util")
  assert flat.ravel_pytree is xjax.flatten_util.ravel_pytree
  vec, unravel = flat.ravel_pytree({"a": np.ones(2, np.float32), "b": np.float32(3)})
  np.testing.assert_array_equal(vec, [1, 1, 3])
  np.testing.assert_array_equal(unravel(vec)["a"], [1, 1])


def test_private_ad_util_stop_gradient_takes_a_transpose_rule():
  # lineax registers a transpose rule for jax._src.ad_util.stop_gradient_p, so that linear
  # solves transpose through its stop_gradient calls; the rule must reach xjax's primitive.
  import importlib
  import xjax
  import xjax.extend.core.primitives as primitives
  from xjax.interpreters import ad
  ad_util = importlib.import_module("xjax._src.compat.jax_private_compat.ad_util")
  assert ad_util.stop_gradient_p is primitives.stop_gradient_p
  assert "stop_gradient" in str(xjax.make_jaxpr(xjax.lax.stop_gradient)(1.0))
  with pytest.raises(AttributeError, match="jax._src.ad_util"):
    ad_util.add_jaxvals_p
  previous = ad.primitive_transposes.get(ad_util.stop_gradient_p)
  ad.primitive_transposes[ad_util.stop_gradient_p] = lambda ct, x: (ct,)
  try:
    t = xjax.linear_transpose(lambda x: 2.0 * ad_util.stop_gradient_p.bind(x), 1.0)
    assert float(t(1.0)[0]) == 2.0
  finally:
    if previous is None:
      del ad.primitive_transposes[ad_util.stop_gradient_p]
    else:
      ad.primitive_transposes[ad_util.stop_gradient_p] = previous


def test_importlib_metadata_reports_the_jax_distribution(tmp_path):
  # quax reads `importlib.metadata.version("jax")`; JAX 0.10.2's wheel answers as below.
  code = ("import importlib.metadata as m\n"
          "print('version', m.version('jax'), m.distribution('JAX').metadata['Name'])\n"
          "print('top level', m.packages_distributions()['jax'])\n"
          "print('listed', 'jax' in {d.metadata['Name'] for d in m.distributions()})\n"
          "try:\n  m.version('jaxx')\nexcept m.PackageNotFoundError:\n  print('others unknown')\n")
  out = run(lambda s: ["-m", "xjax", str(s)], tmp_path, code)
  assert "version 0.10.2 jax" in out and "top level ['jax']" in out
  assert "listed True" in out and "others unknown" in out


def test_private_public_test_util_module():
  """tinygp's tests import check_close from jax._src.public_test_util: tolerances per dtype,
  times the leaf's size (JAX 0.10.2: float32 atol 1e-6, so 3 elements allow 3e-6)."""
  import importlib
  ptu = importlib.import_module("xjax._src.compat.jax_private_compat.public_test_util")
  a = np.array([1.0, 2.0, 3.0], np.float32)
  ptu.check_close(a, a + 2e-6)
  with pytest.raises(AssertionError):
    ptu.check_close(a, a + 1e-4)
  ptu.check_close({"x": a}, {"x": a + 1e-3}, atol=1e-3, rtol=0)
  assert ptu.tolerance(np.float32, {np.float32: 0.5}) == 0.5
  assert ptu.tolerance(np.float16) == 1e-3
  assert ptu.default_gradient_tolerance[np.dtype(np.float32)] == 2e-3


def test_private_lax_control_flow_module():
  # PyTensor's JAX linker does `from jax._src.lax.control_flow import scan as jax_scan`.
  import importlib
  import xjax
  cf = importlib.import_module("xjax._src.compat.jax_private_compat.lax.control_flow")
  assert cf.scan is xjax.lax.scan and cf.while_p.name == "while"
  carry, ys = cf.scan(lambda c, x: (c * x, c), 1., np.arange(1., 4., dtype=np.float32))
  assert float(carry) == 6. and ys.tolist() == [1., 1., 2.]
  with pytest.raises(AttributeError, match="jax._src.lax.control_flow"):
    cf._scan_impl


BACKEND_BY_MODULE = (REPO / "tests" / "data" / "program_reading_class_modules.txt").read_text()


def test_array_and_tracer_classes_report_jaxs_modules(tmp_path):
  # opt_einsum and autoray (PennyLane's and quimb's dispatch) pick the array library from
  # `type(x).__module__`: JAX's are jaxlib._jax.ArrayImpl and jax._src.interpreters.*.
  out = run(lambda s: ["-m", "xjax", str(s)], tmp_path, BACKEND_BY_MODULE)
  assert "backends ['jaxlib', 'jax', 'jax', 'jax']" in out
  assert "type <class 'jaxlib._jax.ArrayImpl'> <class 'jax.numpy.float32'>" in out  # (as JAX)
  assert "pickles [0.0, 1.0, 2.0]" in out
  # PennyLane asks whether a tracer's value is known (JAX 0.10.2 serves it, deprecated)
  assert "concrete [True, True, False, False, True]" in out  # (as JAX 0.10.2 prints)
  assert "core.is_concrete is deprecated." in out


FUNCTION_MODULES = (REPO / "tests" / "data" / "program_reading_function_modules.txt").read_text()


def test_public_functions_and_errors_report_jaxs_modules(tmp_path):
  # What finds a function by module and name (pickle; fiddle's serialization and code
  # generation) writes JAX's public module where JAX's function names it.
  out = run(lambda s: ["-m", "xjax", str(s)], tmp_path, FUNCTION_MODULES)
  assert ("modules ['jax.numpy', 'jax.numpy', 'jax.numpy', 'jax.numpy.linalg', 'jax.lax', "
          "'jax.tree_util', 'jax.nn.initializers', 'jax.dtypes', 'jax._src.nn.functions']"
          ) in out  # (as JAX 0.10.2)
  assert "found again True" in out
  assert "private True True True" in out
  assert "error jax.errors TracerBoolConversionError" in out
