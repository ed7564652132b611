"""The jaxpr IR: typed variables, equations, jaxprs, its printer and its evaluator."""
from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.core import source_info
from xjax._src.core.avals import ShapedArray

_var_ids = itertools.count()


class Var:
  """A jaxpr variable: a typed SSA name (printed as a, b, ..., ba, ...)."""
  __slots__ = ("aval", "count")

  def __init__(self, aval: ShapedArray) -> None:
    self.aval = aval
    self.count = next(_var_ids)

  def __repr__(self) -> str:
    return f"Var(id={self.count}):{self.aval.str_short()}"


class DropVar(Var):
  """An output nobody reads (printed as ``_``)."""
  __slots__ = ()


class Literal:
  """A scalar constant inlined into an equation (printed ``1.0:f32[]``)."""
  __slots__ = ("val", "aval")

  def __init__(self, val, aval: ShapedArray) -> None:
    self.val = val
    self.aval = aval

  def __repr__(self) -> str:
    return f"{_format_scalar(self.val, self.aval.dtype)}:{self.aval.str_short()}"


def _format_scalar(val, dtype) -> str:
  v = np.asarray(val)
  if v.dtype == np.bool_:
    return str(bool(v))
  if dtypes.is_integer(v.dtype):
    return str(int(v))
  if dtypes.is_complex(v.dtype):
    return str(complex(v))
  return repr(float(v))


class JaxprEqn:
  __slots__ = ("primitive", "invars", "outvars", "params", "effects", "source_info")

  def __init__(self, primitive, invars, outvars, params, effects=frozenset(),
               source_info=None) -> None:
    self.primitive = primitive
    self.invars = list(invars)
    self.outvars = list(outvars)
    self.params = params
    self.effects = effects
    self.source_info = source_info

  def replace(self, **kw) -> "JaxprEqn":
    fields = dict(primitive=self.primitive, invars=self.invars, outvars=self.outvars,
                  params=self.params, effects=self.effects, source_info=self.source_info)
    fields.update(kw)
    return JaxprEqn(**fields)

  def __repr__(self) -> str:
    return str(pp_eqn(self, _Names(), 0)).strip()


class Jaxpr:
  """``{ lambda constvars ; invars . let eqns in outvars }``."""
  __slots__ = ("constvars", "invars", "outvars", "eqns", "effects", "debug_info",
               "__weakref__")

  def __init__(self, constvars, invars, outvars, eqns, effects=frozenset(),
               debug_info=None) -> None:
    self.constvars = list(constvars)
    self.invars = list(invars)
    self.outvars = list(outvars)
    self.eqns = list(eqns)
    self.effects = frozenset(effects)
    self.debug_info = debug_info

  @property
  def in_avals(self):
    return [v.aval for v in self.invars]

  @property
  def out_avals(self):
    return [v.aval for v in self.outvars]

  def __str__(self) -> str:
    return pp_jaxpr(self, _Names(), 0)

  __repr__ = __str__

  def pretty_print(self, **_) -> str:
    return str(self)


class ClosedJaxpr:
  """A jaxpr together with the values of its constvars."""
  __slots__ = ("jaxpr", "consts", "__weakref__")

  def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]) -> None:
    assert len(jaxpr.constvars) == len(consts), (len(jaxpr.constvars), len(consts))
    self.jaxpr = jaxpr
    self.consts = list(consts)

  @property
  def in_avals(self):
    return self.jaxpr.in_avals

  @property
  def out_avals(self):
    return self.jaxpr.out_avals

  @property
  def eqns(self):
    return self.jaxpr.eqns

  @property
  def literals(self):
    return self.consts

  @property
  def effects(self):
    return self.jaxpr.effects

  def __str__(self) -> str:
    return str(self.jaxpr)

  __repr__ = __str__

  def pretty_print(self, **_) -> str:
    return str(self.jaxpr)

  def _repr_pretty_(self, p, cycle) -> None:
    p.text(str(self))


# ---------------------------------------------------------------------------------------
# Evaluation

def literal_value(lit: Literal):
  """A literal's value; weakly typed literals become Python scalars so they stay weak."""
  if lit.aval.weak_type:
    from xjax._src.core.values import get_aval
    py = lit.val.item()
    if get_aval(py) == lit.aval:
      return py
  return lit.val


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args) -> list:
  """Interprets ``jaxpr`` by binding each equation's primitive on the current trace."""
  env: dict[Var, Any] = {}
  for v, x in zip(jaxpr.constvars, consts):
    env[v] = x
  if len(args) != len(jaxpr.invars):
    raise TypeError(f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments, "
                    f"got {len(args)}")
  for v, x in zip(jaxpr.invars, args):
    env[v] = x

  def read(atom):
    return literal_value(atom) if type(atom) is Literal else env[atom]

  for eqn in jaxpr.eqns:
    ins = [read(a) for a in eqn.invars]
    if source_info.active:
      with source_info.inherited(eqn.source_info):
        outs = eqn.primitive.bind(*ins, **eqn.params)
    else:
      outs = eqn.primitive.bind(*ins, **eqn.params)
    if eqn.primitive.multiple_results:
      for v, x in zip(eqn.outvars, outs):
        env[v] = x
    else:
      env[eqn.outvars[0]] = outs
  return [read(a) for a in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr):
  def fun(*args):
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)
  return fun


# ---------------------------------------------------------------------------------------
# Printing, in JAX's format

class _Names:
  def __init__(self) -> None:
    self.names: dict[Var, str] = {}
    self.counter = 0

  def __call__(self, v) -> str:
    if type(v) is Literal:
      return repr(v)
    if isinstance(v, DropVar):
      return "_"
    name = self.names.get(v)
    if name is None:
      name = self.names[v] = _alphabetic(self.counter)
      self.counter += 1
    return name

  def suggest_like(self, for_vars, like_vars) -> None:
    """Names the inner jaxpr's binders ``for_vars`` as the outer atoms ``like_vars``
    they stand for (JAX prints a ``jit`` equation's jaxpr so); each outer var once."""
    if len(for_vars) != len(like_vars):
      return
    taken = set()
    for v, like in zip(for_vars, like_vars):
      if (isinstance(like, Var) and not isinstance(like, DropVar) and like not in taken
          and isinstance(v, Var) and v not in self.names):
        taken.add(like)
        self.names[v] = self(like)


def _alphabetic(n: int) -> str:
  """0 -> a, 25 -> z, 26 -> ba: base-26 digits, as JAX names variables."""
  letters = ""
  while True:
    letters = chr(ord("a") + n % 26) + letters
    n //= 26
    if n == 0:
      break
  return letters


def _binder(v, names) -> str:
  return f"{names(v)}:{v.aval.str_short()}"


def _format_param(value, names, indent: int, lead: int = 0) -> str:
  """``value`` printed at ``indent``; ``lead`` characters precede it on its first line."""
  if isinstance(value, ClosedJaxpr):
    return pp_jaxpr(value.jaxpr, names, indent, lead)
  if isinstance(value, Jaxpr):
    return pp_jaxpr(value, names, indent, lead)
  if isinstance(value, np.dtype):
    return value.name
  if isinstance(value, type) and issubclass(value, np.generic):
    return np.dtype(value).name
  if isinstance(value, (tuple, list)) and any(isinstance(v, (ClosedJaxpr, Jaxpr))
                                              for v in value):
    parts = [_format_param(v, names, indent + 2) for v in value]
    one_line = f"({' '.join(parts)})"
    if "\n" not in one_line and indent + len(one_line) <= 80:
      return one_line
    pad = " " * (indent + 2)
    return "\n".join(["(", *(pad + p for p in parts), " " * indent + ")"])
  if callable(value) and hasattr(value, "__name__"):
    return value.__name__
  return str(value)


def pp_eqn(eqn: JaxprEqn, names: _Names, indent: int, used=None) -> str:
  """One equation; outputs not in ``used`` (when given) print as ``_``, as in JAX."""
  pad = " " * indent
  if eqn.primitive.pp_eqn is not None:
    return pad + eqn.primitive.pp_eqn(eqn, names, used)
  outs = " ".join(_binder(v, names) if used is None or v in used else
                  f"_:{v.aval.str_short()}" for v in eqn.outvars)
  ins = " ".join(names(v) for v in eqn.invars)
  shown = {k: v for k, v in eqn.params.items() if k not in eqn.primitive.hidden_params}
  custom = eqn.primitive.pp_params
  shown = custom(shown) if custom else sorted(shown.items())
  if not shown:
    return f"{pad}{outs} = {eqn.primitive.name} {ins}".rstrip() if outs else (
        f"{pad}{eqn.primitive.name} {ins}".rstrip())
  aliased = eqn.primitive.pp_alias_jaxpr
  if aliased is not None:
    inner = eqn.params[aliased]
    inner = inner.jaxpr if isinstance(inner, ClosedJaxpr) else inner
    names.suggest_like(inner.invars, eqn.invars)
    names.suggest_like(inner.outvars, eqn.outvars)
  items = [(k, _format_param(v, names, indent + 2, len(k) + 1)) for k, v in shown]
  one_line = " ".join(f"{k}={v}" for k, v in items)
  head = f"{pad}{outs} = {eqn.primitive.name}" if outs else f"{pad}{eqn.primitive.name}"
  if "\n" not in one_line and len(head) + len(one_line) + len(ins) + 3 <= 80:
    return f"{head}[{one_line}] {ins}"  # a trailing space when no operands, as JAX
  lines = [f"{head}["]
  for k, v in items:
    lines.append(f"{pad}  {k}={v.lstrip()}")
  lines.append(f"{pad}] {ins}")
  return "\n".join(lines)


# A primitive's ``pp_params(shown: dict) -> list[(name, value)]`` orders or reformats its
# printed params (the default: ``sorted(shown.items())``), and ``pp_alias_jaxpr = "<param>"``
# prints that sub-jaxpr's binders with the names of the equation's own operands and results
# (JAX's printing of ``jit``); ``pp_eqn(eqn, names, used) -> str`` prints the whole
# equation its own way (the state primitives: ``c:f32[3] <- a[...]``).


def pp_jaxpr(jaxpr: Jaxpr, names: _Names, indent: int, lead: int = 0) -> str:
  consts = " ".join(_binder(v, names) for v in jaxpr.constvars)
  ins = " ".join(_binder(v, names) for v in jaxpr.invars)
  head = f"{{ lambda {consts}; {ins}. let" if consts else f"{{ lambda ; {ins}. let"
  used = {v for e in jaxpr.eqns for v in e.invars if type(v) is not Literal}
  used.update(v for v in jaxpr.outvars if type(v) is not Literal)
  eqns = [pp_eqn(e, names, indent + 4, used) for e in jaxpr.eqns]
  outs = ", ".join(names(v) for v in jaxpr.outvars)
  tail = f"in ({outs}{',' if len(jaxpr.outvars) == 1 else ''}) }}"
  if not eqns:
    return f"{head}  {tail}"
  if all("\n" not in e for e in eqns):
    single = f"{head} {'; '.join(e.strip() for e in eqns)} {tail}"
    if len(single) + indent + lead <= 80:
      return single
  pad = " " * (indent + 2)
  return "\n".join([head, *eqns, f"{pad}{tail}"])
