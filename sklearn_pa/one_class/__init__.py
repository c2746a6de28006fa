"""The one-class Passive-Aggressive learner (a centre and a radius)."""

from ._one_class import PassiveAggressiveOneClass

__all__ = [
    "PassiveAggressiveOneClass",
]
