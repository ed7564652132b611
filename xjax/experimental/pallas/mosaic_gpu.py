"""``jax.experimental.pallas.mosaic_gpu``: its names are mosaic_gpu-only Pallas features, which xjax
does not implement (Pallas kernels run in interpret mode through ``pallas_call``)."""


def __getattr__(name):
  if name.startswith("__"):
    raise AttributeError(name)
  raise NotImplementedError(f"jax.experimental.pallas.mosaic_gpu.{name} is a Pallas feature of "
                            "mosaic_gpu kernels, which xjax does not implement; write the kernel "
                            "with jax.experimental.pallas and run it with interpret=True.")
