"""Shared pytest fixtures and markers.

`shared_dir` is the folder `../shared` beside the checkout (reference documents, the P4 corpus
and the p4c STF suite). CI has it; a test that needs it is skipped cleanly where it is absent.

Marker `rtl`: the test needs the RTL co-simulation (models/rtl, docs/cosim.md), and is skipped
with the reason in a build configured with DPUSIM_RTL=OFF. `-m rtl` runs only those.

Marker `linux`: the test boots the user-mode Linux kernel (docs/linux.md) and is skipped, with
the reason, where `./dpusim linux-build` has not built it. `-m linux` runs only those.

Marker `python_only`: the test runs no C++ code of the simulator (it reads source text), so the
sanitized stage of `./dpusim test` leaves it out (`-m "not python_only and not repeats"`).

Marker `repeats`: the test's point is that running code again (on other workers, in other
processes) gives the same results; the sanitized stage runs that code once in other tests, so
it leaves these out too.
"""
import os
import pathlib

import pytest

import _dpusim

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("DPUSIM_SHARED", ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def repo_root():
    return ROOT


@pytest.fixture(scope="session")
def shared_dir():
    if not SHARED.is_dir():
        pytest.skip(f"shared data folder {SHARED} is absent")
    return SHARED


def pytest_configure(config):
    config.addinivalue_line("markers", "rtl: needs the RTL co-simulation (a build with DPUSIM_RTL=ON)")
    config.addinivalue_line("markers", "python_only: runs no C++ code (left out of the sanitized stage)")
    config.addinivalue_line("markers", "repeats: re-runs code other tests run (left out of the sanitized stage)")
    config.addinivalue_line("markers", "linux: boots the user-mode Linux kernel (./dpusim linux-build)")


def pytest_collection_modifyitems(config, items):
    from dpusim.linux import unavailable_reason
    skips = {}
    if not _dpusim.build_options["DPUSIM_RTL"]:
        skips["rtl"] = "the RTL co-simulation is not built (DPUSIM_RTL=OFF: verilator missing or switched off)"
    linux = unavailable_reason()
    if linux:
        skips["linux"] = linux
    for item in items:
        for marker, reason in skips.items():
            if item.get_closest_marker(marker) is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
