"""The Mercer-kernel learners: kernel Passive-Aggressive on support
vectors."""

from ._passive_aggressive import (
    KernelPassiveAggressiveClassifier,
    KernelPassiveAggressiveRegressor,
)

__all__ = [
    "KernelPassiveAggressiveClassifier",
    "KernelPassiveAggressiveRegressor",
]
