//! Gateway API's HTTPRoute from the shared corpus: v1beta1 and the hub v1 have the same
//! schema, so every field converts by generated code (no user method, no annotation), and
//! both round trips give random objects back.

#[cfg(corpus)]
mod support;

#[cfg(not(corpus))]
#[test]
fn corpus_round_trips() {
    eprintln!(
        "skipped: no corpus at build time (../shared/corpus/crds or $KUBEGEN_CORPUS); the \
         corpus conversions were not generated"
    );
}

#[cfg(corpus)]
mod with_corpus {
    use super::support;
    use kubegen_conversion_roundtrip::conversions::ANNOTATION;
    use kubegen_conversion_roundtrip::conversions::gateway_networking_k8s_io::http_route::v1beta1;
    use kubegen_conversion_roundtrip::generated::gateway_networking_k8s_io::{v1, v1beta1 as old};
    use proptest::prelude::*;
    use serde_json::Value;

    fn corpus_dir() -> std::path::PathBuf {
        std::env::var_os("KUBEGEN_CORPUS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
            })
    }

    fn corpus_crd() -> Value {
        let path = corpus_dir().join("crds/gateway-api_httproutes.gateway.networking.k8s.io.yaml");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("failed to read {}: {e}", path.display()));
        support::crd(&text)
    }

    fn routes(version: &str) -> BoxedStrategy<Value> {
        let crd = corpus_crd();
        let api_version = format!("gateway.networking.k8s.io/{version}");
        support::object(support::schema(&crd, version), &api_version, "HTTPRoute")
    }

    /// The strategy reaches deep into the schema (rules, their matches and filters), so
    /// the round trips below convert nested structs, lists and enums, not empty specs.
    #[test]
    fn random_routes_are_deep() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = routes("v1beta1");
        let deep = (0..64)
            .map(|_| strategy.new_tree(&mut runner).expect("a value").current())
            .filter(|v| v.pointer("/spec/rules/0/matches/0").is_some())
            .count();
        assert!(
            deep >= 6,
            "only {deep} of 64 routes have rules with matches"
        );
    }

    /// The corpus's example object converts to v1 and back.
    #[test]
    fn the_corpus_example_round_trips() {
        let path =
            corpus_dir().join("crds/gateway-api_httproutes.gateway.networking.k8s.io.example.yaml");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("failed to read {}: {e}", path.display()));
        let mut value: Value = serde_saphyr::from_str(&text).expect("the example is YAML");
        value["apiVersion"] = Value::from("gateway.networking.k8s.io/v1beta1");
        let route: old::HttpRoute = serde_json::from_value(value).expect("a v1beta1 HTTPRoute");
        assert_eq!(v1beta1::round_trip_spoke(&route, &()), Ok(()));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// v1beta1 -> v1 keeps every field as it is (only apiVersion changes), adds no
        /// annotation, and comes back unchanged.
        #[test]
        fn v1beta1_to_v1_and_back(value in routes("v1beta1")) {
            let route: old::HttpRoute = serde_json::from_value(value.clone())
                .map_err(|e| TestCaseError::fail(format!("not a v1beta1 HTTPRoute: {e}")))?;
            let before = serde_json::to_value(&route).expect("serializes");
            let hub = v1beta1::to_hub(route.clone(), &()).expect("converts");
            let mut after = serde_json::to_value(&hub).expect("serializes");
            prop_assert_eq!(&after["apiVersion"], "gateway.networking.k8s.io/v1");
            after["apiVersion"] = before["apiVersion"].clone();
            prop_assert_eq!(after, before);
            let annotations = hub.metadata.annotations.as_ref();
            prop_assert!(annotations.is_none_or(|a| !a.contains_key(ANNOTATION)));
            prop_assert_eq!(v1beta1::round_trip_spoke(&route, &()), Ok(()));
        }

        /// v1 -> v1beta1 -> v1 gives the object back.
        #[test]
        fn v1_to_v1beta1_and_back(value in routes("v1")) {
            let route: v1::HttpRoute = serde_json::from_value(value)
                .map_err(|e| TestCaseError::fail(format!("not a v1 HTTPRoute: {e}")))?;
            prop_assert_eq!(v1beta1::round_trip_hub(&route, &()), Ok(()));
        }
    }
}
