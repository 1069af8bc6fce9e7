"""opsnn.graph: capture one step (inference or training) and replay it, with the step's memory
planned once (docs/ARCHITECTURE.md, "Framework layer", graph capture). Modelled on
torch.cuda.graphs: the step reads static tensors made before the capture, which the caller refills
(`x.copy_(batch)`) between replays, and returns static tensors that every replay rewrites.

    g = opsnn.graph(step)          # warm-up run, then the capture (the step runs twice more)
    static_out = g.outputs         # what the captured step returned
    x.copy_(new_batch); g.replay() # launches only: no Python, no phase 1

The capture runs the step twice without executing it: a recording pass logs every allocation
(tensors and workspaces) with its lifetime, and the pass kept as the graph places each at its
planned offset in one arena (lifetime-based reuse; tensors alive after the step — outputs,
gradients, new state — get memory of their own). A `with` block cannot be captured this way (its
body runs once), hence a function. The step must allocate the same way every time and must not
read tensors on the host (`.item()`, `.numpy()`, printing) or copy host data in (`opsnn.tensor`,
`randn`, Dropout's mask, Adam's per-step hyper-parameters): those raise opsnn.Error.
"""
import gc

from . import _C


class Graph:
    """A captured step: capture(fn, *args) once, then replay(); memory_report() compares the plan
    with the eager step (measured during the warm-up run)."""

    def __init__(self):
        self._g = _C.Graph()
        self._eager = {}
        self.outputs = None

    def capture(self, fn, *args, warmup=1):
        """Runs fn(*args) `warmup` times eagerly (lazy state such as optimiser buffers is made
        then; the first run's storage peak is the eager figure of memory_report, measured after
        reset_peak_memory_stats()), then captures it. Returns the captured pass's result (the
        static outputs; their contents are undefined until the first replay)."""
        for i in range(warmup):
            _C.synchronize()
            before = _C.memory_stats()
            _C.reset_peak_memory_stats()
            fn(*args)
            _C.synchronize()
            if i == 0:
                self._eager = {"eager_peak_bytes": _C.memory_stats()["peak_allocated_bytes"] - before["allocated_bytes"]}
        result = []

        def step():
            result.clear()
            result.append(fn(*args))

        enabled = gc.isenabled()
        gc.collect()
        gc.disable()  # the cycle collector must not release tensors at different points in the two passes
        try:
            self._g.capture(step)
        finally:
            if enabled:
                gc.enable()
        self.outputs = result[0] if result else None
        return self.outputs

    def replay(self):
        self._g.replay()

    def reset(self):
        """Destroys the captured graph (outputs stay valid; replay() then raises)."""
        self.outputs = None
        self._g.reset()

    @property
    def captured(self):
        return self._g.captured

    def memory_report(self):
        """Bytes (blocks rounded to 512): planned_bytes (the arena), unplanned_bytes (every block of
        the step summed: a capture without a plan keeps them all), live_peak_bytes (most alive at
        once: no plan needs less), kept_bytes (alive after the step), workspace_bytes /
        largest_workspace_bytes, blocks; and eager_peak_bytes (the warm-up run's storage peak above
        what was allocated before it, memory_stats; workspaces come from the separate arena)."""
        report = dict(self._g.memory_report())
        report.update(self._eager)
        return report


def graph(fn, *args, warmup=1):
    """Captures fn(*args) into a new Graph (see Graph.capture) and returns it."""
    g = Graph()
    g.capture(fn, *args, warmup=warmup)
    return g


def is_capturing():
    """True inside a capture pass (the step is being recorded, not run)."""
    return _C.graph_capturing()
