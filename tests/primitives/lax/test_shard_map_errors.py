"""shard_map's errors in JAX 0.10.2's words (texts recorded from it): collectives whose
operand does not split over the named axis, and out_specs that claim a replication the body
does not give (traced over an AbstractMesh: no devices needed)."""
import pytest

import xjax as jax
import xjax.numpy as jnp
from xjax import lax
from xjax.sharding import AbstractMesh, AxisType, PartitionSpec as P
from tests.checking import message_of

mesh = AbstractMesh((4,), ("i",), axis_types=(AxisType.Auto,))
mesh2 = AbstractMesh((2, 2), ("a", "b"), axis_types=(AxisType.Auto,) * 2)
x = jnp.arange(8.).reshape(4, 2)


def sm(f, out=P("i"), m=mesh, ins=P("i")):
  return jax.shard_map(f, mesh=m, in_specs=ins, out_specs=out)


CASES = [
    ('a2a_tiled', "sm(lambda a: lax.all_to_all(a, 'i', 0, 0, tiled=True))",
     'The size of all_to_all split_axis (1) has to be divisible by the size of the named axis i (4)'),
    ('a2a_untiled', "sm(lambda a: lax.all_to_all(a, 'i', 0, 0))",
     'all_to_all requires the size of the mapped axis axis_name to equal x.shape[split_axis], but they are 4 and 1 respectively.'),
    ('scatter_tiled', "sm(lambda a: lax.psum_scatter(a, 'i', tiled=True))",
     'tiled reduce_scatter operand scatter dimension size 1 must be divisible by shard_count 4'),
    ('scatter_untiled', "sm(lambda a: lax.psum_scatter(a, 'i'))",
     'reduce_scatter operand scatter dimension size 1 must match shard count 4'),
    ('unreplicated', 'sm(lambda a: a, P())',
     "shard_map applied to the function '<lambda>' was given out_specs which require replication which can't be statically inferred given the mesh:\n\nThe mesh given has shape (4,) with corresponding axis names ('i',).\n\nout_specs is P() which implies that the corresponding output value is replicated across mesh axis 'i', but could not infer replication over any axes\n\nCheck if these output values are meant to be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False argument to `jax.shard_map`."),
    ('unreplicated_pair', "sm(lambda a: (a, a * 2), (P(), P('i')))",
     "shard_map applied to the function '<lambda>' was given out_specs which require replication which can't be statically inferred given the mesh:\n\nThe mesh given has shape (4,) with corresponding axis names ('i',).\n\nout_specs[0] is P() which implies that the corresponding output value is replicated across mesh axis 'i', but could not infer replication over any axes\n\nCheck if these output values are meant to be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False argument to `jax.shard_map`."),
    ('unreplicated_both', 'sm(lambda a: (a, a * 2), P())',
     "shard_map applied to the function '<lambda>' was given out_specs which require replication which can't be statically inferred given the mesh:\n\nThe mesh given has shape (4,) with corresponding axis names ('i',).\n\n* out_specs is P() which implies that the corresponding output value is replicated across mesh axis 'i', but could not infer replication over any axes\n\n* out_specs is P() which implies that the corresponding output value is replicated across mesh axis 'i', but could not infer replication over any axes\n\nCheck if these output values are meant to be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False argument to `jax.shard_map`."),
    ('unreplicated_2d', "sm(lambda a: a, P('a'), mesh2, P('a', 'b'))",
     "shard_map applied to the function '<lambda>' was given out_specs which require replication which can't be statically inferred given the mesh:\n\nThe mesh given has shape (2, 2) with corresponding axis names ('a', 'b').\n\nout_specs is P('a',) which implies that the corresponding output value is replicated across mesh axis 'b', but could not infer replication over any axes\n\nCheck if these output values are meant to be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False argument to `jax.shard_map`."),
    ('unreplicated_2d_none', "sm(lambda a: a, P(), mesh2, P('a', 'b'))",
     "shard_map applied to the function '<lambda>' was given out_specs which require replication which can't be statically inferred given the mesh:\n\nThe mesh given has shape (2, 2) with corresponding axis names ('a', 'b').\n\nout_specs is P() which implies that the corresponding output value is only varying across mesh axes {} and not {a,b}, but it was inferred to be possibly varying over {a,b}\n\nCheck if these output values are meant to be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False argument to `jax.shard_map`."),
]


@pytest.mark.parametrize("name, program, message", CASES)
def test_shard_map_errors_are_jaxs(name, program, message):
  with pytest.raises(ValueError) as info:
    jax.make_jaxpr(eval(program, dict(sm=sm, lax=lax, P=P, mesh2=mesh2)))(x)
  assert message_of(info.value) == message


v = jnp.arange(8.0)
# Programs JAX 0.10.2 accepts with these out_specs: what a loop or branch returns varies
# only as its body makes it (a loop's carries to their fixed point), not with a varying
# predicate or branch index.
ACCEPTED = {
    "while_psum_carry": (lambda a: lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + lax.psum(a.sum(), "i")), (0, 0.))[1],
                         P()),
    "while_varying_predicate": (lambda a: lax.while_loop(
        lambda c: c[1] < a.sum(), lambda c: (c[0] + 1, c[1] + 1.), (0, 0.))[0], P()),
    "scan_psum_carry": (lambda a: lax.scan(lambda c, b: (c + lax.psum(b, "i"), b * 2), 0., a),
                        (P(), P("i"))),
    "fori_zeros_like": (lambda a: lax.fori_loop(0, 3, lambda i, c: c + a, jnp.zeros_like(a)),
                        P("i")),
    "cond_psum_index": (lambda a: lax.cond(lax.psum(a.sum(), "i") > 0,
                                           lambda: lax.psum(a, "i"), lambda: jnp.zeros(2)), P()),
    "cond_varying_index": (lambda a: lax.cond(a.sum() > 0, lambda: jnp.ones(2),
                                              lambda: jnp.zeros(2)), P()),
    "jit_psum": (lambda a: jax.jit(lambda b: lax.psum(b, "i") * 2)(a), P()),
    "checkpoint_psum": (lambda a: jax.checkpoint(lambda b: lax.psum(b, "i") * 2)(a), P()),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_shard_map_infers_replication_through_loops_branches_and_calls(name):
  f, out = ACCEPTED[name]
  jax.make_jaxpr(sm(f, out))(v)


@pytest.mark.parametrize("f", [
    lambda a: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + a.sum()),
                             (0, 0.))[1],
    lambda a: lax.scan(lambda c, b: ((c[1], b), None), (0., 0.), a)[0][0],
    lambda a: lax.cond(a.sum() > 0, lambda: a, lambda: a * 2),
])
def test_a_carry_or_branch_that_varies_is_not_replicated(f):
  with pytest.raises((ValueError, TypeError)):  # (JAX: TypeError for loop carries)
    jax.make_jaxpr(sm(f, P()))(v)
