//! Entry points for fuzzing: arbitrary bytes through one stage of the pipeline, in memory.
//!
//! The cargo-fuzz targets in the repository's `fuzz/` directory call these, and so does a
//! stable test (`codegen/tests/fuzz_inputs.rs`) that replays every committed seed and
//! regression input, so CI covers them without a nightly toolchain. Each function returns
//! the pipeline's own result: an error is the expected answer to a bad input; a panic, a
//! hang or unbounded memory is a bug. Bytes that are not UTF-8 are read lossily (the CLI
//! refuses such files before any front-end sees them).
//!
//! [`generate`] also checks what must hold of every successful run, and panics when it
//! does not, so that the fuzzer reports it: an emit error after a model validated (the
//! model check let through something emitters cannot handle), or a generated path that
//! could land outside the output directory.
//!
//! ```
//! use kubegen_codegen::__internal::fuzz;
//!
//! assert!(fuzz::crd(kubegen_codegen::SAMPLE_CRD.as_bytes()).is_ok());
//! assert!(fuzz::crd(b"kind: CustomResourceDefinition\nspec: [").is_err());
//! assert!(fuzz::rust(b"struct {").is_err());
//! let files = fuzz::generate(kubegen_codegen::SAMPLE_CRD.as_bytes()).unwrap();
//! assert!(files > 0);
//! ```

use std::collections::BTreeMap;
use std::path::{Component, Path};

use crate::emit::apply::ApplyOptions;
use crate::emit::clients::ClientOptions;
use crate::emit::conversion::ConversionOptions;
use crate::frontend::{self, Input, Source, crd, openapi, rust};
use crate::model::Model;
use crate::pipeline::{Error, Outputs};

/// One input through its front-end, without client verb sets: the model.
fn load(input: Input<'_>) -> frontend::Result<Model> {
    Ok(frontend::load(&[input], &BTreeMap::new())?.model)
}

fn source(name: &str, data: &[u8]) -> Source {
    Source::new(name, String::from_utf8_lossy(data))
}

/// The CRD front-end (YAML, possibly multi-document, or JSON) on `data`, then the model
/// check.
pub fn crd(data: &[u8]) -> frontend::Result<Model> {
    let sources = [source("fuzz.yaml", data)];
    load(Input::Crd(&sources, crd::Options::default()))
}

/// The OpenAPI front-end (a v3 or v2 document, JSON or YAML) on `data`, then the model check.
pub fn openapi(data: &[u8]) -> frontend::Result<Model> {
    let sources = [source("fuzz.json", data)];
    load(Input::OpenApi(&sources, openapi::Options::default()))
}

/// The Rust front-end (a source file of `#[derive(Resource)]` structs) on `data`, then the
/// model check.
pub fn rust(data: &[u8]) -> frontend::Result<Model> {
    let sources = [source("apis/fuzz.rs", data)];
    load(Input::Rust(&sources, rust::Options::default()))
}

/// The whole pipeline in memory on CRD text: front-end, model, the types, clients, apply
/// configuration and conversion emitters. Returns how many files were generated.
///
/// # Panics
///
/// When an emitter fails on a model that validated, or a generated path is not a plain
/// relative path: both are generator bugs.
pub fn generate(data: &[u8]) -> Result<usize, Error> {
    let sources = [source("fuzz.yaml", data)];
    let inputs = [Input::Crd(&sources, crd::Options::default())];
    let outputs = Outputs {
        types: Some(Default::default()),
        clients: Some(ClientOptions::default()),
        apply: Some(ApplyOptions::default()),
        conversions: Some(ConversionOptions::default()),
    };
    match crate::pipeline::generate(&inputs, &outputs) {
        Ok(generated) => {
            for file in generated
                .types
                .iter()
                .chain(&generated.clients)
                .chain(&generated.apply)
                .chain(&generated.conversions)
            {
                let plain = Path::new(&file.path)
                    .components()
                    .all(|c| matches!(c, Component::Normal(_)));
                assert!(
                    plain && !file.path.is_empty(),
                    "generated path {:?} is not a plain relative path",
                    file.path
                );
            }
            Ok(generated.types.len() + generated.clients.len())
        }
        Err(Error::Emit(e)) => panic!("a validated model failed to emit: {e}"),
        Err(Error::Conversion(e)) if !e.is_input() => {
            panic!("a validated model failed to emit its conversions: {e}")
        }
        Err(e) => Err(e),
    }
}
