"""The type stubs (near_dup/__init__.pyi) agree with the built module: mypy's stubtest."""

import pathlib
import subprocess
import sys


def test_stubs_match_the_module():
    allowlist = pathlib.Path(__file__).with_name("stubtest-allowlist.txt")
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "near_dup", "--allowlist", str(allowlist)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
