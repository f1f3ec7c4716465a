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


def _check_fields(message, kwargs, known):
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ValueError(f'Protocol message {message} has no "{unknown[0]}" field.')


class RewriterConfig:
    """Grappler's switches (TF1's ``rewriter_config_pb2.RewriterConfig``).

    ``arithmetic_optimization`` (exact identities: ``x * 1``, a transpose
    undone...), ``remapping`` (fused kernels, as a bias add and its ReLU) and
    ``constant_folding`` are honoured: ``OFF`` turns each off; ``DEFAULT``,
    ``ON`` and ``AGGRESSIVE`` leave it on.
    """

    DEFAULT, ON, OFF, AGGRESSIVE = 0, 1, 2, 3
    _TF1_KEPT = frozenset(
        {
            "layout_optimizer",
            "shape_optimization",
            "dependency_optimization",
            "loop_optimization",
            "function_optimization",
            "debug_stripper",
            "scoped_allocator_optimization",
            "pin_to_host_optimization",
            "implementation_selector",
            "auto_mixed_precision",
            "common_subgraph_elimination",
            "disable_meta_optimizer",
            "meta_optimizer_iterations",
            "min_graph_nodes",
            "memory_optimization",
            "memory_optimizer_target_node_name_scope",
            "optimizers",
            "custom_optimizers",
        }
    )

    def __init__(
        self,
        arithmetic_optimization=DEFAULT,
        remapping=DEFAULT,
        constant_folding=DEFAULT,
        disable_model_pruning=False,
        **kwargs,
    ):
        _check_fields("RewriterConfig", kwargs, self._TF1_KEPT)
        self.arithmetic_optimization = arithmetic_optimization
        self.remapping = remapping
        self.constant_folding = constant_folding
        self.disable_model_pruning = disable_model_pruning
        self.options = kwargs


class OptimizerOptions:
    """TF1's classic graph optimizer options.

    At ``opt_level=L1`` (the default) common subexpressions are merged and
    constants folded; at ``L0`` only what ``do_common_subexpression_elimination``
    and ``do_constant_folding`` ask for.
    """

    L1, L0 = 0, -1
    _TF1_KEPT = frozenset(
        {"do_function_inlining", "global_jit_level", "max_folded_constant_in_bytes", "cpu_global_jit"}
    )

    def __init__(
        self, do_common_subexpression_elimination=False, do_constant_folding=False, opt_level=L1, **kwargs
    ):
        _check_fields("OptimizerOptions", kwargs, self._TF1_KEPT)
        self.do_common_subexpression_elimination = do_common_subexpression_elimination
        self.do_constant_folding = do_constant_folding
        self.opt_level = opt_level
        self.options = kwargs


class GraphOptions:
    """TF1's ``GraphOptions``: ``optimizer_options`` and ``rewrite_options`` are honoured."""

    _TF1_KEPT = frozenset(
        {
            "enable_recv_scheduling",
            "build_cost_model",
            "build_cost_model_after",
            "infer_shapes",
            "place_pruned_graph",
            "enable_bfloat16_sendrecv",
            "timeline_step",
        }
    )

    def __init__(self, optimizer_options=None, rewrite_options=None, **kwargs):
        _check_fields("GraphOptions", kwargs, self._TF1_KEPT)
        self.optimizer_options = optimizer_options or OptimizerOptions()
        self.rewrite_options = rewrite_options or RewriterConfig()
        self.options = kwargs

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
