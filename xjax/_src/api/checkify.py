"""checkify: functionalized runtime checks (``jax.experimental.checkify``).

``check(pred, msg, *fmt_args)`` binds ``check_p``.  Outside ``checkify`` it raises eagerly when
``pred`` is false and cannot be staged (as JAX).  ``checkify(f, errors)`` traces ``f`` (checks
may then be staged, inside nested ``jit`` too) and interprets the jaxpr (``_Collector``): each
check, and each primitive that an enabled automatic category watches (NaNs, division by
zero, out-of-bounds indices), adds one boolean "failed" flag and its message's arguments to
the returned ``Error``, a pytree that ``jit`` can return.  Higher-order primitives
(control flow, shard_map, checkpoint, custom derivatives) have rules that interpret their
bodies (``checkify_rules.py``, which fills ``error_checks``).  ``Error.get()`` formats the
first failure in program order; flags with a shape (a check inside ``shard_map``/``pmap``)
give one message per failing mapped index.
"""
from __future__ import annotations

import threading
from typing import Callable

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.core import effects as fx
from xjax._src.core.jaxpr import ClosedJaxpr, Jaxpr, Literal, literal_value
from xjax._src.core.trace import Primitive, Tracer
from xjax._src.core.typed_ndarray import typed_value
from xjax._src.core.values import get_aval
from xjax._src.primitives.lax import elementwise as ew, reductions, shapes
from xjax._src.api.make_jaxpr import make_jaxpr
from xjax._src.execution.basearray import Array


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


def _message(category, message: str, fmt_tree, payload) -> str:
  """A failure's text: a user check's message formatted with its arguments; an
  out-of-bounds index's with its payload (index, axis, size); the others' as they are."""
  if category is FailedCheckError:
    args, kwargs = tree_util.tree_unflatten(fmt_tree, list(payload))
    return message.format(*args, **kwargs) + " (`check` failed)"
  if category is OOBError:
    return message.format(*np.asarray(payload[0]).tolist())
  return message


def _check_impl(pred, *fmt_leaves, message, fmt_tree, category=FailedCheckError):
  if not bool(np.all(np.asarray(pred))):
    raise JaxRuntimeError(_message(category, message, fmt_tree, fmt_leaves))
  return []


_NOT_FUNCTIONALIZED = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
    "means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through "
    "`checkify.checkify`.")


def _check_abstract_eval(pred, *fmt, **params):
  if not _functionalizing():
    raise ValueError(_NOT_FUNCTIONALIZED)
  return []


def _check_batch(axis, args, dims, **params):
  # Every operand batched at 0: the pred's dimensions are batch dimensions (a check's own
  # pred is a scalar), which the message arguments share.
  from xjax._src.interpreters import batching
  check_p.bind(*[batching.matchaxis(x, d, 0, axis.size) for x, d in zip(args, dims)],
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
  """Checks that ``pred`` (a scalar boolean: a Python bool or an Array) holds;
  ``msg.format(*fmt_args, **fmt_kwargs)`` is the error message, its arguments arrays.
  Needs ``checkify`` to be staged under ``jit``."""
  _check(pred, msg, fmt_args, fmt_kwargs, debug=False)


def debug_check(pred, msg: str, *fmt_args, **fmt_kwargs) -> None:
  """``check`` that does nothing unless the function is ``checkify``-ed."""
  _check(pred, msg, fmt_args, fmt_kwargs, debug=True)


def _check(pred, msg, fmt_args, fmt_kwargs, debug: bool) -> None:
  if not isinstance(msg, str):
    raise TypeError(f"checkify.check takes a static message string, got {msg!r}")
  if not (isinstance(pred, bool) or isinstance(pred, Array) and np.shape(pred) == ()
          and pred.dtype == np.dtype(bool)):
    name = "debug_check" if debug else "check"
    raise TypeError(f"{name} takes a scalar pred as argument, got {pred}")
  leaves, fmt_tree = tree_util.tree_flatten((fmt_args, fmt_kwargs))
  for leaf in leaves:
    if not isinstance(leaf, (Array, np.ndarray)):
      raise TypeError("Formatting arguments to checkify.check need to be PyTrees of arrays, "
                      f"but got {leaf!r} of type {type(leaf)}.")
  if not debug or _functionalizing():
    check_p.bind(pred, *leaves, message=msg, fmt_tree=fmt_tree)


# ---------------------------------------------------------------------------------------
# Error: the failures a checkified function found, as a pytree.

@tree_util.register_pytree_node_class
class Error:
  """One (category, message, format tree) site, failed flag and message arguments per check,
  in program order.  A flag with a shape (a check inside shard_map or pmap) holds one flag
  per mapped index; the site's arguments then lead with the same dimensions."""

  def __init__(self, sites: tuple = (), failed: tuple = (), payloads: tuple = ()) -> None:
    self._sites, self._failed, self._payloads = sites, tuple(failed), tuple(payloads)

  def tree_flatten(self):
    return (self._failed, self._payloads), self._sites

  @classmethod
  def tree_unflatten(cls, sites, children):
    return cls(sites, *children)

  def _failures(self) -> list:
    """(mapped index, site, message) of the first failure at each mapped index."""
    flags = [np.asarray(f) for f in self._failed]
    shape = next((f.shape for f in flags if f.shape), ())
    found = []
    for idx in np.ndindex(*shape):
      for site, flag, payload in zip(self._sites, flags, self._payloads):
        if flag.shape:
          if flag[idx]:
            found.append((idx, site, _message(*site, [p[idx] for p in payload])))
            break
        elif flag:
          found.append((idx, site, _message(*site, payload)))
          break
    return found

  def get(self) -> str | None:
    """The message of the first failure (one per failing mapped index), or None."""
    found = self._failures()
    if not found:
      return None
    if not found[0][0]:
      return found[0][2]
    return "\n".join(f"at mapped index {', '.join(map(str, idx))}: {message}"
                     for idx, _, message in found)

  def get_exception(self) -> JaxException | None:
    found = self._failures()
    return None if not found else found[0][1][0](self.get())

  def throw(self) -> None:
    """Raises the first failure; of mapped flags, the first site's at the last mapped index
    where it failed (as JAX reduces them), without the index."""
    for site, flag, payload in zip(self._sites, self._failed, self._payloads):
      flag = np.asarray(flag)
      if flag.shape and flag.any():
        idx = np.unravel_index(flag.size - 1 - int(np.argmax(flag.ravel()[::-1])), flag.shape)
        raise JaxRuntimeError(_message(*site, [p[idx] for p in payload]))
      if not flag.shape and flag:
        raise JaxRuntimeError(_message(*site, payload))

  def __str__(self) -> str:
    return f"Error({self.get()})"


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
    extra = {} if category is FailedCheckError else {"category": category}
    check_p.bind(ew.bitwise_not(failed), *payload, message=message, fmt_tree=fmt_tree, **extra)


# ---------------------------------------------------------------------------------------
# checkify: trace, then interpret the jaxpr collecting failure flags.

# primitive -> rule(collector, eqn, operands) -> outputs: what checkify does for an equation
# instead of binding it (adding failure sites); filled by checkify_rules.py.
error_checks: dict = {}


class _Collector:
  """Evaluates jaxprs (eagerly, or under the caller's transformations) gathering one
  failed flag and payload per check site of the enabled ``errors``."""

  def __init__(self, errors) -> None:
    self.errors, self.sites, self.failed, self.payloads = errors, [], [], []

  def add(self, site, failed, payload=()) -> None:
    self.sites.append(site)
    self.failed.append(failed)
    self.payloads.append(tuple(payload))

  def add_flat(self, sites, payload_counts, flat) -> None:
    """Adds ``sites`` from ``flat``: their failed flags, then their payloads' leaves."""
    flags, rest = list(flat[:len(sites)]), iter(flat[len(sites):])
    for site, flag, n in zip(sites, flags, payload_counts):
      self.add(site, flag, [next(rest) for _ in range(n)])

  def flat(self) -> list:
    """The failed flags, then every site's payload leaves (``add_flat``'s order)."""
    return list(self.failed) + [p for ps in self.payloads for p in ps]

  def run(self, jaxpr: Jaxpr, consts, args) -> list:
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    read = lambda a: literal_value(a) if type(a) is Literal else env[a]
    for eqn in jaxpr.eqns:
      ins = [read(a) for a in eqn.invars]
      rule = error_checks.get(eqn.primitive)
      if rule is not None:
        outs = rule(self, eqn, ins)
      else:
        _refuse_checks_inside(eqn)
        outs = bind_equation(eqn, ins)
      env.update(zip(eqn.outvars, outs))
    return [read(a) for a in jaxpr.outvars]


def bind_equation(eqn, ins) -> list:
  outs = eqn.primitive.bind(*ins, **eqn.params)
  return list(outs) if eqn.primitive.multiple_results else [outs]


def _check_rule(collector, eqn, ins) -> list:
  """A check: its failed flag; a batched one (vmapped) fails where any member does, with
  the arguments of the last member that fails (as JAX)."""
  params = eqn.params
  category = params.get("category", FailedCheckError)
  if category in collector.errors:
    bad, payload = ew.bitwise_not(ins[0]), ins[1:]
    if get_aval(bad).ndim:
      bad, payload = _last_failure(bad, payload)
    if bad is not None:
      collector.add((category, params["message"], params["fmt_tree"]), bad, payload)
  return []


def _last_failure(bad, payload):
  """(any of ``bad``, the payload leaves at its last true index), over ``bad``'s dims,
  which lead each leaf; (None, None) when there are no members."""
  shape = get_aval(bad).shape
  n = int(np.prod(shape))
  if n == 0:
    return None, None
  flat = shapes.reshape(bad, (n,))
  last = ew.sub(np.int32(n - 1), reductions.argmax(shapes.rev(flat, (0,)), 0, np.int32))
  picked = []
  for leaf in payload:
    aval = get_aval(leaf)
    if aval.shape[:len(shape)] != shape:
      leaf = shapes.broadcast_in_dim(leaf, shape + aval.shape,
                                     tuple(range(len(shape), len(shape) + aval.ndim)))
      aval = get_aval(leaf)
    rows = shapes.reshape(leaf, (n,) + aval.shape[len(shape):])
    picked.append(shapes.dynamic_index_in_dim(rows, last, 0, keepdims=False))
  return reductions.reduce_or(flat, (0,)), picked


error_checks[check_p] = _check_rule


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
        f"checkify: a check inside `{eqn.primitive.name}` (a higher-order primitive without "
        "a checkify rule) is not supported by xjax yet; see docs/differences.md")


def checkify(f: Callable, errors=user_checks) -> Callable:
  """``checkify(f, errors)(*args)`` returns ``(Error, f(*args))``, the Error holding the
  failures of ``f``'s checks of the ``errors`` categories."""
  errors = frozenset(errors)   # (classes of no category check nothing, as in JAX)

  def checked(*args, **kwargs):
    # The arguments are closed over, as JAX's checkify: ``f`` sees Python scalars as they
    # are and arrays as constants of the traced program (operations on them are staged).
    out_tree = []

    def flat():
      out, tree = tree_util.tree_flatten(f(*args, **kwargs))
      out_tree.append(tree)
      return out

    _state.depth = getattr(_state, "depth", 0) + 1
    try:
      closed = make_jaxpr(flat)()
    finally:
      _state.depth -= 1
    collector = _Collector(errors)
    outs = [typed_value(x, v.aval) for x, v in
            zip(collector.run(closed.jaxpr, closed.consts, []), closed.jaxpr.outvars)]
    error = Error(tuple(collector.sites), collector.failed, collector.payloads)
    return error, tree_util.tree_unflatten(out_tree[0], outs)
  return checked


from xjax._src.api import checkify_rules  # noqa: E402,F401  (fills error_checks)
