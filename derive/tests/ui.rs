//! Compile-fail tests pinning the derives' error messages (`TRYBUILD=overwrite` to bless).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
