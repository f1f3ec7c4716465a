"""Run the conformance corpus under daskflow (and TF1, with ``--oracle``) and write the report.

Usage (from the repository root)::

    python -m tests.conformance                      # daskflow over the corpus -> docs/conformance.md
    python -m tests.conformance --heldout            # the held-out programs too
    python -m tests.conformance --oracle             # first rerun TF1 (needs /work/tfenv)
    python -m tests.conformance corpus/<repo>/x.py   # some programs only (results merged)
    python -m tests.conformance --cluster            # on a local cluster (ps-0, worker-0, worker-1)

TF1's runs (``--oracle``: seed 0 of each program, then seeds 1.. ``--seeds``-1 of
those that ran; ``--spread`` only the latter, topping up to ``--seeds`` runs;
``--respread`` discards the further seeds first) are kept in ``tests/conformance/oracle.json``;
daskflow's last run of each program in ``tests/conformance/results.json``. Both are
merged by program and saved as each program ends, so a partial run updates only its
programs. ``docs/conformance.md`` is written from both.

``--cluster`` runs the programs unchanged on a ``tf.local_cluster(ps=1, workers=2)`` of
worker processes: each program's ``tf.Session()`` (and ``MonitoredTrainingSession``,
``Estimator``) finds it through ``DASK_DASKFLOW__SESSION_TARGET``, as a user's would, and
the runs go to ``tests/conformance/results_cluster.json``, judged against TF1 as the
embedded runs are.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from . import compare, report, shapes

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
ORACLE = HERE / "oracle.json"
RESULTS = HERE / "results.json"
ON_CLUSTER = HERE / "results_cluster.json"  # daskflow's runs with --cluster
TF_PYTHON = os.environ.get("DASKFLOW_TF_PYTHON", "/work/tfenv/bin/python")
SETS = ("corpus", "heldout")


def programs(sets):
    """Every stored program of the named sets, as paths relative to this folder: each ``.py``
    but a folder's ``data.py`` and the modules its programs import (a repository's helper,
    stored beside them: the runner puts a program's folder on its path)."""
    found = []
    for name in sets:
        for folder in sorted(p for p in (HERE / name).iterdir() if p.is_dir()):
            files = sorted(folder.glob("*.py"))
            helpers = _imported_here(files)
            for path in files:
                if path.name != "data.py" and path.stem not in helpers:
                    found.append(path.relative_to(HERE).as_posix())
    return found


def _imported_here(files):
    """The stems of ``files`` that some of them import."""
    import ast

    stems, imported = {f.stem for f in files}, set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(errors="replace"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module)
    return stems & imported


def run_batch(chosen, engine, seeds, python, done, shapes_dir, limits=None, jobs=1):
    """Run `chosen` programs under `engine` in one runner process (the engine imported once);
    each report is passed to ``done(program, seed, report)`` as it comes. With `jobs` runners
    side by side, each one's BLAS (numpy's) gets its share of the cores: OpenBLAS's threads
    spin while they wait, and two runners each with a thread per core slow each other's small
    matrix products some thirtyfold."""
    cmd = [python, str(HERE / "run_program.py"), *(str(HERE / program) for program in chosen)]
    cmd += ["--engine", engine, "--seeds", *map(str, seeds)]
    env = dict(os.environ, PYTHONHASHSEED="0", CONFORMANCE_SHAPES=shapes_dir)
    if jobs > 1:
        share = str(max(1, (os.cpu_count() or 1) // jobs))
        env.update(OPENBLAS_NUM_THREADS=share, OMP_NUM_THREADS=share, MKL_NUM_THREADS=share)
    if limits:
        env["CONFORMANCE_TIMEOUTS"] = limits
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO, env=env, errors="replace"
    )
    seen = set()
    for line in proc.stdout:
        if line.startswith("CONFORMANCE "):
            report = json.loads(line[len("CONFORMANCE ") :])
            program = pathlib.Path(REPO, report["program"]).resolve().relative_to(HERE).as_posix()
            seen.add((program, report["seed"]))
            done(program, report["seed"], report)
    proc.wait()
    for program in chosen:
        for seed in seeds:
            if (program, seed) not in seen:
                error = f"runner exited {proc.returncode}"
                done(program, seed, {"status": "error", "error": error, "where": "", "result": []})


def run_all(chosen, engine, seeds, python, jobs, finished, limits=None):
    """Run `chosen` programs with `seeds` over `jobs` runner processes; ``finished(program,
    [report per seed])`` is called as each program's runs end, the first report carrying the
    ``shapes`` of the tensors the program fetched (see :mod:`shapes`)."""
    shapes_dir = tempfile.mkdtemp(prefix="conformance-shapes-")
    reports, lock, start = {}, threading.Lock(), time.perf_counter()

    def done(program, seed, report):
        with lock:
            by_seed = reports.setdefault(program, {})
            by_seed[seed] = report
            count = sum(len(r) for r in reports.values())
            elapsed = time.perf_counter() - start
            print(
                f"[{engine} {count}/{len(chosen) * len(seeds)} {elapsed:.0f}s] {program} seed {seed}: "
                f"{report['status']}",
                flush=True,
            )
            if len(by_seed) == len(seeds):
                key = program.replace("/", "__").removesuffix(".py")
                found = pathlib.Path(shapes_dir, f"{engine}__{key}.json")
                by_seed[seeds[0]]["shapes"] = json.loads(found.read_text()) if found.exists() else None
                finished(program, [by_seed[s] for s in seeds])

    batches = [chosen[i::jobs] for i in range(jobs) if chosen[i::jobs]]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        runs = [
            pool.submit(run_batch, b, engine, seeds, python, done, shapes_dir, limits, len(batches))
            for b in batches
        ]
        for run in runs:
            run.result()
    shutil.rmtree(shapes_dir, ignore_errors=True)


def _time_limits(oracle, chosen):
    """A JSON file of daskflow's time limit per program: ten times TF's time (at least the
    program's own limit). Speed is not what the corpus measures; kernels have their benchmarks."""
    limits = {p: int(10 * oracle[p]["seconds"]) for p in chosen if (oracle.get(p) or {}).get("seconds")}
    path = pathlib.Path(tempfile.mkdtemp(prefix="conformance-limits-"), "limits.json")
    path.write_text(json.dumps(limits))
    return str(path)


def _lacking(entry):
    """Whether an oracle entry is missing or was lost with its runner process."""
    return entry is None or entry.get("error", "").startswith("runner exited")


def oracle_entry(runs):
    first = runs[0]
    return {
        "status": first["status"],
        "error": first.get("error", ""),
        "where": first.get("where", ""),
        "seconds": first.get("seconds"),
        "results": [r["result"] if r["status"] == "ok" else None for r in runs],
        "statuses": [r["status"] for r in runs],
        "shapes": runs[0].get("shapes"),
    }


def daskflow_entry(runs, oracle):
    """daskflow's report of a program, with the fetched shapes that differ from TF's."""
    entry = {k: runs[0].get(k) for k in ("status", "error", "where", "seconds", "result")}
    theirs, ours = (oracle or {}).get("shapes"), runs[0].get("shapes")
    if theirs and ours:
        entry["shapes_compared"] = shapes.compared(theirs, ours)
        entry["shape_mismatches"] = shapes.mismatches(theirs, ours)
    return entry


def _load(path):
    return json.loads(path.read_text()) if path.exists() else {}


def _save(path, table):
    path.write_text(json.dumps(dict(sorted(table.items())), indent=1, sort_keys=True) + "\n")


def _top_up(oracle, chosen, args):
    """Run TF's seeds ``n..--seeds``-1 of each chosen program that ran and has ``n`` runs."""

    def more_runs(program, runs):
        oracle[program]["results"] += [r["result"] if r["status"] == "ok" else None for r in runs]
        oracle[program]["statuses"] += [r["status"] for r in runs]
        _save(ORACLE, oracle)

    by_count = {}
    for program in chosen:
        entry = oracle.get(program)
        if entry and entry["status"] == "ok" and len(entry["results"]) < args.seeds:
            by_count.setdefault(len(entry["results"]), []).append(program)
    for count, todo in sorted(by_count.items()):
        run_all(todo, "tf", list(range(count, args.seeds)), args.tf_python, args.jobs, more_runs)


def _run_daskflow(chosen, jobs, path):
    """daskflow's runs of `chosen`, judged against TF1's and saved into `path` as each ends."""
    results, oracle = _load(path), _load(ORACLE)

    def judged(program, runs):
        results[program] = daskflow_entry(runs, oracle.get(program))
        _save(path, results)

    run_all(chosen, "daskflow", [0], sys.executable, jobs, judged, _time_limits(oracle, chosen))


@contextlib.contextmanager
def _cluster_for_sessions():
    """A local cluster of worker processes that every ``tf.Session()`` without a target in the
    runners (their environment is this process's) opens on, for as long as the block runs."""
    import daskflow as tf

    with tf.local_cluster(ps=1, workers=2, memory_limit="3GiB") as cluster:
        os.environ["DASK_DASKFLOW__SESSION_TARGET"] = cluster.scheduler_address
        try:
            yield cluster
        finally:
            del os.environ["DASK_DASKFLOW__SESSION_TARGET"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", help="paths relative to tests/conformance (default: all)")
    parser.add_argument("--heldout", action="store_true", help="include the held-out programs")
    parser.add_argument("--oracle", action="store_true", help="rerun TF1 first (--seeds runs each)")
    parser.add_argument("--missing", action="store_true", help="with --oracle: only programs it lacks")
    parser.add_argument("--spread", action="store_true", help="only TF's further seeds where it lacks them")
    parser.add_argument("--respread", action="store_true", help="with --spread: drop further seeds first")
    parser.add_argument("--no-daskflow", action="store_true", help="only the oracle")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tf-python", default=TF_PYTHON)
    parser.add_argument("--cluster", action="store_true", help="daskflow's runs on a local cluster")
    args = parser.parse_args(argv)
    chosen = [p.removeprefix("tests/conformance/") for p in args.programs]
    chosen = chosen or programs(SETS if args.heldout else SETS[:1])
    if args.oracle:
        oracle = _load(ORACLE)
        todo = [p for p in chosen if _lacking(oracle.get(p))] if args.missing else chosen

        def first_run(program, runs):
            oracle[program] = oracle_entry(runs)
            _save(ORACLE, oracle)

        run_all(todo, "tf", [0], args.tf_python, args.jobs, first_run)
    if args.oracle or args.spread:
        oracle = _load(ORACLE)
        if args.respread:
            for program in chosen:
                if program in oracle:
                    oracle[program]["results"] = oracle[program]["results"][:1]
                    oracle[program]["statuses"] = oracle[program]["statuses"][:1]
        _top_up(oracle, chosen, args)
    if not args.no_daskflow:
        with _cluster_for_sessions() if args.cluster else contextlib.nullcontext():
            _run_daskflow(chosen, args.jobs, ON_CLUSTER if args.cluster else RESULTS)
    oracle, results = _load(ORACLE), _load(ON_CLUSTER if args.cluster else RESULTS)
    report.write(oracle, _load(RESULTS), _load(ON_CLUSTER))
    verdicts = [compare.verdict(oracle.get(p), results.get(p)) for p in chosen]
    counted = [v for v in verdicts if v not in ("tf fails", "not run")]
    print(
        f"{len(chosen)} programs; {len(counted)} run under TF; of those under daskflow: "
        f"{counted.count('matches')} match, {counted.count('differs')} differ, {counted.count('fails')} fail"
    )


if __name__ == "__main__":
    main()
