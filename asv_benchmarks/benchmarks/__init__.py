"""Benchmark suite of sklearn_pa, run with asv from the asv_benchmarks folder."""
