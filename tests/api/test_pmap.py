"""pmap and shard_map over several devices: the cases in tests/api/parallel_cases.py, run with
4 CPU devices in one subprocess (this process keeps the suite's single device)."""
from tests.multi_device_run import run_cases


def test_parallel_cases():
  assert run_cases("tests/api/parallel_cases.py") == 15


PMAP_PSUM_JAXPR = """\
{ lambda ; a:f32[1,3]. let
    b:f32[1,3] = jit[
      name=_fun
      jaxpr={ lambda ; a:f32[1,3]. let
          b:f32[1,3] = shard_map[
            check_vma=False
            in_specs=(P('rows',),)
            jaxpr={ lambda ; c:f32[1,3]. let
                d:f32[3] = squeeze[dimensions=(0,)] c
                e:f32[3] = psum[axes=('rows',) axis_index_groups=None] d
                f:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] e
              in (f,) }
            mesh=Mesh('rows': 1, axis_types=(Auto,))
            newly_manual_axes=frozenset({'rows'})
            out_specs=(P('rows',),)
          ] a
        in (b,) }
    ] a
  in (b,) }"""


def test_pmap_jaxpr_prints_as_jax():
  """JAX 0.10.2's text: a jit named _fun around the shard_map, blocks squeezed and
  broadcast back."""
  import xjax
  import xjax.numpy as jnp
  f = xjax.pmap(lambda y: xjax.lax.psum(y, "rows"), axis_name="rows")
  assert str(xjax.make_jaxpr(f)(jnp.ones((1, 3)))) == PMAP_PSUM_JAXPR
