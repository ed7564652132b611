"""Arrays and execution: `Array`, running primitives and compiled jaxprs, programs over several
devices."""
