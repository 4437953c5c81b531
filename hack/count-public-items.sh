#!/usr/bin/env bash
# Counts kubegen-codegen's public API as rustdoc documents it (hidden items excluded):
# one page per item (module index, struct, enum, fn, trait, type alias, constant,
# static, macro; not the redirect pages rustdoc writes where an item is re-exported),
# then the fields and variants, and the methods and associated items listed on those
# pages (trait impls included).
#
#   bash hack/count-public-items.sh        # documents the library, then counts
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf "${CARGO_TARGET_DIR:-target}/doc/kubegen_codegen"
cargo doc -p kubegen-codegen --no-deps --all-features --lib --quiet
target=${CARGO_TARGET_DIR:-target}
cd "$target/doc/kubegen_codegen"
pages=$(find . -name '*.html' |
    grep -E '/(index|struct|enum|fn|trait|type|constant|static|macro|union)\.' |
    xargs grep -L 'http-equiv="refresh"' || true)
echo "item pages: $(grep -c . <<<"$pages")"
for kind in index struct enum fn trait type constant static macro; do
    echo "  $kind: $(grep -c "/$kind\." <<<"$pages" || true)"
done
echo "fields and variants: $(xargs grep -ohE 'id="(structfield|variant)\.[A-Za-z0-9_]+"' <<<"$pages" | wc -l)"
echo "methods and associated items: $(xargs grep -ohE 'id="(method|tymethod|associatedconstant|associatedtype)\.[A-Za-z0-9_]+"' <<<"$pages" | wc -l)"
