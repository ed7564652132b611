"""dynamiqs: the README's damped harmonic oscillator: a coherent state under the Lindblad master
equation (mesolve, with expectation values of the photon number), the closed-system
Schrodinger evolution (sesolve), and jax.grad of the final population in the frequency,
the decay rate and the initial amplitude."""
import jax
import jax.numpy as jnp
import dynamiqs as dq


def population(omega, kappa, alpha0, n=12):
  a = dq.destroy(n)
  H = omega * a.dag() @ a
  jump_ops = [jnp.sqrt(kappa) * a]
  psi0 = dq.coherent(n, alpha0)
  tsave = jnp.linspace(0.0, 5.0, 11)
  result = dq.mesolve(H, jump_ops, psi0, tsave, exp_ops=[a.dag() @ a])
  return result.expects[0, -1].real


def run():
  dq.set_progress_meter(False)
  n = 12
  a = dq.destroy(n)
  H = 1.0 * a.dag() @ a + 0.2 * (a + a.dag())
  psi0 = dq.coherent(n, 1.0)
  tsave = jnp.linspace(0.0, 5.0, 11)
  result = dq.mesolve(H, [jnp.sqrt(0.1) * a], psi0, tsave, exp_ops=[a.dag() @ a, a])
  closed = dq.sesolve(H, psi0, tsave, exp_ops=[a.dag() @ a])
  final = result.final_state.to_jax()
  grads = jax.grad(population, argnums=(0, 1, 2))(1.0, 0.1, 1.0)
  return {"photons": result.expects[0].real, "field_re": result.expects[1].real,
          "field_im": result.expects[1].imag, "closed_photons": closed.expects[0].real,
          "purity": jnp.trace(final @ final).real, "rho_diag": jnp.diagonal(final).real[:6],
          "population": population(1.0, 0.1, 1.0), "grads": jnp.stack(grads)}
