"""A scenario file: the `async def scenario(sim)` it defines and its PLATFORM document."""
import os
import runpy


class UsageError(Exception):
    """A command was given something it cannot use (a missing file, a bad option value)."""


def load_scenario(path):
    """(scenario function, PLATFORM or None) of the scenario file at `path`."""
    if not os.path.isfile(path):
        raise UsageError(f"scenario file {path} does not exist")
    scope = runpy.run_path(path, run_name="dpusim_scenario")
    fn = scope.get("scenario")
    if fn is None or not callable(fn):
        raise UsageError(f"{path} defines no `async def scenario(sim)`")
    return fn, scope.get("PLATFORM")
