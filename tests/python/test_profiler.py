# The profiler (opsnn.profiler, OPSNN_PROFILE) and the log level (opsnn.set_verbose,
# ASCEND_GLOBAL_LOG_LEVEL / ASCEND_SLOG_PRINT_TO_STDOUT / ASCEND_PROCESS_LOG_PATH).
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import opsnn

PY = sys.executable


def _xs(events):
    return [e for e in events if e.get("ph") == "X"]


def check_trace_events(events):
    """Valid Chrome-trace events: X events with non-negative ts/dur, pid/tid, args.op, and on each
    thread properly nested (a child lies within its parent)."""
    xs = _xs(events)
    assert xs, "no X events"
    for e in xs:
        for k in ("name", "cat", "ts", "dur", "pid", "tid", "args"):
            assert k in e, (k, e)
        assert e["ts"] >= 0 and e["dur"] >= 0, e
        assert e["cat"] in ("phase1", "launch", "kernel", "sync", "copy"), e
        assert e["args"]["op"], e
    by_tid = {}
    for e in xs:
        by_tid.setdefault(e["tid"], []).append(e)
    eps = 1e-3  # the trace's resolution: 1 ns
    for evs in by_tid.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs:
            while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - eps:
                stack.pop()
            if stack:  # overlaps the top: must lie within it
                top = stack[-1]
                assert e["ts"] + e["dur"] <= top["ts"] + top["dur"] + eps, ("not nested", top, e)
            stack.append(e)
    return xs


def test_counts_times_table_and_trace(tmp_path):
    a = opsnn.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    b = opsnn.tensor(np.ones((3, 4), dtype=np.float32))
    w = opsnn.tensor(np.ones((4, 5), dtype=np.float32))
    opsnn.synchronize()
    n = 7
    t0 = time.perf_counter()
    with opsnn.profiler.profile() as prof:
        assert opsnn.profiler.is_enabled()
        for _ in range(n):
            c = a + b
            d = a @ w
        host = d.numpy()
    wall_us = (time.perf_counter() - t0) * 1e6
    np.testing.assert_allclose(host, np.arange(12, dtype=np.float32).reshape(3, 4) @ np.ones((4, 5)), rtol=1e-6)
    del c
    rows = {r.key: r for r in prof.key_averages()}
    assert "aclnnAdd" in rows and "aclnnMatmul" in rows, list(rows)
    for op in ("aclnnAdd", "aclnnMatmul"):
        r = rows[op]
        assert r.calls == n, (op, r)
        assert r.kernel_calls == n, (op, r)
        assert 0 <= r.phase1_calls <= n  # the framework's executor cache runs phase 1 once per call site
        for v in (r.phase1_us, r.enqueue_us, r.kernel_us, r.sync_us, r.copy_us):
            assert v >= 0.0
    # Kernels run one after another on the stream; the host's own time (phase 1, enqueue, waits,
    # copies) is on this thread: each sums to at most the wall time. (Their sum may exceed it: a
    # queued kernel runs on the stream's worker while the host goes on.)
    kernel_total = sum(r.kernel_us for r in rows.values())
    assert kernel_total <= wall_us, (kernel_total, wall_us)
    assert sum(r.total_us - r.kernel_us for r in rows.values()) <= wall_us * 1.01 + 50
    # the host copy of d
    copies = [r for r in rows.values() if r.copies]
    assert copies and sum(r.copy_bytes for r in copies) >= 3 * 5 * 4
    text = prof.key_averages().table()
    assert "aclnnAdd" in text and "aclnnMatmul" in text and "Kernel total" in text
    lines = [ln for ln in text.splitlines() if ln.startswith("acl")]
    totals = [r.total_us for r in prof.key_averages()]
    assert totals == sorted(totals, reverse=True) and len(lines) == len(totals)
    # events: phase 1 / launch / kernel for each op, the kernel's implementation named
    xs = check_trace_events(prof.events())
    for op in ("aclnnAdd", "aclnnMatmul"):
        cats = {e["cat"] for e in xs if e["args"]["op"] == op}
        assert {"launch", "kernel"} <= cats, (op, cats)
    assert any(e["cat"] == "sync" for e in xs)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    doc = json.loads(path.read_text())
    assert len(_xs(doc["traceEvents"])) == len(xs)


def test_phase1_events_without_cache():
    opsnn.set_executor_cache(False)
    try:
        a = opsnn.tensor(np.ones((2, 3), dtype=np.float32))
        with opsnn.profiler.profile() as prof:
            for _ in range(3):
                a * a
        r = {r.key: r for r in prof.key_averages()}["aclnnMul"]
        assert r.calls == 3 and r.phase1_calls == 3 and r.phase1_us > 0
        p1 = [e for e in _xs(prof.events()) if e["cat"] == "phase1" and e["args"]["op"] == "aclnnMul"]
        assert len(p1) == 3 and all(e["name"] == "aclnnMulGetWorkspaceSize" and e["args"]["impl"] for e in p1)
    finally:
        opsnn.set_executor_cache(True)


def test_off_records_nothing():
    a = opsnn.tensor(np.ones((2, 2), dtype=np.float32))
    assert not opsnn.profiler.is_enabled()
    for _ in range(3):
        a + a  # outside any session: not recorded anywhere
    opsnn.synchronize()
    with opsnn.profiler.profile(enabled=False) as prof:
        assert not opsnn.profiler.is_enabled()
        a + a
    assert prof.events() == [] and len(prof.key_averages()) == 0
    with opsnn.profiler.profile() as prof:
        pass
    ops = {e["args"]["op"] for e in _xs(prof.events())}
    assert "aclnnAdd" not in ops, ops  # nothing from before the session


def _run(code, env_extra, **kw):
    env = dict(os.environ)
    for k in ("OPSNN_PROFILE", "ASCEND_GLOBAL_LOG_LEVEL", "ASCEND_SLOG_PRINT_TO_STDOUT", "ASCEND_PROCESS_LOG_PATH",
              "OPSNN_LOG", "OPSNN_VERBOSE"):
        env.pop(k, None)
    env.update(env_extra)
    return subprocess.run(code, env=env, capture_output=True, text=True, timeout=120, **kw)


def test_env_var_writes_trace_python(tmp_path):
    path = tmp_path / "py.json"
    code = ("import numpy as np, opsnn\n"
            "a = opsnn.tensor(np.ones((4, 4), dtype=np.float32))\n"
            "for _ in range(3): b = a + a\n"
            "print(b.numpy().sum())\n")
    r = _run([PY, "-c", code], {"OPSNN_PROFILE": str(path)})
    assert r.returncode == 0, r.stderr
    doc = json.loads(path.read_text())
    xs = check_trace_events(doc["traceEvents"])
    adds = [e for e in xs if e["args"]["op"] == "aclnnAdd"]
    assert sum(e["cat"] == "launch" for e in adds) == 3
    assert sum(e["cat"] == "kernel" for e in adds) == 3
    assert sum(e["cat"] == "phase1" for e in adds) >= 1


def test_trace_keeps_the_last_events_of_each_thread(tmp_path):
    """OPSNN_PROFILE_EVENTS bounds each thread's ring: a long run keeps its end and says how many
    events it dropped."""
    path = tmp_path / "ring.json"
    code = ("import numpy as np, opsnn\n"
            "a = opsnn.tensor(np.ones((4, 4), dtype=np.float32))\n"
            "for _ in range(50): b = a + a\n"
            "c = a * a\n"
            "print(c.numpy().sum())\n")
    r = _run([PY, "-c", code], {"OPSNN_PROFILE": str(path), "OPSNN_PROFILE_EVENTS": "8",
                                "ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "1"})
    assert r.returncode == 0, r.stderr
    xs = check_trace_events(json.loads(path.read_text())["traceEvents"])
    per_thread = {}
    for e in xs:
        per_thread[e["tid"]] = per_thread.get(e["tid"], 0) + 1
    assert per_thread and max(per_thread.values()) <= 8, per_thread
    assert any(e["args"]["op"] == "aclnnMul" for e in xs)  # the end of the run is kept
    assert sum(e["args"]["op"] == "aclnnAdd" and e["cat"] == "launch" for e in xs) < 50
    assert "older ones were dropped" in r.stdout + r.stderr


@pytest.mark.skipif(not os.environ.get("OPSNN_ADD_BASIC_EXE"), reason="the C example is built by ctest's tree")
def test_env_var_writes_trace_c_program(tmp_path):
    """An unchanged aclnn program (examples/add_basic.cpp): trace at aclFinalize / exit."""
    path = tmp_path / "c.json"
    r = _run([os.environ["OPSNN_ADD_BASIC_EXE"]], {"OPSNN_PROFILE": str(path)})
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(path.read_text())
    xs = check_trace_events(doc["traceEvents"])
    names = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "thread_name"}
    assert all(e["tid"] in names for e in xs), names  # every thread is named
    assert any("worker" in n for n in names.values()) and any("host thread" in n for n in names.values()), names
    by_cat = {}
    for e in xs:
        by_cat.setdefault(e["cat"], []).append(e)
    assert [e["name"] for e in by_cat["phase1"]] == ["aclnnAddGetWorkspaceSize"]
    assert [e["name"] for e in by_cat["launch"]] == ["aclnnAdd"]
    assert [e["args"]["op"] for e in by_cat["kernel"]] == ["aclnnAdd"]
    assert by_cat["kernel"][0]["args"].get("impl")
    assert any(e["name"] == "aclrtSynchronizeStream" for e in by_cat["sync"])
    kinds = sorted(e["args"]["kind"] for e in by_cat["copy"])
    assert kinds == ["D2H", "H2D", "H2D"] and all(e["args"]["bytes"] > 0 for e in by_cat["copy"])
    # phase 1 before launch before the kernel's end
    p, l, k = by_cat["phase1"][0], by_cat["launch"][0], by_cat["kernel"][0]
    assert p["ts"] + p["dur"] <= l["ts"] + 1e-3 and l["ts"] <= k["ts"] + 1e-3


_VERBOSE_CODE = ("import numpy as np, opsnn\n"
                 "a = opsnn.tensor(np.ones((2, 2), dtype=np.float32))\n"
                 "prev = opsnn.set_verbose({lvl!r})\n"
                 "(a + a).numpy()\n"
                 "opsnn.set_verbose(4)\n"
                 "opsnn.set_executor_cache(False)\n"
                 "(a * a).numpy()\n"
                 "print('prev', prev, 'now', opsnn.get_verbose())\n")


def test_set_verbose_prints_op_lines():
    r = _run([PY, "-c", _VERBOSE_CODE.format(lvl=0)], {})
    assert r.returncode == 0, r.stderr
    assert "opsnn_verbose,phase1,aclnnAdd" in r.stderr and "opsnn_verbose,exec,aclnnAdd" in r.stderr, r.stderr
    assert "aclnnMul" not in r.stderr  # off again at level 4
    assert "prev 4 now 4" in r.stdout
    r = _run([PY, "-c", _VERBOSE_CODE.format(lvl="error")], {})
    assert r.returncode == 0 and "opsnn_verbose" not in r.stderr
    with pytest.raises(ValueError):
        opsnn.set_verbose(7)
    with pytest.raises(ValueError):
        opsnn.set_verbose("loud")


# A warning from the runtime: aclInit with an unreadable config file, through ctypes on the
# library the package loaded.
_WARN_CODE = ("import ctypes, opsnn\n"
              "lib = [l.split()[-1] for l in open('/proc/self/maps') if 'libopsnn.so' in l][0]\n"
              "acl = ctypes.CDLL(lib)\n"
              "{before}\n"
              "acl.aclInit(b'/nonexistent/acl.json')\n")


def test_vendor_log_variables(tmp_path):
    code = _WARN_CODE.format(before="")
    # level 2 (warning) to stdout: the toolkit's line format
    r = _run([PY, "-c", code], {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "2"})
    assert r.returncode == 0, r.stderr
    assert "[WARNING] OPSNN(" in r.stdout and "is not readable" in r.stdout, (r.stdout, r.stderr)
    assert "is not readable" not in r.stderr
    # default level 3 (error): the warning is not printed
    r = _run([PY, "-c", code], {"ASCEND_SLOG_PRINT_TO_STDOUT": "1"})
    assert "is not readable" not in r.stdout + r.stderr
    # level 4 (null)
    r = _run([PY, "-c", code], {"ASCEND_SLOG_PRINT_TO_STDOUT": "1", "ASCEND_GLOBAL_LOG_LEVEL": "4"})
    assert "is not readable" not in r.stdout + r.stderr
    # no variable: nothing printed
    r = _run([PY, "-c", code], {"ASCEND_GLOBAL_LOG_LEVEL": "0"})
    assert "is not readable" not in r.stdout + r.stderr
    # ASCEND_PROCESS_LOG_PATH: the process's log file
    logdir = tmp_path / "logs"
    r = _run([PY, "-c", code], {"ASCEND_PROCESS_LOG_PATH": str(logdir), "ASCEND_GLOBAL_LOG_LEVEL": "1"})
    assert r.returncode == 0, r.stderr
    files = list((logdir / "plog").glob("plog-*.log"))
    assert len(files) == 1 and "[WARNING] OPSNN(" in files[0].read_text()
    # opsnn.set_verbose at run time (to stderr when nothing was configured)
    r = _run([PY, "-c", _WARN_CODE.format(before="opsnn.set_verbose('warning')")], {})
    assert "[WARNING] OPSNN(" in r.stderr and "is not readable" in r.stderr, r.stderr
