"""tensorcircuit (the tensorcircuit-ng distribution): the README's demos on the JAX backend: a
2-qubit circuit's wavefunction and Pauli expectation, jit(grad) of a parameterised rotation's
<Z>, a transverse-field Ising energy from a sparse (BCOO) Hamiltonian, a vmapped variational
ansatz's energy and gradient, and a noisy density-matrix circuit's entropies."""
import jax
import jax.numpy as jnp
import tensorcircuit as tc


def forward(theta):
  c = tc.Circuit(2)
  c.R(0, theta=theta, alpha=0.5, phi=0.8)
  return tc.backend.real(c.expectation((tc.gates.z(), [0])))


def ising(n=6):
  structures, weights = [], []
  for i in range(n):
    structures.append(tc.quantum.xyz2ps({"z": [i, (i + 1) % n]}, n=n))
    weights.append(1.0)
  for i in range(n):
    structures.append(tc.quantum.xyz2ps({"x": [i]}, n=n))
    weights.append(-1.0)
  return tc.quantum.PauliStringSum2COO(structures, weights)


def run():
  tc.set_backend("jax")
  tc.set_dtype("complex64")
  c = tc.Circuit(2)
  c.H(0)
  c.CNOT(0, 1)
  c.rx(1, theta=0.2)
  psi = c.wavefunction()
  zz = c.expectation_ps(z=[0, 1])
  g = tc.backend.jit(tc.backend.grad(forward))(tc.array_to_tensor(1.0, dtype="float32"))

  n = 6
  h = ising(n)
  plus = tc.Circuit(n)
  plus.h(range(n))
  energy = tc.templates.measurements.operator_expectation(plus, h)

  def ansatz_energy(params):
    c = tc.Circuit(n)
    c.h(range(n))
    for i in range(n - 1):
      c.rzz(i, i + 1, theta=params[0, i])
    for i in range(n):
      c.rx(i, theta=params[1, i])
    return tc.backend.real(tc.templates.measurements.operator_expectation(c, h))

  params = jnp.linspace(0.1, 1.2, 2 * n).reshape(2, n)
  vg = jax.jit(jax.vmap(jax.value_and_grad(ansatz_energy)))
  energies, grads = vg(jnp.stack([params, 0.5 * params, -params]))

  dm = tc.DMCircuit(2)
  dm.h(0)
  dm.cx(0, 1)
  dm.depolarizing(1, px=0.1, py=0.1, pz=0.1)
  rho = dm.state()
  return {"psi_re": jnp.real(psi), "psi_im": jnp.imag(psi), "zz": jnp.real(zz), "grad": g,
          "energy": jnp.real(energy), "ansatz_energies": energies, "ansatz_grads": grads[:, :, :3],
          "entropy": tc.quantum.entropy(rho),
          "entanglement_entropy": tc.quantum.entanglement_entropy(rho, [0]),
          "negativity": tc.quantum.entanglement_negativity(rho, [0]),
          "log_negativity": tc.quantum.log_negativity(rho, [0])}
