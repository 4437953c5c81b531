# Sourced by update-codegen.sh and verify-codegen.sh: the generated trees of this repository.
# Each entry names one generated tree; update_target / verify_target know how to build it.
KUBEGEN_TARGETS=(kubernetes e2e-api sample-controller icecream)

# kubegen's own CLI, built from this checkout.
kubegen() { cargo run --quiet --package kubegen-codegen --bin kubegen -- "$@"; }

# The arguments that generate a target (without --verify).
target_args() {
  case "$1" in
    # The built-in groups' clientset, listers and informers, inside the facade crate.
    kubernetes) echo "generate --kubernetes --facade-path crate --clients-out src/kubernetes" ;;
    # Clients of the end-to-end test's API crate, from its #[derive(Resource)] types.
    e2e-api) echo "generate --rust tests/e2e-api/src/apis --rust-module crate::apis --clients-out tests/e2e-api/src/generated" ;;
    # The examples' clients, from their hand-written #[derive(Resource)] types.
    sample-controller) echo "generate --rust examples/sample-controller/src/apis --rust-module crate::apis --clients-out examples/sample-controller/src/generated" ;;
    icecream) echo "generate --rust examples/icecream/src/apis --rust-module crate::apis --clients-out examples/icecream/src/generated" ;;
    *) echo "unknown codegen target: $1" >&2; return 1 ;;
  esac
}

update_target() {
  local args
  args=$(target_args "$1") || return 1
  # shellcheck disable=SC2086
  kubegen $args
}

verify_target() {
  local args
  args=$(target_args "$1") || return 1
  # shellcheck disable=SC2086
  kubegen $args --verify
}
