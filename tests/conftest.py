"""Suite-wide settings.

After each test module, the garbage is collected and what survives is frozen
(``gc.freeze``): objects earlier modules keep alive (graphs, plans, compiled
programs, Dask clients' state) then no longer slow every later full
collection. Without it, the recovery tests ran 2-4x slower late in the suite
than alone (a killed ps: 25 s instead of 6), all of it in the collector.
"""

import gc

import pytest


@pytest.fixture(autouse=True, scope="module")
def _old_objects_out_of_the_collectors_way():
    yield
    gc.collect()
    gc.freeze()
