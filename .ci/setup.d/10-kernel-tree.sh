#!/usr/bin/env bash
# Extract Debian's linux-source-6.1 once into the shared test location and
# commit it into a git repository (internal/testkernel does the work).
set -euo pipefail
go run ./internal/testkernel/cmd/prepare
