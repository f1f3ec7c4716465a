"""Every code block of README.md and docs/*.md runs as written, so the documents cannot drift.

A ```python block is a complete program, run here as a script in a fresh process, which must
exit 0 and print what it trained; or it starts with ``# fragment`` (it uses names from
elsewhere) and must at least compile. The README's cluster commands (its ```bash block of
``dask scheduler`` / ``dask worker`` lines) start real processes, on a free port instead of
8786, and its ``train.py`` (the block that names ``tcp://127.0.0.1:8786``) runs against them
with that one address changed. Other shell blocks (installing, ``daskflow launch``) are
commands, not programs: ``.ci/run`` runs the test command, and the launcher has its own tests.
"""

import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from distributed import Client

from tests.browser import free_port
from tests.waiting import poll_for

pytestmark = pytest.mark.process
# beside the clusters: its programs train and print, nothing is timed, its ports are free ones

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
FRAGMENT = "# fragment"
README_ADDRESS = "tcp://127.0.0.1:8786"
RUN_TIMEOUT = 300  # seconds a program may take (each trains for a few seconds)
# One BLAS thread per process, as the suite's other subprocesses run.
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def code_blocks(path: Path, language: str) -> list:
    """``(where, code)`` of each fenced block of ``language`` in ``path``."""
    text = path.read_text()
    return [
        (f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}", m.group(2))
        for m in FENCE.finditer(text)
        if m.group(1) == language
    ]


PYTHON = [block for path in DOCUMENTS for block in code_blocks(path, "python")]
PROGRAMS = [b for b in PYTHON if not b[1].startswith(FRAGMENT)]
ON_THE_CLUSTER = [b for b in PROGRAMS if README_ADDRESS in b[1]]
EMBEDDED = [b for b in PROGRAMS if README_ADDRESS not in b[1]]


def run_program(code: str, folder: Path, name: str = "program.py") -> str:
    """Run ``code`` as the script ``folder/name``; its output, once it exited 0."""
    script = folder / name
    script.write_text(code)
    command = [sys.executable, str(script)]
    done = subprocess.run(command, cwd=folder, env=ENV, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, f"{name} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_every_python_block_is_a_program_or_a_fragment_that_compiles():
    assert len(PROGRAMS) >= 3 and len(ON_THE_CLUSTER) == 1, [where for where, _ in PROGRAMS]
    for where, code in PYTHON:
        compile(code, where, "exec")  # a SyntaxError names the block


@pytest.mark.parametrize("where, code", EMBEDDED, ids=[where for where, _ in EMBEDDED])
def test_the_program_runs_as_written_and_prints_what_it_trained(where, code, tmp_path):
    printed = run_program(code, tmp_path)
    assert re.search(r"\d\.\d", printed), f"{where} printed no figure: {printed!r}"


def _cluster_commands() -> list:
    """The README's ``dask scheduler`` / ``dask worker`` command lines, as argument lists."""
    (block,) = [code for _, code in code_blocks(ROOT / "README.md", "bash") if "dask scheduler" in code]
    lines = [shlex.split(line, comments=True) for line in block.splitlines()]
    return [words for words in lines if words[:1] == ["dask"]]


@pytest.fixture
def readme_cluster():
    """The README's scheduler and workers, started by its own command lines on a free port."""
    port = str(free_port())
    commands = [[w.replace("8786", port) for w in command] for command in _cluster_commands()]
    assert commands[0][:2] == ["dask", "scheduler"] and len(commands) >= 3, commands
    address = README_ADDRESS.replace("8786", port)
    started = []
    try:
        for command in commands:
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            started.append(subprocess.Popen(command, env=ENV, start_new_session=True, **quiet))
        names = {c[c.index("--name") + 1] for c in commands[1:]}
        with Client(address, timeout=60) as client:
            poll_for(lambda: _worker_names(client) == names, 60, f"the workers {sorted(names)}")
        yield address
    finally:
        for process in reversed(started):  # each in a session of its own: its children go too
            os.killpg(process.pid, signal.SIGTERM)
        for process in started:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def _worker_names(client) -> set:
    return {worker["name"] for worker in client.scheduler_info()["workers"].values()}


def test_the_readme_cluster_and_its_train_py_run_as_written(readme_cluster, tmp_path):
    ((where, code),) = ON_THE_CLUSTER
    printed = run_program(code.replace(README_ADDRESS, readme_cluster), tmp_path, "train.py")
    accuracy = float(re.search(r"test accuracy ([\d.]+)", printed).group(1))
    assert accuracy > 0.9, printed
    assert "worker='ps-0'" in printed and "worker='worker-0'" in printed, printed  # its placement
