//! The OpenAPI front-end (v3 and v2, JSON and YAML) and the model check: errors, never panics.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = kubegen_codegen::__internal::fuzz::openapi(data);
});
