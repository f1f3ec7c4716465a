"""Write ``docs/conformance.md`` from TF1's and daskflow's runs of the corpus."""

from __future__ import annotations

import collections
import pathlib
import subprocess

from . import compare

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
OUT = REPO / "docs" / "conformance.md"


def _numbers(values, limit=4):
    if not values:
        return "-"
    shown = ", ".join(f"{v:.4g}" for v in values[:limit])
    return shown + (f" (+{len(values) - limit})" if len(values) > limit else "")


def _tf_range(entry):
    bounds = compare.envelope([r for r, s in zip(entry["results"], entry["statuses"]) if s == "ok"])
    if not bounds:
        return "-"
    shown = ", ".join(f"{lo:.4g}" if lo == hi else f"{lo:.4g}..{hi:.4g}" for lo, hi in bounds[:4])
    return shown + (f" (+{len(bounds) - 4})" if len(bounds) > 4 else "")


def _cell(text):
    return (text or "-").replace("|", "\\|").replace("\n", " ")[:160]


def _rows(oracle, results, prefix):
    # Programs stored now: an entry of a program since removed from the corpus is left out.
    names = sorted(p for p in set(oracle) | set(results) if p.startswith(prefix) and (HERE / p).is_file())
    return [(p, oracle.get(p), results.get(p), compare.verdict(oracle.get(p), results.get(p))) for p in names]


def _summary(rows):
    by_repo = collections.defaultdict(list)
    for program, _, _, verdict in rows:
        by_repo[program.split("/")[1]].append(verdict)
    lines = [
        "| repository | programs | run under TF | run under daskflow | within TF's spread | runs "
        "| not run yet |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    total = []
    for repo, verdicts in sorted(by_repo.items()):
        total += verdicts
        lines.append(_summary_row(f"`{repo}`", verdicts))
    lines.append(_summary_row("**all**", total))
    return lines


def _summary_row(label, verdicts):
    under_tf = sum(v != "tf fails" for v in verdicts)
    counted = [v for v in verdicts if v not in ("tf fails", "not run")]
    runs = sum(v in ("matches", "differs") for v in counted)
    share = f"{100 * runs / len(counted):.0f}%" if counted else "-"
    matches = counted.count("matches")
    waiting = verdicts.count("not run")
    return f"| {label} | {len(verdicts)} | {under_tf} | {runs} | {matches} | {share} | {waiting} |"


def _shape_section(rows):
    """Fetched tensors whose daskflow static shape differs from TF's (see tests/conformance/shapes.py)."""
    compared = [(p, df) for p, _, df, _ in rows if df and "shapes_compared" in df]
    total = sum(df["shapes_compared"] for _, df in compared)
    differing = [(p, df["shape_mismatches"]) for p, df in compared if df["shape_mismatches"]]
    lines = [
        "## Static shapes",
        "",
        f"Over {len(compared)} programs that ran under both, {total} fetched tensors whose shape TF knows",
        "(at least its rank) were compared with daskflow's static shape (the n-th distinct `Session.run`",
        f"call's tensors under each engine); {len(differing)} programs have a tensor whose shape differs.",
        "",
    ]
    for program, found in differing:
        shown = "; ".join(f"call {c} fetch {f}: TF {t}, daskflow {o}" for c, f, t, o in found[:3])
        lines.append(f"- `{program.removeprefix('corpus/')}`: {shown}")
    return lines + [""] if differing else lines


def _commit():
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
        ).stdout.strip()
    except OSError:
        return "?"


def _cluster_section(oracle, on_cluster):
    """The same programs run on a local cluster (``--cluster``), and each one failing there."""
    rows = _rows(oracle, on_cluster, "corpus/") + _rows(oracle, on_cluster, "heldout/")
    rows = [r for r in rows if r[2]]
    if not rows:
        return []
    lines = [
        "## On a local cluster",
        "",
        "`python -m tests.conformance --cluster [--heldout]`: the same programs, unchanged, with",
        "`DASK_DASKFLOW__SESSION_TARGET` naming a `tf.local_cluster(ps=1, workers=2)` of worker",
        "processes, so each `tf.Session()` runs its graph on the workers (ops with no device on",
        "`worker-0`). Judged as the embedded runs are. A run on the cluster costs milliseconds",
        "where an embedded one costs microseconds, so a 10 000-step loop takes minutes: programs",
        "that ran past their time limit while the other runner shared the cluster are run again",
        "alone (`--cluster --jobs 1 PROGRAM...`), and this table has their second run.",
        "",
        *_summary(rows),
        "",
    ]
    failing = [(p, df) for p, _, df, verdict in rows if verdict == "fails"]
    if failing:
        lines += ["| program | first failure on the cluster |", "| --- | --- |"]
        lines += [f"| `{p}` | {_cell(df['where'] + ' — ' + df['error'])} |" for p, df in failing]
        lines.append("")
    return lines


def write(oracle, results, on_cluster=None):
    corpus = _rows(oracle, results, "corpus/")
    heldout = _rows(oracle, results, "heldout/")
    lines = [
        "# Conformance: public TF1 programs under TF1 and under daskflow",
        "",
        "Generated by `python -m tests.conformance` (at commit "
        f"{_commit()}); do not edit by hand. Each program of `tests/conformance/corpus/` is a public",
        "TF1 program with only its imports, data paths and step counts changed (its header says which,",
        "with its source and licence). TF1 is TensorFlow 2.21's `tensorflow.compat.v1`, run by",
        "`python -m tests.conformance --oracle` with seeds 0 to 4; daskflow runs it with seed 0.",
        "A seed is numpy's, Python's and the graph-level one; a seed the program sets itself",
        "(`tf.set_random_seed(777)`) is shifted by the run's seed, so seed 0 runs the program as",
        "written and the others show how its result moves with the draw (daskflow's random",
        "numbers are TF's distributions, not TF's Philox streams: a fixed seed gives another draw).",
        "",
        "*Within TF's spread*: each number of the program's result line lies in the range of TF's five",
        "runs widened on each side by that range's width, plus float32 rounding (1e-3 relative).",
        "*Runs*: daskflow finishes the program (counted only over programs TF runs and daskflow's",
        "last survey reached; *not run yet*: programs that survey did not reach). daskflow may take ten",
        "times TF's own time on a program (at least 120 s) before it counts as a timeout.",
        "",
        "## By repository",
        "",
        *_summary(corpus),
        "",
    ]
    if heldout:
        lines += [
            "## Held-out programs (measured, kept out of the choice of work)",
            "",
            "Two fixes did come from their failures (`tf.tile` with multiples known at run time,",
            "a `TensorArray` of strings): without them two of these programs would fail.",
            "`rasbt_deeplearning_models` and `packtpublishing_neural_network_programming_with_tensorflow`",
            "were added later (2026-12-07) and first measured at 80d08e1: of their 46 programs that run",
            "under TF, 45 ran and 43 were within TF's spread. Two fixes came from them",
            "(`ResizeNearestNeighbor`'s gradient, `Session.graph_def`); the table has the runs since.",
            "`sjchoi86_tensorflow_101` (3 programs; most of its notebooks are TF 0.x) was added on",
            "2026-12-08 and first measured at 6f1b5e4: all 3 ran and were within TF's spread.",
            "",
            *_summary(heldout),
            "",
        ]
    lines += _cluster_section(oracle, on_cluster or {})
    lines += _shape_section(corpus)
    lines += [
        "## Programs",
        "",
        "| program | verdict | TF1 (seed 0) | TF1's range | daskflow | first failure |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for program, tf, df, verdict in corpus:
        failure = ""
        if verdict == "tf fails":
            failure = f"TF: {tf['error'] if tf else 'not run'}"
        elif verdict == "fails":
            failure = f"{df['where']} — {df['error']}" if df else "not run"
        tf_result = _numbers(tf["results"][0]) if tf and tf["results"] and tf["results"][0] else "-"
        lines.append(
            f"| `{program.removeprefix('corpus/')}` | {verdict} | {tf_result} | "
            f"{_tf_range(tf) if tf else '-'} | {_numbers(df['result']) if df else '-'} | {_cell(failure)} |"
        )
    OUT.write_text("\n".join(lines) + "\n")
