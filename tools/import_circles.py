"""Measures the import circles of xjax packages by reading their source (imports nothing).

  python tools/import_circles.py [PACKAGE...] [--module-level]

Every ``import`` statement of every module under ``xjax/`` is found by an AST walk, at module
level and inside functions alike (``--module-level`` keeps only the statements outside
functions).  For each PACKAGE (a dotted name, e.g. ``xjax._src.libraries.numpy``; all of ``xjax``
when none is given) the report lists the import circles among its modules (the strongly
connected components of the graph restricted to the package, found with Tarjan's algorithm),
largest first, and the number of function-level imports from one of its modules to another.
"""
from __future__ import annotations

import argparse
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def modules(root: pathlib.Path = ROOT) -> dict[str, pathlib.Path]:
  """Dotted module name -> source path, for every module of the ``xjax`` package."""
  mods = {}
  for path in (root / "xjax").rglob("*.py"):
    name = ".".join(path.relative_to(root).with_suffix("").parts)
    mods[name.removesuffix(".__init__")] = path
  return mods


def _statements(tree: ast.AST):
  """(import statement, whether it is inside a function) for every import in ``tree``."""
  stack = [(tree, False)]
  while stack:
    node, in_function = stack.pop()
    if isinstance(node, (ast.Import, ast.ImportFrom)):
      yield node, in_function
    inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def imports(name: str, path: pathlib.Path, mods) -> list[tuple[str, int, bool]]:
  """(imported xjax module, line, inside a function) for every import statement of a module.

  ``from P import x`` names the module ``P.x`` when that is a module, else ``P``."""
  package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
  found = []
  for node, in_function in _statements(ast.parse(path.read_text())):
    if isinstance(node, ast.Import):
      targets = [a.name for a in node.names]
    else:
      base = node.module or ""
      if node.level:
        base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
      targets = [f"{base}.{a.name}" for a in node.names]
    for t in targets:
      while t and t not in mods:
        t = t.rpartition(".")[0]
      if t.startswith("xjax") and t != name:
        found.append((t, node.lineno, in_function))
  return sorted(set(found), key=lambda f: (f[1], f[0]))


def graph(package: str, mods, module_level_only: bool = False) -> dict[str, set[str]]:
  """The import graph among the modules of ``package`` (its own ``__init__`` included)."""
  inside = {m for m in mods if m == package or m.startswith(package + ".")}
  edges = {m: set() for m in inside}
  for m in inside:
    for target, _, in_function in imports(m, mods[m], mods):
      if target in inside and not (module_level_only and in_function):
        edges[m].add(target)
  return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
  """The strongly connected components of more than one module, largest first (Tarjan)."""
  index, low, on_stack, stack, found = {}, {}, set(), [], []
  for start in sorted(edges):
    if start in index:
      continue
    work = [(start, iter(sorted(edges[start])))]
    index[start] = low[start] = len(index)
    stack.append(start)
    on_stack.add(start)
    while work:
      node, children = work[-1]
      child = next(children, None)
      if child is not None:
        if child not in index:
          index[child] = low[child] = len(index)
          stack.append(child)
          on_stack.add(child)
          work.append((child, iter(sorted(edges[child]))))
        elif child in on_stack:
          low[node] = min(low[node], index[child])
        continue
      work.pop()
      if work:
        low[work[-1][0]] = min(low[work[-1][0]], low[node])
      if low[node] == index[node]:
        component = []
        while True:
          m = stack.pop()
          on_stack.discard(m)
          component.append(m)
          if m == node:
            break
        if len(component) > 1:
          found.append(sorted(component))
  return sorted(found, key=lambda c: (-len(c), c))


def function_level_imports(package: str, mods) -> list[tuple[str, int, str]]:
  """(module, line, imported module) for each function-level import inside ``package``."""
  inside = {m for m in mods if m == package or m.startswith(package + ".")}
  return [(m, line, t) for m in sorted(inside) for t, line, in_function in imports(m, mods[m], mods)
          if in_function and t in inside]


def main():
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("packages", nargs="*", default=["xjax"])
  parser.add_argument("--module-level", action="store_true",
                      help="count only the imports outside functions")
  args = parser.parse_args()
  mods = modules()
  for package in args.packages:
    found = circles(graph(package, mods, args.module_level))
    inner = function_level_imports(package, mods)
    sizes = [len(c) for c in found]
    print(f"{package}: circles {sizes or [0]}, {len(inner)} function-level imports inside it")
    for c in found:
      print(f"  {len(c)}: {', '.join(m.rpartition('.')[2] for m in c)}")


if __name__ == "__main__":
  main()
