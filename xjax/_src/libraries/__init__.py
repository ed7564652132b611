"""Libraries built on lax and the transformations: numpy, random, nn, scipy, image and the
smaller JAX modules."""
