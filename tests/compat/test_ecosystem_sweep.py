"""The sweep's programs (tools/ecosystem_programs/, each written as its library's README or
quickstart teaches) that pass quickly on xjax, against the outputs JAX 0.10.2 gives them
(tools/ecosystem_reference/sweep.json, recorded by
`python tools/ecosystem_sweep.py --write-reference`).

They run in the ecosystem venv (`make ecosystem`) and are skipped where a library is not
installed (the project's own .venv).
"""
import importlib.util
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.ecosystem

TOOLS = Path(__file__).resolve().parents[2] / "tools"
RECORDED = json.loads((TOOLS / "ecosystem_reference" / "sweep.json").read_text())
# program -> the module it needs; each runs in about 5 s or less on xjax.
PROGRAMS = {
    "blackjax": "blackjax", "chex": "chex", "distrax": "distrax", "dm_pix": "dm_pix",
    "einops": "einops", "equinox": "equinox", "evosax": "evosax", "flashbax": "flashbax", "gymnax": "gymnax",
    "flax_linen": "flax", "flax_nnx": "flax", "haiku": "haiku", "jax_dataclasses": "jax_dataclasses",
    "jaxlie": "jaxlie", "jaxopt": "jaxopt", "jaxtyping": "jaxtyping", "jraph": "jraph",
    "lineax": "lineax", "numpyro": "numpyro", "optax": "optax", "optimistix": "optimistix", "optree": "optree",
    "pgx": "pgx", "rlax": "rlax",
    "tinygp": "tinygp", "treescope": "treescope",
    "clu": "clu", "distreqx": "distreqx", "gpjax": "gpjax", "interpax": "interpax", "mctx": "mctx",
    "opt_einsum": "opt_einsum", "pytensor": "pytensor", "keras": "keras", "evojax": "evojax",
    "jwave": "jwave", "kernex": "kernex", "jax_healpy": "jax_healpy", "jmp": "jmp",
    "tree_math": "tree_math", "sympy2jax": "sympy2jax", "jax_cfd": "jax_cfd", "funsor": "funsor",
    "pyhf": "pyhf", "pytreeclass": "pytreeclass", "jaxwt": "jaxwt",
    "brainstate": "brainstate", "brainunit": "brainunit",
    "quax": "quax", "fiddle": "fiddle", "evermore": "evermore", "jax_metrics": "jax_metrics",
    "coix": "coix", "optimagic": "optimagic",
}


def _sweep():
  spec = importlib.util.spec_from_file_location("ecosystem_sweep", TOOLS / "ecosystem_sweep.py")
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


@pytest.fixture(autouse=True)
def _restore_x64():
  """Libraries may turn on x64 when imported (gpjax does): later programs run as JAX's ran,
  each in a process of its own."""
  yield
  import xjax  # (the `jax` these programs import, standing in for it)
  xjax.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_jax(name):
  if importlib.util.find_spec(PROGRAMS[name]) is None:
    pytest.skip(f"{PROGRAMS[name]} is not installed (run in the ecosystem venv: make ecosystem)")
  if importlib.util.find_spec("jax") is None:  # (the alias renames classes process-wide)
    pytest.skip("run through `python -m xjax` (make ecosystem), which makes `jax` xjax")
  sweep = _sweep()
  program = sweep.load_program(name)
  tolerance = getattr(program, "TOLERANCE", sweep.TOLERANCE)
  outputs = {key: sweep.plain(value) for key, value in program.run().items()}
  expected = RECORDED[name]["outputs"]
  assert sorted(outputs) == sorted(expected)
  for key, value in expected.items():
    assert sweep.close(outputs[key], value, **tolerance), (key, outputs[key], value)
