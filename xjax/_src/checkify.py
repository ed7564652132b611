"""checkify: functionalized runtime checks (``jax.experimental.checkify``).

``check(pred, msg, *fmt_args)`` binds ``check_p``.  Outside ``checkify`` it raises eagerly when
``pred`` is false and cannot be staged (as JAX).  ``checkify(f, errors)`` traces ``f`` (checks
may then be staged, inside nested ``jit`` too) and interprets the jaxpr: each check, and with
``float_checks`` each primitive that creates a NaN or divides an integer by zero, adds one
boolean "failed" flag and its message's arguments to the returned ``Error``, a pytree that
``jit`` can return.  ``Error.get()`` formats the first failure in program order.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from xjax._src import dtypes, tree_util
from xjax._src.core import effects as fx
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal, literal_value
from xjax._src.core.trace import Primitive, Tracer
from xjax._src.core.values import get_aval
from xjax._src.lax import elementwise as ew, reductions


class JaxException(Exception):
  """Base of the error categories ``checkify`` can check for."""


class FailedCheckError(JaxException):
  """A user ``check`` whose predicate was false."""


class NaNError(JaxException):
  """A primitive produced a NaN from non-NaN inputs."""


class DivisionByZeroError(JaxException):
  """An integer division or remainder by zero."""


class OOBError(JaxException):
  """Out-of-bounds indexing."""


class JaxRuntimeError(ValueError):
  """Raised for a failed check (``check_error``, ``Error.throw``, an eager ``check``)."""


ErrorCategory = type[JaxException]
user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks

_state = threading.local()   # .depth: checkify traces under way in this thread


def _functionalizing() -> bool:
  return getattr(_state, "depth", 0) > 0


# ---------------------------------------------------------------------------------------
# check_p: one user check; operands (pred, *format-argument leaves).

class CheckEffect(fx.Effect):
  """A user check (``check_p``); allowed in control-flow bodies, as JAX's ErrorEffect."""
  __slots__ = ()


_effect = CheckEffect("Check")
fx.control_flow_allowed_effects.add_type(CheckEffect)


def _format(message: str, fmt_tree, fmt_leaves) -> str:
  args, kwargs = tree_util.tree_unflatten(fmt_tree, list(fmt_leaves))
  return message.format(*args, **kwargs) + " (`check` failed)"


def _check_impl(pred, *fmt_leaves, message, fmt_tree):
  if not bool(np.all(np.asarray(pred))):
    raise JaxRuntimeError(_format(message, fmt_tree, fmt_leaves))
  return []


_NOT_FUNCTIONALIZED = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
    "means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through "
    "`checkify.checkify`.")


def _check_abstract_eval(pred, *fmt, message, fmt_tree):
  if not _functionalizing():
    raise ValueError(_NOT_FUNCTIONALIZED)
  return []


def _check_batch(axis, args, dims, **params):
  from xjax._src.interpreters import batching
  check_p.bind(*[x if d is None else batching.moveaxis(x, d, 0) for x, d in zip(args, dims)],
               **params)
  return [], []


check_p = Primitive("check", multiple_results=True)
check_p.impl = _check_impl
check_p.abstract_eval = _check_abstract_eval
check_p.effects = lambda **_: (_effect,)
check_p.jvp = lambda primals, tangents, **params: (check_p.bind(*primals, **params), [])
check_p.batch = _check_batch


def _unstageable(ctx, *args, **params):   # the shape rule's verdict, when it was cached
  raise ValueError(_NOT_FUNCTIONALIZED)


check_p.lowering = _unstageable


def check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """Checks that ``pred`` (a boolean array) is all true; ``msg.format(*fmt_args, **fmt_kwargs)``
  is the error message.  Needs ``checkify`` to be staged under ``jit``."""
  if not isinstance(msg, str):
    raise TypeError(f"checkify.check takes a static message string, got {msg!r}")
  leaves, fmt_tree = tree_util.tree_flatten((fmt_args, fmt_kwargs))
  for leaf in leaves:
    if not (isinstance(leaf, (np.ndarray, np.generic, Tracer)) or hasattr(leaf, "aval")):
      raise TypeError("Formatting arguments to checkify.check need to be PyTrees of arrays, "
                      f"but got {leaf!r} of type {type(leaf)}.")
  if get_aval(pred).dtype != np.dtype(bool):
    raise TypeError(f"check takes a boolean predicate, got {get_aval(pred).dtype}")
  check_p.bind(pred, *leaves, message=msg, fmt_tree=fmt_tree)


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """``check`` that does nothing unless the function is ``checkify``-ed."""
  if _functionalizing() or not any(isinstance(x, Tracer)
                                   for x in tree_util.tree_leaves((pred, fmt_args, fmt_kwargs))):
    check(pred, msg, *fmt_args, **fmt_kwargs)


# ---------------------------------------------------------------------------------------
# Error: the failures a checkified function found, as a pytree.

@tree_util.register_pytree_node_class
class Error:
  """One (category, message, failed flag, message arguments) per check site, in order."""

  def __init__(self, sites: tuple = (), failed: tuple = (), payloads: tuple = ()) -> None:
    self._sites, self._failed, self._payloads = sites, tuple(failed), tuple(payloads)

  def tree_flatten(self):
    return (self._failed, self._payloads), self._sites

  @classmethod
  def tree_unflatten(cls, sites, children):
    return cls(sites, *children)

  def _first(self):
    for site, failed, payload in zip(self._sites, self._failed, self._payloads):
      if bool(np.any(np.asarray(failed))):
        return site, payload
    return None

  def get(self) -> str | None:
    """The message of the first failure, or None."""
    first = self._first()
    if first is None:
      return None
    (category, message, fmt_tree), payload = first
    if category is FailedCheckError:
      return _format(message, fmt_tree, payload)
    return message

  def get_exception(self) -> JaxException | None:
    first = self._first()
    return None if first is None else first[0][0](self.get())

  def throw(self) -> None:
    message = self.get()
    if message is not None:
      raise JaxRuntimeError(message)

  def __str__(self) -> str:
    return self.get() or "Error(no failure)"


def init_error() -> Error:
  return Error()


def check_error(error: Error) -> None:
  """Raises ``JaxRuntimeError`` if ``error`` holds a failure; under ``checkify`` (traced
  errors) it becomes checks of the enclosing checkified function."""
  if not isinstance(error, Error):
    raise TypeError(f"check_error takes a checkify.Error, got {type(error).__name__}")
  leaves = tree_util.tree_leaves(error)
  if not any(isinstance(x, Tracer) for x in leaves):
    return error.throw()
  for (category, message, fmt_tree), failed, payload in zip(error._sites, error._failed,
                                                            error._payloads):
    if category is not FailedCheckError:
      fmt_tree, payload = tree_util.tree_flatten(((), {}))
    check_p.bind(ew.bitwise_not(failed), *payload, message=message, fmt_tree=fmt_tree)


# ---------------------------------------------------------------------------------------
# checkify: trace, then interpret the jaxpr collecting failure flags.

def _any(x):
  aval = get_aval(x)
  return reductions.reduce_or(x, tuple(range(aval.ndim))) if aval.ndim else x


def _nan_flag(ins, outs):
  made = [_any(ew.ne(o, o)) for o in outs if dtypes.is_inexact(get_aval(o).dtype)]
  if not made:
    return None
  had = [_any(ew.ne(x, x)) for x in ins if dtypes.is_inexact(get_aval(x).dtype)]
  flag = made[0]
  for m in made[1:]:
    flag = ew.bitwise_or(flag, m)
  for h in had:
    flag = ew.bitwise_and(flag, ew.bitwise_not(h))
  return flag


_INTEGER_DIVISIONS = ("div", "rem")


class _Collector:
  def __init__(self, errors) -> None:
    self.errors, self.sites, self.failed, self.payloads = errors, [], [], []

  def add(self, site, failed, payload=()) -> None:
    self.sites.append(site)
    self.failed.append(failed)
    self.payloads.append(tuple(payload))

  def run(self, jaxpr: Jaxpr, consts, args) -> list:
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    read = lambda a: literal_value(a) if type(a) is Literal else env[a]
    for eqn in jaxpr.eqns:
      ins = [read(a) for a in eqn.invars]
      prim = eqn.primitive
      if prim is check_p:
        if FailedCheckError in self.errors:
          self.add((FailedCheckError, eqn.params["message"], eqn.params["fmt_tree"]),
                   ew.bitwise_not(_all(ins[0])), ins[1:])
        continue
      inner = eqn.params.get("jaxpr")
      if prim.name == "jit" and isinstance(inner, ClosedJaxpr):
        outs = self.run(inner.jaxpr, inner.consts, ins)      # inlined, so its checks count
      else:
        _refuse_checks_inside(eqn)
        outs = prim.bind(*ins, **eqn.params)
        outs = list(outs) if prim.multiple_results else [outs]
        self._automatic(prim, ins, outs)
      env.update(zip(eqn.outvars, outs))
    return [read(a) for a in jaxpr.outvars]

  def _automatic(self, prim, ins, outs) -> None:
    if NaNError in self.errors:
      flag = _nan_flag(ins, outs)
      if flag is not None:
        self.add((NaNError, f"nan generated by primitive: {prim.name}.", None), flag)
    if (DivisionByZeroError in self.errors and prim.name in _INTEGER_DIVISIONS
        and dtypes.is_integer(get_aval(ins[1]).dtype)):
      zero = ew.convert_element_type(0, get_aval(ins[1]).dtype)
      self.add((DivisionByZeroError, "division by zero", None), _any(ew.eq(ins[1], zero)))


def _all(pred):
  aval = get_aval(pred)
  return reductions.reduce_and(pred, tuple(range(aval.ndim))) if aval.ndim else pred


def _has_checks(value) -> bool:
  jaxprs = [value.jaxpr] if isinstance(value, ClosedJaxpr) else [value] if isinstance(
      value, Jaxpr) else [v for v in value if isinstance(v, (Jaxpr, ClosedJaxpr))] if isinstance(
      value, (tuple, list)) else []
  for j in jaxprs:
    j = j.jaxpr if isinstance(j, ClosedJaxpr) else j
    for eqn in j.eqns:
      if eqn.primitive is check_p or any(_has_checks(p) for p in eqn.params.values()):
        return True
  return False


def _refuse_checks_inside(eqn) -> None:
  if any(_has_checks(p) for p in eqn.params.values()):
    raise NotImplementedError(
        f"checkify: a check inside `{eqn.primitive.name}` (lax control flow or another "
        "higher-order primitive) is not supported by xjax yet; see docs/differences.md")


def checkify(f: Callable, errors=user_checks) -> Callable:
  """``checkify(f, errors)(*args)`` returns ``(Error, f(*args))``, the Error holding the
  failures of ``f``'s checks of the ``errors`` categories."""
  errors = frozenset(errors)
  unknown = errors - all_checks
  if unknown:
    raise TypeError(f"checkify: unknown error categories {sorted(map(str, unknown))}")
  if OOBError in errors:
    raise NotImplementedError("checkify: index_checks (out-of-bounds indexing) are not "
                              "supported by xjax yet; see docs/differences.md")

  def checked(*args, **kwargs):
    from xjax._src.jit import make_jaxpr
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    out_tree = []

    def flat(*leaves):
      a, k = tree_util.tree_unflatten(in_tree, list(leaves))
      out, tree = tree_util.tree_flatten(f(*a, **k))
      out_tree.append(tree)
      return out

    _state.depth = getattr(_state, "depth", 0) + 1
    try:
      closed = make_jaxpr(flat)(*leaves)
    finally:
      _state.depth -= 1
    collector = _Collector(errors)
    outs = collector.run(closed.jaxpr, closed.consts, leaves)
    error = Error(tuple(collector.sites), collector.failed, collector.payloads)
    return error, tree_util.tree_unflatten(out_tree[0], outs)
  return checked
