#!/usr/bin/env bash
# Runs Apple's official Python library against the demo server, in a virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-.build/debug/iapdesk}"
venv=".build/conformance-venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check "app-store-server-library==3.1.2"
"$venv/bin/python" scripts/apple_library_conformance.py "$binary"
