//! The whole pipeline in memory on CRD text (front-end, model, types and clients emitters):
//! errors, never panics, and every generated path stays inside the output directory.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = kubegen_codegen::__internal::fuzz::generate(data);
});
