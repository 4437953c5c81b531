//! The CRD front-end (YAML and JSON) and the model check: errors, never panics.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = kubegen_codegen::__internal::fuzz::crd(data);
});
