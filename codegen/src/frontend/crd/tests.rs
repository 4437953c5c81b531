//! Unit tests of the CRD front-end, with inline CRDs.

#![allow(clippy::unwrap_used)]

use super::*;

const FOO: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
spec:
  group: example.com
  names: {kind: Foo, plural: foos}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {a: {type: string}}}
";

fn load_with(text: &str, options: &Options) -> Result<Model> {
    let mut model = Model::default();
    load(&mut model, &[Source::new("in.yaml", text)], options)?;
    Ok(model)
}

fn load_one(text: &str) -> Result<Model> {
    load_with(text, &Options::default())
}

/// Line, column and message of an error that starts `in.yaml:line:column: `.
fn input_error(result: Result<Model>) -> (u64, u64, String) {
    let error = match result {
        Err(error) => error.to_string(),
        Ok(_) => panic!("expected an error"),
    };
    let located = error.strip_prefix("in.yaml:").and_then(|rest| {
        let mut parts = rest.splitn(3, ':');
        let line = parts.next()?.parse().ok()?;
        let column = parts.next()?.parse().ok()?;
        Some((line, column, parts.next()?.trim_start().to_owned()))
    });
    located.unwrap_or_else(|| panic!("expected in.yaml:line:column: ..., got {error}"))
}

#[test]
fn the_same_kind_twice_is_an_error_at_the_second_kind() {
    let text = format!("{FOO}---\n{FOO}");
    let (line, _, message) = input_error(load_one(&text));
    // The `---` line, then the second document, whose line 6 is `names`.
    let expected = FOO.lines().count() as u64 + 1 + 6;
    assert_eq!(
        line, expected,
        "points at names.kind of the second document"
    );
    assert!(
        message.contains("kind `Foo` of example.com/v1 is defined twice"),
        "{message}"
    );
}

/// A CRD of kind `kind` in example.com with one version `version`, whose schema is
/// left out when `schema` is false.
fn crd_of(kind: &str, version: &str, schema: bool) -> String {
    let plural = format!("{}s", kind.to_lowercase());
    let mut text = FOO
        .replace("foos", &plural)
        .replace("kind: Foo", &format!("kind: {kind}"))
        .replace("- name: v1", &format!("- name: {version}"));
    if !schema {
        let at = text.find("    schema:").unwrap();
        text.truncate(at);
    }
    text
}

#[test]
fn the_first_error_in_kind_order_is_reported_whichever_version_finds_it() {
    // Each kind is in a version of its own, so each is built on its own; Cc comes
    // first in the file, Aa first in (group, kind) order.
    let docs = [
        crd_of("Cc", "v1", false),
        crd_of("Bb", "v2", false),
        crd_of("Aa", "v3", false),
    ];
    let text = docs.join("---\n");
    let (line, _, message) = input_error(load_one(&text));
    // Line 9 of a document names its version; each `---` takes a line.
    let aa_version = docs[0].lines().count() + docs[1].lines().count() + 2 + 9;
    assert_eq!(line, aa_version as u64, "{message}");
    assert!(message.contains("for version `v3`"), "{message}");

    // A kind that fails its checks after one that fails to build: the build error.
    let bad_name = crd_of("Zz", "v1", true).replace("zzs.example.com", "other.example.com");
    let text = format!("{bad_name}---\n{}", crd_of("Bb", "v2", false));
    let (_, _, message) = input_error(load_one(&text));
    assert!(message.contains("for version `v2`"), "{message}");
    // Before it, the check error.
    let text = format!("{bad_name}---\n{}", crd_of("Bb", "v2", true));
    let (_, _, message) = input_error(load_one(&text));
    assert!(message.contains("invalid metadata.name"), "{message}");
}

#[test]
fn served_versions_need_a_schema() {
    let text = FOO.replace(
            "    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec: {type: object, properties: {a: {type: string}}}\n",
            "",
        );
    let (line, column, message) = input_error(load_one(&text));
    assert_eq!((line, column), (9, 11));
    assert!(
        message.contains("expected `schema.openAPIV3Schema` for version `v1`"),
        "{message}"
    );
}

#[test]
fn old_crd_api_versions_are_rejected() {
    // A v1beta1 CRD has no `versions`; it is refused at its apiVersion, with what to do.
    let v1beta1 = "apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
spec:
  group: example.com
  version: v1
  names: {kind: Foo, plural: foos}
  validation: {openAPIV3Schema: {type: object}}
";
    let (line, column, message) = input_error(load_one(v1beta1));
    assert_eq!((line, column), (1, 13), "{message}");
    assert!(
        message.starts_with(
            "apiextensions.k8s.io/v1beta1 CustomResourceDefinitions were removed in Kubernetes \
1.22; convert this one to `apiVersion: apiextensions.k8s.io/v1`: spec.versions[] with a \
schema.openAPIV3Schema for each version"
        ),
        "{message}"
    );
    // Other versions, in any document shape.
    let text = FOO.replace("apiextensions.k8s.io/v1\n", "apiextensions.k8s.io/v2\n");
    let (line, column, message) = input_error(load_one(&text));
    assert_eq!((line, column), (1, 13));
    assert_eq!(
        message,
        "expected apiVersion `apiextensions.k8s.io/v1`, found `apiextensions.k8s.io/v2`"
    );
    let json = r#"{"kind": "CustomResourceDefinition",
 "apiVersion": "apiextensions.k8s.io/v1beta1", "spec": {}}"#;
    let (line, column, message) = input_error(load_one(json));
    assert_eq!((line, column), (2, 16), "{message}");
    assert!(message.contains("removed in Kubernetes 1.22"), "{message}");
}

#[test]
fn unserved_versions_are_skipped_and_others_kept() {
    let text = FOO.replace(
        "  versions:\n",
        "  versions:\n  - {name: v0, served: false, storage: false}\n",
    );
    let model = load_one(&text).unwrap();
    let versions: Vec<&String> = model.groups["example.com"].versions.keys().collect();
    assert_eq!(versions, ["v1"]);
}

#[test]
fn other_documents_and_empty_files_are_skipped() {
    let text =
        format!("# a comment\n---\napiVersion: v1\nkind: ConfigMap\ndata: {{a: b}}\n---\n{FOO}");
    let model = load_one(&text).unwrap();
    assert_eq!(model.kind_count(), 1);
    // Files of other kinds beside one with a CRD: skipped too.
    let sources = [
        Source::new("deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\n"),
        Source::new("empty.yaml", ""),
        Source::new("crd.yaml", FOO),
    ];
    let mut model = Model::default();
    load(&mut model, &sources, &Options::default()).unwrap();
    assert_eq!(model.kind_count(), 1);
}

/// The error of `load` as text.
fn load_error(sources: &[Source]) -> String {
    match load(&mut Model::default(), sources, &Options::default()) {
        Err(error) => error.to_string(),
        Ok(()) => panic!("expected an error"),
    }
}

#[test]
fn sources_without_any_crd_are_an_error_naming_what_each_holds() {
    let sources = [
        Source::new(
            "deploy/x.yaml",
            "apiVersion: apps/v1\nkind: Deployment\n---\nkind: Service\n---\nkind: Deployment\n",
        ),
        Source::new("deploy/empty.yaml", ""),
        Source::new("deploy/notes.yaml", "# TODO\n---\n"),
        Source::new("deploy/values.yaml", "replicas: 3\n"),
        Source::new("deploy/list.yaml", "---\n- a\n"),
        Source::new(
            "deploy/x.json",
            "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}",
        ),
    ];
    assert_eq!(
        load_error(&sources),
        "deploy/x.yaml:2:7: expected a CustomResourceDefinition, found kinds `Deployment` and \
`Service`
deploy/empty.yaml:1:1: expected a CustomResourceDefinition, found an empty file
deploy/notes.yaml:1:1: expected a CustomResourceDefinition, found only comments
deploy/values.yaml:1:1: expected a CustomResourceDefinition, found a document without `kind`
deploy/list.yaml:2:1: expected a CustomResourceDefinition, found a document without `kind`
deploy/x.json:1:30: expected a CustomResourceDefinition, found kind `ConfigMap`"
    );
    assert_eq!(
        load_error(&[]),
        "expected a CustomResourceDefinition, found no input"
    );
}

#[test]
fn a_kind_one_typo_from_crd_is_an_error_not_skipped() {
    for kind in [
        "CustomResourceDefintion",
        "customresourcedefinition",
        "CustomResourceDefinitions",
    ] {
        let text = format!("{FOO}---\nkind: {kind}\n");
        let (line, column, message) = input_error(load_one(&text));
        assert_eq!(
            (line, column),
            (FOO.lines().count() as u64 + 2, 7),
            "{message}"
        );
        assert_eq!(
            message,
            format!("unknown kind `{kind}`; did you mean `CustomResourceDefinition`?")
        );
    }
    // Kinds further away are other kinds.
    let text = format!("{FOO}---\nkind: CustomResourceState\n");
    assert_eq!(load_one(&text).unwrap().kind_count(), 1);
}

const TWO_VERSIONS: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.example.com}
spec:
  group: example.com
  names: {kind: Foo, plural: foos}
  scope: Namespaced
  versions:
  - {name: v1beta1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v0, served: false, storage: false, schema: {openAPIV3Schema: {type: object}}}
";

fn versions(model: &Model) -> Vec<&str> {
    model.groups["example.com"]
        .versions
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn versions_are_selected_by_role_or_name() {
    let served = load_one(TWO_VERSIONS).unwrap();
    assert_eq!(versions(&served), ["v1", "v1beta1"]);
    let storage = load_with(
        TWO_VERSIONS,
        &Options::default().versions(Versions::Storage),
    );
    assert_eq!(versions(&storage.unwrap()), ["v1"]);
    let named = Options::default().versions("v0,v1beta1".parse().unwrap());
    assert_eq!(
        versions(&load_with(TWO_VERSIONS, &named).unwrap()),
        ["v0", "v1beta1"]
    );
}

#[test]
fn names_kubernetes_rejects_are_errors_where_they_are_written() {
    // (replace, with, line, column, message start); every occurrence is replaced.
    let cases = [
        (
            "- name: v1\n",
            "- name: v1.2\n",
            9,
            11,
            "invalid version \"v1.2\"",
        ),
        (
            "- name: v1\n",
            "- name: \"v1 \"\n",
            9,
            11,
            "invalid version \"v1 \"",
        ),
        (
            "kind: Foo,",
            "kind: Foo Bar,",
            6,
            17,
            "invalid kind \"Foo Bar\"",
        ),
        ("kind: Foo,", "kind: 1Foo,", 6, 17, "invalid kind \"1Foo\""),
        ("foos", "Foos", 6, 30, "invalid plural \"Foos\""),
        (
            "group: example.com",
            "group: example",
            5,
            10,
            "invalid group \"example\"",
        ),
        (
            "{name: foos.example.com}",
            "{name: bars.example.com}",
            3,
            18,
            "invalid metadata.name \"bars.example.com\"",
        ),
        (
            "storage: true",
            "storage: false",
            6,
            17,
            "expected exactly one version",
        ),
    ];
    for (from, to, line, column, start) in cases {
        let text = FOO.replace(from, to);
        let (l, c, message) = input_error(load_one(&text));
        assert!(message.starts_with(start), "{to}: {message}");
        assert_eq!((l, c), (line, column), "{to}: {message}");
    }
}

#[test]
fn names_kubernetes_accepts_generate_valid_rust() {
    let text =
        FOO.replacen("- name: v1\n", "- name: fn\n", 1)
            .replacen("kind: Foo,", "kind: a-b,", 1);
    let model = load_one(&text).unwrap();
    let version = &model.groups["example.com"].versions["fn"];
    assert_eq!(version.module, "fn_");
    assert_eq!(
        version.kinds["a-b"].root,
        RootType::Generated("AB".to_owned())
    );
    assert_eq!(version.kinds["a-b"].names.list_kind, "a-bList");
}

/// A CRD (JSON) whose root schema nests `levels` schema levels deep: objects, arrays
/// and maps in turn, a string at the bottom. The schema is on line 5.
fn nested(levels: usize) -> String {
    let mut schema = r#"{"type": "string"}"#.to_owned();
    for level in 0..levels {
        schema = match level % 3 {
            0 => format!(r#"{{"type": "object", "properties": {{"a": {schema}}}}}"#),
            1 => format!(r#"{{"type": "array", "items": {schema}}}"#),
            _ => format!(r#"{{"type": "object", "additionalProperties": {schema}}}"#),
        };
    }
    format!(
        r#"{{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {{"name": "foos.example.com"}},
 "spec": {{"group": "example.com", "names": {{"kind": "Foo", "plural": "foos"}}, "scope": "Namespaced",
  "versions": [{{"name": "v1", "served": true, "storage": true, "schema": {{"openAPIV3Schema":
   {{"type": "object", "properties": {{"spec": {schema}}}}}}}}}]}}}}"#
    )
}

/// Run on a 2 MiB stack, the default of spawned threads and tests: the front-end
/// must not depend on its caller's stack.
fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn deep_schemas_are_read_or_refused_never_overflow() {
    // Regression: debug builds overflowed a 2 MiB stack at about 20 levels.
    let depth = schema::MAX_NESTING / 2 - 8;
    let files = on_small_stack(move || {
        let model = load_one(&nested(depth)).unwrap();
        crate::emit::generate(&model, &Default::default()).map(|files| files.len())
    });
    assert_eq!(
        files.unwrap(),
        4,
        "mod.rs of the tree, group and version, and the kind"
    );
    let (line, _, message) = on_small_stack(|| input_error(load_one(&nested(400))));
    assert_eq!(line, 5, "{message}");
    assert!(message.contains("recursion limit exceeded"), "{message}");
}

#[test]
fn a_default_that_is_no_value_of_its_type_is_an_error_at_the_default() {
    let cases = [
        (
            "{a: {type: string}}",
            "{a: {type: integer, default: x}}",
            "invalid default of `a`: expected a 64-bit integer, found \"x\"",
        ),
        (
            "{a: {type: string}}",
            "{a: {type: object, properties: {b: {type: string}}, required: [b], default: {}}}",
            "invalid default of `a`: b: expected a value (the field is required)",
        ),
        (
            "{a: {type: string}}",
            "{a: {type: array, items: {type: object, properties: {b: {type: string}}}, default: [{c: 1}]}}",
            "invalid default of `a`: [0]: expected only declared properties, found `c` (defaults must be pruned)",
        ),
        (
            "{a: {type: string}}",
            "{a: {type: string, enum: [x], default: z}}",
            "invalid default of `a`: expected one of x, found \"z\"",
        ),
    ];
    for (from, to, expected) in cases {
        let (line, column, message) = input_error(load_one(&FOO.replace(from, to)));
        // The default's own place in `spec: {type: object, properties: <to>}`.
        let offset = to.find("default: ").unwrap() + "default: ".len();
        assert_eq!((line, message.as_str()), (16, expected));
        assert_eq!(column as usize, 43 + offset + 1, "{to}");
    }
    let fine = FOO.replace("{a: {type: string}}", "{a: {type: string, default: x}}");
    assert!(load_one(&fine).is_ok());
}

#[test]
fn unknown_schema_keywords_are_errors_at_the_key() {
    // (from, to, line, column, message); the schema starts on line 13.
    let cases = [
        (
            "spec: {type: object, properties: {a: {type: string}}}",
            "spec: {type: object, propertes: {a: {type: string}}}",
            16,
            32,
            "unknown schema keyword `propertes`; did you mean `properties`?",
        ),
        (
            "        type: object\n",
            "        type: object\n        x-kubernetes-preserve-unknown-field: true\n",
            15,
            9,
            "unknown schema keyword `x-kubernetes-preserve-unknown-field`; did you mean \
`x-kubernetes-preserve-unknown-fields`?",
        ),
        (
            "{a: {type: string}}",
            "{a: {type: array, items: {type: string, Enum: [x]}}}",
            16,
            84,
            "unknown schema keyword `Enum`; did you mean `enum`?",
        ),
        (
            "{a: {type: string}}",
            "{a: {type: object, additionalProperties: {type: string, desription: x}}}",
            16,
            100,
            "unknown schema keyword `desription`; did you mean `description`?",
        ),
        (
            "{a: {type: string}}",
            "{a: {oneOf: [{required: [b]}, {requird: [c]}]}}",
            16,
            75,
            "unknown schema keyword `requird`; did you mean `required`?",
        ),
        (
            "{a: {type: string}}",
            "{a: {type: string, x-vendor-hint: 1}}",
            16,
            63,
            "unknown schema keyword `x-vendor-hint`: JSONSchemaProps (apiextensions.k8s.io/v1) \
has no such field, and the API server rejects it",
        ),
        // OpenAPI documents' own keywords are not JSONSchemaProps fields.
        (
            "{a: {type: string}}",
            "{a: {type: string, x-kubernetes-patch-strategy: merge}}",
            16,
            63,
            "unknown schema keyword `x-kubernetes-patch-strategy`: JSONSchemaProps \
(apiextensions.k8s.io/v1) has no such field, and the API server rejects it",
        ),
    ];
    for (from, to, line, column, expected) in cases {
        let text = FOO.replace(from, to);
        assert_ne!(text, FOO, "{from}");
        let (l, c, message) = input_error(load_one(&text));
        assert_eq!(message, expected, "{to}");
        assert_eq!((l, c), (line, column), "{to}: {message}");
    }
}

#[test]
fn versions_not_selected_are_checked_too() {
    let text = TWO_VERSIONS.replace(
        "{name: v0, served: false, storage: false, schema: {openAPIV3Schema: {type: object}}}",
        "{name: v0, served: false, storage: false, schema: {openAPIV3Schema: {tpye: object}}}",
    );
    let (line, _, message) = input_error(load_one(&text));
    assert_eq!(line, 11);
    assert_eq!(
        message,
        "unknown schema keyword `tpye`; did you mean `type`?"
    );
}

#[test]
fn unknown_fields_of_the_crd_are_errors_at_the_key() {
    let column = "  - name: v1\n    additionalPrinterColumns: [{name: Age, type: date, jsonPath: .metadata.creationTimestamp}]\n";
    let cases = [
        ("spec:\n", "specs: {}\nspec:\n", 4, 1, "specs", "spec"),
        (
            "{name: foos.example.com}",
            "{name: foos.example.com, lables: {}}",
            3,
            36,
            "lables",
            "labels",
        ),
        (
            "  scope: Namespaced\n",
            "  scope: Namespaced\n  preserveUnknownField: false\n",
            8,
            3,
            "preserveUnknownField",
            "preserveUnknownFields",
        ),
        (
            "{kind: Foo,",
            "{kind: Foo, singlar: foo,",
            6,
            22,
            "singlar",
            "singular",
        ),
        (
            "    served: true\n",
            "    servd: true\n",
            10,
            5,
            "servd",
            "served",
        ),
        (
            "    schema:\n      openAPIV3Schema:\n",
            "    schema:\n      openAPIV3schema:\n",
            13,
            7,
            "openAPIV3schema",
            "openAPIV3Schema",
        ),
        (
            "    storage: true\n",
            "    storage: true\n    subresources: {stauts: {}}\n",
            12,
            20,
            "stauts",
            "status",
        ),
        (
            "    storage: true\n",
            "    storage: true\n    subresources: {scale: {specReplicaPath: .spec.r, statusReplicasPath: .status.r}}\n",
            12,
            28,
            "specReplicaPath",
            "specReplicasPath",
        ),
        (
            "  - name: v1\n",
            "  - name: v1\n    additionalPrinterColumns: [{name: Age, type: date, JSONPath: .metadata.creationTimestamp}]\n",
            10,
            56,
            "JSONPath",
            "jsonPath",
        ),
        (
            "  - name: v1\n",
            "  - name: v1\n    selectableFields: [{jsonpath: .spec.a}]\n",
            10,
            25,
            "jsonpath",
            "jsonPath",
        ),
    ];
    for (from, to, line, col, field, suggestion) in cases {
        let text = FOO.replacen(from, to, 1);
        assert_ne!(text, FOO, "{from}");
        let (l, c, message) = input_error(load_one(&text));
        assert_eq!(
            message,
            format!("unknown field `{field}`; did you mean `{suggestion}`?"),
            "{to}"
        );
        assert_eq!((l, c), (line, col), "{to}: {message}");
    }
    // The status subresource has no fields; an unknown field far from any lists them.
    let text = FOO.replace(
        "    storage: true\n",
        "    storage: true\n    subresources: {status: {enabled: true}}\n",
    );
    let (_, _, message) = input_error(load_one(&text));
    assert!(
        message.starts_with("unknown field `enabled`; expected one of: "),
        "{message}"
    );
    let text = FOO.replace("    served: true\n", "    served: true\n    zzz: 1\n");
    let (_, _, message) = input_error(load_one(&text));
    assert!(
        message.starts_with("unknown field `zzz`; expected one of: name, served, storage,"),
        "{message}"
    );
    // Fields of the API types that are not read are accepted.
    let text =
        FOO.replace(
            "{name: foos.example.com}",
            "{name: foos.example.com, labels: {a: b}, annotations: {}, creationTimestamp: null}",
        )
        .replace(
            "  scope: Namespaced\n",
            "  scope: Namespaced\n  conversion: {strategy: None}\n  preserveUnknownFields: false\n",
        )
        .replace("  - name: v1\n", column)
        .replace(
            "    storage: true\n",
            "    storage: true\n    deprecated: false\n    subresources: {status: {}}\n",
        ) + "status: {storedVersions: [v1]}\n";
    assert_eq!(load_one(&text).unwrap().kind_count(), 1);
}

#[test]
fn printer_columns_are_checked_where_they_are_written() {
    let with = |column: &str| {
        FOO.replace(
            "  - name: v1\n",
            &format!("  - name: v1\n    additionalPrinterColumns:\n    - {column}\n"),
        )
    };
    // The column is on line 11, from column 7.
    let cases = [
        (
            "{name: Replicas, type: int, jsonPath: .spec.replicas}",
            30,
            "invalid type \"int\" of printer column `Replicas`; did you mean `integer`?",
        ),
        (
            "{name: Replicas, type: object, jsonPath: .spec.replicas}",
            30,
            "invalid type \"object\" of printer column `Replicas`; expected one of: integer, \
number, string, boolean, date",
        ),
        (
            "{name: Age, type: date, format: datetime, jsonPath: .metadata.creationTimestamp}",
            39,
            "invalid format \"datetime\" of printer column `Age`; did you mean `date-time`?",
        ),
        (
            "{name: Replicas, type: integer}",
            14,
            "printer column `Replicas` needs a `jsonPath` (the field it shows, such as \
`.status.phase`)",
        ),
        (
            "{name: Replicas, type: integer, jsonPath: \"\"}",
            49,
            "expected the `jsonPath` of printer column `Replicas`, found an empty one",
        ),
        (
            "{name: \"\", type: integer, jsonPath: .spec.replicas}",
            14,
            "expected the name of a printer column, found an empty one",
        ),
    ];
    for (column, at, expected) in cases {
        let (line, c, message) = input_error(load_one(&with(column)));
        assert_eq!(message, expected, "{column}");
        assert_eq!((line, c), (11, at), "{column}: {message}");
    }
    for type_ in PrinterColumn::TYPES {
        let text = with(&format!("{{name: A, type: {type_}, jsonPath: .spec.a}}"));
        assert!(load_one(&text).is_ok(), "{type_}");
    }
    for format in PrinterColumn::FORMATS {
        let text = with(&format!(
            "{{name: A, type: string, format: {format}, jsonPath: .spec.a}}"
        ));
        assert!(load_one(&text).is_ok(), "{format}");
    }
}
