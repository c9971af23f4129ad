"""The package metadata ships every file of the library: each folder is a listed package and
each non-Python file is matched by that package's package-data (setuptools warns otherwise)."""

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_BUILT = {".pyc", ".so", ".pyd"}


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _library_folders() -> dict[str, list[Path]]:
    """Package name -> the files directly in that folder, for every folder holding files."""
    out: dict[str, list[Path]] = {}
    for folder in [ROOT / "gostop_records", *sorted((ROOT / "gostop_records").rglob("*"))]:
        if not folder.is_dir() or "__pycache__" in folder.parts:
            continue
        # compiled files are build products (.pyc, and the .so of make native), never shipped
        files = [f for f in folder.iterdir() if f.is_file() and f.suffix not in _BUILT]
        if files:
            out[".".join(folder.relative_to(ROOT).parts)] = files
    return out


def test_every_library_folder_is_a_listed_package() -> None:
    listed = set(_setuptools()["packages"])
    missing = sorted(set(_library_folders()) - listed)
    assert not missing, f"folders missing from [tool.setuptools] packages: {missing}"


def test_every_data_file_is_matched_by_package_data() -> None:
    data = _setuptools()["package-data"]
    unmatched = [
        str(f.relative_to(ROOT))
        for package, files in _library_folders().items()
        for f in files
        if f.suffix != ".py"
        and not any(fnmatch.fnmatch(f.name, pattern) for pattern in data.get(package, []))
    ]
    assert not unmatched, f"files no package-data pattern ships: {unmatched}"


def test_package_data_patterns_match_something() -> None:
    folders = _library_folders()
    for package, patterns in _setuptools()["package-data"].items():
        for pattern in patterns:
            names = [f.name for f in folders.get(package, [])]
            assert fnmatch.filter(names, pattern), f"{package}: {pattern!r} matches no file"
