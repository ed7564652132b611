"""``jax_check_tracer_leaks``: when a transformation finishes, none of its tracers may still
be referenced (stored in a global, a list, an object).  The check runs where a staging or
batching trace ends, after the transformation has dropped its own references, and names
the transformation, each leaked tracer and what holds it on to it.
"""
from __future__ import annotations

import gc
import sys

from xjax._src.foundations.config import config
from xjax._src.core.trace import Trace, Tracer


def checking() -> bool:
  """Whether ``jax_check_tracer_leaks`` is on (one dict read: traces end on the hot path)."""
  return config._values["jax_check_tracer_leaks"]


def check_no_leaks(trace: Trace, what: str) -> None:
  """Raises a plain Exception (JAX's class for this check) if a tracer of the finished
  ``trace`` is still alive; ``what`` says which transformation (and function) it was for."""
  gc.collect()  # tracers only in unreachable cycles are not leaks
  leaked = [r for r in gc.get_referrers(trace) if isinstance(r, Tracer) and r._trace is trace]
  if not leaked:
    return
  skip = {id(leaked)}
  parts = []
  for t in leaked:
    chain = "\n".join(_holders(t, skip | {id(sys._getframe())}))
    parts.append(f"{t!r}\n{chain}")
  del leaked
  raise Exception(
      f"Leaked trace {trace!r} ({what}). Leaked tracer(s):\n\n" + "\n\n".join(parts) + "\n"
      "The function stored a traced value where it outlives the transformation (checked "
      "because jax_check_tracer_leaks is on).")


def _holders(obj, skip: set, depth: int = 4) -> list[str]:
  """Lines naming what refers to ``obj``, then what refers to that, up to ``depth``."""
  lines = []
  for _ in range(depth):
    refs = [r for r in gc.get_referrers(obj)
            if id(r) not in skip and type(r).__name__ != "frame"]
    skip.add(id(refs))
    if not refs:
      break
    holder = refs[0]
    where, is_global = _describe_reference(holder, obj)
    lines.append(f"{_name(obj)} is referred to by {where}")
    if is_global:
      break
    obj = holder
  return lines


def _describe_reference(holder, obj) -> tuple[str, bool]:
  """(how ``holder`` refers to ``obj``, whether ``holder`` is a module's globals)."""
  if isinstance(holder, dict):
    key = next((k for k, v in holder.items() if v is obj), None)
    module = sys.modules.get(holder.get("__name__")) if "__name__" in holder else None
    if module is not None and vars(module) is holder:
      return f"{holder['__name__']}.{key}", True
    return f"{_name(holder)}[{key!r}]", False
  if isinstance(holder, (list, tuple)):
    index = next((i for i, v in enumerate(holder) if v is obj), None)
    return f"{_name(holder)}[{index}]", False
  return _name(holder), False


def _name(obj) -> str:
  return f"<{type(obj).__name__} {id(obj)}>"
