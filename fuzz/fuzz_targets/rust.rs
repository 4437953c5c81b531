//! The Rust front-end (`#[derive(Resource)]` structs read with syn) and the model check: errors, never panics.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = kubegen_codegen::__internal::fuzz::rust(data);
});
