#!/usr/bin/env python3
"""Checks that the repository stands alone: no file refers to documents that exist only beside a checkout
(a specification or paper folder next to the repository). Papers are cited by authors, year and title, and
README.md's References section lists them in full.

Files checked: the ones git tracks (`git ls-files`), or every file outside `.git` and build folders when
the source is not a git checkout (a release tarball). This script is skipped: it has to name the patterns.
Run from anywhere: `check_self_contained.py [SOURCE_DIR]`; `--self-test` also proves, on a small tree made
for the purpose, that each pattern is caught and that clean files pass.
"""
import pathlib
import re
import subprocess
import sys
import tempfile

# Names that point outside the repository.
FORBIDDEN = [
    ("ALGORITHMS.md", re.compile(r"ALGORITHMS\.md")),
    ("../shared", re.compile(r"\.\./shared\b")),
    ("shared/papers", re.compile(r"\bshared/papers\b")),
]
THIS_SCRIPT = "tests/layout/check_self_contained.py"


def tracked_files(root, use_git):
    try:
        if not use_git:
            raise OSError("walk the tree")
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], check=True, capture_output=True).stdout
        return sorted(name for name in out.decode().split("\0") if name)
    except (OSError, subprocess.CalledProcessError):
        skip = lambda rel: rel.parts[0] == ".git" or rel.parts[0].startswith("build")
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                      if p.is_file() and not skip(p.relative_to(root)))


def check(root, use_git=True):
    root = pathlib.Path(root)
    errors = []
    files = [rel for rel in tracked_files(root, use_git) if rel != THIS_SCRIPT]
    for rel in files:
        path = root / rel
        if not path.is_file():  # deleted in the work tree but still tracked
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for name, pattern in FORBIDDEN:
                if pattern.search(line):
                    errors.append(f"{rel}:{number}: refers to '{name}', which is outside the repository (cite "
                                  "papers by authors, year, title and section; say where to download data)")
    return len(files), errors


def self_test():
    """Each forbidden name must be reported, with file and line; clean files and this script must not be."""
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        bad = {
            "src/a.cpp": "// ok\n// see ALGORITHMS.md 1.4\n",
            "jobs/README.md": "DATA_DIR=../shared/data\n",
            "include/b.hpp": "// from shared/papers/000.txt\n",
        }
        clean = {
            "src/c.cpp": "// (Reid et al. 2025a, Alg. 1); shared walks; std::shared_ptr; algorithms.hpp\n",
            THIS_SCRIPT: "ALGORITHMS.md ../shared shared/papers\n",
            "build/x.txt": "ALGORITHMS.md\n",
        }
        for rel, text in {**bad, **clean}.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        _, errors = check(root, use_git=False)  # not a checkout: walk the tree
        expected = {"src/a.cpp:2", "jobs/README.md:1", "include/b.hpp:1"}
        found = {e.split(": ")[0] for e in errors}
        if found != expected:
            return [f"self-test: expected reports at {sorted(expected)}, got {errors}"]
    return []


def main(argv):
    args = [a for a in argv[1:] if a != "--self-test"]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parents[2])
    count, errors = check(root)
    if "--self-test" in argv[1:]:
        errors += self_test()
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        return 1
    print(f"self-contained: {count} files checked, none refers outside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
