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


def test_print_forms_and_options_as_jax(capfd):
  # outputs as JAX 0.10.2 prints them
  x = jnp.arange(6.).reshape(2, 3)
  debug.print("a {} b {c}", x, c=3)
  debug.print("no fields", x, skip_format_check=True)  # values joined after the text
  xjax.jit(lambda y: debug.print("jit {y}", y=y))(x)
  xjax.vmap(lambda y: debug.print("vm {}", y))(x)
  debug.print(ordered=True)("two-call {}", 1.5)
  debug.callback(ordered=True)(lambda a, s: print("cb", a, s), x, "st")
  with np.printoptions(precision=2):  # the options in effect when traced
    f = xjax.jit(lambda y: debug.print("prec {}", y / 3))
    f(x)
  xjax.grad(lambda y: (debug.print("g {}", y), y * 2)[1])(1.)
  assert capfd.readouterr().out == (
      "a [[0. 1. 2.]\n [3. 4. 5.]] b 3\n"
      "no fields [[0. 1. 2.]\n [3. 4. 5.]]\n"
      "jit [[0. 1. 2.]\n [3. 4. 5.]]\n"
      "vm [0. 1. 2.]\nvm [3. 4. 5.]\n"
      "two-call 1.5\n"
      "cb [[0. 1. 2.]\n [3. 4. 5.]] st\n"
      "prec [[0.   0.33 0.67]\n [1.   1.33 1.67]]\n"
      "g 1.0\n")
  with pytest.raises(IndexError):
    debug.print("{} {}", 1)
  with pytest.raises(TypeError, match="unexpected arguments in the two-call form"):
    debug.print(None, 1)
  with pytest.raises(TypeError, match="unexpected arguments in the two-call form"):
    debug.callback(None, 1)
