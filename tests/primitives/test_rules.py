"""Every primitive carries its rules: a new primitive without them fails here."""
import sys

import xjax  # noqa: F401  (imports every primitive family)
import xjax.lax  # noqa: F401
import xjax.numpy  # noqa: F401
from xjax._src.core.trace import Primitive

# Primitives that legitimately lack a rule, and why.
NO_JVP = {
    "iota": "takes no operands, so it never has a tangent",
    "dim_as_value": "takes no operands (a symbolic dimension's value)",
    "axis_index": "takes no operands",
    "iota_2x32_shape": "takes no operands (the PRNG's counters)",
    "pmax": "not differentiable in JAX either",
    "pmin": "not differentiable in JAX either",
    "igamma_grad_a": "not differentiable in JAX either",
    "random_gamma_grad": "not differentiable in JAX either",
    "zeta": "not differentiable in JAX either",
    "geqrf": "not differentiable in JAX either (qr is)",
    "ormqr": "not differentiable in JAX either",
    "tridiagonal": "not differentiable in JAX either",
    "geqp3": "not differentiable in JAX either (scipy's pivoted qr is, through qr)",
    "custom_lin": "internal: only appears in linear jaxprs, which are transposed",
    "rng_uniform": "stateful random numbers: not differentiable in JAX either",
    "select_and_scatter": "jaxpr-parameterized selection: no JVP rule in JAX either",
    "scaled_dot": "not differentiable in JAX either",
    "nextafter": "not differentiable in JAX either",
    "call_exported": "Exported.call differentiates it through the exported VJP (custom_vjp)",
    "psend": "sends a value, returns a token: not differentiable in JAX either",
    "precv": "receives a value from a token: not differentiable in JAX either",
    "program_id": "pallas: takes no operands (an integer the running grid answers)",
    "num_programs": "pallas: takes no operands (an integer the running grid answers)",
    "load": "pallas.triton, inside kernels only: grad of pallas_call raises, as JAX's",
    "masked_swap": "pallas.triton, inside kernels only: grad of pallas_call raises, as JAX's",
}
NO_BATCH = {
    "iota": "takes no operands, so it is never batched",
    "dim_as_value": "takes no operands, so it is never batched",
    "iota_2x32_shape": "takes no operands, so it is never batched",
    "custom_lin": "internal: only appears in linear jaxprs",
    "rng_uniform": "stateful random numbers: no batching rule in JAX either",
    "select_and_scatter": "jaxpr-parameterized selection: no batching rule in JAX either",
    "create_token": "takes no operands, so it is never batched",
    "linear_call": "no batching rule in JAX either (vmap raises NotImplementedError)",
    "call_exported": "an exported program has fixed shapes: no batching rule in JAX either",
    "spsolve": "sparse.linalg.spsolve: no batching rule in JAX either (its docstring says so)",
    "program_id": "pallas: vmap of pallas_call adds a grid dimension the kernel does not see",
    "num_programs": "pallas: vmap of pallas_call adds a grid dimension the kernel does not see",
    "load": "pallas.triton: vmap of pallas_call batches the grid, not the kernel's operations",
    "masked_swap": "pallas.triton: vmap of pallas_call batches the grid, not the kernel's "
                   "operations",
}
NO_LOWERING = {"custom_lin": "internal: transposed away before lowering",
               "dim_as_value": "symbolic shapes are traced, never lowered",
               "load": "pallas.triton: discharged into array operations before lowering",
               "masked_swap": "pallas.triton: discharged into array operations before lowering"}


def _primitives():
  """xjax's own primitives: those its modules hold (primitives users define, as the tests
  of xjax.extend do, are not xjax's to check)."""
  found = {}
  for name, module in list(sys.modules.items()):
    if name == "xjax" or name.startswith("xjax."):
      for obj in list(vars(module).values()):
        if isinstance(obj, Primitive):
          found[obj.name] = obj
  return found


def test_primitives_have_shape_and_lowering_rules():
  for name, prim in _primitives().items():
    assert prim.abstract_eval is not None, name
    if name not in NO_LOWERING:
      assert prim.lowering is not None, f"{name} has no lowering rule"


def test_primitives_have_jvp_and_batching_rules():
  missing = []
  for name, prim in _primitives().items():
    if prim.jvp is None and name not in NO_JVP:
      missing.append(f"{name}: jvp")
    if prim.batch is None and name not in NO_BATCH:
      missing.append(f"{name}: batch")
  assert not missing, missing


def test_there_are_many_primitives():
  assert len(_primitives()) > 100
