"""An MLP trained over 8 CPU devices with sharding in types: a (4, 2) mesh of Explicit axes,
the batch split over "data" and the hidden layer over "model". Every array's type says how it
is split (`float32[64@data,16]`), each operation's result type follows, and the training step
is an ordinary jitted function; its losses are those of the same training on one device, up
to the rounding of summing each batch in parts.

    python examples/explicit_sharding.py [--smoke] [--plot layout.png]
"""
import xjax

xjax.config.update("jax_num_cpu_devices", 8)   # before the first array is made

import numpy as np

import xjax.numpy as jnp
from xjax.sharding import PartitionSpec as P

from example_cli import parse_args, pyplot, save


def loss(params, x, y, out_sharding=None):
  hidden = jnp.tanh(x @ params["w1"] + params["b1"])
  pred = jnp.dot(hidden, params["w2"], out_sharding=out_sharding)
  return jnp.mean((pred - y) ** 2)


def train(params, x, y, steps: int, out_sharding=None):
  @xjax.jit
  def step(p):
    value, grads = xjax.value_and_grad(loss)(p, x, y, out_sharding)
    return xjax.tree.map(lambda w, g: w - 0.2 * g, p, grads), value

  losses = []
  for _ in range(steps):
    params, value = step(params)
    losses.append(float(value))
  return params, losses


def data_and_params():
  k1, k2, k3 = xjax.random.split(xjax.random.key(0), 3)
  x = xjax.random.normal(k3, (64, 16))
  y = jnp.sin(x[:, :1] * 2) + 0.5 * x[:, 1:2]
  params = {"w1": xjax.random.normal(k1, (16, 32)) * 0.3, "b1": jnp.zeros(32),
            "w2": xjax.random.normal(k2, (32, 1)) * 0.3}
  return params, x, y


def layout(array) -> np.ndarray:
  """For each element of a 2-D array, the id of the first device holding it."""
  owner = np.full(array.shape, -1)
  for device, index in sorted(array.sharding.devices_indices_map(array.shape).items(),
                              key=lambda item: -item[0].id):
    owner[index] = device.id
  return owner


def main():
  args = parse_args(__doc__.splitlines()[0])
  steps = 20 if args.smoke else 200
  params, x, y = data_and_params()
  _, one_device = train(params, x, y, steps)

  mesh = xjax.make_mesh((4, 2), ("data", "model"))
  with xjax.set_mesh(mesh):
    placed = {"w1": xjax.device_put(params["w1"], P(None, "model")),
              "b1": xjax.device_put(params["b1"], P("model")),
              "w2": xjax.device_put(params["w2"], P("model", None))}
    xs, ys = xjax.device_put(x, P("data", None)), xjax.device_put(y, P("data", None))
    print("types:", {k: str(xjax.typeof(v)) for k, v in {**placed, "x": xs}.items()})
    trained, eight_devices = train(placed, xs, ys, steps, out_sharding=P("data", None))
    hidden = jnp.tanh(xs @ trained["w1"] + trained["b1"])
    print("hidden activations:", xjax.typeof(hidden))
  # the same up to rounding: the devices sum their parts of each batch before adding them
  gap = max(abs(a - b) / abs(a) for a, b in zip(one_device, eight_devices))
  print(f"loss {one_device[0]:.4f} -> {one_device[-1]:.4f}; loss curves on 1 and 8 devices "
        f"agree to {gap:.1e}")

  if args.plot:
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), layout="constrained")
    for ax, (name, array) in zip(axes[:2], (("x: batch over data", xs),
                                            ("hidden: batch over data, units over model",
                                             hidden))):
      image = ax.imshow(layout(array), aspect="auto", cmap="tab10", vmin=0, vmax=9,
                        interpolation="nearest")
      ax.set_title(name, fontsize=10)
      ax.set_xlabel("column")
      ax.set_ylabel("row")
    fig.colorbar(image, ax=axes[:2], label="device id")
    axes[2].plot(one_device, label="1 device")
    axes[2].plot(eight_devices, "--", label="8 devices")
    axes[2].set_title("training loss", fontsize=10)
    axes[2].set_xlabel("step")
    axes[2].legend()
    save(fig, args.plot)


if __name__ == "__main__":
  main()
