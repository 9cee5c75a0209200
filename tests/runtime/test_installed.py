"""`flue_runtime.mount.installed`: a package installed from a wheel, told apart from a source tree and an
editable install by its distribution's metadata (tests/runtime/test_hookless.py runs the three for real)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.builds import build_wheel
from support.envs import install
from support.imports import ImportSandbox
from test_hookless import DIST, PACKAGE, write_project

from flue_runtime.mount.installed import Installed, installed

pytestmark = pytest.mark.slow  # a wheel built and installed


def test_a_wheel_install_an_editable_one_and_a_source_tree(tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    wheel = build_wheel(project, tmp_path / "dist")
    sites = {name: tmp_path / name for name in ("wheel", "linked")}
    for site in sites.values():
        install("--target", str(site), str(wheel), cwd=tmp_path)
    # An install whose files are in place but whose direct_url.json says editable (PEP 660: a backend may link the
    # files into site-packages, as flit's --symlink does) is dev mode.
    [info] = sites["linked"].glob("*.dist-info")
    (info / "direct_url.json").write_text(json.dumps({"url": project.as_uri(), "dir_info": {"editable": True}}))
    for name, entry in (*sites.items(), ("source", project / "src")):
        box = ImportSandbox()
        box.add(entry)
        try:
            found = installed(PACKAGE)
        finally:
            box.close()
        assert found == (Installed(DIST, str(entry)) if name == "wheel" else None), name
