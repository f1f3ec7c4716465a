"""TF1's configuration messages as plain Python objects that act as protobuf's.

``ConfigProto``, ``GPUOptions``, ``GraphOptions``, ``RunOptions`` and the
messages they hold are protobuf messages in TF1. A program builds them with
keywords (``ConfigProto(gpu_options=GPUOptions(allow_growth=True))``) or
field by field (``config.gpu_options.per_process_gpu_memory_fraction = 0.4``),
and reads them back. This module gives every such message class TF's fields,
types, defaults, nested messages and enum constants, taken from the schema in
:mod:`daskflow.runtime.config_schema` (generated from TF's own descriptors),
and protobuf's rules: an unknown keyword is a ``ValueError`` naming it, a
value of the wrong type a ``TypeError``, assigning to a message field an
``AttributeError``; reading an unset message field gives an empty one that
is kept, so that setting a field on it sets it in its parent.

Plain Python rather than generated protobuf classes: daskflow adds its own
session options to ``ConfigProto`` (``steps_per_run``, ``placement``...), and
importing protobuf costs time a session does not need. A class that needs
more than the fields (``GraphOptions.passes``, ``ConfigProto``'s own options)
subclasses :class:`Message` with ``schema=`` naming its TF message; every
other message class is made from the schema on first use.
"""

from __future__ import annotations

import copy
import numbers
import re
import struct
from typing import NamedTuple

import numpy as np

from ..lib.io.proto_wire import varint as _varint
from .config_schema import ENUMS, MESSAGES

__all__ = ["EnumType", "Message", "TextParseError", "message_class", "parse_text"]

_RANGES = {
    "int32": (-(2**31), 2**31 - 1),
    "sint32": (-(2**31), 2**31 - 1),
    "sfixed32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "sint64": (-(2**63), 2**63 - 1),
    "sfixed64": (-(2**63), 2**63 - 1),
    "uint32": (0, 2**32 - 1),
    "fixed32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
    "fixed64": (0, 2**64 - 1),
}


class Field(NamedTuple):
    """One field of a message, as TF's descriptor declares it."""

    name: str
    number: int
    type: str
    target: str | None  # the message or enum a field of that kind holds
    repeated: bool
    default: object
    presence: bool

    @property
    def is_map(self) -> bool:
        return self.repeated and self.type == "message" and MESSAGES[self.target][1]


class EnumType:
    """A protobuf enum's wrapper: ``RunOptions.TraceLevel.Name(3) == "FULL_TRACE"``."""

    def __init__(self, name, values):
        self.name, self._values = name, dict(values)
        self._names = {}
        for label, number in self._values.items():
            self._names.setdefault(number, label)  # an alias keeps the first label

    def Name(self, number):  # noqa: N802 - protobuf's name
        if number not in self._names:
            raise ValueError(f"Enum {self.name} has no name defined for value {number!r}")
        return self._names[number]

    def Value(self, label):  # noqa: N802 - protobuf's name
        if label not in self._values:
            raise ValueError(f"Enum {self.name} has no value defined for name {label!r}")
        return self._values[label]

    def keys(self):
        return list(self._values)

    def values(self):
        return list(self._values.values())

    def items(self):
        return list(self._values.items())

    def __repr__(self):
        return f"<EnumType {self.name}>"


def _message_error(message, field, value, expected):
    return TypeError(
        f"Field {message}.{field}: {value!r} has type {type(value).__name__}, but expected one of: {expected}"
    )


def _scalar(message, field: Field, value):
    """``value`` as field ``field`` of ``message`` holds it, or TypeError/ValueError naming it."""
    kind = field.type
    if kind == "bool":
        if isinstance(value, numbers.Integral):  # protobuf takes 0 and 1 for a bool
            return bool(value)
        raise _message_error(message, field.name, value, "bool, int")
    if kind in _RANGES:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise _message_error(message, field.name, value, "int")
        low, high = _RANGES[kind]
        if not low <= int(value) <= high:
            raise ValueError(f"Field {message}.{field.name}: value out of range: {value}")
        return int(value)
    if kind in ("float", "double"):
        if isinstance(value, numbers.Real):
            # A float field keeps float32's value, as protobuf's does (0.4 reads back 0.4000000059604645).
            return float(np.float32(value)) if kind == "float" else float(value)
        raise _message_error(message, field.name, value, "int, float")
    if kind == "string":
        if isinstance(value, bytes):
            return value.decode("utf-8")
        if isinstance(value, str):
            return value
        raise _message_error(message, field.name, value, "str, bytes")
    if kind == "bytes":
        if isinstance(value, str):
            return value.encode("utf-8")
        if isinstance(value, bytes):
            return value
        raise _message_error(message, field.name, value, "bytes")
    if kind == "enum":
        if isinstance(value, str):
            if value not in ENUMS[field.target]:
                raise ValueError(f'Field {message}.{field.name}: unknown enum label "{value}"')
            return ENUMS[field.target][value]
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value)  # proto3's enums are open: any number is kept
        raise _message_error(message, field.name, value, "int, str")
    raise AssertionError(kind)


def _submessage(owner, field: Field, value):
    """A message field's value given as a message of its class or a dict: a copy."""
    cls = message_class(field.target)
    if isinstance(value, dict):
        return cls(**value)
    if isinstance(value, cls):
        return copy.deepcopy(value)
    raise TypeError(
        f"Parameter to initialize message field {owner}.{field.name} must be dict or instance of "
        f"same class: expected {cls.__name__} got {type(value).__name__}."
    )


class Repeated(list):
    """A repeated field: a list that checks what goes in (messages: ``add()``)."""

    def __init__(self, owner, field, items=()):
        super().__init__()
        self._owner, self._field = owner, field
        self.extend(items)

    def _check(self, value):
        if self._field.type == "message":
            return _submessage(self._owner, self._field, value)
        return _scalar(self._owner, self._field, value)

    def add(self, **kwargs):
        if self._field.type != "message":
            raise AttributeError(f"{self._owner}.{self._field.name} holds scalars: use append")
        item = message_class(self._field.target)(**kwargs)
        super().append(item)
        return item

    def append(self, value):
        super().append(self._check(value))

    def extend(self, values):
        super().extend([self._check(v) for v in values])

    def insert(self, index, value):
        super().insert(index, self._check(value))

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            super().__setitem__(index, [self._check(v) for v in value])
        else:
            super().__setitem__(index, self._check(value))

    def __deepcopy__(self, memo):
        return Repeated(self._owner, self._field, [copy.deepcopy(v, memo) for v in self])

    def __reduce__(self):
        return Repeated, (self._owner, self._field, list(self))


class Map(dict):
    """A map field (``device_count={"GPU": 0}``): keys and values checked; a missing
    key of a map of messages reads as a new message, as protobuf's."""

    def __init__(self, owner, field, items=()):
        super().__init__()
        self._owner, self._field = owner, field
        key, value = MESSAGES[field.target][2]
        self._key, self._value = Field(*key), Field(*value)
        self.update(items)

    def __setitem__(self, key, value):
        key = _scalar(f"{self._owner}.{self._field.name}", self._key, key)
        if self._value.type == "message":
            value = _submessage(f"{self._owner}.{self._field.name}", self._value, value)
        else:
            value = _scalar(f"{self._owner}.{self._field.name}", self._value, value)
        super().__setitem__(key, value)

    def __missing__(self, key):
        if self._value.type != "message":
            raise KeyError(key)
        self[key] = message_class(self._value.target)()
        return super().__getitem__(key)

    def update(self, items=(), **kwargs):
        for k, v in dict(items, **kwargs).items():
            self[k] = v

    def __deepcopy__(self, memo):
        return Map(self._owner, self._field, {k: copy.deepcopy(v, memo) for k, v in self.items()})

    def __reduce__(self):
        return Map, (self._owner, self._field, dict(self))


class Message:
    """Base of TF1's configuration messages (see the module's docstring).

    Subclasses name their TF message (``class GPUOptions(Message,
    schema="GPUOptions")``); ``_EXTRA`` maps daskflow's own options, which
    TF's message does not have, to (default, check): they are keywords and
    attributes like the fields, but not part of the message's text.
    """

    _NAME = ""
    _FIELDS: dict = {}
    _EXTRA: dict = {}

    def __init_subclass__(cls, schema=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if schema is None:
            return
        _package, _map_entry, fields, enums, nested = MESSAGES[schema]
        cls._NAME = schema
        cls._FIELDS = {f[0]: Field(*f) for f in fields}
        for enum in enums:
            short = enum.rsplit(".", 1)[-1]
            setattr(cls, short, EnumType(enum, ENUMS[enum]))
            for label, number in ENUMS[enum].items():
                setattr(cls, label, number)  # protobuf puts a nested enum's labels on the class
        for inner in nested:
            setattr(cls, inner.rsplit(".", 1)[-1], message_class(inner))
        _CLASSES[schema] = cls

    def __init__(self, *args, **kwargs):
        if args:
            raise TypeError("No positional arguments allowed")
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_present", set())
        object.__setattr__(self, "_extras", {})
        for name, value in kwargs.items():
            if name in self._EXTRA:
                setattr(self, name, value)
                continue
            field = self._FIELDS.get(name)
            if field is None:
                raise ValueError(f'Protocol message {self._NAME} has no "{name}" field.')
            if value is None:  # as protobuf: None leaves the field unset
                continue
            if field.is_map:
                self._values[name] = Map(self._NAME, field, value)
            elif field.repeated:
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    raise TypeError(f"Field {self._NAME}.{name}: expected a list, got {value!r}")
                self._values[name] = Repeated(self._NAME, field, value)
            elif field.type == "message":
                self._values[name] = _submessage(self._NAME, field, value)
                self._present.add(name)
            else:
                setattr(self, name, value)

    # -- fields as attributes ---------------------------------------------------------
    def __getattr__(self, name):
        if name.startswith("_"):  # (pickle and copy look for __setstate__ before __init__ ran)
            raise AttributeError(name)
        if name in self._EXTRA:
            return self._extras.get(name, self._EXTRA[name][0])
        field = self._FIELDS.get(name)
        if field is None:
            raise AttributeError(f'Protocol message {self._NAME} has no "{name}" field.')
        if field.is_map:
            return self._values.setdefault(name, Map(self._NAME, field))
        if field.repeated:
            return self._values.setdefault(name, Repeated(self._NAME, field))
        if field.type == "message":  # kept: setting a field on it sets it here
            if name not in self._values:
                child = self._values[name] = message_class(field.target)()
                object.__setattr__(child, "_parent", (self, name))
            return self._values[name]
        return self._values.get(name, field.default)

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        if name in self._EXTRA:
            self._extras[name] = self._EXTRA[name][1](value)
            return
        field = self._FIELDS.get(name)
        if field is None:
            raise AttributeError(f'Protocol message {self._NAME} has no "{name}" field.')
        if field.repeated or field.type == "message":
            kind = "repeated" if field.repeated else "message"
            raise AttributeError(
                f'Assignment not allowed to {kind} field "{name}" in protocol message object.'
            )
        self._values[name] = _scalar(self._NAME, field, value)
        self._present.add(name)
        self._mark()

    def _mark(self):
        """Setting a field of a message read from an unset field sets that field (protobuf's rule)."""
        parent = self.__dict__.pop("_parent", None)
        if parent is not None:
            parent[0]._present.add(parent[1])
            parent[0]._mark()

    # -- protobuf's message methods -----------------------------------------------------
    def _is_set(self, field: Field) -> bool:
        value = self._values.get(field.name)
        if value is None:
            return False
        if field.repeated:
            return len(value) > 0
        if field.type == "message":  # (a list or map filled in place marks no parent)
            return field.name in self._present or bool(value.ListFields())
        if field.presence:
            return field.name in self._present
        return value != field.default  # proto3 scalars: set means not the default

    def ListFields(self):  # noqa: N802 - protobuf's name
        """(field, value) of every field that is set, in field-number order."""
        fields = sorted(self._FIELDS.values(), key=lambda f: f.number)
        return [(f, self._values[f.name]) for f in fields if self._is_set(f)]

    def HasField(self, name):  # noqa: N802 - protobuf's name
        field = self._FIELDS.get(name)
        if field is None or field.repeated or not (field.presence or field.type == "message"):
            raise ValueError(f'Protocol message {self._NAME} has no singular "{name}" field.')
        return self._is_set(field)

    def ClearField(self, name):  # noqa: N802 - protobuf's name
        if name not in self._FIELDS:
            raise ValueError(f'Protocol message {self._NAME} has no "{name}" field.')
        self._values.pop(name, None)
        self._present.discard(name)

    def Clear(self):  # noqa: N802 - protobuf's name
        self._values.clear()
        self._present.clear()

    def CopyFrom(self, other):  # noqa: N802 - protobuf's name
        if not isinstance(other, type(self)):
            raise TypeError(f"Parameter to CopyFrom() must be instance of same class: expected {self._NAME}")
        other = copy.deepcopy(other)
        object.__setattr__(self, "_values", other._values)
        object.__setattr__(self, "_present", other._present)
        object.__setattr__(self, "_extras", other._extras)

    def MergeFrom(self, other):  # noqa: N802 - protobuf's name
        if not isinstance(other, type(self)):
            raise TypeError(f"Parameter to MergeFrom() must be instance of same class: expected {self._NAME}")
        for field, value in other.ListFields():
            if field.is_map:
                getattr(self, field.name).update(value)
            elif field.repeated:
                getattr(self, field.name).extend(value)
            elif field.type == "message":
                getattr(self, field.name).MergeFrom(value)
                self._present.add(field.name)
            else:
                setattr(self, field.name, value)
        self._extras.update(other._extras)

    def SerializeToString(self, deterministic=None):  # noqa: N802 - protobuf's name
        """The message in protobuf's binary encoding (TF's bytes for the same fields; map
        entries in key order when ``deterministic``, else as inserted)."""
        return b"".join(_encode_field(f, v, bool(deterministic)) for f, v in self.ListFields())

    def ByteSize(self):  # noqa: N802 - protobuf's name
        return len(self.SerializeToString())

    def IsInitialized(self):  # noqa: N802 - protobuf's name
        return True  # proto3: no required fields

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        mine = [(f.name, v) for f, v in self.ListFields()]
        theirs = [(f.name, v) for f, v in other.ListFields()]
        extras = [getattr(self, name) == getattr(other, name) for name in self._EXTRA]  # defaults too
        return mine == theirs and all(extras)

    __hash__ = None  # mutable, as protobuf's messages

    def __str__(self):
        return "".join(_text(self, ""))

    def __repr__(self):
        return str(self)

    def __reduce__(self):
        return _rebuild, (type(self), self._values, self._present, self._extras)


_VARINT = {"int32", "int64", "uint32", "uint64", "bool", "enum"}
_FIXED = {"double": "<d", "fixed64": "<Q", "sfixed64": "<q", "float": "<f", "fixed32": "<I", "sfixed32": "<i"}


def _zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


def _scalar_bytes(kind, value) -> bytes:
    if kind in _VARINT:
        return _varint(int(value))
    if kind in ("sint32", "sint64"):
        return _varint(_zigzag(int(value)))
    if kind in _FIXED:
        return struct.pack(_FIXED[kind], value)
    raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    return _varint(len(raw)) + raw


def _wire_type(kind):
    if kind in _VARINT or kind in ("sint32", "sint64"):
        return 0
    if kind in _FIXED:
        return 1 if _FIXED[kind][1] in "dQq" else 5
    return 2


def _encode_field(field: Field, value, deterministic=False) -> bytes:
    if field.is_map:  # each entry a message whose key and value are always written
        key, val = (Field(*f) for f in MESSAGES[field.target][2])
        out = []
        for k, v in sorted(value.items()) if deterministic else value.items():
            body = _encode_field(key, k) + _encode_field(val, v, deterministic)
            out.append(_varint(field.number << 3 | 2) + _varint(len(body)) + body)
        return b"".join(out)
    if field.type == "message":
        items = value if field.repeated else [value]
        out = []
        for item in items:
            body = item.SerializeToString(deterministic)
            out.append(_varint(field.number << 3 | 2) + _varint(len(body)) + body)
        return b"".join(out)
    wire = _wire_type(field.type)
    if field.repeated and wire != 2:  # proto3 packs repeated numbers
        body = b"".join(_scalar_bytes(field.type, v) for v in value)
        return _varint(field.number << 3 | 2) + _varint(len(body)) + body
    items = value if field.repeated else [value]
    return b"".join(_varint(field.number << 3 | wire) + _scalar_bytes(field.type, v) for v in items)


def _rebuild(cls, values, present, extras):
    message = cls()
    object.__setattr__(message, "_values", values)
    object.__setattr__(message, "_present", present)
    object.__setattr__(message, "_extras", extras)
    return message


def _text(message, indent):
    """protobuf's text format, line by line."""
    for field, value in message.ListFields():
        if field.is_map:
            for k, v in value.items():
                yield f"{indent}{field.name} {{\n"
                yield f"{indent}  key: {_text_scalar(message._NAME, None, k)}\n"
                if isinstance(v, Message):
                    yield f"{indent}  value {{\n"
                    yield from _text(v, indent + "    ")
                    yield f"{indent}  }}\n"
                else:
                    yield f"{indent}  value: {_text_scalar(message._NAME, None, v)}\n"
                yield f"{indent}}}\n"
            continue
        for item in value if field.repeated else [value]:
            if isinstance(item, Message):
                yield f"{indent}{field.name} {{\n"
                yield from _text(item, indent + "  ")
                yield f"{indent}}}\n"
            else:
                yield f"{indent}{field.name}: {_text_scalar(message._NAME, field, item)}\n"


def _text_scalar(_message, field, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, bytes)):
        raw = value.encode("utf-8") if isinstance(value, str) else value
        return '"' + raw.decode("latin-1").encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    if field is not None and field.type == "enum":
        names = {n: label for label, n in reversed(list(ENUMS[field.target].items()))}
        return names.get(value, str(value))
    if isinstance(value, float):  # the shortest text that reads back as the value, "1024" for 1024.0
        text = str(np.float32(value)) if field is not None and field.type == "float" else repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


class TextParseError(ValueError):
    """Text that is not a message in protobuf's text format (``text_format.ParseError``)."""


_TOKEN = re.compile(
    r"\s*(?:#[^\n]*\n\s*)*"  # blanks and comments, then one token:
    r'("(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|[{}<>:]|[^\s{}<>:"\']+)'
)


def parse_text(text: str, message):
    """Merge protobuf's text format (as ``str(message)`` writes it) into ``message``.

    Nested messages, repeated and map fields, quoted strings with C escapes,
    numbers and enum labels; a name the message lacks or text that does not
    parse is a :class:`TextParseError` saying where.
    """
    tokens, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            if text[pos:].strip() == "":
                break
            raise TextParseError(f"cannot read {text[pos : pos + 20]!r} (at character {pos})")
        tokens.append(match.group(1))
        pos = match.end()
    rest = _parse_fields(tokens, 0, message, closer=None)
    if rest != len(tokens):
        raise TextParseError(f"unexpected {tokens[rest]!r}")
    return message


def _parse_fields(tokens, i, message, closer):
    while i < len(tokens) and tokens[i] != closer:
        name = tokens[i]
        field = message._FIELDS.get(name)
        if field is None:
            raise TextParseError(f'Message type "{message._NAME}" has no field named "{name}".')
        i += 1
        if i < len(tokens) and tokens[i] == ":":
            i += 1
        if i >= len(tokens):
            raise TextParseError(f"{message._NAME}.{name}: the text ends before its value")
        if field.type == "message":
            if tokens[i] not in ("{", "<"):
                raise TextParseError(f"{message._NAME}.{name}: expected {{, got {tokens[i]!r}")
            end = "}" if tokens[i] == "{" else ">"
            if field.is_map:
                entry = message_class(field.target)()
                i = _parse_fields(tokens, i + 1, entry, end)
                getattr(message, name)[entry.key] = entry.value
            else:
                child = getattr(message, name).add() if field.repeated else getattr(message, name)
                i = _parse_fields(tokens, i + 1, child, end)
                if not field.repeated:
                    message._present.add(name)
            if i >= len(tokens):
                raise TextParseError(f"{message._NAME}.{name}: no closing {end}")
            i += 1
            continue
        value = _text_value(message, field, tokens[i])
        if field.repeated:
            getattr(message, name).append(value)
        else:
            setattr(message, name, value)
        i += 1
    return i


def _text_value(message, field, token):
    try:
        if token[0] in "\"'":
            raw = token[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
            value = raw.encode("latin-1")
            return value if field.type == "bytes" else value.decode("utf-8")
        if field.type == "bool":
            return {"true": True, "false": False, "True": True, "False": False, "1": True, "0": False}[token]
        if field.type == "enum":
            return int(token) if token.lstrip("-").isdigit() else token
        if field.type in ("float", "double"):
            return float(token.rstrip("fF"))
        return int(token, 0)
    except (KeyError, ValueError, UnicodeError):
        raise TextParseError(f"{message._NAME}.{field.name}: cannot read {token!r}") from None


_CLASSES: dict = {}


def message_class(name: str) -> type:
    """The class of TF's message ``name`` (``"ConfigProto.Experimental"``): the one daskflow
    declares, else one made from the schema."""
    cls = _CLASSES.get(name)
    if cls is None:
        if name not in MESSAGES:
            raise KeyError(f"no TF configuration message {name!r}")
        short = name.rsplit(".", 1)[-1]
        namespace = {
            "__doc__": f"TF1's ``{name}`` message (its fields as keywords and attributes).",
            "__module__": __name__,
            "__qualname__": name,
        }
        cls = type(short, (Message,), namespace, schema=name)
    return cls


def __getattr__(name):  # noqa: N807 - pickle finds a made class by its qualified name here
    if name in MESSAGES and "." not in name:
        return message_class(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
