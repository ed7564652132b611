"""The jaxpr IR: typed variables, equations, jaxprs, its printer and its evaluator."""
from __future__ import annotations

import collections
import contextlib
import itertools
import re
from typing import Any, Sequence

import numpy as np

from xjax._src.foundations import dtypes
from xjax._src.foundations.config import config
from xjax._src.foundations.sharding import _mesh_stack, get_abstract_mesh
from xjax._src.core import pretty_printer as pp
from xjax._src.core import source_info
from xjax._src.core.avals import ShapedArray
from xjax._src.core.values import get_aval

_var_ids = itertools.count()


class Var:
  """A jaxpr variable: a typed SSA name (printed as a, b, ..., ba, ...)."""
  __slots__ = ("aval", "count")

  def __init__(self, aval: ShapedArray) -> None:
    self.aval = aval
    self.count = next(_var_ids)

  def __repr__(self) -> str:
    return f"Var(id={self.count}):{self.aval.str_short(short_dtypes=True)}"

  def pretty_print(self, context: "JaxprPpContext", *, print_dtype: bool = True) -> str:
    """The variable's name in ``context`` (without its type, as JAX)."""
    return context(self)


class DropVar(Var):
  """An output nobody reads (printed as ``_``)."""
  __slots__ = ()

  def pretty_print(self, context: "JaxprPpContext", *, print_dtype: bool = True) -> str:
    return "_"


class Literal:
  """A scalar constant inlined into an equation (printed ``1.0:f32[]``)."""
  __slots__ = ("val", "aval")

  def __init__(self, val, aval: ShapedArray) -> None:
    self.val = val
    self.aval = aval

  def __repr__(self) -> str:
    return f"{_format_scalar(self.val, self.aval.dtype)}:{self.aval.str_short(short_dtypes=True)}"

  @property
  def hash(self) -> int | None:
    """A hash of the value; a NumPy array's from its item and dtype, None where it has
    neither (a non-scalar array)."""
    try:
      return hash(self.val)
    except TypeError:
      if isinstance(self.val, np.ndarray):
        try:
          return hash((self.val.item(), self.val.dtype))
        except (TypeError, ValueError):
          return None
      return None

  def pretty_print(self, context: "JaxprPpContext", *, print_dtype: bool = True) -> str:
    """``1.0:f32[]`` (``1.0`` without ``print_dtype``); a non-scalar value is ``[...]``."""
    text = _format_scalar(self.val, self.aval.dtype) if not np.shape(self.val) else "[...]"
    return f"{text}:{self.aval.str_short(short_dtypes=True)}" if print_dtype else text


def _format_scalar(val, dtype) -> str:
  v = np.asarray(val)
  if v.dtype.kind == "V":   # a float0 zero, as JAX prints it: (b'',)
    return repr(v.item())
  if v.dtype == np.bool_:
    return str(bool(v))
  if dtypes.is_integer(v.dtype):
    return str(int(v))
  if dtypes.is_complex(v.dtype):
    return str(complex(v))
  return repr(float(v))


class JaxprEqnContext:
  """What was in effect where an equation was staged (``eqn.ctx``): the abstract mesh and the
  flags lowering reads.  ``compute_type`` and ``xla_metadata`` are always None: xjax has no
  ``compute_on`` or ``xla_metadata`` blocks.  ``JaxprEqnContext()`` is the current one;
  equal contexts are one object."""
  __slots__ = ("compute_type", "threefry_partitionable", "cur_abstract_mesh",
               "remove_size_one_mesh_axis", "xla_metadata")
  _interned: dict = {}   # (the config's trace token, the abstract mesh) -> context
  _last: tuple = (None, None, None)   # the last key asked and its context: staging asks often

  def __new__(cls) -> "JaxprEqnContext":
    token, mesh, ctx = cls._last
    if token == config._trace_token and mesh is get_abstract_mesh():
      return ctx
    key = (config._trace_token, get_abstract_mesh())
    ctx = cls._interned.get(key)
    if ctx is None:
      ctx = cls._interned[key] = object.__new__(cls)
      for name, value in (("compute_type", None), ("xla_metadata", None),
                          ("threefry_partitionable", config._read("jax_threefry_partitionable")),
                          ("cur_abstract_mesh", key[1]), ("remove_size_one_mesh_axis",
                          config._read("jax_remove_size_one_mesh_axis_from_type"))):
        object.__setattr__(ctx, name, value)
    cls._last = (*key, ctx)
    return ctx

  def __setattr__(self, name, value) -> None:
    raise AttributeError(f"cannot assign to field {name!r}")

  @property
  @contextlib.contextmanager
  def manager(self):
    """A context manager putting this context back in effect (its mesh and flags)."""
    with config._override("jax_threefry_partitionable", self.threefry_partitionable), \
        config._override("jax_remove_size_one_mesh_axis_from_type",
                         self.remove_size_one_mesh_axis):
      _mesh_stack().append(self.cur_abstract_mesh)
      try:
        yield
      finally:
        _mesh_stack().pop()

  def __repr__(self) -> str:
    return (f"JaxprEqnContext(compute_type={self.compute_type}, "
            f"threefry_partitionable={self.threefry_partitionable}, "
            f"cur_abstract_mesh={self.cur_abstract_mesh}, "
            f"remove_size_one_mesh_axis={self.remove_size_one_mesh_axis}, "
            f"xla_metadata={self.xla_metadata})")


_NO_SOURCE = source_info.NO_SOURCE


class JaxprEqn:
  __slots__ = ("primitive", "invars", "outvars", "params", "effects", "source_info", "ctx")

  def __init__(self, primitive, invars, outvars, params, effects=frozenset(),
               source_info=None, ctx: JaxprEqnContext | None = None) -> None:
    self.primitive = primitive
    self.invars = list(invars)
    self.outvars = list(outvars)
    self.params = params
    self.effects = effects
    self.source_info = _NO_SOURCE if source_info is None else source_info
    self.ctx = JaxprEqnContext() if ctx is None else ctx   # (where it was staged)

  def replace(self, **kw) -> "JaxprEqn":
    fields = dict(primitive=self.primitive, invars=self.invars, outvars=self.outvars,
                  params=self.params, effects=self.effects, source_info=self.source_info,
                  ctx=self.ctx)
    fields.update(kw)
    return JaxprEqn(**fields)

  def __repr__(self) -> str:
    return pp_eqn(self).rstrip()


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

  def replace(self, **kw) -> "Jaxpr":
    """This jaxpr with the fields named in ``kw`` replaced."""
    fields = dict(constvars=self.constvars, invars=self.invars, outvars=self.outvars,
                  eqns=self.eqns, effects=self.effects, debug_info=self.debug_info)
    unknown = {k: v for k, v in kw.items() if k not in fields}
    if unknown:
      raise ValueError(f"Unknown keyword arguments: {unknown}")
    fields.update(kw)
    return Jaxpr(**fields)

  def __str__(self) -> str:
    return pp_jaxpr(self)

  __repr__ = __str__

  def pretty_print(self, *, width: int = 80, **_) -> str:
    return pp_jaxpr(self, width=width)


class ClosedJaxpr:
  """A jaxpr together with the values of its constvars."""
  __slots__ = ("jaxpr", "consts", "__weakref__")

  def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]) -> None:
    assert len(jaxpr.constvars) == len(consts), (len(jaxpr.constvars), len(consts))
    self.jaxpr = jaxpr
    self.consts = list(consts)

  def replace(self, *, jaxpr: Jaxpr | None = None, consts=None) -> "ClosedJaxpr":
    """This closed jaxpr with its jaxpr or consts replaced."""
    return ClosedJaxpr(self.jaxpr if jaxpr is None else jaxpr,
                       self.consts if consts is None else consts)

  def map_jaxpr(self, f) -> "ClosedJaxpr":
    """This closed jaxpr with ``f`` applied to its jaxpr (the consts kept)."""
    return ClosedJaxpr(f(self.jaxpr), self.consts)

  @property
  def in_avals(self):
    return self.jaxpr.in_avals

  @property
  def out_avals(self):
    return self.jaxpr.out_avals

  @property
  def constvars(self):
    return self.jaxpr.constvars

  @property
  def invars(self):
    return self.jaxpr.invars

  @property
  def outvars(self):
    return self.jaxpr.outvars

  @property
  def debug_info(self):
    return self.jaxpr.debug_info

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

  def pretty_print(self, *, width: int = 80, **_) -> str:
    return pp_jaxpr(self.jaxpr, width=width)

  def _repr_pretty_(self, p, cycle) -> None:
    p.text(str(self))


# ---------------------------------------------------------------------------------------
# Evaluation

def literal_value(lit: Literal):
  """A literal's value; weakly typed literals become Python scalars so they stay weak."""
  if lit.aval.weak_type:
    py = lit.val if type(lit.val) in (float, complex) else lit.val.item()
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
    if source_info.active or len(eqn.source_info.name_stack):
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
# Printing, in JAX's format and layout (see core/pretty_printer.py)

class JaxprPpContext:
  """The printed names of variables (a, b, ..., z, ba, ...), given in printing order, and
  of the jaxprs printed once ahead of the one they serve (``let name = { ... } in``)."""

  def __init__(self) -> None:
    self.names: dict[Var, str] = {}
    self.counter = 0
    self.shared: dict = {}          # Jaxpr -> its name
    self.reserved: set[str] = set()  # the shared jaxprs' names, which no variable takes

  def __call__(self, v) -> str:
    if type(v) is Literal:
      return repr(v)
    if isinstance(v, DropVar):
      return "_"
    name = self.names.get(v)
    if name is None:
      name = _alphabetic(self.counter)
      self.counter += 1
      while name in self.reserved:
        name = _alphabetic(self.counter)
        self.counter += 1
      self.names[v] = name
    return name

  def suggest_like(self, for_vars, like_vars) -> None:
    """Names the inner jaxpr's binders ``for_vars`` as the outer atoms ``like_vars``
    they stand for (JAX prints a ``jit`` equation's jaxpr so); each outer var once."""
    if len(for_vars) != len(like_vars):
      return
    taken = set()
    for v, like in zip(for_vars, like_vars):
      if (isinstance(like, Var) and like not in taken
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


def jaxprs_in_params(params: dict) -> list[Jaxpr]:
  """The jaxprs among an equation's parameters (directly, or in tuples)."""
  out = []
  for p in params.values():
    for x in (p if isinstance(p, (tuple, list)) else (p,)):
      if isinstance(x, ClosedJaxpr):
        out.append(x.jaxpr)
      elif isinstance(x, Jaxpr):
        out.append(x)
  return out


def _format_value(value) -> str:
  """A parameter's printed value (jaxprs aside)."""
  if isinstance(value, np.dtype):
    return value.name
  if isinstance(value, type) and issubclass(value, np.generic):
    return np.dtype(value).name
  if callable(value) and hasattr(value, "__name__"):
    return value.__name__
  # object addresses as JAX prints them (`<function f at 0xXXXXXXXXXXXX>`): the same on
  # every run
  return re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), str(value))


def _vars_doc(vs, names: JaxprPpContext, sep: str = "", binders: bool = False) -> pp.Doc:
  """Variables (``binders``: with their types), wrapped at the line's end."""
  shown = [pp.text(f"{names(v)}:{v.aval.str_short(short_dtypes=True)}" if binders else names(v)) for v in vs]
  return pp.nest(2, pp.group(pp.join(pp.text(sep) + pp.group(pp.brk()), shown)))


def _value_doc(value, names: JaxprPpContext) -> pp.Doc:
  if isinstance(value, ClosedJaxpr):
    return _jaxpr_doc(value.jaxpr, names)
  if isinstance(value, Jaxpr):
    return _jaxpr_doc(value, names)
  if type(value) is tuple and all(isinstance(v, (ClosedJaxpr, Jaxpr)) for v in value):
    inner = [_value_doc(v, names) for v in value]
    return pp.group(pp.concat([
        pp.nest(2, pp.concat([pp.text("("), pp.brk(""), pp.join(pp.brk(), inner)])),
        pp.brk(""), pp.text(")")]))
  return pp.text(_format_value(value))


def _params_doc(items, names: JaxprPpContext) -> pp.Doc:
  """``[k=v ...]`` on the line when it fits, else one parameter a line."""
  if not items:
    return pp.nil()
  pairs = [pp.text(f"{k}=") + _value_doc(v, names) for k, v in items]
  return pp.group(pp.concat([
      pp.nest(2, pp.concat([pp.text("["), pp.brk(""), pp.join(pp.brk(), pairs)])),
      pp.brk(""), pp.text("]")]))


def _eqn_doc(eqn: JaxprEqn, names: JaxprPpContext) -> pp.Doc:
  prim = eqn.primitive
  if prim.pp_eqn is not None:
    return pp.text(prim.pp_eqn(eqn, names))
  shown = {k: v for k, v in eqn.params.items() if k not in prim.hidden_params}
  shown = prim.pp_params(shown) if prim.pp_params else sorted(shown.items())
  aliased = prim.pp_alias_jaxpr
  if aliased is not None:
    inner = eqn.params[aliased]
    inner = inner.jaxpr if isinstance(inner, ClosedJaxpr) else inner
    if inner not in names.shared:
      names.suggest_like(inner.invars, eqn.invars)
      names.suggest_like(inner.outvars, eqn.outvars)
  lhs = _vars_doc(eqn.outvars, names, binders=True)
  rhs = [pp.text(prim.name), _params_doc(shown, names),
         pp.text(" ") + _vars_doc(eqn.invars, names)]
  return pp.concat([lhs, pp.text(" = "), *rhs]) if eqn.outvars else pp.concat(rhs)


# A primitive's ``pp_params(shown: dict) -> list[(name, value)]`` orders or reformats its
# printed params (the default: ``sorted(shown.items())``), and ``pp_alias_jaxpr = "<param>"``
# prints that sub-jaxpr's binders with the names of the equation's own operands and results
# (JAX's printing of ``jit``); ``pp_eqn(eqn, names) -> str`` prints the whole equation its
# own way (the state primitives: ``c:f32[3] <- a[...]``).


def _body_doc(jaxpr: Jaxpr, names: JaxprPpContext) -> pp.Doc:
  consts = _vars_doc(jaxpr.constvars, names, binders=True)
  ins = _vars_doc(jaxpr.invars, names, binders=True)
  eqns = pp.join(pp.brk("; "), [_eqn_doc(e, names) for e in jaxpr.eqns])
  outs = pp.concat([pp.text("("), _vars_doc(jaxpr.outvars, names, sep=","),
                    pp.text(",)" if len(jaxpr.outvars) == 1 else ")")])
  return pp.group(pp.nest(2, pp.concat([
      pp.text("{ lambda "), consts, pp.text("; "), ins, pp.text(". let"),
      pp.nest(2, pp.brk() + eqns), pp.brk(), pp.text("in "), outs])) + pp.text(" }"))


def _jaxpr_doc(jaxpr: Jaxpr, names: JaxprPpContext) -> pp.Doc:
  shared = names.shared.get(jaxpr)
  return pp.text(shared) if shared is not None else _body_doc(jaxpr, names)


def _share(top: Jaxpr, names: JaxprPpContext) -> list:
  """The jaxprs under ``top`` printed once ahead of it, as (name, jaxpr): those used more
  than once or of more than ten equations, named for the equation holding them."""
  uses: dict = {}
  label: dict = {}
  queue = collections.deque([top])
  while queue:
    jaxpr = queue.popleft()
    uses[jaxpr] = uses.get(jaxpr, 0) + (2 if jaxpr is not top and len(jaxpr.eqns) > 10
                                        else 1)
    for eqn in jaxpr.eqns:
      subs = jaxprs_in_params(eqn.params)
      queue.extend(subs)
      name = eqn.params.get("name")
      if isinstance(name, str) and getattr(eqn.primitive, "names_shared_jaxprs", True):
        for sub in subs:
          label.setdefault(sub, name.strip("<>"))
  shared = []
  taken: collections.Counter = collections.Counter()
  for jaxpr, n in uses.items():
    if n == 1:
      continue
    name = label.get(jaxpr, "jaxpr")
    seen = taken[name]
    taken[name] += 1
    if seen:
      name += str(seen)
      taken[name] += 1
    names.reserved.add(name)
    names.shared[jaxpr] = name
    shared.append((name, jaxpr))
  return shared


def pp_jaxpr(jaxpr: Jaxpr, names: JaxprPpContext | None = None, width: int = 80) -> str:
  """``jaxpr`` printed as JAX prints it; results nothing reads print as ``_``."""
  names = JaxprPpContext() if names is None else names
  read = {v for v in jaxpr.outvars if type(v) is not Literal}
  for eqn in reversed(jaxpr.eqns):
    for v in eqn.outvars:
      if v not in read:
        names.names.setdefault(v, "_")
    read.update(v for v in eqn.invars if type(v) is not Literal)
  docs = [pp.concat([pp.text(f"let {name} = "), _body_doc(sub, names), pp.text(" in"),
                     pp.brk()]) for name, sub in _share(jaxpr, names)]
  docs.append(_jaxpr_doc(jaxpr, names))
  return pp.layout(pp.concat(docs), width)


def pp_eqn(eqn: JaxprEqn, names: JaxprPpContext | None = None, indent: int = 0,
           width: int = 80) -> str:
  """One equation; its lines after the first indented ``indent`` more."""
  doc = _eqn_doc(eqn, JaxprPpContext() if names is None else names)
  return pp.layout(pp.nest(indent, doc) if indent else doc, width)
