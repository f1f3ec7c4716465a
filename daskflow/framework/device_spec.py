"""TF device strings: parse, merge and print.

``/job:worker/replica:0/task:1/device:GPU:0``, and the short forms ``/gpu:0``
and ``/cpu:0``. Nested ``device()`` scopes merge partial specs: a field the
inner spec sets wins, the rest is inherited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

_FIELD = re.compile(r"^(job|replica|task|device|cpu|gpu):(.+)$", re.IGNORECASE)


@dataclass
class DeviceSpec:
    """A parsed, possibly partial, device specification (TF1's mutable ``DeviceSpec``).

    Examples
    --------
    >>> DeviceSpec.from_string("/job:ps/task:0/cpu:0").to_string()
    '/job:ps/task:0/device:CPU:0'
    >>> spec = DeviceSpec(job="ps", task=0)
    >>> spec.merge_from(DeviceSpec.from_string("/gpu:1"))  # in place, as TF1's
    >>> spec.to_string()
    '/job:ps/task:0/device:GPU:1'
    """

    job: str | None = None
    replica: int | None = None
    task: int | None = None
    device_type: str | None = None
    device_index: int | None = None

    @classmethod
    def from_string(cls, spec: str | None) -> DeviceSpec:
        if spec is None or spec == "":
            return cls()
        if isinstance(spec, DeviceSpec):
            return spec
        if not isinstance(spec, str):
            raise TypeError(f"device must be a string, DeviceSpec or function, got {spec!r}")
        fields = {}
        for part in spec.strip("/").split("/"):
            fields.update(_parse_part(part, spec))
        return cls(**fields)

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        """A new spec: the fields set on ``dev`` override those of this one."""
        changes = {k: v for k, v in vars(dev).items() if v is not None}
        return replace(self, **changes)

    def merge_from(self, dev: DeviceSpec) -> None:
        """Set this spec's fields from those set on ``dev`` (in place, as TF1's)."""
        vars(self).update(vars(self.make_merged_spec(dev)))

    def parse_from_string(self, spec: str) -> DeviceSpec:
        """Set every field from the device string ``spec`` (in place); return this spec."""
        vars(self).update(vars(DeviceSpec.from_string(spec)))
        return self

    def replace(self, **kwargs) -> DeviceSpec:
        """A new spec with the given fields changed."""
        return replace(self, **kwargs)

    def __hash__(self):
        return hash(self.to_string())

    def to_string(self) -> str:
        parts = []
        if self.job is not None:
            parts.append(f"/job:{self.job}")
        if self.replica is not None:
            parts.append(f"/replica:{self.replica}")
        if self.task is not None:
            parts.append(f"/task:{self.task}")
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            parts.append(f"/device:{self.device_type}:{index}")
        return "".join(parts)

    def __str__(self):
        return self.to_string()


def _parse_part(part: str, whole: str) -> dict:
    match = _FIELD.match(part)
    if not match:
        raise ValueError(f"malformed device string {whole!r}: cannot parse {part!r}")
    key, value = match.group(1).lower(), match.group(2)
    if key in ("cpu", "gpu"):
        return {"device_type": key.upper(), "device_index": _index(value, whole)}
    if key == "device":
        kind, _, index = value.partition(":")
        if not kind.isalpha():
            raise ValueError(f"malformed device string {whole!r}: bad device type {kind!r}")
        return {"device_type": kind.upper(), "device_index": _index(index or "*", whole)}
    if key == "job":
        if not re.fullmatch(r"[A-Za-z_][\w.]*", value):
            raise ValueError(f"malformed device string {whole!r}: bad job name {value!r}")
        return {"job": value}
    return {key: _index(value, whole)}


def _index(text: str, whole: str):
    if text == "*":
        return None
    if not text.isdigit():
        raise ValueError(f"malformed device string {whole!r}: {text!r} is not an index")
    return int(text)


def merge_device(outer: str, inner) -> str:
    """Merge a device scope's spec into the enclosing device string."""
    merged = DeviceSpec.from_string(outer).make_merged_spec(DeviceSpec.from_string(inner))
    return merged.to_string()
