#!/usr/bin/env python3
"""Checks the module map: every library file sits in a module folder, a module includes only the modules
below it (never upward, never sideways), and no library module includes the app.

The map below is the one README.md ("Layout") describes. The apps are src/cli/ (the commands, their private
headers in src/cli/include/graphrf/cli/, and the programs' `main` files) and src/python/ (the bindings of the
Python package): each may include every library module, and no library module nor the other app includes them.
Run from anywhere: `check_layering.py [SOURCE_DIR]`; `--self-test` also proves that an upward include, a
sideways include, a library include of the app and the Python bindings including the CLI are caught, on a copy
of the tree.
"""
import pathlib
import re
import shutil
import sys
import tempfile

# Library module -> the modules directly below it; a module may include those and, transitively, what they may.
LIBRARY = {
    "core": [],
    "mpi": ["core"],
    "io": ["mpi"],
    "partition": ["io"],
    "graph": ["partition"],
    "walks": ["graph"],
    "grf": ["walks"],
    "attention": ["grf"],
    "gp": ["grf"],
    "spectral": ["graph"],
    "points": ["graph"],
    "reference": ["attention", "spectral"],
    "frames": ["attention", "points"],
}
# The apps on top of the library: their folders (src/cli/, graphrf/cli/ in includes; src/python/) and the programs
# outside them (part of the CLI app).
APP = "cli"
APPS = (APP, "python")
PROGRAMS = {"partition/graphrf_partition.cpp"}
BELOW = {**LIBRARY, **{app: list(LIBRARY) for app in APPS}}
# The one header of the CLI another app may include: the field -> flag table, so that the Python package's errors
# read as the CLI's (it has no Boost in it).
SHARED_APP_HEADERS = {"python": {"cli/option_fields.hpp"}}
INCLUDE = re.compile(r'^\s*#\s*include\s+"graphrf/([^"]+)"', re.M)


def allowed(module):
    seen, todo = {module}, list(BELOW[module])
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(BELOW[m])
    return seen


def module_of(rel):
    parts = rel.split("/")
    if rel in PROGRAMS:
        return APP
    if parts[0] == "src" and len(parts) > 2 and parts[1] in APPS:
        return parts[1]
    if parts[0] == "partition":
        return "partition"
    if parts[0] == "src" and len(parts) == 3:
        return parts[1]
    if parts[:2] == ["include", "graphrf"] and len(parts) == 4:
        return parts[2]
    return None


def check(root):
    root = pathlib.Path(root)
    errors = []
    files = [p for pattern in ("src/**/*", "include/graphrf/**/*", "partition/*")
             for p in root.glob(pattern) if p.suffix in (".cpp", ".hpp")]
    for path in sorted(files):
        rel = path.relative_to(root).as_posix()
        module = module_of(rel)
        if module not in BELOW:
            errors.append(f"{rel}: not in a module folder ({', '.join(LIBRARY)}) nor in an app "
                          f"({', '.join('src/' + a + '/' for a in APPS)})")
            continue
        ok = allowed(module)
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or m.group(1) == "version.hpp":  # generated at build time; provenance for every layer
                continue
            target = m.group(1).split("/")[0]
            if m.group(1) in SHARED_APP_HEADERS.get(module, ()):
                continue
            if target not in BELOW:
                errors.append(f"{rel}:{number}: includes graphrf/{m.group(1)}, which is in no module")
            elif target not in ok:
                errors.append(f"{rel}:{number}: module '{module}' includes '{target}' "
                              f"(graphrf/{m.group(1)}); '{module}' may include only {', '.join(sorted(ok))}")
    return len(files), errors


def self_test(root):
    """An upward include, a sideways include, a library include of the app and an app including the other app
    must all be reported."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "tree"
        for d in ("src", "include", "partition"):
            shutil.copytree(pathlib.Path(root) / d, copy / d)
        core = next((copy / "include" / "graphrf" / "core").glob("*.hpp"))
        core.write_text('#include "graphrf/grf/kernel.hpp"\n' + core.read_text())
        spectral = next((copy / "src" / "spectral").glob("*.cpp"))
        spectral.write_text('#include "graphrf/attention/qkv.hpp"\n' + spectral.read_text())
        gp = next((copy / "src" / "gp").glob("*.cpp"))
        gp.write_text('#include "graphrf/cli/cli.hpp"\n' + gp.read_text())
        binding = next((copy / "src" / "python").glob("*.cpp"))
        binding.write_text('#include "graphrf/cli/cli.hpp"\n' + binding.read_text())
        _, errors = check(copy)
        if len(errors) != 4 or sum("includes 'cli'" in e for e in errors) != 2:
            print(f"self-test: expected 4 violations (two of them 'cli'), found {len(errors)}: {errors}")
            return False
    return True


def main():
    args = [a for a in sys.argv[1:] if a != "--self-test"]
    root = args[0] if args else pathlib.Path(__file__).resolve().parents[2]
    count, errors = check(root)
    for e in errors:
        print(e)
    if "--self-test" in sys.argv and not self_test(root):
        return 1
    print(f"layering: {count} files, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
