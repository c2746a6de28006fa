"""The one core every family runs on.

A call flows through it in one order: the batch check (:mod:`.batch`)
turns the input into the compiled code's rows; the session
(:mod:`.session`, with the stream plan of :mod:`.stream_plan`) decides
what the call may reuse; the driver (:mod:`.driver`) runs the passes of
the family's epoch adapter (:mod:`.epochs`) over the compiled code; the
publication (:mod:`.publication`) forms what the estimator shows.  The
rules (:mod:`.rules`), targets (:mod:`.targets`), class growth
(:mod:`.growth`), state protocol (:mod:`.state`, :mod:`.mixing`) and
pickled state (:mod:`.pickled_state`) serve every family.
"""
