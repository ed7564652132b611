"""jraph: a GraphsTuple batched and passed through a GraphConvolution and a GraphNetwork."""
import jax
import jax.numpy as jnp
import jraph


def run():
  graph = jraph.GraphsTuple(nodes=jnp.arange(8.0).reshape(4, 2), edges=jnp.ones((3, 1)),
                            senders=jnp.array([0, 1, 2]), receivers=jnp.array([1, 2, 3]),
                            n_node=jnp.array([4]), n_edge=jnp.array([3]), globals=jnp.zeros((1, 1)))
  batch = jraph.batch([graph, graph])
  conv = jraph.GraphConvolution(update_node_fn=lambda n: n * 2.0, add_self_edges=True)
  net = jraph.GraphNetwork(update_edge_fn=lambda e, s, r, g: e + jnp.sum(s - r, axis=-1, keepdims=True),
                           update_node_fn=lambda n, s, r, g: n + s + r,
                           update_global_fn=lambda n, e, g: g + jnp.sum(n, axis=-1, keepdims=True))
  out = jax.jit(net)(batch)
  return {"conv": conv(graph).nodes, "nodes": out.nodes[:4], "globals": out.globals,
          "edges": out.edges[:, 0], "padded": jraph.pad_with_graphs(graph, 6, 5).n_node}
