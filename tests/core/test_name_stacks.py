"""Name stacks: ``named_scope``/``named_call`` scopes and the ``jvp``/``transpose``/``vmap``
transformations on each equation's ``source_info.name_stack`` (haiku's ``jaxpr_info`` groups
equations by them), against the stacks JAX 0.10.2 gives the same programs."""
import pytest

import xjax as jax
import xjax.numpy as jnp


def _stacks(jaxpr, indent=""):
  out = []
  for e in jaxpr.eqns:
    out.append(f"{indent}{e.primitive.name} {str(e.source_info.name_stack)!r}")
    for v in e.params.values():
      inner = getattr(v, "jaxpr", v)
      if hasattr(inner, "eqns"):
        out += _stacks(inner, indent + "  ")
  return out


def f(x):
  with jax.named_scope("outer"):
    y = jnp.sin(x)
    with jax.named_scope("inner"):
      y = y * 2
  z = jax.jit(lambda t: jnp.cos(t) + 1)(y)
  return jnp.sum(jax.named_call(lambda u: u ** 2, name="sq")(z))


def g(x):
  with jax.named_scope("s"):
    return jax.grad(f)(x)


PROGRAMS = {
    "f": lambda: jax.make_jaxpr(f)(jnp.ones(3)),
    "grad": lambda: jax.make_jaxpr(jax.grad(f))(jnp.ones(3)),
    "vmap": lambda: jax.make_jaxpr(jax.vmap(f))(jnp.ones((2, 3))),
    "scoped grad": lambda: jax.make_jaxpr(g)(jnp.ones(3)),
    "jvp": lambda: jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.ones(3)),
    "jit inside scope": lambda: jax.make_jaxpr(
        lambda x: jax.named_scope("a")(jax.jit(f))(x))(jnp.ones(3)),
}

# JAX 0.10.2's stacks (a nested jaxpr's equations follow the equation holding it)
EXPECTED = {
    'f': [
        "sin 'outer'",
        "mul 'outer/inner'",
        "jit ''",
        "cos ''",
        "add ''",
        "integer_pow 'sq'",
        "reduce_sum ''",
    ],
    'grad': [
        "sin 'jvp(outer)'",
        "cos 'jvp(outer)'",
        "mul 'jvp(outer)/inner'",
        "jit 'jvp()'",
        "cos ''",
        "sin ''",
        "add ''",
        "integer_pow 'jvp(sq)'",
        "mul 'jvp(sq)'",
        "reduce_sum 'jvp()'",
        "broadcast_in_dim 'transpose(jvp())'",
        "mul 'transpose(jvp(sq))'",
        "jit 'transpose(jvp())'",
        "neg ''",
        "mul ''",
        "mul 'transpose(jvp(outer))/inner'",
        "mul 'transpose(jvp(outer))'",
    ],
    'vmap': [
        "sin 'vmap(outer)'",
        "mul 'vmap(outer)/inner'",
        "jit 'vmap()'",
        "cos ''",
        "add ''",
        "integer_pow 'vmap(sq)'",
        "reduce_sum 'vmap()'",
    ],
    'scoped grad': [
        "sin 's/jvp(outer)'",
        "cos 's/jvp(outer)'",
        "mul 's/jvp(outer)/inner'",
        "jit 's/jvp()'",
        "cos ''",
        "sin ''",
        "add ''",
        "integer_pow 's/jvp(sq)'",
        "mul 's/jvp(sq)'",
        "reduce_sum 's/jvp()'",
        "broadcast_in_dim 's/transpose(jvp())'",
        "mul 's/transpose(jvp(sq))'",
        "jit 's/transpose(jvp())'",
        "neg ''",
        "mul ''",
        "mul 's/transpose(jvp(outer))/inner'",
        "mul 's/transpose(jvp(outer))'",
    ],
    'jvp': [
        "sin 'jvp(outer)'",
        "cos 'jvp(outer)'",
        "mul 'jvp(outer)'",
        "mul 'jvp(outer)/inner'",
        "mul 'jvp(outer)/inner'",
        "jit 'jvp()'",
        "cos ''",
        "sin ''",
        "mul ''",
        "neg ''",
        "add ''",
        "integer_pow 'jvp(sq)'",
        "mul 'jvp(sq)'",
        "mul 'jvp(sq)'",
        "reduce_sum 'jvp()'",
        "reduce_sum 'jvp()'",
    ],
    'jit inside scope': [
        "jit 'a'",
        "sin 'outer'",
        "mul 'outer/inner'",
        "jit ''",
        "cos ''",
        "add ''",
        "integer_pow 'sq'",
        "reduce_sum ''",
    ],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_name_stacks_are_jaxs(name):
  assert [line.strip() for line in _stacks(PROGRAMS[name]().jaxpr)] == EXPECTED[name]


def test_named_scope_takes_a_string_and_changes_no_value():
  with pytest.raises(TypeError, match="named_scope name argument must be a string"):
    jax.named_scope(3)
  fn = jax.named_scope("layer")(lambda x: jnp.tanh(x) * 2)   # as a decorator
  assert float(fn(0.5)) == pytest.approx(2 * 0.46211716)
  assert float(jax.grad(fn)(0.5)) == pytest.approx(2 * (1 - 0.46211716 ** 2), rel=1e-6)
  eqn, = jax.make_jaxpr(jax.named_call(jnp.sin))(1.).jaxpr.eqns  # named by __name__
  assert str(eqn.source_info.name_stack) == "sin"


def test_extend_source_info_util_drives_the_same_stack():
  from xjax.extend import source_info_util as siu

  def h(x):
    with siu.extend_name_stack("a"), siu.transform_name_stack("t"):
      y = jnp.sin(x)
    with siu.user_context(None, name_stack=siu.new_name_stack("b")):
      y = y + 1
    with siu.reset_name_stack():
      return y * 2
  stacks = [str(e.source_info.name_stack) for e in jax.make_jaxpr(h)(1.).jaxpr.eqns]
  assert stacks == ["a/t()", "b", ""]
  with siu.extend_name_stack("x"):
    assert str(siu.current().name_stack) == "x"
  assert str(siu.current_name_stack()) == ""
