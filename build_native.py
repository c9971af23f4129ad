"""Compile the kernel with mypyc, in place (``make native``).

Each kernel module (``gostop_records._native.KERNEL``) gets a compiled extension beside its
source; Python imports the extension first. The source stays the reference and the fallback:
``GOSTOP_PURE_PYTHON=1`` makes ``gostop_records`` import its source only, and with no
compiler the package is pure Python.
"""

from __future__ import annotations


def _modules() -> list[str]:
    """The kernel, listed once in the package, which must know it to tell a stale build."""
    from gostop_records._native import KERNEL

    return [f"gostop_records/{m}.py" for m in KERNEL]


def _remove_other_extensions() -> None:
    """Remove the package's extensions that are not the kernel's: those an earlier build
    with a longer list left beside their sources (the package never imports them, but a
    stale library is confusing to find)."""
    from importlib.machinery import EXTENSION_SUFFIXES
    from pathlib import Path

    kernel = {Path(m).with_suffix("") for m in _modules()}
    for suffix in EXTENSION_SUFFIXES:
        for path in Path("gostop_records").rglob(f"*{suffix}"):
            module = path.with_name(path.name[: -len(suffix)])
            if module not in kernel and path.name != f"_kernel__mypyc{suffix}":
                path.unlink()


def main() -> None:
    from mypyc.build import mypycify

    _remove_other_extensions()
    from setuptools import Distribution

    # type-check the compiled modules only: the rest is imported as Python, as it stands
    ext = mypycify(
        ["--follow-imports=silent", *_modules()], opt_level="3", group_name="gostop_records._kernel"
    )
    # a bare Distribution, not setup(): the project's own pyproject.toml is not this build's
    dist = Distribution({"name": "gostop-records-native", "ext_modules": ext})
    build = dist.get_command_obj("build_ext")
    build.inplace = True
    build.build_temp = "build/native"
    # built again even when the generated C is unchanged: the package tells a stale build by
    # the library being older than a source (a checkout or an edit undone touches the source)
    build.force = True
    dist.run_command("build_ext")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--sources"]:  # the Makefile's list of what the build depends on
        print(" ".join(_modules()))
    else:
        main()
