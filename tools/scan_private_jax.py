"""Lists the private `jax._src` names that libraries use, by reading their source (downloads
and imports nothing).

  python tools/scan_private_jax.py PATH... [--json]

Each PATH is a site-packages directory, a source tree, a .py file or a wheel (.whl, read as a
zip).  Every Python file is parsed and walked: `import jax._src.X`, `from jax._src[.X] import
...`, and attribute reads on those modules (`jax._src.X.name`, or `alias.name` where `alias`
was bound to a `jax._src` module by an import) are recorded.  The report lists, per module,
each name with how many files use it and the packages they belong to; `--json` prints it as
JSON.  A module's own use (a name imported as a module and used only as such) is listed as
the module with the name `*`.
"""
from __future__ import annotations

import argparse
import ast
import collections
import json
import pathlib
import sys
import zipfile

PRIVATE = "jax._src"


def _sources(path: pathlib.Path):
  """(label, source text) of every Python file under `path`."""
  if path.suffix == ".whl":
    with zipfile.ZipFile(path) as z:
      for name in z.namelist():
        if name.endswith(".py"):
          yield f"{path.name}:{name}", z.read(name).decode("utf-8", "replace")
  elif path.is_file():
    yield str(path), path.read_text("utf-8", "replace")
  else:
    for f in sorted(path.rglob("*.py")):
      yield str(f), f.read_text("utf-8", "replace")


def _package(label: str, root: pathlib.Path) -> str:
  """The top-level package a file belongs to (its first path component below `root`)."""
  if ":" in label and label.split(":")[0].endswith(".whl"):
    return label.split(":")[1].split("/")[0]
  try:
    return pathlib.Path(label).relative_to(root).parts[0]
  except (ValueError, IndexError):
    return pathlib.Path(label).stem


def _dotted(node) -> str | None:
  """`a.b.c` for a chain of attribute reads on a name; None otherwise."""
  parts = []
  while isinstance(node, ast.Attribute):
    parts.append(node.attr)
    node = node.value
  if isinstance(node, ast.Name):
    return ".".join([node.id, *reversed(parts)])
  return None


def scan_source(text: str) -> set[tuple[str, str]]:
  """The (module, name) pairs of `jax._src` that one file uses."""
  try:
    tree = ast.parse(text)
  except SyntaxError:
    return set()
  used: set[tuple[str, str]] = set()
  aliases: dict[str, str] = {}      # local name -> jax._src module it is bound to
  jax_names = {"jax"}               # names bound to the `jax` package itself
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      for a in node.names:
        if a.name == "jax" and a.asname:
          jax_names.add(a.asname)
        if a.name == PRIVATE or a.name.startswith(PRIVATE + "."):
          used.add((a.name, "*"))
          if a.asname:
            aliases[a.asname] = a.name
    elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
      mod = node.module
      if mod == "jax":
        for a in node.names:
          if a.name == "_src":
            aliases[a.asname or a.name] = PRIVATE
      elif mod == PRIVATE or mod.startswith(PRIVATE + "."):
        for a in node.names:
          # `from jax._src import X` may name a module or an attribute: record both readings
          # as the name in `mod`; reads through it are recorded under `mod.X`.
          used.add((mod, a.name))
          aliases[a.asname or a.name] = f"{mod}.{a.name}"
  for node in ast.walk(tree):
    if not isinstance(node, ast.Attribute) or isinstance(getattr(node, "ctx", None), ast.Del):
      continue
    dotted = _dotted(node)
    if dotted is None:
      continue
    head, *rest = dotted.split(".")
    if head in jax_names and rest[:1] == ["_src"] and len(rest) >= 3:
      # jax._src.mod[.sub].name: the module is the longest prefix that is not a leaf
      used.add((".".join([PRIVATE, *rest[1:-1]]), rest[-1]))
    elif head in aliases and len(rest) == 1:
      used.add((aliases[head], rest[0]))
  return used


def scan(paths) -> dict:
  """{module: {name: {"files": n, "packages": [...]}}} over every file under `paths`."""
  files: dict = collections.defaultdict(lambda: collections.defaultdict(set))
  for p in map(pathlib.Path, paths):
    root = p if p.is_dir() else p.parent
    for label, text in _sources(p):
      for mod, name in scan_source(text):
        files[mod][name].add((label, _package(label, root)))
  return {mod: {name: {"files": len(uses), "packages": sorted({pkg for _, pkg in uses})}
                for name, uses in sorted(names.items())}
          for mod, names in sorted(files.items())}


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("paths", nargs="+")
  parser.add_argument("--json", action="store_true")
  args = parser.parse_args(argv)
  report = scan(args.paths)
  if args.json:
    json.dump(report, sys.stdout, indent=1)
    print()
    return
  for mod, names in report.items():
    print(mod)
    for name, info in names.items():
      print(f"  {name:40s} {info['files']:4d} files  {', '.join(info['packages'])}")


if __name__ == "__main__":
  main()
