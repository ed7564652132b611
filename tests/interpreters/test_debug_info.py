"""`DebugInfo`: the description of a traced function that jaxprs carry (JAX's NamedTuple
`(traced_for, func_src_info, arg_names, result_paths)` and its methods); the values are
those JAX 0.10.2 gives for the same calls."""
import functools

import pytest

import xjax
from xjax import lax
from xjax.extend.core import DebugInfo


def f(x, y, *, z=1.):
  return {"a": x + y, "b": x * z}


F_SRC = f"f at {__file__}:13"


def test_make_jaxpr_records_function_argument_and_result_names():
  d = xjax.make_jaxpr(f)(1., 2., z=3.).jaxpr.debug_info
  assert d == DebugInfo("jit", F_SRC, ("x", "y", "z"), ("result['a']", "result['b']"))
  assert repr(d) == (f"DebugInfo(traced_for='jit', func_src_info='{F_SRC}', "
                     "arg_names=('x', 'y', 'z'), result_paths=(\"result['a']\", "
                     "\"result['b']\"))")
  assert DebugInfo._fields == ("traced_for", "func_src_info", "arg_names", "result_paths")
  assert d.traced_for == "jit"   # as kfac-jax reads it


def test_names_of_nested_varargs_and_results():
  def g(x, *args, **kw):
    return x
  d = xjax.make_jaxpr(g)(1., (2., 3.), k={"u": 1.}).jaxpr.debug_info
  assert d.arg_names == ("x", "args[0][0]", "args[0][1]", "kw['k']['u']")
  assert d.result_paths == ("result",)
  d = xjax.make_jaxpr(lambda x: [x, (x, x)])(1.).jaxpr.debug_info
  assert d.result_paths == ("result[0]", "result[1][0]", "result[1][1]")
  assert xjax.make_jaxpr(lambda x: None)(1.).jaxpr.debug_info.result_paths == ()
  d = xjax.make_jaxpr(lambda x: x)({"a": 1., "b": [2.]}).jaxpr.debug_info
  assert d.arg_names == ("x['a']", "x['b'][0]")
  assert d.result_paths == ("result['a']", "result['b'][0]")


def test_jit_partial_and_callable_objects():
  d = xjax.jit(f).trace(1., 2.).jaxpr.jaxpr.debug_info
  assert d == DebugInfo("jit", F_SRC, ("x", "y"), ("result['a']", "result['b']"))
  d = xjax.jit(lambda x, s: x, static_argnums=1).trace(1., 2).jaxpr.jaxpr.debug_info
  assert d.arg_names == ("x",) and d.result_paths == ("result",)
  assert xjax.make_jaxpr(functools.partial(f, 1.))(1.).jaxpr.debug_info == DebugInfo(
      "jit", F_SRC, ("y",), ("result['a']", "result['b']"))

  class C:
    def __call__(self, x):
      return x
  assert xjax.make_jaxpr(C())(1.).jaxpr.debug_info == DebugInfo(
      "jit", "<unknown>", ("x",), ("result",))


def test_loop_bodies_name_the_api_tracing_them():
  eqn = xjax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c + 1, x))(
      1.).eqns[-1]
  assert eqn.params["cond_jaxpr"].jaxpr.debug_info.traced_for == "while_cond"
  assert eqn.params["body_jaxpr"].jaxpr.debug_info.traced_for == "while_body"


def test_source_line_name_and_file():
  d = DebugInfo("jit", "f at x.py:3", ("a", None), ("r", "s"))
  assert (d.func_name, d.func_filename, d.func_lineno) == ("f", "x.py", 3)
  for src in ("f", "f at x", "f at x:y"):
    assert DebugInfo("jit", src, None, None).func_filename is None
    assert DebugInfo("jit", src, None, None).func_lineno is None
  assert DebugInfo("jit", "<unknown>", None, None).func_name == "<unknown>"
  assert DebugInfo("jit", "f g at x.py:3", None, None).func_name == "f"
  assert d.replace_func_name("h").func_src_info == "h at x.py:3"
  assert DebugInfo("jit", "<unknown>", None, None).replace_func_name("h").func_src_info == "h"


def test_names_safe_filtered_and_forgotten():
  d = DebugInfo("jit", "f at x.py:3", ("a", None), ("r", "s"))
  assert d.safe_arg_names(2) == ("a", None) and d.safe_result_paths(2) == ("r", "s")
  assert d.filter_arg_names([False, True]) == (None,)
  assert d.filter_result_paths([True, False]) == ("r",)
  with pytest.raises(AssertionError):
    d.safe_arg_names(3)
  with pytest.raises(AssertionError):
    d.assert_result_paths(3)
  unknown = d.with_unknown_names()
  assert unknown == DebugInfo("jit", "f at x.py:3", None, None)
  assert unknown.safe_arg_names(2) == ("", "") and unknown.safe_result_paths(1) == ("",)
  assert unknown.filter_arg_names([True]) is None
  assert unknown.set_result_paths({"a": 1, "b": (2,)}).result_paths == (
      "result['a']", "result['b'][0]")
  assert hash(d) == hash(DebugInfo("jit", "f at x.py:3", ("a", None), ("r", "s")))


def test_result_paths_thunk_is_resolved_once_known():
  thunk = lambda: ("r0",)
  d = DebugInfo("jit", "f at x.py:3", ("a", "b"), thunk)
  assert d.result_paths is thunk
  with pytest.raises(AssertionError):
    d.safe_result_paths(1)
  assert d.resolve_result_paths().result_paths == ("r0",)
  plain = DebugInfo("jit", "f", None, None)
  assert plain.resolve_result_paths() is plain
