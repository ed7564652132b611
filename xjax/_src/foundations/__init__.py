"""Foundations: dtypes and promotion, config flags, pytrees, errors, sharding and layout
descriptions."""
