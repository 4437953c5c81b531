# Sourced by update-codegen.sh and verify-codegen.sh: the generated trees of this repository.
# Each entry names one generated tree; update_target / verify_target know how to build it.
KUBEGEN_TARGETS=()

update_target() { echo "unknown codegen target: $1" >&2; return 1; }
verify_target() { echo "unknown codegen target: $1" >&2; return 1; }
