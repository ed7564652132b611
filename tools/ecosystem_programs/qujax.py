"""qujax: the README's quick start: a parameterised circuit (H, Ry, CZ, Rx, CX) as a pure
function of its parameters to a statetensor, a Pauli observable's expectation with
jax.value_and_grad, the same circuit as a densitytensor with a Kraus (bit-flip) channel, a
partial trace, a unitary tensor, and sampled bitstrings and a sampled expectation from a fixed
random key."""
import jax
import jax.numpy as jnp
import qujax


def run():
  gates = ["H", "Ry", "CZ", "Rx", "CX"]
  qubits = [[0], [0], [0, 1], [1], [1, 2]]
  params = [[], [0], [], [1], []]
  param_to_st = qujax.get_params_to_statetensor_func(gates, qubits, params)
  st_to_exp = qujax.get_statetensor_to_expectation_func(
      [["Z"], ["X", "Z"], ["Y"]], [[0], [1, 2], [2]], [1.0, -0.5, 0.25])
  param_to_exp = jax.jit(lambda p: st_to_exp(param_to_st(p)))
  theta = jnp.array([0.1, 0.7])
  value, grad = jax.value_and_grad(param_to_exp)(theta)
  state = param_to_st(theta)

  p = 0.1
  bit_flip = [jnp.sqrt(1 - p) * jnp.eye(2), jnp.sqrt(p) * qujax.gates.X]
  param_to_dt = qujax.get_params_to_densitytensor_func(
      gates[:3] + [bit_flip], qubits[:3] + [[1]], params[:3] + [[[], []]])
  dt = param_to_dt(theta[:1])
  dt_to_exp = qujax.get_densitytensor_to_expectation_func([["Z"], ["Z"]], [[0], [1]], [1.0, 1.0])
  reduced = qujax.partial_trace(dt, [1])

  unitary = qujax.get_params_to_unitarytensor_func(gates, qubits, params)(theta)
  key = jax.random.key(0)
  bits = qujax.sample_bitstrings(key, state, 16)
  sampled = qujax.get_statetensor_to_sampled_expectation_func([["Z", "Z"]], [[0, 1]], [1.0])
  spread = qujax.get_params_to_statetensor_func(["Ry"] * 3, [[0], [1], [2]], [[0], [1], [2]])
  spread_state = spread(jnp.array([0.3, 0.6, 0.9]))
  return {"value": value, "grad": grad, "state_re": state.flatten().real,
          "state_im": state.flatten().imag, "mixed_expectation": dt_to_exp(dt),
          "reduced": jnp.abs(reduced.reshape(2, 2)),
          "unitary": jnp.abs(unitary.reshape(8, 8)[:, :2]), "bits": bits,
          "sampled_zz": sampled(spread_state, key, 1000),
          "integers": qujax.bitstrings_to_integers(bits)}
