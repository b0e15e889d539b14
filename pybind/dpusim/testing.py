"""Helpers for pytest suites: every test runs its scenario on a fresh platform in its own
process (dpusim.run forks), so results never depend on test order."""
from dpusim.run import ScenarioFailed, run  # noqa: F401


def run_ok(scenario, platform=None, seed=None, **kw):
    """Runs the scenario and raises ScenarioFailed with the traceback or violation unless it
    succeeded; returns the RunResult."""
    return run(scenario, platform, seed=seed, **kw).check()


def platform_test(platform=None, seed=None):
    """Decorator: an ``async def test_x(sim)`` becomes a pytest test run on a fresh platform."""

    def wrap(fn):
        def test():
            run_ok(fn, platform, seed)

        test.__name__ = fn.__name__
        test.__qualname__ = fn.__qualname__
        test.__doc__ = fn.__doc__
        test.__module__ = fn.__module__
        return test

    return wrap
