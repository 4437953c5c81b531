#!/usr/bin/env bash
# Fails with a diff when any committed generated tree is stale.
# The list of generated trees lives in hack/codegen-targets.sh, shared with update-codegen.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/codegen-targets.sh
if [ "${#KUBEGEN_TARGETS[@]}" -eq 0 ]; then
  echo "verify-codegen: no generated trees in this repository yet"
  exit 0
fi
for target in "${KUBEGEN_TARGETS[@]}"; do
  verify_target "$target"
done
