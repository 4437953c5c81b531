//! Every random instance of every random kind round-trips exactly through its generated
//! type: what is read is what is written, as `serde_json::Value`s.
//!
//! Reproduce a failure with the seed it prints: `KUBEGEN_SCHEMA_SEED=N cargo test -p
//! kubegen-schema-roundtrip`; more cases with `KUBEGEN_SCHEMA_CASES`.

use kubegen_schema_roundtrip::{CASES, CRDS_DIR, KINDS, SEED};

#[test]
fn random_instances_round_trip_exactly() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for kind in KINDS {
        for instance in kind.instances {
            checked += 1;
            let original: serde_json::Value = match serde_json::from_str(instance) {
                Ok(value) => value,
                Err(e) => panic!("instance is not JSON: {e}: {instance}"),
            };
            match (kind.round_trip)(instance) {
                Ok(back) if back == original => {}
                Ok(back) => failures.push(format!(
                    "case {} ({} {}): wrote back something else\n  read:  {original}\n  wrote: {back}",
                    kind.case, kind.api_version, kind.kind
                )),
                Err(e) => failures.push(format!(
                    "case {} ({} {}): {e}\n  instance: {instance}",
                    kind.case, kind.api_version, kind.kind
                )),
            }
        }
    }
    assert!(KINDS.len() >= CASES, "every case has at least one version");
    println!(
        "{checked} instances of {} kind versions ({CASES} CRDs) round-tripped",
        KINDS.len()
    );
    assert!(
        failures.is_empty(),
        "KUBEGEN_SCHEMA_SEED={SEED}: {} of {checked} instances did not round-trip (CRDs in {CRDS_DIR}):\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
