"""Shared pytest fixtures.

`shared_dir` is the folder `../shared` beside the checkout (reference documents, the P4 corpus
and the p4c STF suite). CI has it; a test that needs it is skipped cleanly where it is absent.
"""
import os
import pathlib

import pytest

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
