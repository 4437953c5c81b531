//! Negotiation of Accept headers: representations, encodings, preference and 406.

use super::*;

fn negotiated(accept: &str) -> Result<Representation, u16> {
    Negotiated::negotiate(accept, Offer::Json, None, None)
        .map(|n| n.representation)
        .map_err(|e| e.code)
}

/// The encoding chosen for a whole built-in object (`JsonOrProtobuf`) and for what
/// has no protobuf form (`Json`).
fn encodings(accept: &str) -> [Result<(Representation, Encoding), u16>; 2] {
    [Offer::JsonOrProtobuf, Offer::Json].map(|offer| {
        Negotiated::negotiate(accept, offer, None, None)
            .map(|n| (n.representation, n.encoding))
            .map_err(|e| e.code)
    })
}

fn negotiated_with(accept: &str, include_object: Option<&str>) -> Result<Representation, u16> {
    Negotiated::negotiate(accept, Offer::Json, include_object, None)
        .map(|n| n.representation)
        .map_err(|e| e.code)
}

const KUBECTL: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

fn table(version: MetaVersion) -> Representation {
    Representation::Table(TableOptions::new(version, None, None).expect("valid"))
}

#[test]
fn kube_and_client_go_metadata_headers_are_served() {
    use Representation::*;
    assert_eq!(
        negotiated("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
        Ok(PartialList(MetaVersion::V1))
    );
    assert_eq!(
        negotiated("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"),
        Ok(Partial(MetaVersion::V1))
    );
    // client-go's metadata client: protobuf first, then JSON metadata, then JSON.
    assert_eq!(
        negotiated(
            "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
        ),
        Ok(PartialList(MetaVersion::V1))
    );
    assert_eq!(
        negotiated("application/json; as=PartialObjectMetadata; g=meta.k8s.io; v=v1beta1"),
        Ok(Partial(MetaVersion::V1beta1))
    );
}

#[test]
fn unserved_clauses_fall_back_to_later_ones_or_406() {
    use Representation::*;
    assert_eq!(negotiated(""), Ok(Full));
    assert_eq!(negotiated("*/*"), Ok(Full));
    assert_eq!(negotiated("application/json;stream=watch"), Ok(Full));
    assert_eq!(
        negotiated("application/json;as=Table;v=v2;g=meta.k8s.io,application/json"),
        Ok(Full)
    );
    assert_eq!(
        negotiated("application/vnd.kubernetes.protobuf,application/json"),
        Ok(Full)
    );
    assert_eq!(
        negotiated("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2,*/*"),
        Ok(Full)
    );
    assert_eq!(
        negotiated("application/json;as=Table;g=meta.k8s.io;v=v2"),
        Err(406)
    );
    assert_eq!(negotiated("application/json;as=Pod;g=;v=v1"), Err(406));
    assert_eq!(negotiated("application/yaml"), Err(406));
    assert_eq!(negotiated("application/json;q=0"), Err(406));
}

#[test]
fn preference_orders_clauses() {
    use Representation::*;
    assert_eq!(
        negotiated(
            "application/json;q=0.5,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
        ),
        Ok(Partial(MetaVersion::V1))
    );
    assert_eq!(
        negotiated("*/*,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"),
        Ok(PartialList(MetaVersion::V1))
    );
}

#[test]
fn tables_are_negotiated_with_their_query_options() {
    use Representation::*;
    // kubectl get: Table first, plain JSON last.
    assert_eq!(negotiated(KUBECTL), Ok(table(MetaVersion::V1)));
    assert_eq!(
        negotiated("application/json;as=Table;v=v1beta1;g=meta.k8s.io"),
        Ok(table(MetaVersion::V1beta1))
    );
    assert_eq!(
        negotiated("application/json, application/json;as=Table;v=v1;g=meta.k8s.io"),
        Ok(Full),
        "plain JSON was preferred"
    );
    let protobuf_first = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io";
    assert_eq!(negotiated(protobuf_first), Ok(table(MetaVersion::V1)));
    let options = Negotiated::negotiate(KUBECTL, Offer::Json, Some("None"), Some("true"))
        .expect("valid")
        .representation;
    let Table(options) = options else {
        panic!("not a table: {options:?}");
    };
    assert!(!options.headers && options.include == table::IncludeObject::None);
    assert_eq!(negotiated_with(KUBECTL, Some("Everything")), Err(400));
    // Only a Table reads the query's options.
    assert_eq!(
        negotiated_with("application/json", Some("Everything")),
        Ok(Full)
    );
}

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

#[test]
fn protobuf_is_chosen_by_the_same_rule_as_everything_else() {
    use Encoding::*;
    use Representation::*;
    // kubectl and client-go's protobuf clients: protobuf first, JSON as the fallback.
    assert_eq!(
        encodings("application/vnd.kubernetes.protobuf,application/json"),
        [Ok((Full, Protobuf)), Ok((Full, Json))]
    );
    assert_eq!(
        encodings("application/vnd.kubernetes.protobuf, */*"),
        [Ok((Full, Protobuf)), Ok((Full, Json))]
    );
    // Protobuf alone: a whole built-in object is served; a list, watch, Scale or
    // custom resource (no protobuf form) is 406, as a real server answers when it
    // offers none of the types asked for.
    assert_eq!(encodings(PROTOBUF), [Ok((Full, Protobuf)), Err(406)]);
    assert_eq!(
        encodings("application/vnd.kubernetes.protobuf;stream=watch"),
        [Ok((Full, Protobuf)), Err(406)]
    );
    // Preference decides, not position alone.
    assert_eq!(
        encodings("application/json, application/vnd.kubernetes.protobuf"),
        [Ok((Full, Json)), Ok((Full, Json))]
    );
    assert_eq!(
        encodings("application/json;q=0.5, application/vnd.kubernetes.protobuf"),
        [Ok((Full, Protobuf)), Ok((Full, Json))]
    );
    assert_eq!(
        encodings("*/*, application/vnd.kubernetes.protobuf"),
        [Ok((Full, Protobuf)), Ok((Full, Json))],
        "a wildcard is less specific"
    );
    assert_eq!(
        encodings("application/vnd.kubernetes.protobuf;q=0"),
        [Err(406), Err(406)]
    );
}

#[test]
fn tables_and_metadata_are_never_protobuf() {
    use Encoding::*;
    use Representation::*;
    let table_protobuf = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io";
    assert_eq!(encodings(table_protobuf), [Err(406), Err(406)]);
    // kubectl get with protobuf: the JSON Table clause after it is taken.
    let kubectl =
        format!("{table_protobuf},application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
    assert_eq!(
        encodings(&kubectl),
        [
            Ok((table(MetaVersion::V1), Json)),
            Ok((table(MetaVersion::V1), Json))
        ]
    );
    let metadata =
        "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
    assert_eq!(encodings(metadata), [Err(406), Err(406)]);
    assert_eq!(
        encodings(&format!("{metadata},{PROTOBUF}")),
        [Ok((Full, Protobuf)), Err(406)],
        "the whole object in protobuf is the next servable clause"
    );
    assert_eq!(
        encodings(&format!(
            "{metadata},application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
        )),
        [
            Ok((Partial(MetaVersion::V1), Json)),
            Ok((Partial(MetaVersion::V1), Json))
        ]
    );
}

#[test]
fn the_406_names_what_is_offered() {
    let message = |offer| {
        Negotiated::negotiate("application/yaml", offer, None, None)
            .expect_err("406")
            .message
    };
    assert_eq!(
        message(Offer::Json),
        "only the following media types are accepted: application/json"
    );
    assert_eq!(
        message(Offer::JsonOrProtobuf),
        "only the following media types are accepted: application/json, application/vnd.kubernetes.protobuf"
    );
}
