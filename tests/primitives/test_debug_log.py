"""xjax.debug.log (JAX 0.10.2's ``jax.debug.log``: debug.print's values as INFO records of
the logging module, at the caller's line) and the debug effect classes."""
import logging

import numpy as np
import pytest

import xjax
import xjax.numpy as jnp
from xjax import debug


@pytest.fixture
def records():
  got = []

  class Keep(logging.Handler):
    def emit(self, record):
      got.append(record)

  logger = logging.getLogger("xjax._src.primitives.debugging")
  handler, level = Keep(), logger.level
  logger.addHandler(handler)
  logger.setLevel(logging.INFO)
  try:
    yield got
  finally:
    logger.removeHandler(handler)
    logger.setLevel(level)


def _line_of(marker: str) -> int:
  lines = open(__file__).read().splitlines()
  return next(i + 1 for i, line in enumerate(lines) if line.rstrip().endswith(marker))


def test_log_records_formatted_values_at_the_callers_line(records):
  def f(x):
    debug.log("x={x} s={}", x.sum(), x=x)  # LOG-ONE
    debug.log(ordered=True)("two-call {}", x[0])  # LOG-TWO
    return x * 2

  f(jnp.arange(3.0))
  xjax.jit(f)(jnp.arange(3.0))
  xjax.effects_barrier()
  got = sorted((r.getMessage(), r.lineno) for r in records)
  one, two = _line_of("# LOG-ONE"), _line_of("# LOG-TWO")
  assert got == [("two-call 0.0", two), ("two-call 0.0", two),
                 ("x=[0. 1. 2.] s=3.0", one), ("x=[0. 1. 2.] s=3.0", one)]
  for r in records:  # as the reference's records
    assert (r.levelno, r.pathname, r.args, r.funcName) == (logging.INFO, __file__, (), None)


def test_log_without_placeholders_joins_values(records):
  debug.log("plain")
  debug.log("no placeholders", 1, np.int32(2), skip_format_check=True)
  assert [r.getMessage() for r in records] == ["plain", "no placeholders 1 2"]


def test_log_argument_errors():
  with pytest.raises(KeyError, match="a"):
    debug.log("{a}", b=1)
  with pytest.raises(ValueError, match=r"Unused keyword arguments to `jax.debug.print`: "
                                       r"\['ordered'\]"):
    debug.log(ordered=True)("{}", 1, ordered=True)
  with pytest.raises(TypeError, match="two-call form"):
    debug.log(None, 1)
  assert debug.log("{}", 1) is None and callable(debug.log())


def test_debug_effects_are_jax_classes():
  jaxpr = xjax.make_jaxpr(lambda x: debug.print("{}", x))(1.0)
  (effect,) = jaxpr.effects
  assert isinstance(effect, debug.DebugEffect) and str(effect) == "Debug"
  jaxpr = xjax.make_jaxpr(lambda x: debug.print("{}", x, ordered=True))(1.0)
  (effect,) = jaxpr.effects
  assert isinstance(effect, debug.OrderedDebugEffect) and effect.ordered
  assert not isinstance(effect, debug.DebugEffect)
  (effect,) = xjax.make_jaxpr(lambda x: debug.log("{}", x))(1.0).effects
  assert isinstance(effect, debug.DebugEffect)
  assert str(debug.OrderedDebugEffect()) == "OrderedDebug"
