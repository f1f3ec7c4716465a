"""Run every program under daskflow and write ``STATUS.md``.

Usage::

    python tests/programs/survey_daskflow.py

For each program: whether it runs to the end through ``run_daskflow.py``
(short step counts, as for ``tf1_reference.json``), the first failure (the
exception and the program line it came from), the metrics next to TF1's, and
the ``tf.*`` names its source uses that daskflow lacks
(:func:`harness.tf_chains` checked with :func:`harness.resolve`).
"""

import json
import os
import re
import signal
import subprocess
import sys
import threading

import harness
import run_daskflow

import daskflow

OUT = harness.HERE / "STATUS.md"
TIMEOUT_S = run_daskflow.TIMEOUT_S
# The environment as this module is imported (pytest imports it while collecting, before any
# test runs). Dask's Nanny later sets OMP_NUM_THREADS=1 and the like in this process's own
# environment for the workers it spawns; the runners' thread counts are set by run_many.
ENVIRONMENT = dict(os.environ)


def first_failure(name, stderr):
    """(program line, exception line) of a traceback in `stderr`."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    error = lines[-1] if lines else "(no message)"
    where = ""
    frame = re.compile(rf'File ".*{re.escape(name)}\.py", line (\d+)')
    for i, line in enumerate(lines):
        match = frame.search(line)
        if match and i + 1 < len(lines):
            where = f"line {match[1]}: `{lines[i + 1].strip()}`"
    return where, error


def run_one(name):
    """Run one program in a fresh runner process; its entry (see :func:`entry`)."""
    return run_many([name], runners=1)[name]


def run_many(names, runners=2):
    """Run the named programs in `runners` runner processes side by side, each importing
    daskflow once and forking a child per program, the next program going to whichever
    runner is free; ``{name: entry}`` (see :func:`entry`). Each runner's BLAS gets its
    share of the cores (OpenBLAS's spinning threads would otherwise slow the other
    runner's small matrix products many times over)."""
    share = str(max(1, (os.cpu_count() or 1) // runners))
    env = {k: v for k, v in ENVIRONMENT.items() if k != "DASKFLOW_PROGRAM_STEPS"}
    env.update(OPENBLAS_NUM_THREADS=share, OMP_NUM_THREADS=share, MKL_NUM_THREADS=share)
    queue, reports = list(reversed(names)), {}
    lock = threading.Lock()

    def runner():
        cmd = [sys.executable, str(harness.HERE / "run_daskflow.py"), "--forked"]
        with subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=harness.REPO
        ) as proc:
            while True:
                with lock:
                    name = queue.pop() if queue else None
                if name is None:
                    break
                proc.stdin.write(str(harness.HERE / f"{name}.py") + "\n")
                proc.stdin.flush()
                reports[name] = _next_report(proc, name)
            proc.stdin.close()

    threads = [threading.Thread(target=runner) for _ in range(min(runners, len(names)))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {name: entry(name, reports[name]) for name in names}


def _next_report(proc, name):
    """The runner's report of the program it was just given (a crash of the runner: one too)."""
    for line in proc.stdout:
        if line.startswith("PROGRAM "):
            return json.loads(line.removeprefix("PROGRAM "))
    return {"returncode": proc.wait(), "stdout": "", "stderr": f"runner ended before {name}", "seconds": 0}


def entry(name, report):
    """A program's status (``runs``, ``fails`` or ``timeout``), first failure and metrics."""
    metrics = {}
    for metric, pattern in harness.METRICS[name]:
        values = re.findall(pattern, report["stdout"], flags=re.MULTILINE)
        if values:
            metrics[metric] = float(values[-1])
    result = {"seconds": report["seconds"], "metrics": metrics}
    if report["returncode"] == 0:
        result.update(status="runs", where="", error="")
    elif report["returncode"] == -signal.SIGALRM:
        result.update(status="timeout", where="", error=f"over {run_daskflow.TIMEOUT_S} s")
    else:
        where, error = first_failure(name, report["stderr"])
        result.update(status="fails", where=where, error=error)
    return result


def missing_names(name):
    chains = harness.tf_chains((harness.HERE / f"{name}.py").read_text())
    return sorted(c for c in chains if harness.resolve(daskflow, c) is None)


def fmt_metrics(metrics):
    return ", ".join(f"{k} {v:.4g}" for k, v in metrics.items()) or "-"


def render(results, reference):
    ref = reference.get("programs", {})
    rows = [
        "# Public TF1 programs under daskflow",
        "",
        "Written by `python tests/programs/survey_daskflow.py` (do not edit by hand). "
        "Each program ran with its short step count through `run_daskflow.py`; "
        "TF1's numbers come from `tf1_reference.json` "
        f"({reference.get('tensorflow', '?')}, `tensorflow.compat.v1`). "
        "Programs and their sources: `LICENSES.md` and each file's header.",
        "",
        f"Runs to the end: {sum(r['status'] == 'runs' for r in results.values())} of {len(results)}; "
        "'fails as under TF1' means TF1 stops at the same error (a problem of the program "
        "or its data, not of daskflow).",
        "",
        "| program | under daskflow | first failure | daskflow result | TF1 result |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, r in results.items():
        failure = f"{r['where']} — `{r['error']}`" if r["error"] else "-"
        tf1 = ref.get(name, {})
        tf1_text = (
            fmt_metrics(tf1.get("metrics", {}))
            if tf1.get("status") == "ok"
            else (f"no reference: `{tf1.get('error', 'not run')}`")
        )
        cells = [name, f"{r['status']} ({r['seconds']} s)", failure, fmt_metrics(r["metrics"]), tf1_text]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    rows += ["", "## TF1 names each program uses that daskflow lacks", ""]
    for name, r in results.items():
        names = ", ".join(f"`{n}`" for n in r["missing"]) or "none"
        rows.append(f"- **{name}**: {names}")
    counts = {}
    for r in results.values():
        for n in r["missing"]:
            counts[n] = counts.get(n, 0) + 1
    rows += ["", "## Missing names by number of programs that need them", ""]
    rows += [f"- {c} × `{n}`" for n, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return "\n".join(rows) + "\n"


def main():
    reference_file = harness.HERE / "tf1_reference.json"
    reference = json.loads(reference_file.read_text()) if reference_file.exists() else {}
    results = run_many(harness.program_names())
    for name in results:
        tf1_error = reference.get("programs", {}).get(name, {}).get("error")
        if results[name]["status"] == "fails" and results[name]["error"] == tf1_error:
            # The program itself stops there under TF1 too (numpy, data size).
            results[name]["status"] = "fails as under TF1"
        results[name]["missing"] = missing_names(name)
        print(name, results[name]["status"], results[name]["error"], flush=True)
    OUT.write_text(render(results, reference))


if __name__ == "__main__":
    main()
