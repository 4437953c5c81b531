#!/usr/bin/env bash
# Measures what apply configurations cost a user's build: the debug `cargo build` time of
# one crate holding 20 kinds (the storage versions of the first 20 CRDs of the corpus,
# sorted by file name) with their generated types and clients, without and with their
# generated apply configurations (`--apply-out`).
#
#   bash hack/compile-time-apply.sh [DIR] [RUNS]    (default: a fresh temporary directory, 3 runs)
#
# The crate is generated into DIR (outside the workspace, its own target directory, the
# workspace's Cargo.lock so dependency versions match). Its dependencies are built once
# first; each timed run touches src/lib.rs and rebuilds only the crate itself
# (CARGO_INCREMENTAL=0, as CI builds), once without and once with the cargo feature
# `apply` that mounts the apply configurations. Prints every run and the medians (wall
# time, and user + system CPU time, which other load on the machine disturbs less), and
# the lines the apply configurations add. Needs the corpus ($KUBEGEN_CORPUS or ../shared/corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
corpus="${KUBEGEN_CORPUS:-../shared/corpus}"
dir="${1:-$(mktemp -d -t kubegen-compile-apply.XXXXXX)}"
runs="${2:-3}"
dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
export CARGO_INCREMENTAL=0

mapfile -t crds < <(find "$corpus/crds" -maxdepth 1 -name '*.yaml' ! -name '*.example.yaml' | sort | head -20)
if [ "${#crds[@]}" -ne 20 ]; then
  echo "compile-time-apply: expected 20 CRDs under $corpus/crds, found ${#crds[@]}" >&2
  exit 1
fi

cargo build --quiet --package kubegen-codegen --bin cargo-kubegen
kubegen="$root/target/debug/cargo-kubegen"

rm -rf "$dir/src"
mkdir -p "$dir/src"
"$kubegen" generate --versions storage "${crds[@]/#/--crd=}" \
  --out "$dir/src/generated" --clients-out "$dir/src/clients" --apply-out "$dir/src/apply" >&2

cat > "$dir/Cargo.toml" <<EOF
[package]
name = "kubegen-compile-apply"
version = "0.0.0"
edition = "2024"
publish = false

[features]
apply = []

[dependencies]
kubegen-rs = { path = "$root" }
k8s-openapi = { version = "0.29", default-features = false, features = ["latest"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"

[workspace]
EOF
cat > "$dir/src/lib.rs" <<'EOF'
//! 20 kinds' generated types and clients, and (feature `apply`) their apply configurations.
#![allow(missing_docs, clippy::all)]
pub mod generated;
pub mod clients;
#[cfg(feature = "apply")]
pub mod apply;
EOF
cp Cargo.lock "$dir/Cargo.lock"

cd "$dir"
# Dependencies (and a first build of each variant), not timed.
cargo build --quiet
cargo build --quiet --features apply

# Wall seconds and CPU seconds (user + system, less sensitive to other load) of one build.
time_build() {
  touch src/lib.rs
  /usr/bin/time -f '%e %U %S' -o "$dir/time.txt" cargo build --quiet "$@"
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$dir/time.txt"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

wall_without=()
cpu_without=()
wall_with=()
cpu_with=()
for i in $(seq "$runs"); do
  read -r wall cpu < <(time_build)
  wall_without+=("$wall")
  cpu_without+=("$cpu")
  read -r wall cpu < <(time_build --features apply)
  wall_with+=("$wall")
  cpu_with+=("$cpu")
  echo "run $i: without apply ${wall_without[-1]} s wall (${cpu_without[-1]} s CPU), with apply ${wall_with[-1]} s wall (${cpu_with[-1]} s CPU)"
done
m() { printf '%s\n' "$@" | median; }
echo "median without apply configurations: $(m "${wall_without[@]}") s wall, $(m "${cpu_without[@]}") s CPU"
echo "median with apply configurations:    $(m "${wall_with[@]}") s wall, $(m "${cpu_with[@]}") s CPU"
lines() { find "$1" -name '*.rs' -exec cat {} + | wc -l; }
echo "lines: types $(lines src/generated), clients $(lines src/clients), apply configurations $(lines src/apply)"
