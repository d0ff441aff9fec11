"""Shared fixtures and hypothesis profiles.

Profiles: ``thorough`` (default, for local runs) and ``ci`` (bounded; ``.ci/run`` selects it
with HYPOTHESIS_PROFILE=ci).

CUDA code runs under the Numba CUDA simulator (one device, ``cuda:0``) unless
``DLNUMBA_TEST_GPU=1`` asks for the real GPUs; numba reads the switch when it is imported, so it
is set here, before any test module imports it.
"""

import os
import sys

if not os.environ.get("DLNUMBA_TEST_GPU"):
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("thorough", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "thorough"))


def pytest_configure(config):
    config.addinivalue_line("markers", "strict: run the test in dlnumba's strict mode, where "
                            "what the standard leaves open raises its errors")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Tests marked ``strict`` run inside ``dlnumba.strict()`` (a hook, not a fixture, so that
    hypothesis tests take it too)."""
    if item.get_closest_marker("strict") is None:
        yield
        return
    import dlnumba as xp

    with xp.strict():
        yield


@pytest.fixture(params=["cpu", "cuda"])
def device(request):
    """Each device dlnumba has; CUDA is skipped where the backend or a GPU is absent.

    Under the simulator, which runs each CUDA thread as a Python thread and makes a block's
    threads wait for one another at every barrier, the interpreter switches threads every 1 ms
    instead of 5 ms while the test runs: a reduction's launch takes a third of the time.
    """
    import dlnumba as xp

    if request.param not in {d.type for d in xp.__array_namespace_info__().devices()}:
        pytest.skip(f"no {request.param} device in this build")
    if request.param != "cuda" or os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        yield xp.Device(request.param)
        return
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        yield xp.Device(request.param)
    finally:
        sys.setswitchinterval(interval)
