# The options of the sequence kernels (``_sequence.pyx``): which prefixes the
# structured perceptron updates on (Huang, Fayong & Guo 2012) and the slack of
# structured PA / k-best MIRA.  Their entries are in
# ``sklearn_pa/_core/rules.py``; the kernels refuse a value that has none.

cpdef enum SequenceUpdate:
    UPDATE_STANDARD = 0       # full sequences: gold against the final best
    UPDATE_EARLY = 1          # prefixes up to where the gold one falls off the beam
    UPDATE_MAX_VIOLATION = 2  # prefixes at the position of the largest violation

cpdef enum SequenceLoss:
    LOSS_HINGE = 0            # C * xi
    LOSS_SQUARED_HINGE = 1    # C * xi ** 2
