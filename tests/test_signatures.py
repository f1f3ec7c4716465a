"""Every TF1 name daskflow has takes TF1's parameters.

``fixtures/tf1_signatures.json`` (made by ``fixtures/make_tf1_signatures.py``
under TensorFlow 2.21's ``tensorflow.compat.v1``) holds the signature of every
public TF1 function, class constructor and class method. Each chain in it that
resolves on ``import daskflow as tf`` by attribute access (as a program writes
it, ``tf.nn.rnn_cell.LSTMCell.__call__``) is checked against TF1's:

- every TF1 parameter is there, of the same kind;
- the positional-or-keyword parameters come in TF1's order, and are TF1's
  only: a daskflow-only parameter must be keyword-only and come after them;
- a parameter TF1 requires is required, one TF1 defaults has a default, the
  same one where TF1's is a plain literal (``None``, bool, number, string,
  tuple or list of those);
- ``*args`` / ``**kwargs`` exactly where TF1 has them.

A TF1 argument daskflow cannot honour is still accepted; given anything but its
default, the call raises ``NotImplementedError`` naming the argument and what to
do instead (:data:`REFUSED`, checked below).
"""

import ast
import inspect
import json
import pathlib

import pytest

import daskflow as tf

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "tf1_signatures.json").read_text())


def resolve(chain):
    """What ``chain`` (``tf.a.b``) names on daskflow by attribute access, or None."""
    obj = tf
    for part in chain.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return None
    return obj


def present(kind=None):
    """The fixture's chains that daskflow has (of ``kind``, or all but protos), each with TF1's entry."""
    out = []
    for chain, entry in FIXTURE["names"].items():
        if (entry["kind"] == "proto") != (kind == "proto"):
            continue
        if entry["params"] is None and entry["kind"] != "proto":
            continue  # a builtin TF could not introspect either (tf.Operation)
        obj = resolve(chain)
        if obj is None or not callable(obj) or third_party(obj, entry):
            continue
        out.append(pytest.param(chain, entry, id=chain))
    return out


def third_party(obj, entry):
    # TF1 re-exports some names from other packages (tf.flags is absl's); where
    # daskflow re-exports the same object, its signature is that package's own.
    module = getattr(obj, "__module__", None) or ""
    return module == entry["module"] and not module.startswith(("tensorflow", "tf_keras"))


def daskflow_params(obj):
    try:
        return list(inspect.signature(obj).parameters.values())
    except ValueError:
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            # An exception class without an __init__ of its own: BaseException(*args).
            return [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)]
        raise


def receiver_dropped(entry, tf1_params, ours):
    """Both lists without the receiver of a method (TF calls it ``self`` or, under its
    decorators, ``instance``); its name is no part of the signature a caller sees."""
    first = tf1_params[0]["name"] if tf1_params else None
    if entry["kind"] == "method" and first in ("self", "instance") and ours and ours[0].name == "self":
        return tf1_params[1:], ours[1:]
    return tf1_params, ours


def mismatches(tf1_params, ours):
    """What differs between TF1's parameter list and daskflow's, as sentences."""
    problems = []
    mine = {p.name: p for p in ours}
    theirs = {p["name"]: p for p in tf1_params}
    for spec in tf1_params:
        name, kind = spec["name"], spec["kind"]
        if kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            if not any(p.kind.name == kind for p in ours):
                problems.append(f"lacks {'*' if kind == 'VAR_POSITIONAL' else '**'}{name}")
            continue
        p = mine.get(name)
        if p is None:
            problems.append(f"lacks parameter {name!r}")
            continue
        if p.kind.name != kind:
            problems.append(f"{name!r} is {p.kind.name}, TF1's is {kind}")
        problems += default_problems(spec, p)
    for kind, star in (("VAR_POSITIONAL", "*"), ("VAR_KEYWORD", "**")):
        if any(p.kind.name == kind for p in ours) and not any(s["kind"] == kind for s in tf1_params):
            problems.append(f"takes {star}args TF1 does not")
    tf1_order = [s["name"] for s in tf1_params if s["kind"] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    our_order = [p.name for p in ours if p.kind.name in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    if our_order != tf1_order:
        problems.append(f"positional order {our_order}, TF1's {tf1_order}")
    extras = [p.name for p in ours if p.name not in theirs and p.kind.name == "KEYWORD_ONLY"]
    problems += [f"daskflow-only {n!r} has no default" for n in extras if mine[n].default is inspect._empty]
    return problems


def default_problems(spec, p):
    name = spec["name"]
    has = p.default is not inspect.Parameter.empty
    if "default" not in spec:
        return [f"{name!r} has a default ({p.default!r}); TF1 requires it"] if has else []
    if not has:
        return [f"{name!r} is required; TF1's default is {spec['default']}"]
    if spec["literal"] and not same_literal(ast.literal_eval(spec["default"]), p.default):
        return [f"{name!r} defaults to {p.default!r}; TF1's default is {spec['default']}"]
    return []


def same_literal(theirs, ours):
    # A literal default is the same value of the same type (0 is not 0.0, (1,) is not [1]).
    if type(theirs) is not type(ours):
        return False
    if isinstance(theirs, (tuple, list)):
        return len(theirs) == len(ours) and all(map(same_literal, theirs, ours))
    return theirs == ours


@pytest.mark.parametrize(("chain", "entry"), present())
def test_takes_tf1s_parameters(chain, entry):
    tf1_params, ours = receiver_dropped(entry, entry["params"], daskflow_params(resolve(chain)))
    problems = mismatches(tf1_params, ours)
    assert not problems, f"{chain}: " + "; ".join(problems)


@pytest.mark.parametrize(("chain", "entry"), present("proto"))
def test_message_takes_tf1s_fields(chain, entry):
    # A protocol buffer message (tf.Summary, tf.NodeDef) takes its fields as keywords.
    cls = resolve(chain)
    descriptor = getattr(cls, "DESCRIPTOR", None)
    if descriptor is not None:
        fields = {f.name for f in descriptor.fields}
    else:
        params = daskflow_params(cls)
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
            return
        fields = {p.name for p in params if p.kind.name in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")}
    missing = sorted(set(entry["fields"]) - fields)
    assert not missing, f"{chain} lacks TF1's fields {missing}"


def test_the_fixture_covers_what_programs_call():
    # A walk that missed a module would make every test above pass vacuously.
    names = FIXTURE["names"]
    for chain in ("tf.nn.conv2d", "tf.train.Optimizer.minimize", "tf.Session.run", "tf.layers.Dense"):
        assert chain in names
    assert len(present()) > 500


# --- accepted but refused -----------------------------------------------------
# (chain, argument, call): ``call`` makes the call with a value daskflow cannot honour.
def _x():
    return tf.placeholder(tf.float32, [2, 4, 4, 3])


REFUSED = [
    ("tf.zeros", "layout", lambda: tf.zeros([2], layout="L")),
    ("tf.ones", "layout", lambda: tf.ones([2], layout="L")),
    ("tf.fill", "layout", lambda: tf.fill([2], 1.0, layout="L")),
    ("tf.gather", "batch_dims", lambda: tf.gather([[1, 2]], [[0]], batch_dims=1)),
    ("tf.gather_nd", "bad_indices_policy", lambda: tf.gather_nd([1, 2], [[0]], bad_indices_policy="IGNORE")),
    (
        "tf.scatter_nd",
        "bad_indices_policy",
        lambda: tf.scatter_nd([[0]], [1], [2], bad_indices_policy="IGNORE"),
    ),
    ("tf.linspace", "axis", lambda: tf.linspace(0.0, 1.0, 3, axis=1)),
    ("tf.matrix_diag", "k", lambda: tf.matrix_diag([1.0, 2.0], k=1)),
    ("tf.matrix_diag_part", "padding_value", lambda: tf.matrix_diag_part([[1.0]], padding_value=9)),
    ("tf.matmul", "output_type", lambda: tf.matmul([[1.0]], [[1.0]], output_type=tf.int32)),
    (
        "tf.nn.conv2d",
        "dilations",
        lambda: tf.nn.conv2d(_x(), tf.zeros([3, 3, 3, 2]), [1] * 4, "SAME", dilations=2 * [1, 2]),
    ),
    (
        "tf.nn.conv2d",
        "data_format",
        lambda: tf.nn.conv2d(_x(), tf.zeros([3, 3, 3, 2]), [1] * 4, "SAME", data_format="NCHW"),
    ),
]


@pytest.mark.parametrize(("chain", "argument", "call"), REFUSED, ids=[f"{c}-{a}" for c, a, _ in REFUSED])
def test_refused_argument_is_named(chain, argument, call):
    assert argument in [p.name for p in daskflow_params(resolve(chain))]
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match=f"{argument}=") as caught:
            call()
    assert "daskflow" in str(caught.value)  # says it is daskflow's limit, and (refuse) what to do


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: tf.reduce_sum([1.0], axis=0, reduction_indices=0),
            "Cannot specify both 'reduction_indices' and 'axis'",
        ),
        (
            lambda: tf.reduce_mean([1.0], keepdims=True, keep_dims=True),
            "Cannot specify both 'keep_dims' and 'keepdims'",
        ),
        (lambda: tf.argmax([1.0], axis=0, dimension=0), "Cannot specify both 'dimension' and 'axis'"),
        (
            lambda: tf.nn.softmax_cross_entropy_with_logits(labels=[[1.0]], logits=[[1.0]], axis=1),
            "'dim' and 'axis'",
        ),
        (lambda: tf.group(tf.no_op(), nmae="x"), "Unknown keyword arguments: nmae"),
    ],
)
def test_tf1s_argument_errors(call, message):
    # TF1's errors where an old and a new name are both given, or a keyword is unknown.
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            call()
