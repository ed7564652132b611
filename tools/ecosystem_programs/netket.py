"""netket: the transverse-field Ising chain, an RBM trained by variational Monte Carlo with
stochastic reconfiguration (the README's ground-state example), and its exact energy."""
import jax.numpy as jnp
import netket as nk


def run():
  graph = nk.graph.Hypercube(length=6, n_dim=1, pbc=True)
  hilbert = nk.hilbert.Spin(s=1 / 2, N=graph.n_nodes)
  hamiltonian = nk.operator.Ising(hilbert=hilbert, graph=graph, h=1.0)
  model = nk.models.RBM(alpha=1, param_dtype=float)
  sampler = nk.sampler.MetropolisLocal(hilbert, n_chains=8)
  state = nk.vqs.MCState(sampler, model, n_samples=256, seed=0, sampler_seed=1)
  driver = nk.driver.VMC(hamiltonian, nk.optimizer.Sgd(learning_rate=0.05),
                         variational_state=state, preconditioner=nk.optimizer.SR(diag_shift=0.1))
  log = nk.logging.RuntimeLog()
  driver.run(n_iter=5, out=log, show_progress=False)
  exact = nk.vqs.FullSumState(hilbert, model, seed=0)
  return {"energies": jnp.asarray(log.data["Energy"]["Mean"]).real,
          "full_sum": jnp.real(exact.expect(hamiltonian).mean),
          "ground": nk.exact.lanczos_ed(hamiltonian, k=1)[0]}
