"""Symbolic dimensions: array sizes given by expressions over dimension variables ("b",
"2*b + 1", "floordiv(b, 2)"), as ``jax.export.symbolic_shape`` makes them for shape
polymorphism.

A ``DimExpr`` is a polynomial with integer coefficients over factors, each a variable or an
operation (``floordiv``, ``mod``, ``max``, ``min``) of two expressions.  It is kept in a
normal form (terms sorted as JAX sorts them, largest first, the constant last), and an
expression that is a constant is a Python ``int``, so shapes stay ints wherever they can.
Arithmetic (``+ - * // % divmod`` and integer powers) is exact; a floor division or
remainder that is not exact becomes a ``floordiv``/``mod`` factor.  ``==`` holds when the
difference is the constant 0 (otherwise it is False, as JAX's); ``< <= > >=`` are decided
from bounds (each variable is >= 1, narrowed by the scope's constraints such as
"b >= 2") and raise ``InconclusiveDimensionOperation`` when the bounds cannot tell.

Every expression belongs to a ``SymbolicScope`` (its constraints); expressions of two scopes
do not mix.  Used as an array value (``x * x.shape[0]``) an expression becomes the
``dim_as_value`` equation, a weakly typed integer scalar.  xjax traces with symbolic shapes
(``eval_shape``, ``make_jaxpr``, ``jit(...).trace``) but does not lower them to XLA.
"""
from __future__ import annotations

import functools
import math
import operator
import re
from typing import Sequence

import numpy as np

from xjax._src.foundations import dtypes, errors
from xjax._src.core.avals import ShapedArray
from xjax._src.core.trace import Primitive, Tracer

# A term is a sorted tuple of (factor, exponent); the constant term is (). A factor is a
# variable name, or (operation, operand, operand) with operands in normal form (a
# tuple of (term, coefficient), largest term first).
_CONSTANT = ()
_OPERATIONS = ("floordiv", "mod", "max", "min")

_DOCS = "https://docs.jax.dev/en/latest/export/shape_poly.html"
_HELP = ("\nThis error arises for comparison operations with shapes that are non-constant, "
         "and the result of the operation cannot be represented as a boolean value for all "
         f"values of the symbolic dimensions involved.\n\nPlease see {_DOCS}"
         "#comparison-of-symbolic-dimensions-is-partially-supported for more details.\n")


def _inconclusive(message: str) -> errors.InconclusiveDimensionOperation:
  return errors.InconclusiveDimensionOperation(message + _HELP)


# -- normal form: the sizes and keys JAX orders terms and factors by ---------------------

@functools.lru_cache(maxsize=4096)
def _factor_key(f) -> tuple:
  if isinstance(f, str):
    return (1, f)
  a, b = _terms_key(f[1]), _terms_key(f[2])
  return (1 + a[0] + b[0], f[0], a, b)


@functools.lru_cache(maxsize=4096)
def _term_key(t) -> tuple:
  keys = tuple((_factor_key(f), e) for f, e in t)
  return (sum(1 + e * k[0] for k, e in keys), keys)


@functools.lru_cache(maxsize=4096)
def _terms_key(terms) -> tuple:
  keys = tuple((_term_key(t), c) for t, c in terms)
  return (sum(1 + abs(c) * k[0] for k, c in keys), keys)


def _sorted_terms(coeffs: dict) -> tuple:
  return tuple(sorted(((t, c) for t, c in coeffs.items() if c), key=lambda tc: _term_key(tc[0]),
                      reverse=True))


def _make(coeffs: dict, scope: "SymbolicScope"):
  """The expression with these {term: coefficient}: an int when it is a constant."""
  terms = _sorted_terms(coeffs)
  if not terms:
    return 0
  if terms[0][0] == _CONSTANT:
    return terms[0][1]
  return DimExpr(terms, scope)


def _terms(e) -> tuple:
  """The normal form of an expression or an int."""
  if isinstance(e, DimExpr):
    return e._terms
  return ((_CONSTANT, operator.index(e)),) if e else ()


def _mul_terms(t1: tuple, t2: tuple) -> tuple:
  powers = dict(t1)
  for f, e in t2:
    powers[f] = powers.get(f, 0) + e
  return tuple(sorted(powers.items(), key=lambda fe: _factor_key(fe[0])))


def _div_term(t: tuple, d: tuple) -> tuple:
  """``t / d`` for terms, or ValueError when ``d`` does not divide ``t``."""
  powers = dict(t)
  for f, e in d:
    left = powers.get(f, 0) - e
    if left < 0:
      raise ValueError
    if left:
      powers[f] = left
    else:
      del powers[f]
  return tuple(sorted(powers.items(), key=lambda fe: _factor_key(fe[0])))


def _term_str(t: tuple) -> str:
  return "*".join(_factor_str(f) + (f"^{e}" if e != 1 else "") for f, e in t)


def _factor_str(f) -> str:
  if isinstance(f, str):
    return f
  return f"{f[0]}({_terms_str(f[1])}, {_terms_str(f[2])})"


def _terms_str(terms: tuple) -> str:
  parts = []
  for t, c in terms:
    sign = "+" if c > 0 else "-"
    if t == _CONSTANT:
      parts.append(f"{sign} {abs(c)}")
    else:
      parts.append(f"{sign} {_term_str(t)}" if abs(c) == 1 else f"{sign} {abs(c)}*{_term_str(t)}")
  text = " ".join(parts) or "0"
  return text[2:] if text.startswith("+ ") else text


def _variables(terms: tuple) -> set:
  out: set = set()
  for t, _ in terms:
    for f, _ in t:
      out |= {f} if isinstance(f, str) else _variables(f[1]) | _variables(f[2])
  return out


def _evaluate(terms: tuple, env: dict) -> int:
  total = 0
  for t, c in terms:
    for f, e in t:
      if isinstance(f, str):
        c *= env[f] ** e
      else:
        a, b = _evaluate(f[1], env), _evaluate(f[2], env)
        c *= {"floordiv": operator.floordiv, "mod": operator.mod, "max": max,
              "min": min}[f[0]](a, b) ** e
    total += c
  return total


# -- bounds ------------------------------------------------------------------------------

_INF = math.inf


def _imul(a: tuple, b: tuple) -> tuple:
  products = [0 if x == 0 or y == 0 else x * y for x in a for y in b]
  return min(products), max(products)


def _interval(terms: tuple, scope: "SymbolicScope") -> tuple:
  lo = hi = 0
  for t, c in terms:
    tlo, thi = 1, 1
    for f, e in t:
      flo, fhi = _factor_interval(f, scope)
      for _ in range(e):
        tlo, thi = _imul((tlo, thi), (flo, fhi))
    lo, hi = (lo + c * tlo, hi + c * thi) if c > 0 else (lo + c * thi, hi + c * tlo)
  return lo, hi


def _factor_interval(f, scope: "SymbolicScope") -> tuple:
  if isinstance(f, str):
    return scope._variable_bounds.get(f, (1, _INF))
  op, a, b = f[0], scope._bounds(f[1]), scope._bounds(f[2])
  if op == "max":
    return max(a[0], b[0]), max(a[1], b[1])
  if op == "min":
    return min(a[0], b[0]), min(a[1], b[1])
  if b[0] < 1:
    return -_INF, _INF
  if op == "mod":
    return 0, b[1] - 1
  if a[0] >= 0:      # floordiv of a non-negative dividend by a positive divisor
    return a[0] // b[1] if b[1] != _INF else 0, a[1] // b[0] if a[1] != _INF else _INF
  return -_INF, _INF


class SymbolicScope:
  """The constraints expressions are decided under: ``"b >= 2"``, ``"b <= 8"``,
  ``"a == 2*b"`` (each side an expression).  Variables not constrained are >= 1."""

  def __init__(self, constraints_str: Sequence[str] = ()) -> None:
    if isinstance(constraints_str, str):
      raise ValueError("The symbolic constraints should be a sequence of strings. "
                       f"Got {constraints_str!r}")
    self._constraints_str = tuple(constraints_str)
    self._variable_bounds: dict = {}
    self._facts: list[tuple] = []     # normal forms known to be >= 0
    for text in self._constraints_str:
      self._add_constraint(text)

  def __str__(self) -> str:
    if not self._constraints_str:
      return ""
    return "\n".join(f"  {c}" for c in self._constraints_str)

  __repr__ = lambda self: f"SymbolicScope({list(self._constraints_str)!r})"

  def _add_constraint(self, text: str) -> None:
    match = re.fullmatch(r"(.+?)(>=|<=|==)(.+)", text)
    if match is None:
      raise ValueError(f"Constraint parsing error: must contain one of '==' or '>=' or "
                       f"'<=' in {text!r}")
    left, cmp, right = match.groups()
    e1, e2 = _parse_expr(left, self, text), _parse_expr(right, self, text)
    diffs = {">=": [e1 - e2], "<=": [e2 - e1], "==": [e1 - e2, e2 - e1]}[cmp]
    for d in diffs:
      if not isinstance(d, DimExpr):
        if d < 0:
          raise ValueError(f"Unsatisfiable explicit constraint: {text}")
        continue
      (t, c), *rest = d._terms
      linear = len(t) == 1 and isinstance(t[0][0], str) and t[0][1] == 1 and abs(c) == 1
      if linear and all(tt == _CONSTANT for tt, _ in rest):
        var, k = t[0][0], -(rest[0][1] if rest else 0) * c   # c*v + k0 >= 0
        lo, hi = self._variable_bounds.get(var, (1, _INF))
        self._variable_bounds[var] = (max(lo, k), hi) if c > 0 else (lo, min(hi, k))
      else:
        self._facts.append(d._terms)
    self._bounds.cache_clear()

  @functools.lru_cache(maxsize=1024)
  def _bounds(self, terms: tuple) -> tuple:
    """(lower, upper) bounds of the expression with these terms."""
    lo, hi = _interval(terms, self)
    for k, (t, c) in enumerate(terms):
      # c*max(x, y) + rest is max(c*x + rest, c*y + rest) for c > 0 (min for c < 0), and
      # the same for min: bounds of the two sides give the term's (as JAX's procedure)
      f = t[0][0] if len(t) == 1 and t[0][1] == 1 else None
      if isinstance(f, tuple) and f[0] in ("max", "min"):
        rest = terms[:k] + terms[k + 1:]
        b1, b2 = (self._bounds(_terms(_make(_combine(rest, side, c), self)))
                  for side in f[1:])
        pick = max if (f[0] == "max") == (c > 0) else min
        lo, hi = max(lo, pick(b1[0], b2[0])), min(hi, pick(b1[1], b2[1]))
        break
    for fact in (*self._facts, *_implicit_facts(terms, self)):
      # e = (e - g) + g >= lb(e - g), and e <= ub(e + g), for each fact g >= 0
      lo = max(lo, _interval(_terms(_make(_combine(terms, fact, -1), self)), self)[0])
      hi = min(hi, _interval(_terms(_make(_combine(terms, fact, 1), self)), self)[1])
    return lo, hi

  def _check_same(self, other: "DimExpr", what: str) -> None:
    if other.scope is not self:
      raise ValueError(f"Invalid mixing of symbolic scopes {what}.\nExpected current "
                       f"scope {self}\nand found for '{other}' ({what}) scope "
                       f"{other.scope}\n")


def _implicit_facts(terms: tuple, scope: "SymbolicScope") -> list:
  """What the floordiv and mod factors of ``terms`` imply, as normal forms >= 0: for
  ``m = mod(a, b)`` (b >= 1), ``b - 1 - m``; for ``q = floordiv(a, b)`` (b >= 1),
  ``a - b*q`` and ``b - 1 - (a - b*q)``."""
  facts = []
  for t, _ in terms:
    for f, _ in t:
      if isinstance(f, str) or f[0] not in ("mod", "floordiv"):
        continue
      a, b = _make(dict(f[1]), scope), _make(dict(f[2]), scope)
      if (b if not isinstance(b, DimExpr) else b.bounds()[0]) < 1:
        continue
      x = DimExpr(((((f, 1),), 1),), scope)
      gaps = [b - 1 - x] if f[0] == "mod" else [a - b * x, b - 1 - (a - b * x)]
      facts.extend(_terms(g) for g in gaps)
  return facts


def _combine(t1: tuple, t2: tuple, k2: int) -> dict:
  coeffs = dict(t1)
  for t, c in t2:
    coeffs[t] = coeffs.get(t, 0) + k2 * c
  return coeffs


def _as_dim(x, scope: SymbolicScope, what: str):
  """``x`` as a dimension of ``scope`` (an int or an expression), or None when it is
  not one (an array, a float)."""
  if isinstance(x, DimExpr):
    scope._check_same(x, what)
    return x
  if isinstance(x, Tracer):
    return None
  try:
    return operator.index(x)
  except TypeError:
    return None


class DimExpr:
  """A symbolic dimension (see the module docstring).  Prints as JAX prints it."""
  __slots__ = ("_terms", "_scope", "_hash")
  __array_priority__ = 1000    # (as a tracer's: NumPy defers to our reflected operators)

  def __init__(self, terms: tuple, scope: SymbolicScope) -> None:
    self._terms = terms
    self._scope = scope
    self._hash = hash((terms, id(scope)))

  @property
  def scope(self) -> SymbolicScope:
    return self._scope

  def __str__(self) -> str:
    return _terms_str(self._terms)

  __repr__ = __str__

  def __hash__(self) -> int:
    return self._hash

  # As a value, a dimension is a weakly typed integer scalar (a Python int's dtype).
  dtype = np.dtype(np.int64)
  weak_type = True

  # -- arithmetic --------------------------------------------------------------------------
  def _linear(self, other, k_self: int, k_other: int, what: str):
    o = _as_dim(other, self._scope, f"for operation {what}")
    if o is None:
      return NotImplemented
    return _make(_combine(tuple((t, k_self * c) for t, c in self._terms), _terms(o), k_other),
                 self._scope)

  def __add__(self, other):
    r = self._linear(other, 1, 1, "add")
    return self.dimension_as_value() + other if r is NotImplemented else r

  def __radd__(self, other):
    r = self._linear(other, 1, 1, "add")
    return other + self.dimension_as_value() if r is NotImplemented else r

  def __sub__(self, other):
    r = self._linear(other, 1, -1, "sub")
    return self.dimension_as_value() - other if r is NotImplemented else r

  def __rsub__(self, other):
    r = self._linear(other, -1, 1, "sub")
    return other - self.dimension_as_value() if r is NotImplemented else r

  def __neg__(self):
    return _make({t: -c for t, c in self._terms}, self._scope)

  def __pos__(self):
    return self

  def __mul__(self, other):
    o = _as_dim(other, self._scope, "for operation mul")
    if o is None:
      return self.dimension_as_value() * other
    coeffs: dict = {}
    for t1, c1 in self._terms:
      for t2, c2 in _terms(o):
        t = _mul_terms(t1, t2)
        coeffs[t] = coeffs.get(t, 0) + c1 * c2
    return _make(coeffs, self._scope)

  def __rmul__(self, other):
    if _as_dim(other, self._scope, "for operation mul") is None:
      return other * self.dimension_as_value()
    return self.__mul__(other)

  def __pow__(self, power, modulo=None):
    if modulo is not None:
      raise NotImplementedError("__pow__ modulo not implemented")
    if isinstance(power, DimExpr):
      return self.dimension_as_value() ** power.dimension_as_value()
    if power != int(power):
      raise ValueError(f"Symbolic dimension cannot be raised to non-integer powers: "
                       f"'{self}' ** '{power}'")
    if power < 0:
      raise ValueError(f"Symbolic dimension cannot be raised to negative powers: "
                       f"'{self}' ** '{power}'")
    return functools.reduce(operator.mul, [self] * int(power), 1)

  def __rpow__(self, other, modulo=None):
    return other ** self.dimension_as_value()

  def __truediv__(self, other):
    return self.dimension_as_value() / other

  def __rtruediv__(self, other):
    return other / self.dimension_as_value()

  def __floordiv__(self, other):
    return self.__divmod__(other)[0]

  def __rfloordiv__(self, other):
    return self.__rdivmod__(other)[0]

  def __mod__(self, other):
    return self.__divmod__(other)[1]

  def __rmod__(self, other):
    return self.__rdivmod__(other)[1]

  def __divmod__(self, divisor):
    d = _as_dim(divisor, self._scope, "for operation divmod")
    if d is None:
      v = self.dimension_as_value()
      return v // divisor, v % divisor
    return _divmod(self, d, self._scope)

  def __rdivmod__(self, dividend):
    d = _as_dim(dividend, self._scope, "for operation divmod")
    if d is None:
      v = self.dimension_as_value()
      return dividend // v, dividend % v
    return _divmod(d, self, self._scope)

  def __int__(self):
    raise _inconclusive(f"Symbolic dimension '{self}' used in a context that requires a "
                        "constant")

  # -- comparisons ---------------------------------------------------------------------------
  def __eq__(self, other) -> bool:
    if isinstance(other, DimExpr):
      if other._scope is not self._scope:
        return False
    elif _as_dim(other, self._scope, "") is None:
      return False
    diff = self - other
    return not isinstance(diff, DimExpr) and diff == 0  # (not provably equal: False)

  def __ne__(self, other) -> bool:
    return not self.__eq__(other)

  def __ge__(self, other) -> bool:
    return _geq(self, other, lambda: f"'{self}' >= '{other}'")

  def __le__(self, other) -> bool:
    return _geq(other, self, lambda: f"'{self}' <= '{other}'")

  def __gt__(self, other) -> bool:
    return not _geq(other, self, lambda: f"'{self}' > '{other}'")

  def __lt__(self, other) -> bool:
    return not _geq(self, other, lambda: f"'{self}' < '{other}'")

  def bounds(self) -> tuple:
    """(lower, upper) bounds of the expression, as the scope can tell them."""
    return self._scope._bounds(self._terms)

  # -- dimension operations ------------------------------------------------------------------
  def max(self, other):
    return _max_min(self, other, "max")

  def rmax(self, other):
    return _max_min(other, self, "max")

  def min(self, other):
    return _max_min(self, other, "min")

  def rmin(self, other):
    return _max_min(other, self, "min")

  def dimension_as_value(self):
    """The dimension as an array value: the ``dim_as_value`` equation (weak int)."""
    return dim_as_value_p.bind(dim=self)

  __jax_array__ = dimension_as_value

  def evaluate(self, env: dict) -> int:
    """The dimension's value for the variables' values in ``env``."""
    return _evaluate(self._terms, env)

  def variables(self) -> set:
    return _variables(self._terms)

  def _solve_one(self, env: dict, value: int):
    """(variable, value, exact) where this dimension is ``c*v + known`` for one unknown
    ``v``; None otherwise."""
    unknown = [tc for tc in self._terms if _variables((tc,)) - env.keys()]
    if len(unknown) != 1:
      return None
    t, c = unknown[0]
    if len(t) != 1 or not isinstance(t[0][0], str) or t[0][1] != 1:
      return None
    rest = _evaluate(tuple(tc for tc in self._terms if tc is not unknown[0]), env)
    return t[0][0], (value - rest) // c, (value - rest) % c == 0


def _geq(e1, e2, describe) -> bool:
  """``e1 >= e2``, decided from bounds, else InconclusiveDimensionOperation."""
  scope = (e1 if isinstance(e1, DimExpr) else e2).scope
  if isinstance(e1, DimExpr) and isinstance(e2, DimExpr):
    scope._check_same(e2, f"when comparing {describe()}")
  diff = e1 - e2
  if not isinstance(diff, DimExpr):
    return diff >= 0
  lo, hi = diff.bounds()
  if lo >= 0:
    return True
  if hi < 0:
    return False
  where = f"\nUsing symbolic scope {scope}" if scope._constraints_str else ""
  raise _inconclusive(f"Symbolic dimension comparison {describe()} is inconclusive.{where}")


def _operation(op: str, a, b, scope: SymbolicScope):
  return _make({((((op, _terms(a), _terms(b)), 1),)): 1}, scope)


def _divmod(dividend, divisor, scope: SymbolicScope):
  """(quotient, remainder) of polynomial division; ``floordiv``/``mod`` factors when it is
  not exact (a symbolic divisor must divide exactly)."""
  rest, quotient = dividend, 0
  try:
    while isinstance(rest, DimExpr):
      t, c = rest._terms[0]
      if isinstance(divisor, DimExpr):
        dt, dc = divisor._terms[0]
        qt = _div_term(t, dt)
      else:
        qt, dc = t, divisor
      qc, r = divmod(c, dc)
      if r:
        raise ValueError
      q = _make({qt: qc}, scope)
      quotient = quotient + q
      rest = rest - q * divisor
    if isinstance(divisor, DimExpr):
      if rest != 0:
        raise ValueError
      return quotient, 0
    q, r = divmod(rest, divisor)
    return quotient + q, r
  except ValueError:
    return (_operation("floordiv", dividend, divisor, scope),
            _operation("mod", dividend, divisor, scope))


def _max_min(a, b, op: str):
  scope = (a if isinstance(a, DimExpr) else b).scope
  lo, hi = _as_expr(a - b, scope).bounds()
  first, second = (a, b) if op == "max" else (b, a)
  if lo >= 0:
    return first
  if hi <= 0:
    return second
  return _operation(op, a, b, scope)


def _as_expr(x, scope: SymbolicScope) -> DimExpr:
  return x if isinstance(x, DimExpr) else DimExpr(_terms(x), scope)


def is_symbolic_dim(d) -> bool:
  """Whether ``d`` is a symbolic dimension."""
  return isinstance(d, DimExpr)


def index_dtype(*dims) -> np.dtype:
  """A signed integer dtype for indices into dimensions ``dims``: int32 unless one is too
  large for it (then int64); a symbolic dimension asks for the default integer type."""
  wide = any(d >= 2**31 for d in dims if not isinstance(d, DimExpr))
  if wide:
    return np.dtype(np.int64)
  if any(isinstance(d, DimExpr) for d in dims):
    return dtypes.canonicalize_dtype(np.int64)
  return np.dtype(np.int32)


def broadcast_shapes(*shapes) -> tuple:
  """``np.broadcast_shapes`` (and its errors) that also takes symbolic dimensions."""
  if not any(isinstance(d, DimExpr) for s in shapes for d in s):
    return tuple(np.broadcast_shapes(*shapes))
  rank = max(len(s) for s in shapes)
  out = []
  for dims in zip(*[(1,) * (rank - len(s)) + tuple(s) for s in shapes]):
    sizes = {d for d in dims if not (type(d) is int and d == 1)}
    if len(sizes) > 1:
      raise ValueError("shape mismatch: objects cannot be broadcast to a single shape: "
                       + ", ".join(map(str, shapes)))
    out.append(sizes.pop() if sizes else 1)
  return tuple(out)


def dim_value_dtype():
  """The dtype of dimensions used as values: int64 with x64, else int32."""
  return dtypes.canonicalize_dtype(np.int64)


dim_as_value_p = Primitive("dim_as_value")
dim_as_value_p.abstract_eval = lambda *, dim: ShapedArray((), dim_value_dtype(), weak_type=True)


# -- parsing ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_.]*)|(\S))")


class _ExprParser:
  """Recursive descent over dimension expressions: integers, variables, ``+ - *``, ``^``
  with an integer exponent, parentheses, and floordiv/mod/max/min/non_negative(...)."""

  def __init__(self, text: str, scope: SymbolicScope, fail) -> None:
    self.tokens = _TOKEN.findall(text)
    self.i, self.scope, self.fail = 0, scope, fail

  def peek(self) -> tuple:
    return self.tokens[self.i] if self.i < len(self.tokens) else ("", "", "")

  def take(self, sym: str | None = None) -> tuple:
    tok = self.peek()
    if sym is not None and tok[2] != sym:
      self.fail(f"expected '{sym}' but found '{''.join(tok) or 'the end'}'")
    self.i += 1
    return tok

  def parse(self):
    e = self.expr()
    if self.i != len(self.tokens):
      self.fail(f"unexpected '{''.join(self.peek())}'")
    return e

  def expr(self):
    e = -self.term() if self.peek()[2] == "-" and self.take() else self.term()
    while self.peek()[2] in ("+", "-"):
      e = e + self.term() if self.take()[2] == "+" else e - self.term()
    return e

  def term(self):
    e = self.power()
    while self.peek()[2] == "*":
      self.take()
      e = e * self.power()
    return e

  def power(self):
    e = self.atom()
    if self.peek()[2] == "^":
      self.take()
      exponent = self.take()[0]
      if not exponent:
        self.fail("expected an integer exponent")
      e = e ** int(exponent)
    return e

  def atom(self):
    num, name, sym = self.take()
    if num:
      return int(num)
    if sym == "(":
      e = self.expr()
      self.take(")")
      return e
    if not name:
      self.fail(f"expected a dimension expression but found '{sym or 'the end'}'")
    if self.peek()[2] == "(" and name in (*_OPERATIONS, "non_negative"):
      self.take("(")
      a = self.expr()
      if name == "non_negative":
        self.take(")")
        return _max_min(a, 0, "max") if isinstance(a, DimExpr) else max(a, 0)
      self.take(",")
      b = self.expr()
      self.take(")")
      if name == "floordiv":
        return a // b
      if name == "mod":
        return a % b
      if not isinstance(a, DimExpr) and not isinstance(b, DimExpr):
        return max(a, b) if name == "max" else min(a, b)
      return _max_min(a, b, name)
    return DimExpr(((((name, 1),), 1),), self.scope)


def _parse_expr(text: str, scope: SymbolicScope, where: str):
  def fail(detail: str = "syntax error"):
    raise ValueError(f"syntax error in symbolic expression {where!r}: {detail}")
  return _ExprParser(text, scope, fail).parse()


def _split_top_level(text: str) -> list[str]:
  parts, depth, start = [], 0, 0
  for i, ch in enumerate(text):
    depth += {"(": 1, ")": -1}.get(ch, 0)
    if ch == "," and depth == 0:
      parts.append(text[start:i])
      start = i + 1
  parts.append(text[start:])
  return parts


def _strip_parentheses(text: str) -> str:
  text = text.strip()
  if text.startswith("(") and text.endswith(")"):
    depth = 0
    for i, ch in enumerate(text):
      depth += {"(": 1, ")": -1}.get(ch, 0)
      if depth == 0 and i < len(text) - 1:
        return text
    return text[1:-1]
  return text


def parse_shape(spec: str, scope: SymbolicScope, like=None) -> tuple:
  """The shape a ``symbolic_shape`` specification describes ("b, 4", "(b, 2*b)",
  "_, ..." filled from ``like``)."""
  shown = repr(spec)
  body = _strip_parentheses(spec)
  parts = [] if not body.strip() else _split_top_level(body)
  if parts and not parts[-1].strip() and len(parts) > 1:
    parts.pop()          # "b," : a trailing comma
  dims: list = []
  for i, part in enumerate(parts):
    part = part.strip()

    def fail(detail: str = "syntax error", i=i):
      raise ValueError(f"syntax error in symbolic shape {shown} in dimension {i}: {detail}")
    if part == "...":
      if like is None:
        fail("... placeholder is used, but no `like` shape is given")
      rest = list(like)[len(dims):len(like) - (len(parts) - i - 1)]
      if any(d is None for d in rest):
        fail("... placeholder is used with a `like` shape that has None dimensions")
      dims.extend(rest)
      continue
    if part == "_":
      if like is None or len(dims) >= len(like) or like[len(dims)] is None:
        fail("_ placeholder is used, but no known dimension is given in `like`")
      dims.append(like[len(dims)])
      continue
    if not part:
      fail("expected a dimension expression")
    d = _ExprParser(part, scope, fail).parse()
    if like is not None and len(dims) < len(like) and isinstance(d, int) and \
        like[len(dims)] is not None and like[len(dims)] != d:
      fail(f"different size {d} for known dimension; like={tuple(like)}")
    dims.append(d)
  return tuple(dims)


def symbolic_shape(shape_spec, *, constraints: Sequence[str] = (), scope=None, like=None):
  """The shape (ints and ``DimExpr``s) a specification such as ``"b, 4"`` describes, its
  variables in ``scope`` (a new scope with ``constraints`` when not given)."""
  if shape_spec is None:
    shape_spec = "..."
  elif not isinstance(shape_spec, str):
    raise ValueError("polymorphic shape spec should be None or a string. "
                     f"Found {shape_spec!r}.")
  if scope is None:
    scope = SymbolicScope(constraints)
  elif constraints:
    raise ValueError("Cannot specify both a `scope` and `constraints`.")
  return parse_shape(shape_spec, scope, like)
