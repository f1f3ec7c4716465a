"""daskflow's keys in Dask's configuration and their defaults: ``daskflow/daskflow.yaml``.

Importing this module adds that file to Dask's defaults, as distributed adds its
``distributed.yaml``: values already set (the environment's ``DASK_DASKFLOW__...``,
Dask's YAML files, ``dask.config.set``) stay, and ``dask.config.refresh()`` keeps
the defaults. The runtime reads each key with :func:`setting`, which holds no
default of its own: the file is the one list.
"""

from __future__ import annotations

from pathlib import Path

import dask.config
import yaml

PATH = Path(__file__).resolve().parent.parent / "daskflow.yaml"

with open(PATH) as f:
    DEFAULTS = yaml.safe_load(f)

dask.config.update_defaults(DEFAULTS)


def setting(key: str):
    """The value of ``key`` (``"daskflow.mailbox-ttl"``) in this process's Dask configuration."""
    return dask.config.get(key)
