"""TF1's graph optimization options: which plan-time rewrites a session runs.

``ConfigProto(graph_options=GraphOptions(...))`` as in TF1, or TF1's
in-place style ``config.graph_options.rewrite_options.remapping =
RewriterConfig.OFF``. The rewrites themselves are in
:mod:`daskflow.runtime.plan.rewrite`. Fields TF1 has and daskflow does not
use (layout, memory, loop optimizers...) are accepted and kept; a name TF1
does not have is an error, as with TF1's protobuf messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from .messages import Message


class RewriterConfig(Message, schema="RewriterConfig"):
    """Grappler's switches (TF1's ``rewriter_config_pb2.RewriterConfig``), every field TF has.

    ``arithmetic_optimization`` (exact identities: ``x * 1``, a transpose
    undone...), ``remapping`` (fused kernels, as a bias add and its ReLU) and
    ``constant_folding`` are honoured: ``OFF`` turns each off; ``DEFAULT``,
    ``ON`` and ``AGGRESSIVE`` leave it on. The others are kept, unused.

    Examples
    --------
    >>> import daskflow as tf
    >>> rw = tf.RewriterConfig(remapping=tf.RewriterConfig.OFF)
    >>> rw.remapping == tf.RewriterConfig.OFF, rw.constant_folding == tf.RewriterConfig.DEFAULT
    (True, True)
    """


class OptimizerOptions(Message, schema="OptimizerOptions"):
    """TF1's classic graph optimizer options, every field TF has.

    At ``opt_level=L1`` (the default) common subexpressions are merged and
    constants folded; at ``L0`` only what ``do_common_subexpression_elimination``
    and ``do_constant_folding`` ask for. ``global_jit_level`` (XLA) is kept, unused.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.OptimizerOptions(global_jit_level=tf.OptimizerOptions.ON_1).global_jit_level
    1
    """


class GraphOptions(Message, schema="GraphOptions"):
    """TF1's ``GraphOptions``: ``optimizer_options`` and ``rewrite_options`` are honoured.

    Examples
    --------
    >>> import daskflow as tf
    >>> config = tf.ConfigProto()
    >>> config.graph_options.optimizer_options.opt_level = tf.OptimizerOptions.L0
    >>> config.graph_options.passes().common_subexpressions
    False
    """

    def passes(self) -> Passes:
        """The rewrites these options turn on."""
        opt, rw = self.optimizer_options, self.rewrite_options
        classic = opt.opt_level >= OptimizerOptions.L1
        folding = classic or opt.do_constant_folding
        return Passes(
            constant_folding=folding and rw.constant_folding != RewriterConfig.OFF,
            common_subexpressions=classic or opt.do_common_subexpression_elimination,
            arithmetic=rw.arithmetic_optimization != RewriterConfig.OFF,
            remapping=rw.remapping != RewriterConfig.OFF,
        )


@dataclass(frozen=True)
class Passes:
    """Which plan-time rewrites run (see :mod:`daskflow.runtime.plan.rewrite`)."""

    constant_folding: bool = True
    common_subexpressions: bool = True
    arithmetic: bool = True
    remapping: bool = True

    def any_rewrite(self) -> bool:
        return self.common_subexpressions or self.arithmetic or self.remapping
