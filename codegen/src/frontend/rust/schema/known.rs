//! Field types whose schemas come from the well-known table ([`crate::wellknown`]) instead
//! of the sources: the numbers besides `i32` and `i64`, and the k8s-openapi types it has,
//! named by their path as Rust resolves it (`use` imports and module aliases followed, a
//! re-export such as `kubegen::__private::k8s_openapi::...` taken from `k8s_openapi` on).

use super::{Resolver, error};
use crate::frontend::{Error, Warning};
use crate::model::ExternalType;
use crate::wellknown::{self, Table};

impl Resolver<'_, '_> {
    /// The type of the well-known table that `path`, written in the current module,
    /// stands for; a warning when API conventions advise against it.
    pub(super) fn well_known(&mut self, path: &syn::TypePath, file: &str) -> Option<ExternalType> {
        if path.qself.is_some() {
            return None;
        }
        let resolved = self.resolve_here(path, None)?;
        let canonical = canonical(&resolved);
        let table = Table::committed();
        table.schema(&canonical)?;
        if let Some(advice) = wellknown::advice(&canonical) {
            self.warnings.push(Warning {
                at: super::location(file, syn::spanned::Spanned::span(path)),
                message: format!("`{canonical}`: {advice}"),
            });
        }
        let has_default = table.default(&canonical).is_some();
        Some(ExternalType::new(canonical, has_default))
    }

    /// The error for a type named `name` that neither the sources (once) nor the table
    /// have.
    pub(super) fn unknown(&self, name: &str, ty: &syn::Type, file: &str) -> Error {
        let suffix = format!("::{name}");
        let hint = match Table::committed().paths().find(|p| p.ends_with(&suffix)) {
            Some(path) => {
                format!("; if it is k8s-openapi's, import it by its path: `use {path};`")
            }
            None => "; give the field `#[schemars(schema_with = \"f\")]` where `fn f(_: &mut \
                     SchemaGenerator) -> Schema { json_schema!({...}) }`"
                .to_owned(),
        };
        error(
            file,
            syn::spanned::Spanned::span(ty),
            format!(
                "`kubegen crd` cannot read the schema of `{name}` (not defined once in the \
                 sources, nor a number or k8s-openapi type whose schema it knows){hint}"
            ),
        )
    }
}

/// The table's path for a resolved path: without a leading `::`, and from `k8s_openapi` on
/// when a crate re-exports it.
fn canonical(resolved: &str) -> String {
    let resolved = resolved.trim_start_matches("::");
    let segments: Vec<&str> = resolved.split("::").collect();
    match segments.iter().position(|s| *s == "k8s_openapi") {
        Some(start) => segments[start..].join("::"),
        None => resolved.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::canonical;

    #[test]
    fn reexports_resolve_to_k8s_openapi_paths() {
        assert_eq!(canonical("u32"), "u32");
        assert_eq!(
            canonical("::k8s_openapi::api::core::v1::Toleration"),
            "k8s_openapi::api::core::v1::Toleration"
        );
        assert_eq!(
            canonical("kubegen::__private::k8s_openapi::api::core::v1::Toleration"),
            "k8s_openapi::api::core::v1::Toleration"
        );
        assert_eq!(
            canonical("crate::apis::v1::Toleration"),
            "crate::apis::v1::Toleration"
        );
    }
}
