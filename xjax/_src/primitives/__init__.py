"""Primitives: lax's primitive set by family, and the higher-order primitives defined outside
lax."""
