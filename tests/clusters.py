"""The local clusters test modules share: one ``cluster`` fixture per module, made here.

A module asks for its cluster in one line, ``cluster = module_cluster(ps=1, workers=2,
processes=False)``, and its tests take ``cluster``: started before the module's first test
that asks, closed after its last (its workers, scheduler and their threads or processes).
"""

import pytest

import daskflow as tf


def module_cluster(name="cluster", **options):
    """A module-scoped fixture ``name`` yielding ``tf.local_cluster(**options)``, closed after."""

    @pytest.fixture(scope="module", name=name)
    def _cluster():
        with tf.local_cluster(**options) as cluster:
            yield cluster

    return _cluster
