#!/usr/bin/env bash
# Fails when a target's sources import a module the target does not declare in Package.swift: a
# module reached only through another dependency builds today and breaks when that one changes.
# A declared dependency is a target of the package or a product (whose module has its name);
# the toolchain's own modules need no declaration.
set -euo pipefail
cd "$(dirname "$0")/.."

# Its own scratch folder: reading the manifest need not wait for a build holding .build.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# IAPDESK_FUZZ=1: the libFuzzer targets are declared too, and checked with the rest.
IAPDESK_FUZZ=1 swift package --scratch-path "$scratch" dump-package | python3 -c '
import json, pathlib, re, sys

toolchain = {
    "Swift", "_Concurrency", "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML",
    "Dispatch", "Synchronization", "Observation", "RegexBuilder", "Glibc", "Musl", "Darwin", "Android",
    "WinSDK", "os", "Testing", "XCTest",
}
import_line = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?"
                         r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z_0-9]*)")

package = json.load(sys.stdin)
problems = []
for target in package["targets"]:
    if target["type"] in ("system", "binary", "plugin", "macro"):
        continue
    name = target["name"]
    declared = {name}
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                declared.add(dependency[kind][0])
    root = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]
    excluded = [pathlib.Path(root, item) for item in target.get("exclude", [])]
    for source in sorted(pathlib.Path(root).rglob("*.swift")):
        if any(source == item or item in source.parents for item in excluded):
            continue
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            match = import_line.match(line)
            if match and match.group(1) not in declared | toolchain:
                problems.append(f"{source}:{number}: {name} imports {match.group(1)}, which Package.swift does not declare for it")
for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    sys.exit(1)
'
