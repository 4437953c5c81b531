# Sourced by update-codegen.sh and verify-codegen.sh: the generated trees of this repository.
# Each entry names one generated tree; update_target / verify_target know how to build it.
# wellknown-schemas comes first: the kubegen binary the other targets run embeds its table.
# kubernetes-inputs comes before the two targets that generate from what it writes.
KUBEGEN_TARGETS=(wellknown-schemas kubernetes-inputs kubernetes kubernetes-apply e2e-api e2e-api-crd sample-controller icecream crd-e2e-api crd-sample-controller crd-icecream testkit-tables)

# The committed inputs derived from Kubernetes' OpenAPI documents (kubernetes-inputs): what
# kubernetes-apply and testkit-tables generate from, so they need no document outside the
# repository.
KUBERNETES_INPUTS=hack/kubernetes

# kubegen's own CLI, built from this checkout.
kubegen() { cargo run --quiet --package kubegen-codegen --bin cargo-kubegen -- "$@"; }

# The arguments that generate a target (without --verify).
target_args() {
  case "$1" in
    # The built-in groups' clientset, listers and informers, inside the facade crate.
    kubernetes) echo "generate --kubernetes --facade-path crate --clients-out src/generated/kubernetes" ;;
    # Clients and apply configurations of the end-to-end test's API crate, from its
    # #[derive(Resource)] types.
    e2e-api) echo "generate --rust tests/e2e-api/src/apis --rust-module crate::apis --clients-out tests/e2e-api/src/generated --apply-out tests/e2e-api/src/applyconfigurations" ;;
    # Types and apply configurations of a CRD in the same crate (nested types mirrored).
    e2e-api-crd) echo "generate --crd tests/e2e-api/crds --out tests/e2e-api/src/crd --types-module crate::crd --apply-out tests/e2e-api/src/crd_apply" ;;
    # The examples' clients and apply configurations, from their hand-written
    # #[derive(Resource)] types.
    sample-controller) echo "generate --rust examples/sample-controller/src/apis --rust-module crate::apis --clients-out examples/sample-controller/src/generated --apply-out examples/sample-controller/src/applyconfigurations" ;;
    # icecream's v1alpha1 and v1 also get their conversions (through v1, the storage version).
    icecream) echo "generate --rust examples/icecream/src/apis --rust-module crate::apis --clients-out examples/icecream/src/generated --apply-out examples/icecream/src/applyconfigurations --conversions-out examples/icecream/src/conversions" ;;
    # The CustomResourceDefinitions of the same #[derive(Resource)] types (`kubectl apply -f`),
    # equal to what each kind's crd() builds (tests/crd_manifests.rs).
    crd-e2e-api) echo "crd --rust tests/e2e-api/src/apis --out tests/e2e-api/config/crd" ;;
    crd-sample-controller) echo "crd --rust examples/sample-controller/src/apis --out examples/sample-controller/config/crd" ;;
    # icecream's CRD converts through its webhook Service, its CA injected by cert-manager.
    crd-icecream) echo "crd --rust examples/icecream/src/apis --out examples/icecream/config/crd --conversion-webhook icecream-system/icecream-webhook --cert-manager icecream-system/icecream-serving-cert" ;;
    *) echo "unknown codegen target: $1" >&2; return 1 ;;
  esac
}

# The testkit API server's facts about the built-in kinds it serves (patch strategies,
# OpenAPI definitions, protobuf field numbers), from the committed pruned OpenAPI v2 document
# ($KUBERNETES_INPUTS/swagger.json) and k8s-pb's sources.
testkit_tables() {
  testkit_tables_from "$KUBERNETES_INPUTS/swagger.json" "$@"
}

testkit_tables_from() {
  local swagger="$1"
  shift
  if [ ! -f "$swagger" ]; then
    echo "testkit-tables: no $swagger" >&2
    return 1
  fi
  # k8s-pb (a dev-dependency of kubegen-testkit) holds the protobuf field numbers.
  local k8s_pb
  k8s_pb=$(cargo metadata --format-version 1 --locked \
    | grep -o '"manifest_path":"[^"]*/k8s-pb-[0-9.]*/Cargo.toml"' | head -1 \
    | sed -e 's/"manifest_path":"//' -e 's#/Cargo.toml"$#/src#')
  if [ -z "$k8s_pb" ] || [ ! -d "$k8s_pb" ]; then
    echo "testkit-tables: the k8s-pb crate's sources were not found (cargo metadata)" >&2
    return 1
  fi
  cargo run --quiet --package kubegen-codegen --features testkit-tables --bin kubegen-testkit-tables -- \
    --openapi "$swagger" --k8s-pb "$k8s_pb" --out runtime/testkit/src/builtin/generated "$@"
}

# The built-in kinds' apply configurations (kubegen::applyconfigurations), their fields read
# from the committed pruned OpenAPI v3 documents ($KUBERNETES_INPUTS/*_openapi.json; the
# types stay k8s-openapi's).
kubernetes_apply() {
  kubernetes_apply_from "$KUBERNETES_INPUTS" "$@"
}

kubernetes_apply_from() {
  local dir="$1"
  shift
  local documents=()
  local doc
  for doc in "$dir"/*_openapi.json; do
    [ -f "$doc" ] && documents+=(--kubernetes-openapi "$doc")
  done
  if [ ${#documents[@]} -eq 0 ]; then
    echo "kubernetes-apply: no $dir/*_openapi.json" >&2
    return 1
  fi
  kubegen generate --kubernetes "${documents[@]}" --facade-path crate \
    --apply-out src/generated/applyconfigurations "$@"
}

# $KUBERNETES_INPUTS from Kubernetes' OpenAPI documents in the corpus ($KUBEGEN_CORPUS or
# ../shared/corpus, its openapi/ directory), outside the repository. Without the corpus this
# target alone is skipped, loudly, and fails instead with KUBEGEN_REQUIRE_CORPUS=1. Its
# Kubernetes version is the one the committed files record, or $KUBEGEN_KUBERNETES_VERSION
# (to move to another release). With --verify, the whole documents must also generate the
# committed apply configurations and testkit tables: the pruning dropped nothing they read.
kubernetes_inputs() {
  local dir="${KUBEGEN_CORPUS:-../shared/corpus}/openapi"
  if [ ! -f "$dir/swagger.json" ] || ! compgen -G "$dir/*_openapi.json" >/dev/null; then
    if [ "${KUBEGEN_REQUIRE_CORPUS:-}" = 1 ]; then
      echo "kubernetes-inputs: FAILED: no $dir/swagger.json and *_openapi.json, and KUBEGEN_REQUIRE_CORPUS=1" >&2
      return 1
    fi
    {
      echo "################################################################################"
      echo "kubernetes-inputs: SKIPPED: no Kubernetes OpenAPI documents in $dir"
      echo "  $KUBERNETES_INPUTS/ was NOT checked against them (kubernetes-apply and"
      echo "  testkit-tables are still generated and checked from the committed files)."
      echo "  Set KUBEGEN_CORPUS to the corpus directory; KUBEGEN_REQUIRE_CORPUS=1 makes this an error."
      echo "################################################################################"
    } >&2
    return 0
  fi
  local version="${KUBEGEN_KUBERNETES_VERSION:-}"
  if [ -z "$version" ]; then
    version=$(sed -n 's/^"kubernetes": "\(.*\)",$/\1/p' "$KUBERNETES_INPUTS/swagger.json" 2>/dev/null | head -1)
  fi
  if [ -z "$version" ]; then
    echo "kubernetes-inputs: set KUBEGEN_KUBERNETES_VERSION to the documents' Kubernetes version (none is committed yet)" >&2
    return 1
  fi
  kubegen kubernetes-inputs --openapi "$dir" --kubernetes-version "$version" \
    --out "$KUBERNETES_INPUTS" "$@" || return 1
  if [ "${1:-}" = --verify ]; then
    echo "kubernetes-inputs: the whole documents of $dir generate the committed trees too:" >&2
    kubernetes_apply_from "$dir" --verify || return 1
    testkit_tables_from "$dir/swagger.json" --verify || return 1
  fi
}

# The schemas crd() writes for numbers and k8s-openapi types, which `kubegen crd` cannot
# compile: computed by crd()'s own code (kubegen::crd::field_schema) over k8s-openapi's
# JsonSchema impls, into the table kubegen-codegen embeds.
wellknown_schemas() {
  cargo run --quiet --package kubegen-wellknown-schemas -- \
    --out codegen/src/wellknown/generated "$@"
}

update_target() {
  if [ "$1" = wellknown-schemas ]; then wellknown_schemas; return; fi
  if [ "$1" = testkit-tables ]; then testkit_tables; return; fi
  if [ "$1" = kubernetes-apply ]; then kubernetes_apply; return; fi
  if [ "$1" = kubernetes-inputs ]; then kubernetes_inputs; return; fi
  local args
  args=$(target_args "$1") || return 1
  # shellcheck disable=SC2086
  kubegen $args
}

verify_target() {
  if [ "$1" = wellknown-schemas ]; then wellknown_schemas --verify; return; fi
  if [ "$1" = testkit-tables ]; then testkit_tables --verify; return; fi
  if [ "$1" = kubernetes-apply ]; then kubernetes_apply --verify; return; fi
  if [ "$1" = kubernetes-inputs ]; then kubernetes_inputs --verify; return; fi
  local args
  args=$(target_args "$1") || return 1
  # shellcheck disable=SC2086
  kubegen $args --verify
}
