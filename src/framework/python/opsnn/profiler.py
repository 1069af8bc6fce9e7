"""The profiler: what each aclnn op costs, per phase (docs/ARCHITECTURE.md, "Profiling").

    with opsnn.profiler.profile() as prof:
        y = model(x)
    print(prof.key_averages().table())
    prof.export_chrome_trace("trace.json")      # Perfetto / chrome://tracing

The events come from the library's hooks (phase 1, launch, kernel run, synchronisation,
host<->device copies; include/opsnn/profiler.h). Any program, Python or C, can also write the
trace without code changes: OPSNN_PROFILE=<path.json>."""
import json
import time

from . import _C

__all__ = ["profile", "is_enabled", "EventAverage", "EventTable"]


def is_enabled():
    """True while a profile() block is open (in any thread) or OPSNN_PROFILE is set."""
    return _C.profiler_enabled()


def _self_times(events):
    """dur minus the time of the events directly nested in it (same thread), in us."""
    by_tid = {}
    for e in events:
        by_tid.setdefault(e["tid"], []).append(e)
    self_us = {}
    for evs in by_tid.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs:
            while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - 1e-9:
                stack.pop()
            self_us[id(e)] = e["dur"]
            if stack:
                self_us[id(stack[-1])] -= e["dur"]
            stack.append(e)
    return {k: max(v, 0.0) for k, v in self_us.items()}


class EventAverage:
    """One row of key_averages(): an op (or a runtime call such as aclrtSynchronizeStream).
    Times in microseconds; each phase counts its own time (a launch's enqueue excludes the
    kernel run it contains when the stream ran it inline)."""

    def __init__(self, key):
        self.key = key
        self.calls = 0
        self.phase1_calls = 0
        self.phase1_us = 0.0
        self.enqueue_us = 0.0
        self.kernel_calls = 0
        self.kernel_us = 0.0
        self.sync_us = 0.0
        self.copies = 0
        self.copy_bytes = 0
        self.copy_us = 0.0
        self.workspace_bytes = 0
        self.impl = ""

    @property
    def total_us(self):
        return self.phase1_us + self.enqueue_us + self.kernel_us + self.sync_us + self.copy_us

    @property
    def phase1_avg_us(self):
        return self.phase1_us / self.phase1_calls if self.phase1_calls else 0.0

    @property
    def kernel_avg_us(self):
        return self.kernel_us / self.kernel_calls if self.kernel_calls else 0.0

    @property
    def avg_us(self):
        return self.total_us / self.calls if self.calls else 0.0

    def __repr__(self):
        return ("<EventAverage {} calls={} phase1={:.3f}us enqueue={:.3f}us kernel={:.3f}us sync={:.3f}us "
                "copies={} ({} B)>".format(self.key, self.calls, self.phase1_us, self.enqueue_us, self.kernel_us,
                                           self.sync_us, self.copies, self.copy_bytes))


def _fmt_us(us):
    if us >= 1e6:
        return "%.3fs" % (us / 1e6)
    if us >= 1e3:
        return "%.3fms" % (us / 1e3)
    return "%.3fus" % us


def _fmt_bytes(b):
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if b >= scale:
            return "%.2f%s" % (b / scale, unit)
    return "%dB" % b


_SORT_KEYS = {"total": "total_us", "phase1": "phase1_us", "enqueue": "enqueue_us", "kernel": "kernel_us",
              "sync": "sync_us", "copy": "copy_us", "calls": "calls"}


class EventTable(list):
    """key_averages(): a list of EventAverage sorted by total time (largest first)."""

    def table(self, sort_by="total", row_limit=100):
        attr = _SORT_KEYS.get(sort_by, sort_by)
        rows = sorted(self, key=lambda r: getattr(r, attr), reverse=True)[:row_limit]
        head = ["Name", "Calls", "Phase1 #", "Phase1 total", "Phase1 avg", "Enqueue", "Kernel total", "Kernel avg",
                "Sync wait", "Copies", "Copy bytes", "Total", "Avg"]
        body = [[r.key, str(r.calls), str(r.phase1_calls), _fmt_us(r.phase1_us), _fmt_us(r.phase1_avg_us),
                 _fmt_us(r.enqueue_us), _fmt_us(r.kernel_us), _fmt_us(r.kernel_avg_us), _fmt_us(r.sync_us),
                 str(r.copies), _fmt_bytes(r.copy_bytes), _fmt_us(r.total_us), _fmt_us(r.avg_us)] for r in rows]
        widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
        sep = "  ".join("-" * w for w in widths)

        def line(cells):
            return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

        out = [sep, line(head), sep] + [line(b) for b in body] + [sep]
        total = sum(r.total_us for r in self)
        out.append("Self time total: %s (%d rows)" % (_fmt_us(total), len(self)))
        return "\n".join(out)

    def __str__(self):
        return self.table()


class profile:
    """Context manager: records every aclnn phase 1, launch, kernel run, synchronisation and
    copy made (by any thread) while it is open. On exit it waits for the layer's stream so the
    kernels launched inside the block are recorded. enabled=False records nothing."""

    def __init__(self, enabled=True):
        self.enabled = enabled
        self._session = None
        self._events = []
        self.wall_us = 0.0

    def __enter__(self):
        if self.enabled:
            self._session = _C.profiler_start()
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self._session is not None:
            try:
                _C.synchronize()
            except Exception:  # noqa: BLE001 - a failed launch is reported by the block's own code
                if exc[0] is None:
                    raise
            finally:
                self.wall_us = (time.perf_counter() - self._t0) * 1e6
                self._events = json.loads(_C.profiler_stop(self._session))
                self._session = None
        else:
            self.wall_us = (time.perf_counter() - self._t0) * 1e6
        return False

    def events(self):
        """The Chrome-trace events: "X" events (name, cat = phase1 / launch / kernel / sync / copy,
        ts and dur in us, pid, tid, args.op, args.workspace_bytes / impl / bytes / kind) after
        the "M" metadata events naming the process and threads."""
        return list(self._events)

    def key_averages(self):
        xs = [e for e in self._events if e.get("ph") == "X"]
        selfs = _self_times(xs)
        rows = {}
        for e in xs:
            op = e.get("args", {}).get("op", e["name"])
            r = rows.get(op)
            if r is None:
                r = rows[op] = EventAverage(op)
            t = selfs[id(e)]
            cat = e["cat"]
            args = e.get("args", {})
            if cat == "phase1":
                r.phase1_calls += 1
                r.phase1_us += t
                r.workspace_bytes = max(r.workspace_bytes, args.get("workspace_bytes", 0))
                if args.get("impl"):
                    r.impl = args["impl"]
            elif cat == "launch":
                r.calls += 1
                r.enqueue_us += t
            elif cat == "kernel":
                r.kernel_calls += 1
                r.kernel_us += t
            elif cat == "sync":
                r.sync_us += t
                if e["name"] == op:
                    r.calls += 1
            elif cat == "copy":
                r.copies += 1
                r.copy_bytes += args.get("bytes", 0)
                r.copy_us += t
                if e["name"] == op:
                    r.calls += 1
        for r in rows.values():
            if r.calls == 0:
                r.calls = max(r.phase1_calls, r.kernel_calls)
        return EventTable(sorted(rows.values(), key=lambda r: r.total_us, reverse=True))

    def export_chrome_trace(self, path):
        """Writes the events as a Chrome trace (JSON Trace Event Format) to `path`."""
        with open(path, "w") as f:
            json.dump({"displayTimeUnit": "ns", "traceEvents": self._events}, f)
