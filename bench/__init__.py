"""Benchmarks: scripts that print figures (see bench/RESULTS.md)."""
