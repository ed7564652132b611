"""Coverage of the reference JAX's public API (tests/data/jax_public_api.json, taken with
tools/snapshot_public_api.py).  Prints the per-module table; fails when a name xjax had
(tests/data/xjax_public_api_present.json) disappears.

After adding names, record them:  .venv/bin/python tests/compat/test_public_api.py --record
"""
import importlib
import json
import pathlib
import sys

import ml_dtypes
import pytest

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
SNAPSHOT = json.loads((DATA / "jax_public_api.json").read_text())["modules"]
PRESENT_FILE = DATA / "xjax_public_api_present.json"


def xjax_module_name(module: str) -> str:
  return "x" + module


def present_names(module: str) -> list[str]:
  try:
    mod = importlib.import_module(xjax_module_name(module))
  except ImportError:
    return []
  return [n for n in SNAPSHOT[module] if hasattr(mod, n)]


def coverage() -> dict[str, list[str]]:
  return {m: present_names(m) for m in SNAPSHOT}


def table(cov: dict[str, list[str]]) -> str:
  rows = [f"{'module':40s} {'have':>5s} {'of':>5s}"]
  for m, names in cov.items():
    rows.append(f"{m:40s} {len(names):5d} {len(SNAPSHOT[m]):5d}")
  have = sum(map(len, cov.values()))
  total = sum(map(len, SNAPSHOT.values()))
  rows.append(f"{'total':40s} {have:5d} {total:5d}")
  return "\n".join(rows)


def missing_markdown(cov: dict[str, list[str]]) -> str:
  """The missing names per module, for docs/differences.md."""
  lines = []
  for m, names in cov.items():
    gone = [n for n in SNAPSHOT[m] if n not in names]
    if gone:
      lines.append(f"- `{m}` ({len(gone)}): " + ", ".join(f"`{n}`" for n in gone))
  return "\n".join(lines)


def test_coverage_table_and_no_regressions():
  cov = coverage()
  print("\n" + table(cov))
  recorded = json.loads(PRESENT_FILE.read_text())
  lost = {m: sorted(set(names) - set(cov.get(m, ()))) for m, names in recorded.items()}
  # jnp.int1 and jnp.uint1 exist where ml_dtypes has them (0.6 and newer), as in JAX
  absent = {n for n in ("int1", "uint1") if not hasattr(ml_dtypes, n)}
  lost = {m: [n for n in names if not (m == "jax.numpy" and n in absent)]
          for m, names in lost.items()}
  lost = {m: names for m, names in lost.items() if names}
  assert not lost, f"public names that xjax had are gone: {lost}"


if __name__ == "__main__":
  cov = coverage()
  print(table(cov))
  if "--record" in sys.argv:
    PRESENT_FILE.write_text(json.dumps(cov, indent=1) + "\n")
    print(f"recorded {PRESENT_FILE}")
  if "--missing" in sys.argv:
    print(missing_markdown(cov))


def test_submodules_reachable_after_import_as_in_jax():
  # `import jax` alone makes these attributes (jax.scipy.stats.norm.logpdf(...) works).
  import subprocess
  import sys
  code = ("import xjax\n"
          "print(xjax.scipy.special.logsumexp(xjax.numpy.zeros(2)), xjax.image.resize.__name__,\n"
          "      xjax.ops.segment_sum.__name__, xjax.export.export.__name__,\n"
          "      hasattr(xjax.typing, 'ArrayLike'), hasattr(xjax.api_util, 'flatten_fun'))")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
  assert out.stdout.split() == ["0.6931472", "resize", "segment_sum", "export", "True", "True"], (
      out.stderr[-2000:])


# xjax's own names beside JAX's in the snapshot's modules (stax's and optimizers' are JAX's
# too: the snapshot keeps only the names an implementation module defines).
_OWN_NAMES = {"jax": {"install_as_jax"}, "jax.api_util": {"safe_map"}}


def test_namespaces_hold_no_names_jax_lacks():
  """A module's helpers and imports stay private: ``hasattr(jnp, "np")`` or
  ``hasattr(lax, "zeros_like_array")`` is False, as in JAX (libraries test names to pick a
  code path)."""
  import types
  extra = {}
  for module, names in SNAPSHOT.items():
    if module.startswith("jax.example_libraries"):
      continue
    mod = importlib.import_module(xjax_module_name(module))
    own = set(names) | _OWN_NAMES.get(module, set())
    found = [n for n in dir(mod) if not n.startswith("_") and n not in own
             and not isinstance(getattr(mod, n), types.ModuleType)]
    if found:
      extra[module] = found
  assert not extra


# Names JAX 0.10.2 does not have (AttributeError there), which xjax's modules once leaked.
_ABSENT = {
    "xjax": ["stop_gradient"],
    "xjax.numpy": ["row_stack", "cumproduct", "promote_args", "is_traced", "float_divmod",
                   "compiled_when_eager", "np", "lax"],
    "xjax.lax": ["zeros_like_array", "reshard_p", "scaled_dot_p"],
    "xjax.core": ["ClosedJaxpr", "Jaxpr", "JaxprEqn", "Literal", "Primitive", "Var",
                  "jaxpr_as_fun", "Any"],
    "xjax.experimental.checkify": ["NaNError", "OOBError", "FailedCheckError",
                                   "DivisionByZeroError", "JaxException"],
    "xjax.extend.core": ["ShapedArray", "DynamicJaxprTrace", "current_trace", "np"],
    "xjax.extend.random": ["PRNGImpl", "random_seed_p", "jnp"],
    "xjax.interpreters.ad": ["jvp_flat", "tree_util", "RuleRegistry"],
    "xjax.interpreters.batching": ["BatchTracer", "not_mapped", "AxisData", "moveaxis"],
    "xjax.interpreters.partial_eval": ["JaxprTrace", "trace_to_jaxpr", "get_aval"],
}


def test_names_jax_lacks_raise_attribute_error():
  for module, names in _ABSENT.items():
    mod = importlib.import_module(module)
    present = [n for n in names if hasattr(mod, n)]
    assert not present, (module, present)
  import xjax.core
  try:
    xjax.core.get_aval
  except AttributeError as e:  # JAX's text
    assert "removed in JAX v0.10.0; use jax.typeof instead" in str(e)
  else:
    raise AssertionError("xjax.core.get_aval exists")


def test_top_level_dir_lists_the_submodules_jax_imports():
  import xjax
  assert {"scipy", "image", "ops", "typing", "export", "api_util", "lib"} <= set(dir(xjax))
  assert xjax.lib.__name__ == "xjax.lib"


def test_the_compilation_cache_module_comes_with_experimental():
  """``jax.experimental.compilation_cache.compilation_cache.set_cache_dir`` needs no import of
  its own in JAX."""
  import subprocess
  code = ("import xjax\n"
          "print(xjax.experimental.compilation_cache.compilation_cache.set_cache_dir.__name__)")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
  assert out.stdout.split() == ["set_cache_dir"], out.stderr[-2000:]


@pytest.mark.parametrize("module, name, text", [   # (the texts JAX 0.10.2 raises)
    ("xjax", "device_put_replicated", "jax.device_put_replicated is deprecated; use "
     "jax.device_put instead. See https://docs.jax.dev/en/latest/migrate_pmap.html"
     "#drop-in-replacements for a drop-in replacement."),
    ("xjax.numpy", "fix", "jax.numpy.fix was deprecated in JAX v0.9.0, and will be removed in "
     "JAX v0.10.0. Use jax.numpy.trunc instead."),
    ("xjax.lax", "pvary", "jax.lax.pvary was deprecated in JAX v0.8.2 and removed in JAX "
     "v0.10.0; use `jax.lax.pcast(..., to='varying')"),
    ("xjax.interpreters.batching", "NotMapped",
     "jax.interpreters.batching.NotMapped is deprecated."),
    ("xjax.interpreters.ad", "reducing_transposes", "jax.interpreters.ad.reducing_transposes "
     "was deprecated in v0.9.0. and removed in v0.10.0. It has been unused since JAX v0.4.38."),
    ("xjax.lax", "no_such_name", "module 'xjax.lax' has no attribute 'no_such_name'"),
])
def test_names_jax_removed_raise_its_attribute_error(module, name, text):
  with pytest.raises(AttributeError) as info:
    getattr(importlib.import_module(module), name)
  assert str(info.value) == text
