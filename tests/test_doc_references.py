"""Every dotted Sphinx cross-reference in daskflow's docstrings names something that exists.

The references are read as Python imports read names: ``:mod:`.held``` is the
module ``held`` beside the one that says it, ``:class:`..wire.rendezvous.Send```
one package up; ``tf.`` stands for ``daskflow.``. A name with no dot (``:class:`Seal```)
is the current scope's and is not checked here. Moving or renaming a module leaves
references that no longer resolve (the last split left ``.transport``, ``.bulk``,
``.held``, ``.pushes``, ``.arrivals``, ``daskflow.runtime.sources``); this finds them.
"""

import importlib
import inspect
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROLE = re.compile(r":(mod|func|class|meth|data|attr|exc|obj):`([^`]+)`")


def _walk(obj, parts) -> bool:
    """Whether ``obj.<parts>`` exists; an attribute an instance sets (``self.x =``) or a
    dataclass declares counts as its class's."""
    for k, name in enumerate(parts):
        if hasattr(obj, name):
            obj = getattr(obj, name)
            continue
        if k == len(parts) - 1 and isinstance(obj, type):
            source = inspect.getsource(obj)
            return bool(re.search(rf"self\.{name}\b|^\s+{name}\s*:", source, re.M))
        return False
    return True


def _absolute(target: str, module: str, is_package: bool) -> str:
    """``target`` (relative as an import is) as an absolute dotted name."""
    if target.startswith("tf."):
        return "daskflow." + target[3:]
    if not target.startswith("."):
        return target
    dots = len(target) - len(target.lstrip("."))
    base = module.split(".") if is_package else module.split(".")[:-1]
    return ".".join(base[: len(base) - (dots - 1)] + [target.lstrip(".")])


def _resolves(target: str, module: str, is_package: bool) -> bool:
    if not target.startswith(".") and _walk(importlib.import_module(module), target.split(".")):
        return True  # a name of the module's own scope: Class.method
    parts = _absolute(target, module, is_package).split(".")
    for i in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        return _walk(found, parts[i:])
    return False


def _references():
    for path in sorted((ROOT / "daskflow").rglob("*.py")):
        relative = path.relative_to(ROOT).with_suffix("")
        is_package = relative.name == "__init__"
        module = ".".join(relative.parts[:-1] if is_package else relative.parts)
        text = path.read_text()
        for match in ROLE.finditer(text):
            target = match.group(2).lstrip("~!")
            if "<" in target:  # a title <target>
                target = target.split("<", 1)[1].rstrip(">")
            if "." in target and "{" not in target:  # "{": a reference an f-string makes
                line = text.count("\n", 0, match.start()) + 1
                yield f"{path.relative_to(ROOT)}:{line}: {match.group(0)}", target, module, is_package


def test_every_dotted_docstring_reference_resolves():
    checked = list(_references())
    assert len(checked) > 100, "few references found: the scan is broken"
    stale = [where for where, *reference in checked if not _resolves(*reference)]
    assert not stale, "docstring references that resolve to nothing:\n" + "\n".join(stale)


def test_a_stale_reference_is_caught():
    assert not _resolves(".transport", "daskflow.runtime.worker.programs", False)
    assert not _resolves("..wire.rendezvous.NoSuchName", "daskflow.runtime.worker.programs", False)
    assert _resolves("..wire.rendezvous.Send", "daskflow.runtime.worker.programs", False)
    assert _resolves(".protocol.Seal.frame", "daskflow.runtime.wire.bulk", True)
