"""pennylane: a two-qubit variational circuit on `default.qubit` with the JAX interface:
its expectation, gradient, jitted gradient, vmap over an input angle and a Jacobian of
probabilities."""
import jax
import jax.numpy as jnp
import pennylane as qml


def run():
  dev = qml.device("default.qubit", wires=2)

  @qml.qnode(dev, interface="jax")
  def circuit(params, x):
    qml.RX(x, wires=0)
    qml.RY(params[0], wires=0)
    qml.CNOT(wires=[0, 1])
    qml.RZ(params[1], wires=1)
    qml.RY(params[2], wires=1)
    return qml.expval(qml.PauliZ(0) @ qml.PauliZ(1))

  @qml.qnode(dev, interface="jax")
  def probs(params):
    qml.Hadamard(0)
    qml.CRX(params[0], wires=[0, 1])
    return qml.probs(wires=[0, 1])

  params = jnp.array([0.1, 0.2, 0.3])
  return {"value": circuit(params, 0.5), "grad": jax.grad(circuit)(params, 0.5),
          "jit_grad": jax.jit(jax.grad(circuit))(params, 0.5),
          "vmap": jax.vmap(circuit, in_axes=(None, 0))(params, jnp.array([0.1, 0.2])),
          "probs": probs(params), "jacobian": jax.jacobian(probs)(params)}
