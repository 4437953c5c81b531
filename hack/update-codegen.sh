#!/usr/bin/env bash
# Regenerates every generated tree in the repository (listed in hack/codegen-targets.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/codegen-targets.sh
for target in "${KUBEGEN_TARGETS[@]}"; do
  update_target "$target"
done
