"""Host evaluation: small eager computations run with NumPy, bit for bit as XLA:CPU runs them.

A PJRT executable call costs microseconds before any arithmetic, so on small arrays an eager
operation is mostly dispatch. Where the only device is a CPU, a small uncommitted Array can
hold its value on the host (``Array._host``, see ``array.py``), and the primitives whose
results NumPy computes exactly as XLA:CPU does have a host rule: ``prim.host_kernel(avals,
out_avals, **params)`` returns a function of NumPy arrays for those types, or None where
NumPy would differ (a transcendental function, a reduction whose order XLA chooses, a cast
that saturates in XLA). A primitive applied to host values, or a jitted function of host
values whose every equation has a kernel, then runs here; anything else runs compiled as
before, the host values put on the device first.

What XLA:CPU does that NumPy does not, found by testing (``tests/execution/
test_host_eval.py`` sweeps every kernel against the compiled primitive):
- it flushes subnormal floats to zero, in the inputs of arithmetic and in its results: host
  values hold no subnormals (``usable`` refuses them), and kernels whose results can be
  subnormal pass them through ``flush_subnormals``;
- it raises no floating-point warnings: kernels that can meet overflow, division by zero or
  invalid operations run under ``quiet``.
"""
from __future__ import annotations

import operator

import numpy as np

from xjax._src.foundations import tree_util
from xjax._src.core.avals import ShapedArray, canonical
from xjax._src.core.jaxpr import Literal
from xjax._src.core.jaxpr_cache import bounded_put
from xjax._src.core.trace import current_trace, eval_trace
from xjax._src.execution.array import Array, from_host
from xjax._src.execution.host_values import (
    FETCHES_BEFORE_COMPILING, HOST_DTYPES, HOST_MAX_SIZE, TINY, enabled, has_subnormals,
    scan_floats, usable)
from xjax._src.execution.result_checks import checks_results

# Equations in a jitted function that still runs op by op on the host: beyond, one compiled
# call costs less than an interpreted loop.
HOST_MAX_EQNS = 8


def flush_subnormals(value: np.ndarray) -> np.ndarray:
  """``value`` with its subnormal floats replaced by zeros of their sign, as XLA:CPU's
  arithmetic leaves them."""
  if not has_subnormals(value):
    return value
  return _flushed(value)


def _flushed(value: np.ndarray) -> np.ndarray:
  magnitude = np.abs(value)
  return np.where((magnitude < TINY[value.dtype]) & (magnitude > 0),
                  np.copysign(np.zeros((), value.dtype), value), value)


_COMMUTATIVE = (np.add, np.multiply)


def _ieee_arithmetic(ufunc, avals, out_aval):
  """A float kernel of the binary IEEE operation ``ufunc`` as XLA:CPU computes it: its
  subnormal results flushed, and of two NaN operands the first one's (quieted) is the
  result -- where XLA puts it first: a commutative operation takes an operand broadcast
  to the result's shape first. (NumPy's vector loops give the second operand's for
  commutative operations.)"""
  second_first = (ufunc in _COMMUTATIVE and avals[1].shape != out_aval.shape
                  and avals[0].shape == out_aval.shape)

  def kernel(x, y):  # (``quiet`` written out: this is eager arithmetic's hot path)
    token = _errstate.set(_IGNORE)
    try:
      out = ufunc(x, y)
      subnormals, nans = scan_floats(out)
      if subnormals:
        out = _flushed(out)
      if nans:
        first = y if second_first else x
        out = np.where(np.isnan(x) & np.isnan(y), first + np.zeros((), out.dtype), out)
      return out
    finally:
      _errstate.reset(token)
  return rounding(kernel)


def rounding(kernel):
  """Marks ``kernel`` as rounding its results. XLA rewrites around such operations
  (``a * b + c`` becomes a fused multiply-add, ``a + 0.0`` folds to ``a``), so a host
  program holds at most one of them, operating on its inputs (``HostProgram.build``)."""
  kernel.rounds = True
  return kernel


def input_cast(kernel):
  """Marks a cast kernel whose result a rounding step may take as it takes an input
  (XLA has no rewrite through a cast)."""
  kernel.input_cast = True
  return kernel


def identity(x):
  """The kernel of an operation that leaves a host value as it is (host values are
  immutable): a host program passes the value on without a step."""
  return x


identity.input_cast = True


def divide_rule(avals, out_avals):
  """Float division as XLA:CPU computes it: by a divisor broadcast to the result's shape
  (a scalar), as a product with the divisor's reciprocal (XLA's algebraic simplifier
  rewrites it so, unless the result has one element); else IEEE division."""
  if avals[0].dtype.kind != "f":
    return None
  divide = _ieee_arithmetic(np.divide, avals, out_avals[0])
  if avals[1].shape == out_avals[0].shape or out_avals[0].size == 1:
    return divide
  reciprocal = _ieee_arithmetic(np.divide, [avals[1].update(shape=()), avals[1]], avals[1])
  multiply = _ieee_arithmetic(np.multiply, avals, out_avals[0])
  one = np.ones((), avals[1].dtype)
  return rounding(lambda x, y: multiply(x, reciprocal(one, y)))


class _Errstate:
  """np.errstate entered and left, for NumPy layouts without the context variable below."""

  def set(self, _):
    state = np.errstate(all="ignore")
    state.__enter__()
    return state

  def reset(self, state) -> None:
    state.__exit__(None, None, None)


try:  # NumPy 2's floating-point error state, set without np.errstate's Python overhead
  from numpy._core._ufunc_config import _extobj_contextvar as _errstate
  with np.errstate(all="ignore"):
    _IGNORE = _errstate.get()
except ImportError:  # pragma: no cover - other NumPy layouts
  _errstate, _IGNORE = _Errstate(), None


def quiet(fun):
  """``fun`` run without NumPy's floating-point warnings (XLA raises none)."""
  def run(*args):
    token = _errstate.set(_IGNORE)
    try:
      return fun(*args)
    finally:
      _errstate.reset(token)
  return run


def ufunc_kernel(ufunc, kinds: str, arithmetic: bool = False, rounds: bool = False):
  """A host rule computing a NumPy ufunc on operands whose dtype kinds (NumPy's: "f", "i",
  "u", "b") are in ``kinds``: on floats without warnings; for the binary IEEE
  ``arithmetic`` operations as ``_ieee_arithmetic`` says; marked ``rounding`` where it
  ``rounds`` floats. Primitives with parameters set (an ``accuracy``) are left to XLA."""
  def rule(avals, out_avals, **params):
    if any(a.dtype.kind not in kinds for a in avals) or any(
        v is not None for v in params.values()):
      return None
    if not any(a.dtype.kind == "f" for a in avals):
      return ufunc
    if arithmetic:
      return _ieee_arithmetic(ufunc, avals, out_avals[0])
    return rounding(quiet(ufunc)) if rounds else quiet(ufunc)
  return rule


class NotOnHost(Exception):
  """Raised by a kernel whose result no host value can hold (a subnormal float XLA:CPU
  keeps, as its remainder does): the computation runs compiled instead."""


def declining_subnormals(rule):
  """``rule`` (a host rule) whose float kernels raise NotOnHost on results with
  subnormals: XLA:CPU keeps them there, and reads them as zeros in the next operation."""
  def checked_rule(avals, out_avals, **params):
    kernel = rule(avals, out_avals, **params)
    if kernel is None or out_avals[0].dtype not in TINY:
      return kernel

    def checked(*args):
      out = kernel(*args)
      if has_subnormals(out):
        raise NotOnHost
      return out
    return checked
  return checked_rule


def make(value: np.ndarray, aval: ShapedArray) -> Array:
  """A host Array of a kernel's result ``value`` (made contiguous here; nothing writes to a
  host value, and ``Array.__array__`` gives it to users read-only)."""
  if type(value) is not np.ndarray:  # NumPy gives scalars for 0-d results
    value = np.asarray(value)
  elif not value.flags.c_contiguous:  # a view (a transpose, a broadcast)
    value = np.ascontiguousarray(value)
  return from_host(value, aval)


_SCALARS = (bool, int, float)
_scalar_values: dict = {}  # (type, Python scalar, dtype) -> its host value: loops reuse a few


def host_value(x, aval: ShapedArray):
  """The host value of an operand -- a host Array's value, a Python scalar or NumPy value
  as an array of its ``aval`` (a copy of a NumPy array, which its owner may change) -- or
  None where it has none (a device Array, a subnormal float, another dtype)."""
  if type(x) is Array:
    return x._live_host()
  kind = type(x)
  if kind in _SCALARS:
    key = (kind, x, aval.dtype)  # (NaN and -0.0, which compare unlike their bits, aside)
    value = _scalar_values.get(key)
    if value is not None:
      return value
    if aval.dtype not in HOST_DTYPES:
      return None
    value = np.asarray(x, aval.dtype)
    tiny = TINY.get(aval.dtype)
    if tiny is not None and -tiny < x < tiny and x:
      return None
    if x == x and (x or kind is not float):
      bounded_put(_scalar_values, key, value, 256)
    return value
  if isinstance(x, (np.ndarray, np.generic)):
    value = np.array(x, aval.dtype)
    return value if usable(value) else None
  return None


def fetchable(x: Array) -> bool:
  """Whether ``x``, an Array without a host value, is small, uncommitted and alive on the
  only device (a CPU): ``fetch_small`` can give it one."""
  return (not x._committed and x.aval.size <= HOST_MAX_SIZE and x.aval.dtype in HOST_DTYPES
          and x.aval._sharding is None and x._host is None and not x._b.is_deleted()
          and enabled())


def fetch_small(x) -> None:
  """Gives ``x``, a small uncommitted Array on the only device (a CPU), its host value from
  its buffer, where it can have one: one copy to the host, after which the operations with
  host kernels (slicing, indexing, arithmetic) run on the host. Eager indexing asks for it
  (a compiled slice and squeeze cost several copies' time), and so does an eager primitive
  with a host kernel for its operands' types (one program fewer to compile and run)."""
  if type(x) is Array and x._host is None and fetchable(x):
    value = x._value()  # (cached in the Array)
    if usable(value):
      x._host = value


def fetched(x: Array):
  """``x``'s host value after ``fetch_small``, or None where it can have none.

  An eager operation with host kernels for its operands' types copies a small device
  operand (a compiled program's result) to the host this way, rather than compiling a
  program, for its first ``FETCHES_BEFORE_COMPILING`` calls on such operands; later ones
  run compiled (as asynchronous dispatch keeps a loop of compiled and host operations
  quicker than a copy each way per step). A cold program then compiles only the operations
  it repeats."""
  fetch_small(x)
  return x._live_host()


def types_fit(avals) -> bool:
  """Whether values of ``avals`` can be host values (dtype and size)."""
  return all(a.dtype in HOST_DTYPES and a.size <= HOST_MAX_SIZE and a._sharding is None
             for a in avals)


def kernel_for(prim, avals, out_avals, params):
  """``prim``'s host kernel for these types, or None."""
  rule = prim.host_kernel
  if rule is None or not types_fit(avals) or not types_fit(out_avals):
    return None
  return rule(avals, out_avals, **params)


class HostProgram:
  """A closed jaxpr run equation by equation with its primitives' host kernels:
  ``run(values)`` gives the list of its results. Values live in a list: the constants' and
  literals' (``_known``), the inputs', then each equation's results, in order; a step is
  (kernel, its operands' positions, whether it has several results)."""
  __slots__ = ("_steps", "_known", "_out", "out_avals", "run", "single")

  def __init__(self, steps, known: list, outs, out_avals) -> None:
    # each step's operands taken by one C call (an itemgetter gives a value for one
    # position, a tuple for several: ``unpack`` says which)
    self._steps = [(kernel, operator.itemgetter(*ins) if ins else _no_operands, len(ins) != 1,
                    multiple) for kernel, ins, multiple in steps]
    self._known, self._out = known, outs
    self.out_avals = [canonical(a) for a in out_avals]
    self.run = self._interpret
    self.single = None  # the kernel, for one one-result equation taking the inputs in order
    if len(steps) == 1 and not known:
      kernel, ins, multiple = steps[0]
      if list(ins) == list(range(len(ins))) and list(outs) == list(range(
          len(ins), len(ins) + len(outs))):
        self.run = ((lambda values: kernel(*values)) if multiple
                    else (lambda values: [kernel(*values)]))
        self.single = None if multiple else kernel

  @staticmethod
  def build(closed) -> "HostProgram | None":
    """The host program of ``closed``, or None when an equation has no kernel, a value
    does not fit on the host, it has more than HOST_MAX_EQNS equations, or XLA could
    rewrite its arithmetic (see ``rounding``): more than one rounding equation, or one
    taking a literal, a constant, or a value other than an input or an input cast."""
    jaxpr = closed.jaxpr
    if len(jaxpr.eqns) > HOST_MAX_EQNS or jaxpr.effects or not types_fit(
        [v.aval for v in jaxpr.invars]):
      return None
    known: list = []  # constants' and literals' values
    position: dict = {}  # a constant's or variable's position among the values
    for c, v in zip(closed.consts, jaxpr.constvars):
      value = _constant(c, v.aval)
      if value is None:
        return None
      position[v] = len(known)
      known.append(value)

    same: dict = {}  # an identity equation's result -> its operand

    def operand(v):  # a literal's value is added to ``known``: its position, negated - 1
      if type(v) is not Literal:
        return same.get(v, v)
      value = _constant(v.val, v.aval)
      known.append(value)
      return -len(known)
    steps = []
    plain = set(jaxpr.invars)  # inputs, and inputs cast: what a rounding step may take
    from_bool = set()  # booleans cast to numbers: XLA multiplies by one as a select
    rounding_steps = 0
    for eqn in jaxpr.eqns:
      for v in eqn.invars:
        if type(v) is Literal and _constant(v.val, v.aval) is None:
          return None
      if eqn.primitive.name == "convert_element_type" and eqn.invars[0].aval.dtype == bool:
        from_bool.add(eqn.outvars[0])
      elif eqn.primitive.name == "mul" and any(v in from_bool for v in eqn.invars):
        return None  # (x * False is +0.0 for any x, NaN and -x included: not IEEE's)
      kernel = kernel_for(eqn.primitive, [v.aval for v in eqn.invars],
                          [v.aval for v in eqn.outvars], eqn.params)
      if kernel is None:
        return None
      if getattr(kernel, "rounds", False):
        rounding_steps += 1
        if rounding_steps > 1 or not all(type(v) is not Literal and v in plain
                                         for v in eqn.invars):
          return None
      elif getattr(kernel, "input_cast", False) and eqn.invars[0] in plain:
        plain.add(eqn.outvars[0])
      if kernel is identity:
        same[eqn.outvars[0]] = operand(eqn.invars[0])
        continue
      steps.append((kernel, [operand(v) for v in eqn.invars], eqn.outvars,
                    eqn.primitive.multiple_results))
    if any(type(v) is Literal and _constant(v.val, v.aval) is None for v in jaxpr.outvars):
      return None
    outs = [operand(v) for v in jaxpr.outvars]
    for v in (*jaxpr.invars, *(o for _, _, outvars, _ in steps for o in outvars)):
      position[v] = len(known) + len(position) - len(closed.consts)
    at = lambda r: -r - 1 if type(r) is int else position[r]
    return HostProgram([(kernel, tuple(map(at, ins)), multiple)
                        for kernel, ins, _, multiple in steps],
                       known, [at(r) for r in outs], closed.out_avals)

  def _interpret(self, values: list) -> list:
    env = [*self._known, *values]
    for kernel, take, unpack, multiple in self._steps:
      result = kernel(*take(env)) if unpack else kernel(take(env))
      if multiple:
        env.extend(result)
      else:
        env.append(result)
    return [env[i] for i in self._out]


def _no_operands(env) -> tuple:
  return ()


def _constant(c, aval: ShapedArray):
  """The host value of a constant or literal, or None where it cannot be one."""
  if type(c) is Array:
    return c._live_host()
  if isinstance(c, (np.ndarray, np.generic, *_SCALARS)):
    value = np.array(c, aval.dtype)  # a copy: the caller's array is not ours to freeze
    if usable(value):
      value.flags.writeable = False
      return value
  return None


class HostCall:
  """jit's fast path for a function whose equations all have host kernels (a HostProgram):
  run on the host when every argument is a host value, else by the compiled call that
  ``compiled_call()`` makes (once, when first needed). Called as ``UncommittedCall`` is:
  with the argument leaves (read when a call fails) and the call's arguments; the results
  come unflattened with ``out_tree`` (None: the single result itself)."""
  __slots__ = ("_run", "_single", "_out_avals", "_avals", "_compiled_call", "_compiled",
               "_unflatten", "_fetches")

  def __init__(self, program: HostProgram, avals, compiled_call, out_tree) -> None:
    self._run, self._out_avals, self._avals = program.run, program.out_avals, avals
    self._single = program.single if out_tree is None else None
    self._compiled_call, self._compiled = compiled_call, None
    self._fetches = 0  # calls that copied a small device Array to the host
    self._unflatten = None if out_tree is None else tree_util.unflattener(out_tree)

  def __call__(self, leaves: list, *arguments):
    out = self.on_host(leaves)
    if out is not None:
      return out
    if self._compiled is None:
      self._compiled = self._compiled_call()
    return self._compiled(leaves, *arguments)

  def binary(self, x, y):
    """``on_host([x, y])``, quicker for a function of one equation (the operators' call)."""
    single = self._single
    if single is None:
      return self.on_host([x, y])
    avals = self._avals
    vx = x._host if type(x) is Array and x._b is None else host_value(x, avals[0])
    vy = y._host if type(y) is Array and y._b is None else host_value(y, avals[1])
    if vx is None or vy is None or not enabled():
      return None
    try:
      return make(single(vx, vy), self._out_avals[0])
    except NotOnHost:
      return None

  def on_host(self, leaves: list):
    """The results computed on the host, or None where an argument is no host value (a
    small device Array is copied to the host for the first ``FETCHES_BEFORE_COMPILING``
    calls that have one, see ``fetched``)."""
    values = []
    fetching = False
    for x, aval in zip(leaves, self._avals):
      # (inlined for an Array without a buffer, which nothing can have deleted)
      value = x._host if type(x) is Array and x._b is None else host_value(x, aval)
      if value is None:
        if (type(x) is not Array or x._host is not None
            or self._fetches >= FETCHES_BEFORE_COMPILING):
          return None
        value = fetched(x)
        if value is None:
          return None
        fetching = True
      values.append(value)
    if not enabled():
      return None
    if fetching:
      self._fetches += 1
    try:
      if self._single is not None:
        return make(self._single(*values), self._out_avals[0])
      outs = self._run(values)
    except NotOnHost:
      return None
    if self._unflatten is None:
      return make(outs[0], self._out_avals[0])
    return self._unflatten([make(v, a) for v, a in zip(outs, self._out_avals)])


def shortcuts_apply() -> bool:
  """Whether a library function may compute on host values directly now: outside every
  transformation (a staging trace records the operations instead), without result checks
  (jax_debug_nans/infs), with host values in use."""
  return current_trace() is eval_trace and not checks_results() and enabled()


_row_avals: dict = {}  # an array's aval -> its rows' aval


def basic_index(x: Array, index):
  """``x[index]`` of a host Array computed on the host, for an int, a slice, or a tuple of
  them within its rank (ints in range, int or None bounds); None for any other index,
  which the indexing machinery then takes (and explains)."""
  aval = x.aval
  shape = aval.shape
  kind = type(index)
  if kind is int and shape and -shape[0] <= index < shape[0]:  # the common case, quickly
    host = x._live_host()
    if host is None:
      return None
    row = _row_avals.get(aval)
    if row is None:
      row = canonical(aval.update(shape=shape[1:]))
      bounded_put(_row_avals, aval, row, 1024)
    return make(host[index], row)
  if kind is int or kind is slice:
    index = (index,)
  elif kind is not tuple or len(index) > len(shape):
    return None
  for entry, size in zip(index, shape):
    kind = type(entry)
    if kind is int:
      if not -size <= entry < size:
        return None
    elif kind is not slice or not all(b is None or type(b) is int for b in (
        entry.start, entry.stop, entry.step)) or entry.step == 0:
      return None
  host = x._live_host()
  if host is None:
    return None
  value = host[index]
  return make(value, ShapedArray(np.shape(value), x.aval.dtype, x.aval.weak_type))


def join(arrays, axis, stack: bool):
  """``jnp.stack`` (``stack``) or ``jnp.concatenate`` of a list or tuple of host Arrays of
  one dtype, computed on the host; None for anything else (other operands, mismatched
  shapes, an axis out of range), which the library function then takes (and explains)."""
  if type(arrays) not in (list, tuple) or not arrays or type(axis) is not int:
    return None
  values, avals = [], []
  for x in arrays:
    host = x._live_host() if type(x) is Array else None
    if host is None:
      return None
    values.append(host)
    avals.append(x.aval)
  key = (*avals, axis, stack)
  aval = _joined_avals.get(key)
  if aval is None:
    aval = _joined_aval(avals, axis, stack)
    bounded_put(_joined_avals, key, aval, 1024)
  if aval is False:
    return None
  if stack:  # (np.stack, written in Python, is slower than these)
    axis %= aval.ndim
    if axis == 0:
      return make(np.array(values), aval)
    values = [v.reshape(aval.shape[:axis] + (1,) + aval.shape[axis + 1:]) for v in values]
  return make(np.concatenate(values, axis), aval)


_joined_avals: dict = {}  # (operands' avals, axis, stack) -> the result's, or False


def _joined_aval(avals, axis: int, stack: bool):
  """The aval of the operands joined, or False where the host shortcut does not apply."""
  first = avals[0]
  rank = first.ndim + stack
  if (first.ndim == 0 and not stack) or not -rank <= axis < rank:
    return False
  axis %= rank
  for a in avals:
    if a.dtype != first.dtype or (a.shape != first.shape if stack else a.ndim != first.ndim
                                  or any(m != n for d, (m, n) in enumerate(
                                      zip(a.shape, first.shape)) if d != axis)):
      return False
  shape = list(first.shape)
  if stack:
    shape.insert(axis, len(avals))
  else:
    shape[axis] = sum(a.shape[axis] for a in avals)
  return canonical(ShapedArray(tuple(shape), first.dtype, all(a.weak_type for a in avals)))
