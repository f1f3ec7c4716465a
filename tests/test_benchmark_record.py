"""benchmarks/record.py: a benchmark rewrites only its own block of RESULTS.md."""

import datetime
import importlib.util
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# The benchmarks are scripts, not a package: load the module from its file.
_spec = importlib.util.spec_from_file_location("benchmark_record", REPO / "benchmarks" / "record.py")
record_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record_module)
record = record_module.record

BEFORE = "# Results\r\n\nIntro, with a Windows line end above and  two spaces.\n\n## Embedded\n\n"
OLD_A = "<!-- results:a begin -->\nold table\n<!-- results:a end -->"
BETWEEN = "\n\nHand-written analysis of a.\n\n"
B = "<!-- results:b begin -->\nb's table, untouched\n<!-- results:b end -->"
AFTER = "\n\nClosing words, no newline at the end"

HEADING = re.compile(
    r"Measured (?P<date>\d{4}-\d\d-\d\d \d\d:\d\d) UTC at commit (?P<commit>[0-9a-f]{4,40})"
    r"(?P<dirty> \+ uncommitted changes)? by `(?P<command>[^`]+)` on (?P<machine>.+)\."
)


@pytest.fixture
def results(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_bytes((BEFORE + OLD_A + BETWEEN + B + AFTER).encode())
    path.chmod(0o640)
    return path


def _block(text, name):
    begin, end = f"<!-- results:{name} begin -->\n", f"\n<!-- results:{name} end -->"
    return text[text.index(begin) + len(begin) : text.index(end)]


def _minutes_around(call):
    """Run ``call``; return its result and the UTC minutes it may have stamped."""
    start = datetime.datetime.now(datetime.timezone.utc)
    out = call()
    end = datetime.datetime.now(datetime.timezone.utc)
    return out, {start.strftime("%Y-%m-%d %H:%M"), end.strftime("%Y-%m-%d %H:%M")}


def test_replaces_only_its_own_block(results):
    table = [["model", "ratio"], ["(a)", "1.30"]]
    record("a", "Toy step ÷ numpy", table, notes=["First note.", "Second note."], path=results)
    text = results.read_bytes().decode()
    assert text.startswith(BEFORE + "<!-- results:a begin -->\n")
    assert text.endswith("\n<!-- results:a end -->" + BETWEEN + B + AFTER)
    title, heading, rest = _block(text, "a").split("\n\n", 2)
    assert title == "**Toy step ÷ numpy**"
    assert HEADING.fullmatch(heading)
    assert rest == "| model | ratio |\n|---|---|\n| (a) | 1.30 |\n\nFirst note.\n\nSecond note."


def test_markdown_table_passes_as_is_and_rerecording_replaces(results):
    record("b", "B", "| x |\n|---|\n| 1 |\n", path=results)
    record("b", "B again", "| y |\n|---|\n| 2 |", notes="Only note.", path=results)
    text = results.read_bytes().decode()
    assert text.count("<!-- results:b begin -->") == 1
    title, _, rest = _block(text, "b").split("\n\n", 2)
    assert (title, rest) == ("**B again**", "| y |\n|---|\n| 2 |\n\nOnly note.")
    assert text.startswith(BEFORE + OLD_A + BETWEEN + "<!-- results:b begin -->\n")
    assert text.endswith("<!-- results:b end -->" + AFTER)


def test_appends_a_missing_block(results):
    original = results.read_bytes().decode()
    record("new_bench", "New", [["h"], ["1"]], path=results)
    text = results.read_bytes().decode()
    # The original lacked a final newline: one ends its last line, a blank line parts the block.
    assert text.startswith(original + "\n\n<!-- results:new_bench begin -->\n**New**\n\n")
    assert text.endswith("\n\n| h |\n|---|\n| 1 |\n<!-- results:new_bench end -->\n")


def test_appends_to_a_file_ending_in_a_newline(tmp_path):
    path = tmp_path / "R.md"
    path.write_text("intro\n")
    record("x", "X", [["h"], ["1"]], path=path)
    assert path.read_text().startswith("intro\n\n<!-- results:x begin -->\n**X**\n\nMeasured ")


@pytest.mark.process
def test_heading_holds_commit_date_command_and_machine(results, monkeypatch):
    monkeypatch.setattr(sys, "orig_argv", ["python", "benchmarks/toy.py", "--record"])
    monkeypatch.setitem(sys.modules, "tensorflow", types.SimpleNamespace(__version__="9.8.7"))
    _, minutes = _minutes_around(lambda: record("a", "A", [["h"], ["1"]], path=results))
    heading = HEADING.fullmatch(_block(results.read_text(), "a").split("\n\n")[1])
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert heading["commit"] == head.stdout.strip()
    assert heading["date"] in minutes
    assert heading["command"] == "python benchmarks/toy.py --record"
    machine = heading["machine"]
    assert re.search(r", \d+ logical cores, load average (\d+\.\d\d|unknown) at start; Python 3\.", machine)
    for name in ("numpy", "dask", "distributed"):
        assert re.search(rf"\b{name} \d", machine), name
    versions, _, blas = machine.rpartition("; ")
    assert versions.endswith(", TensorFlow 9.8.7")
    # numpy's BLAS and the kernels it runs, as threadpoolctl sees them (and a forced OPENBLAS_CORETYPE)
    from threadpoolctl import threadpool_info

    pools = [p for p in threadpool_info() if p["user_api"] == "blas"]
    named = f"{pools[0]['internal_api']} {pools[0]['version']} with " if pools else "BLAS unknown"
    assert blas.startswith(named), blas
    forced = os.environ.get("OPENBLAS_CORETYPE")
    assert (f"(OPENBLAS_CORETYPE={forced})" in blas) == bool(forced), blas


def test_tensorflow_named_only_where_it_was_measured(results, monkeypatch):
    monkeypatch.delitem(sys.modules, "tensorflow", raising=False)
    record("a", "A", [["h"], ["1"]], path=results)
    assert "TensorFlow" not in results.read_text()


def test_results_path_from_environment(results, monkeypatch):
    monkeypatch.setenv("DASKFLOW_RESULTS", str(results))
    assert record("a", "From env", [["h"], ["1"]]) == results
    assert "**From env**" in results.read_text()


def test_file_keeps_its_permissions(results):
    record("a", "A", [["h"], ["1"]], path=results)
    assert results.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in results.parent.iterdir()] == ["RESULTS.md"]  # no temporary file left


@pytest.mark.parametrize(
    "text",
    [
        "<!-- results:a begin -->\nno end\n",
        "<!-- results:a end -->\n<!-- results:a begin -->\n",
        OLD_A + "\n" + OLD_A + "\n",
    ],
)
def test_broken_markers_are_refused_and_file_untouched(tmp_path, text):
    path = tmp_path / "R.md"
    path.write_text(text)
    with pytest.raises(ValueError, match="block 'a'"):
        record("a", "A", [["h"], ["1"]], path=path)
    assert path.read_text() == text


@pytest.mark.parametrize("name", ["", "two words", "a-->", None])
def test_bad_block_name(results, name):
    with pytest.raises(ValueError, match="block name"):
        record(name, "A", [["h"], ["1"]], path=results)


def _git(repo, *args):
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    out = subprocess.run(["git", *ident, *args], cwd=repo, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_uncommitted_changes_counted_only_for_code(tmp_path):
    repo = tmp_path / "repo"
    for path in ("daskflow/ops.py", "benchmarks/bench.py", "benchmarks/RESULTS.md", "README.md"):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text("v1\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    sha = _git(repo, "rev-parse", "--short", "HEAD")
    describe = record_module.describe_commit
    assert describe(repo) == sha
    (repo / "benchmarks/RESULTS.md").write_text("v2\n")  # the results themselves
    (repo / "README.md").write_text("v2\n")  # outside daskflow/ and benchmarks/
    (repo / "daskflow/untracked.py").write_text("new\n")
    assert describe(repo) == sha
    (repo / "benchmarks/bench.py").write_text("v2\n")
    assert describe(repo) == f"{sha} + uncommitted changes"
    _git(repo, "checkout", "-q", "--", "benchmarks/bench.py")
    (repo / "daskflow/ops.py").write_text("v2\n")
    assert describe(repo) == f"{sha} + uncommitted changes"


def test_not_a_git_checkout(tmp_path):
    assert record_module.describe_commit(tmp_path) == "unknown (not a git checkout)"
