"""jaxley: a three-branch Hodgkin-Huxley cell stimulated by a step current, integrated, and
the gradient of its mean voltage with respect to the sodium conductance."""
import jax
import jax.numpy as jnp
import jaxley as jx
from jaxley.channels import HH

TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}


def run():
  jax.config.update("jax_enable_x64", True)
  try:
    cell = jx.Cell(jx.Branch(jx.Compartment(), ncomp=4), parents=[-1, 0, 0])
    cell.insert(HH())
    cell.branch(0).comp(0).record("v", verbose=False)
    cell.branch(0).comp(0).stimulate(jx.step_current(i_delay=1.0, i_dur=2.0, i_amp=0.2,
                                                     delta_t=0.025, t_max=5.0), verbose=False)
    voltages = jx.integrate(cell, delta_t=0.025)
    cell.make_trainable("HH_gNa", verbose=False)
    params = cell.get_parameters()
    grad = jax.grad(lambda p: jnp.mean(jx.integrate(cell, params=p, delta_t=0.025)))(params)
    return {"v_max": voltages.max(), "v_end": voltages[0, -1], "grad_gNa": grad[0]["HH_gNa"]}
  finally:
    jax.config.update("jax_enable_x64", False)
