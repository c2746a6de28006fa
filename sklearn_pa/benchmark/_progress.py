"""Progress lines of a benchmark run: what it is on and an estimate of what
is left."""

import sys
import time

__all__ = ["Progress", "format_duration"]


def format_duration(seconds):
    """``75.2`` -> ``"1 min 15 s"``; under a minute, whole seconds."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, seconds = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Progress:
    """Counts units of work (one fit each) and prints where the run is.

    Parameters
    ----------
    total : int
        Units of work in the whole run.
    verbose : int, default=1
        0: silent.  1: once the run has taken ``delay`` seconds, the result
        line of each estimator (:meth:`log`) and progress lines, at most one
        every ``interval`` seconds (a shorter run prints nothing: its table
        says it all).  2 or more: a progress line
        after every unit.
    delay, interval : float, default=10.0
        See ``verbose=1``.
    stream : file, default=sys.stderr

    Examples
    --------
    >>> import io
    >>> from sklearn_pa.benchmark._progress import Progress
    >>> out = io.StringIO()
    >>> progress = Progress(4, verbose=2, stream=out)
    >>> progress.step("PA-I fold 1/4")
    >>> out.getvalue().startswith("[1/4] PA-I fold 1/4 done")
    True
    """

    def __init__(self, total, *, verbose=1, delay=10.0, interval=10.0, stream=None):
        self.total = max(int(total), 1)
        self.verbose = int(verbose)
        self.delay = delay
        self.interval = interval
        self.stream = sys.stderr if stream is None else stream
        self.done = 0
        self.start = time.perf_counter()
        self._last = None

    def log(self, message):
        """Print ``message`` (a result or what the run is on).

        With ``verbose=1`` only once the run has taken ``delay`` seconds:
        the table printed at the end says the same, so a short run prints
        nothing on standard error; a long one shows its results as they
        come."""
        if self.verbose < 1:
            return
        if self.verbose == 1 and time.perf_counter() - self.start < self.delay:
            return
        print(message, file=self.stream, flush=True)

    def step(self, label, n=1):
        """Count ``n`` units done, the last of them described by ``label``."""
        self.done = min(self.done + n, self.total)
        now = time.perf_counter()
        elapsed = now - self.start
        if self.verbose < 1:
            return
        if self.verbose == 1:
            if elapsed < self.delay or self.done == self.total:
                return
            if self._last is not None and now - self._last < self.interval:
                return
        self._last = now
        left = elapsed / self.done * (self.total - self.done)
        print(
            f"[{self.done}/{self.total}] {label} done; {format_duration(elapsed)} "
            f"elapsed, about {format_duration(left)} left",
            file=self.stream,
            flush=True,
        )
