"""Small data files shared by the CLI tests (seed 002's Alice plus one more user)."""

from __future__ import annotations

import pytest


@pytest.fixture
def files(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text(
        "user,item,score\n"
        "alice,banana,5\nalice,pear,4\nalice,cherry,3\nalice,melon,2\nalice,grape,1\n"
        "bob,x,3\nbob,y,2\nbob,z,1\n"
    )
    truth = tmp_path / "truth.csv"
    truth.write_text(
        "user,item\n"
        "alice,pineapple\nalice,apple\nalice,watermelon\nalice,banana\nalice,cherry\n"
        "bob,y\n"
    )
    return run, truth
