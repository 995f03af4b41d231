#!/usr/bin/env bash
# Builds the release binaries as they are installed and measured (scripts/install.sh and the
# memory figures in docs/benchmarks.md): the Swift runtime and Foundation linked in, and, where the
# C library reads them (glibc 2.36 and later), relative relocations packed by lld. Each saves
# resident memory in every process: no shared-library symbol lookups and relocated data (about
# 3 MB), and 40 KB of packed relocations read at start instead of 2.2 MB, with the executable still
# position-independent (address randomization kept).
#
#   scripts/build-release.sh [swift build options, e.g. --product iapdesk]
#
# The binaries are in .build/release/. Switching between this and a plain `swift build -c release`
# rebuilds everything (the compiler's options differ).
set -euo pipefail
cd "$(dirname "$0")/.."

options=(-c release --static-swift-stdlib)
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [[ -n $glibc ]] && printf '2.36\n%s\n' "$glibc" | sort -V -C \
    && [[ -x "$(dirname "$(readlink -f "$(command -v swiftc)")")/ld.lld" ]]; then
    options+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
fi
exec swift build "${options[@]}" "$@"
