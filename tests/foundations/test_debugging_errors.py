"""jax_debug_nans/infs, xjax.errors (names, bases, traceback filtering) and explanations of
jit cache misses.  Expected classes and messages follow JAX 0.10.2."""
import logging
import traceback
import warnings

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import errors
from xjax._src.foundations.config import config


@pytest.fixture
def debug_nans():
  with config._override("jax_debug_nans", True):
    yield


def test_debug_nans_under_jit_names_primitive_and_line(debug_nans):
  @xjax.jit
  def f(x):
    y = x * 2
    return jnp.log(y - 10)  # the offending line

  with pytest.raises(FloatingPointError, match="invalid value \\(nan\\) encountered in log")\
      as info:
    f(1.0)
  assert "test_debugging_errors.py" in str(info.value) and "(f)" in str(info.value)
  assert float(f(10.0)) == pytest.approx(np.log(10.0))


def test_debug_nans_eager_and_infs():
  with config._override("jax_debug_nans", True):
    with pytest.raises(FloatingPointError, match="nan"):
      jnp.log(-1.0)
  with config._override("jax_debug_infs", True):
    with pytest.raises(FloatingPointError, match="inf"):
      xjax.jit(lambda x: 1.0 / x)(jnp.zeros(()))


def test_debug_nans_not_reproduced_op_by_op(debug_nans):
  with pytest.raises(FloatingPointError, match="de-optimized function"):
    xjax.jit(lambda x: x + jnp.nan)(1.0)


@pytest.mark.parametrize("name,bases", [
    ("JAXTypeError", (TypeError,)), ("JAXIndexError", (IndexError,)),
    ("ConcretizationTypeError", (errors.JAXTypeError,)),
    ("TracerBoolConversionError", (errors.ConcretizationTypeError,)),
    ("TracerIntegerConversionError", (errors.JAXTypeError,)),
    ("TracerArrayConversionError", (errors.JAXTypeError,)),
    ("NonConcreteBooleanIndexError", (errors.JAXIndexError,)),
    ("UnexpectedTracerError", (errors.JAXTypeError,)),
    ("KeyReuseError", (errors.JAXTypeError,)),
    ("JaxRuntimeError", (RuntimeError,)),
])
def test_error_classes_have_jax_bases(name, bases):
  cls = getattr(errors, name)
  assert all(issubclass(cls, b) for b in bases)


def test_traceback_filtering_shows_user_frames():
  @xjax.jit
  def f(x):
    if x > 0:
      return x
    return -x

  with pytest.raises(errors.TracerBoolConversionError) as info:
    f(1.0)
  files = [fr.filename for fr in traceback.extract_tb(info.value.__traceback__)]
  internal = [p for p in files if "/xjax/_src/" in p]
  assert internal == [p for p in internal if p.endswith("jit.py")]  # only the re-raise
  assert len(internal) <= 1
  with config._override("jax_traceback_filtering", "off"):
    with pytest.raises(errors.TracerBoolConversionError) as info:
      xjax.jit(lambda x: bool(x))(1.0)
    files = [fr.filename for fr in traceback.extract_tb(info.value.__traceback__)]
    assert sum("/xjax/_src/" in p for p in files) > 3


def test_traceback_filtering_modes():
  """"tracebackhide" keeps every frame and marks xjax's with ``__tracebackhide__`` (IPython
  and pytest hide them); "remove_frames" removes them and chains an UnfilteredStackTrace,
  holding the whole traceback, as the cause (flax's traceback_util tests check both)."""
  from xjax._src.compat.jax_private_compat import traceback_util

  def failing(x):
    return xjax.jit(lambda y: bool(y))(x)

  def raised(mode):
    with config._override("jax_traceback_filtering", mode):
      with pytest.raises(errors.TracerBoolConversionError) as info:
        xjax.grad(failing)(1.0)
    return info.value

  every = list(traceback.walk_tb(raised("off").__traceback__))
  hidden = raised("tracebackhide")
  marked = [f for f, _ in traceback.walk_tb(hidden.__traceback__)
            if "__tracebackhide__" in f.f_locals]
  shown = [f.f_code.co_filename for f, _ in traceback.walk_tb(hidden.__traceback__)
           if "__tracebackhide__" not in f.f_locals]
  assert len(marked) > 3 and all("/xjax/" in f.f_code.co_filename for f in marked)
  assert shown and not any("/xjax/_src/" in name for name in shown)
  assert len(marked) + len(shown) >= len(every) - 1
  removed = raised("remove_frames")
  assert isinstance(removed.__cause__, traceback_util.UnfilteredStackTrace)
  kept = list(traceback.walk_tb(removed.__traceback__))
  whole = list(traceback.walk_tb(removed.__cause__.__traceback__))
  assert not any("/xjax/_src/" in f.f_code.co_filename for f, _ in kept)
  assert len(whole) > len(kept) + 3
  assert not getattr(removed, "__notes__", None)
  quiet = raised("quiet_remove_frames")
  assert quiet.__cause__ is None and "xjax removed its internal frames" in quiet.__notes__[-1]


def test_explain_cache_misses_logs_the_changed_argument(caplog):
  def f(x, n):
    return x * n
  g = xjax.jit(f, static_argnums=1)
  with config._override("jax_explain_cache_misses", True), caplog.at_level(logging.WARNING,
                                                                             "xjax"):
    g(jnp.ones(2), 1)
    g(jnp.ones(3), 1)
    g(jnp.ones(3), 2)
    g(jnp.ones(3, jnp.int32), 2)
    g(jnp.ones(3), 2)  # a hit: nothing logged
  msgs = [r.getMessage() for r in caplog.records]
  assert len(msgs) == 4
  assert "never seen function" in msgs[0] and "f defined at" in msgs[0]
  assert "different input type at x, now f32[3] and before f32[2]" in msgs[1]
  assert "different static argument at position 1, now 2 and before 1" in msgs[2]
  assert "different input type at x, now i32[3] and before f32[3]" in msgs[3]


def test_explain_cache_misses_names_the_mapped_axes_around_a_call(caplog):
  g = xjax.jit(lambda x: x * 2)
  with config._override("jax_explain_cache_misses", True), caplog.at_level(logging.WARNING,
                                                                             "xjax"):
    g(jnp.float32(1))
    xjax.vmap(g)(jnp.ones(3))   # (traced again: inside the vmap, with its axis)
  assert ("different mapped axes around the call (vmap or shard_map: (name, size) pairs), "
          "now [(None, 3)] and before []" in caplog.records[-1].getMessage())


def test_retrace_notice_once_after_threshold(caplog):
  # A log record on the "xjax" logger, not a Python warning: under `-W error` (pytest's
  # filterwarnings = error) a retracing program runs as on JAX.
  h = xjax.jit(lambda x, n: x * n, static_argnums=1)
  with warnings.catch_warnings():
    warnings.simplefilter("error")
    with caplog.at_level(logging.WARNING, logger="xjax"):
      for i in range(25):
        h(1.0, i)
  ours = [r.getMessage() for r in caplog.records if "has been traced" in r.getMessage()]
  assert len(ours) == 1
  assert "has been traced 11 times" in ours[0]
  assert "different static argument at position 1, now 10 and before 9" in ours[0]


def test_no_retrace_notice_for_xjax_internal_functions(caplog):
  with caplog.at_level(logging.WARNING, logger="xjax"):
    key = xjax.random.key(0)
    for n in range(1, 14):
      xjax.random.normal(key, (n,))
  assert not [r for r in caplog.records if "has been traced" in r.getMessage()]


# ---------------------------------------------------------------------------------------
# jax_check_tracer_leaks

_stored = []


def _leaky(x):
  _stored.append(x)
  return x * 2


@pytest.mark.parametrize("name,run,trace", [
    ("jit", lambda: xjax.jit(_leaky)(1.0), "DynamicJaxprTrace"),
    ("make_jaxpr", lambda: xjax.make_jaxpr(_leaky)(1.0), "DynamicJaxprTrace"),
    ("vmap", lambda: xjax.vmap(_leaky)(jnp.ones(2)), "BatchTrace"),
    ("scan", lambda: xjax.lax.scan(lambda c, x: (_leaky(c), x), 1.0, jnp.ones(2)),
     "DynamicJaxprTrace"),
    ("cond", lambda: xjax.jit(lambda x: xjax.lax.cond(x > 0, _leaky, _leaky, x))(1.0),
     "DynamicJaxprTrace"),
])
def test_check_tracer_leaks_raises_where_the_transformation_ends(name, run, trace):
  _stored.clear()
  with xjax.checking_leaks():
    with pytest.raises(Exception, match=f"Leaked trace {trace}") as info:
      run()
  assert type(info.value) is Exception   # JAX's class: not a TypeError
  msg = str(info.value)
  assert "float32[]" in msg and f"{__name__}._stored" in msg  # the aval and the holder
  if trace == "DynamicJaxprTrace":
    assert "_leaky" in msg or "<lambda>" in msg
  _stored.clear()


def test_check_tracer_leaks_off_and_clean_functions():
  _stored.clear()
  xjax.jit(_leaky)(1.0)  # off by default: the leak shows only when the tracer is used
  with pytest.raises(errors.UnexpectedTracerError):
    jnp.sin(_stored[0])
  _stored.clear()
  with xjax.checking_leaks():
    assert float(xjax.jit(lambda x: jnp.sin(x + 1))(0.0)) == pytest.approx(np.sin(1.0))
    np.testing.assert_allclose(xjax.vmap(lambda x: (x, 1.0))(jnp.ones(2))[0], [1., 1.])
    assert float(xjax.grad(lambda x: xjax.lax.fori_loop(0, 3, lambda i, c: c * x, x))(2.0)) \
        == 32.0
    # grad, jvp and vjp are not checked, as in JAX.
    xjax.grad(_leaky)(1.0)
  _stored.clear()


# ---------------------------------------------------------------------------------------
# Traceback filtering at every transformation's entry point

def _raises_in_user_code(x):
  raise ValueError("user error")


@pytest.mark.parametrize("run", [
    lambda: xjax.grad(_raises_in_user_code)(1.0),
    lambda: xjax.value_and_grad(_raises_in_user_code)(1.0),
    lambda: xjax.vmap(_raises_in_user_code)(jnp.ones(2)),
    lambda: xjax.jvp(_raises_in_user_code, (1.0,), (1.0,)),
    lambda: xjax.vjp(_raises_in_user_code, 1.0),
    lambda: xjax.linearize(_raises_in_user_code, 1.0),
    lambda: xjax.jacfwd(_raises_in_user_code)(1.0),
    lambda: xjax.hessian(_raises_in_user_code)(1.0),
    lambda: xjax.make_jaxpr(_raises_in_user_code)(1.0),
    lambda: xjax.eval_shape(_raises_in_user_code, 1.0),
    lambda: xjax.grad(xjax.checkpoint(_raises_in_user_code))(1.0),
    lambda: xjax.lax.scan(lambda c, x: (_raises_in_user_code(c), x), 1.0, jnp.ones(2)),
    lambda: xjax.lax.cond(True, _raises_in_user_code, _raises_in_user_code, 1.0),
    lambda: xjax.jit(xjax.grad(lambda x: xjax.vmap(_raises_in_user_code)(x).sum()))(
        jnp.ones(2)),
])
def test_transformations_filter_tracebacks(run):
  with pytest.raises(ValueError, match="user error") as info:
    run()
  frames = traceback.extract_tb(info.value.__traceback__)
  assert [f for f in frames if "/xjax/" in f.filename] == []
  assert frames[-1].name == "_raises_in_user_code"  # as the reference: the user's frame last
  assert "removed its internal frames" in info.value.__notes__[0]
  with config._override("jax_traceback_filtering", "off"):
    with pytest.raises(ValueError) as info:
      run()
  assert any("/xjax/" in f.filename for f in traceback.extract_tb(info.value.__traceback__))


def test_traceback_filtering_of_xjax_errors_keeps_the_users_line():
  def f(x):
    return jnp.ones(3) + jnp.ones(4) + x
  with pytest.raises(TypeError) as info:
    xjax.grad(f)(1.0)
  frames = traceback.extract_tb(info.value.__traceback__)
  assert frames[-1].name == "f" and [fr for fr in frames if "/xjax/" in fr.filename] == []
