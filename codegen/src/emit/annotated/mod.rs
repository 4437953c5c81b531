//! Annotated Rust sources a user owns: the types of CRD kinds written the way the Rust
//! front-end reads them (`kubegen generate --crd ... --style derive`).
//!
//! Where the [`types`](super::types) emitter writes generated code (DO NOT EDIT, resource
//! impls spelled out), this one writes the source a user would have written by hand:
//! `#[derive(Resource)]` roots with `#[resource(...)]` attributes (group, version, names,
//! scope, subresources, printer columns, selectable fields, CEL rules), and nested types
//! deriving `Serialize`, `Deserialize` and `JsonSchema` with the schema facts as serde and
//! schemars attributes (see [`attrs`]). `kubegen crd --rust` reads those files back into
//! the same schema, and `Foo::crd()` builds it at run time: migrating a CRD to Rust is
//! lossless up to the normalisations listed in `codegen/tests/crd_roundtrip.rs`.
//!
//! A field whose type the Rust front-end cannot read from source (numbers, bytes,
//! timestamps, quantities, int-or-string, k8s-openapi types, untagged unions) keeps its
//! Rust type and gets its schema from a `schema_with` function returning a
//! `json_schema!` literal (what the CRD emitter writes for that type).
//!
//! Layout (as `--out` of generated types): `mod.rs`, `<group>/mod.rs`,
//! `<group>/<version>/mod.rs` (re-exporting its kinds), `<group>/<version>/<kind>.rs`.
//!
//! ```
//! use kubegen_codegen::SAMPLE_CRD;
//! use kubegen_codegen::__internal::{emit, frontend::{Source, crd, rust}, model::Model};
//!
//! let mut model = Model::default();
//! crd::load(&mut model, &[Source::new("foo.yaml", SAMPLE_CRD)], &crd::Options::default())?;
//! let files = emit::annotated::generate(&model)?;
//! let foo = files.iter().find(|f| f.path.ends_with("/foo.rs")).unwrap();
//! assert!(foo.contents.contains("#[derive(Clone, Debug, PartialEq, Resource)]"));
//!
//! // The Rust front-end reads it back.
//! let sources: Vec<Source> = files.iter().map(|f| Source::new(&f.path, &f.contents)).collect();
//! let mut back = Model::default();
//! rust::load(&mut back, &sources, &rust::Options::default().schemas(true))?;
//! assert_eq!(back.kind_count(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod attrs;
mod items;

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;

use super::common::{Error, ident};
use super::generated::GeneratedFile;
use crate::model::{Group, Model, Version};

/// The header of every file: where it came from, and that it is the user's now.
pub const HEADER: &str = "// Written by kubegen from a CustomResourceDefinition (`kubegen generate \
--style derive`): yours to edit.\n// `kubegen crd --rust` reads these types back into the \
same CustomResourceDefinition.\n";

/// The annotated sources of every kind of `model` (built by the CRD front-end), one file
/// per kind, plus the `mod.rs` files that mount them; sorted by path.
pub fn generate(model: &Model) -> Result<Vec<GeneratedFile>, Error> {
    let mut files = Vec::new();
    let mut groups = Vec::new();
    for group in model.groups.values() {
        let mut versions = Vec::new();
        for version in group.versions.values() {
            let dir = format!("{}/{}", group.module, version.module);
            let mut kinds = Vec::new();
            for (module, tokens) in kind_files(group, version)? {
                files.push(file(&format!("{dir}/{module}.rs"), tokens)?);
                kinds.push(module);
            }
            let mounts = kinds.iter().map(|k| {
                let k = ident(k);
                quote! { mod #k; pub use #k::*; }
            });
            files.push(file(&format!("{dir}/mod.rs"), quote! { #(#mounts)* })?);
            versions.push(version.module.clone());
        }
        let mounts = versions.iter().map(|v| {
            let v = ident(v);
            quote! { pub mod #v; }
        });
        files.push(file(
            &format!("{}/mod.rs", group.module),
            quote! { #(#mounts)* },
        )?);
        groups.push(group.module.clone());
    }
    let mounts = groups.iter().map(|g| {
        let g = ident(g);
        quote! { pub mod #g; }
    });
    files.push(file("mod.rs", quote! { #(#mounts)* })?);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The tokens of each kind's file in `version`, by module name.
fn kind_files(group: &Group, version: &Version) -> Result<BTreeMap<String, TokenStream>, Error> {
    let mut out = BTreeMap::new();
    for kind in version.kinds.values() {
        let types: Vec<_> = version
            .types
            .iter()
            .filter(|t| t.module == kind.module)
            .collect();
        let body = items::kind_file(group, version, kind, &types)?;
        out.insert(kind.module.clone(), body);
    }
    Ok(out)
}

/// Formats `tokens` as the file `path` with [`HEADER`].
fn file(path: &str, tokens: TokenStream) -> Result<GeneratedFile, Error> {
    let printed = super::printer::print(tokens.clone());
    #[cfg(debug_assertions)]
    super::printer::reads_back(tokens, &printed).map_err(|message| Error::Format {
        path: path.to_owned(),
        message,
    })?;
    Ok(GeneratedFile {
        path: path.to_owned(),
        contents: format!("{HEADER}\n{printed}"),
    })
}
