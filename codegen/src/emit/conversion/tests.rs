use super::*;
use crate::frontend::{Source, Versions, crd};

/// A CRD of kind `Thing` with versions `v1alpha1` (spec properties `old`) and the storage
/// version `v1` (spec properties `new`), each a YAML mapping at 14 spaces of indent.
fn thing(old: &str, new: &str) -> String {
    let version = |name: &str, storage: bool, spec: &str| {
        format!(
            "    - name: {name}\n      served: true\n      storage: {storage}\n      schema:\n        \
             openAPIV3Schema:\n          type: object\n          properties:\n            \
             metadata:\n              type: object\n            spec:\n              type: \
             object\n              properties:\n{spec}"
        )
    };
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
         name: things.example.com\nspec:\n  group: example.com\n  names:\n    kind: Thing\n    \
         plural: things\n  scope: Namespaced\n  versions:\n{}{}",
        version("v1alpha1", false, old),
        version("v1", true, new)
    )
}

fn model(text: &str, versions: Versions) -> Model {
    let mut model = Model::default();
    let options = crd::Options::default().versions(versions);
    crd::load(&mut model, &[Source::new("things.yaml", text)], &options).expect("loads");
    model
}

fn generate(text: &str, options: &ConversionOptions) -> Result<Vec<GeneratedFile>, Error> {
    generate_conversions(&model(text, Versions::Served), options)
}

fn pair<'a>(files: &'a [GeneratedFile], path: &str) -> &'a str {
    &files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no {path}"))
        .contents
}

const SAME: &str = "                size:\n                  type: integer\n                \
                    tags:\n                  type: array\n                  items:\n                    \
                    type: string\n";

#[test]
fn identical_versions_convert_field_by_field_and_ask_nothing() {
    let files = generate(&thing(SAME, SAME), &ConversionOptions::default()).unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "example_com/mod.rs",
            "example_com/thing/mod.rs",
            "example_com/thing/v1alpha1.rs",
            "mod.rs"
        ]
    );
    let text = pair(&files, "example_com/thing/v1alpha1.rs");
    assert!(text.starts_with(crate::emit::HEADER));
    assert!(
        text.contains("impl<T> ConvertThingV1alpha1 for T {}"),
        "{text}"
    );
    assert!(text.contains("size: s_size,"), "{text}");
    assert!(!text.contains("cx.store("), "{text}");
    assert!(
        pair(&files, "mod.rs")
            .contains("pub const ANNOTATION: &str = \"kubegen.io/conversion-data\";")
    );
}

#[test]
fn fields_only_one_side_has_are_carried_and_renamed_ones_are_the_users() {
    let added = format!("{SAME}                extra:\n                  type: string\n");
    let files = generate(&thing(SAME, &added), &ConversionOptions::default()).unwrap();
    let text = pair(&files, "example_com/thing/v1alpha1.rs");
    assert!(text.contains("cx.store(\"extra\", v)?;"), "{text}");
    assert!(text.contains("cx.restore(\"extra\")?"), "{text}");
    assert!(!text.contains("fn thing_spec_extra"), "{text}");

    let renamed_old = "                colour:\n                  type: string\n";
    let renamed_new = "                color:\n                  type: string\n";
    let files = generate(
        &thing(renamed_old, renamed_new),
        &ConversionOptions::default(),
    )
    .unwrap();
    let text = pair(&files, "example_com/thing/v1alpha1.rs");
    assert!(
        text.contains("fn thing_spec_color_to_hub(&self, from: &spoke::ThingSpec)"),
        "{text}"
    );
    assert!(
        text.contains("fn thing_spec_colour_from_hub(&self, from: &hub::ThingSpec)"),
        "{text}"
    );
    assert!(!text.contains("cx.store("), "{text}");
}

#[test]
fn retyped_fields_and_enums_with_other_values_are_the_users() {
    let old = "                size:\n                  type: string\n                phase:\n                  \
               type: string\n                  enum: [A, B]\n";
    let new = "                size:\n                  type: integer\n                phase:\n                  \
               type: string\n                  enum: [A, B, C]\n";
    let files = generate(&thing(old, new), &ConversionOptions::default()).unwrap();
    let text = pair(&files, "example_com/thing/v1alpha1.rs");
    assert!(
        text.contains("fn thing_spec_size_to_hub(&self, from: &spoke::ThingSpec)"),
        "{text}"
    );
    assert!(text.contains("fn thing_spec_phase_to_hub("), "{text}");
    assert!(text.contains("value: spoke::ThingSpecPhase"), "{text}");
}

#[test]
fn the_hub_is_the_storage_version_unless_named() {
    let text = thing(SAME, SAME);
    let files = generate(
        &text,
        &ConversionOptions::default().hub("Thing", "v1alpha1"),
    )
    .unwrap();
    assert!(files.iter().any(|f| f.path == "example_com/thing/v1.rs"));
    let files = generate(
        &text,
        &ConversionOptions::default().hub("Thing.example.com", "v1alpha1"),
    )
    .unwrap();
    assert!(files.iter().any(|f| f.path == "example_com/thing/v1.rs"));

    let error = generate(&text, &ConversionOptions::default().hub("Thing", "v2")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "failed to generate conversions: hub Thing=v2: Thing.example.com has no version v2 \
         (read: v1, v1alpha1)"
    );
    let error = generate(&text, &ConversionOptions::default().hub("Gizmo", "v1")).unwrap_err();
    assert!(
        error.to_string().contains("no kind of that name was read"),
        "{error}"
    );
    assert!(error.is_input());
}

#[test]
fn a_storage_version_not_read_is_an_error_at_the_kind() {
    let mut text = thing(SAME, SAME);
    text = text.replace("    - name: v1\n", "    - name: v1beta1\n      served: true\n      storage: false\n      schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            metadata:\n              type: object\n    - name: v1\n");
    let only = Versions::Named(["v1alpha1".to_owned(), "v1beta1".to_owned()].into());
    let error =
        generate_conversions(&model(&text, only), &ConversionOptions::default()).unwrap_err();
    let message = error.to_string();
    assert!(message.starts_with("things.yaml:"), "{message}");
    assert!(
        message.contains(
            "failed to generate the conversions of Thing.example.com: no version read \
             (v1alpha1, v1beta1) is the storage version"
        ),
        "{message}"
    );
}

#[test]
fn output_is_the_same_bytes_every_time() {
    let added = format!("{SAME}                extra:\n                  type: string\n");
    let text = thing(SAME, &added);
    let first = generate(&text, &ConversionOptions::default()).unwrap();
    for _ in 0..3 {
        assert_eq!(
            generate(&text, &ConversionOptions::default()).unwrap(),
            first
        );
    }
}

#[test]
fn a_single_version_gives_no_files() {
    let text = thing(SAME, SAME);
    let only = Versions::Storage;
    let files = generate_conversions(&model(&text, only), &ConversionOptions::default()).unwrap();
    assert!(files.is_empty());
}

/// Two `#[derive(Resource)]` versions of `Widget` (`v1alpha1/widget.rs`, `v1/widget.rs`)
/// with these spec fields, both using `common::Shared`, read for conversions under
/// `crate::apis`.
fn derived(old: &str, new: &str) -> Model {
    let file = |version: &str, spec: &str| {
        let storage = if version == "v1" { ", storage" } else { "" };
        format!(
            "use super::super::common::Shared;\n\
             #[derive(Resource)]\n\
             #[resource(group = \"example.com\", version = \"{version}\"{storage})]\n\
             pub struct Widget {{ pub metadata: ObjectMeta, pub spec: WidgetSpec }}\n\
             #[derive(Clone, Serialize, Deserialize)]\n\
             #[serde(rename_all = \"camelCase\")]\n\
             pub struct WidgetSpec {{ pub shared: Shared, {spec} }}\n\
             pub struct Port {{ pub number: i32 }}\n"
        )
    };
    let sources = [
        Source::new("common.rs", "pub struct Shared { pub name: String }\n"),
        Source::new("v1/widget.rs", file("v1", new)),
        Source::new("v1alpha1/widget.rs", file("v1alpha1", old)),
    ];
    let mut model = Model::default();
    let options = crate::frontend::rust::Options::default()
        .module("crate::apis")
        .conversions(true);
    crate::frontend::rust::load(&mut model, &sources, &options).expect("loads");
    model
}

#[test]
fn hand_written_kinds_name_their_structs_by_path_and_move_shared_types() {
    let model = derived(
        "pub size: Option<i32>, pub ports: Vec<Box<Port>>, pub colour: String",
        "pub size: Option<i32>, pub ports: Vec<Box<Port>>, pub color: String",
    );
    let files =
        generate_conversions(&model, &ConversionOptions::default().hub("Widget", "v1")).unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "example_com/mod.rs",
            "example_com/widget/mod.rs",
            "example_com/widget/v1alpha1.rs",
            "mod.rs"
        ]
    );
    let text = pair(&files, "example_com/widget/v1alpha1.rs");
    assert!(
        text.contains("    from: crate::apis::v1alpha1::widget::Widget,\n    user: &C,\n) -> Result<crate::apis::v1::widget::Widget, support::Error> {"),
        "{text}"
    );
    assert!(
        text.contains(
            "fn widget_spec_color_to_hub(&self, from: &crate::apis::v1alpha1::widget::WidgetSpec)"
        ),
        "{text}"
    );
    // No types tree to import; the shared type moves as it is.
    assert!(!text.contains("as spoke;"), "{text}");
    assert!(text.contains("shared: s_shared,"), "{text}");
    assert!(!text.contains("fn shared_to_hub"), "{text}");
    // `Option`, `Vec` and `Box` as the structs declare them.
    assert!(text.contains("size: s_size,"), "{text}");
    assert!(text.contains("support::boxed("), "{text}");
}

#[test]
fn a_kind_gets_one_convert_over_every_version() {
    let model = derived("pub a: String", "pub a: String");
    let files =
        generate_conversions(&model, &ConversionOptions::default().hub("Widget", "v1")).unwrap();
    let text = pair(&files, "example_com/widget/mod.rs");
    assert!(text.contains("pub mod v1alpha1;"), "{text}");
    assert!(
        text.contains(
            "pub const VERSIONS: &[&str] = &[\"example.com/v1\", \"example.com/v1alpha1\"];"
        ),
        "{text}"
    );
    assert!(
        text.contains("C: v1alpha1::ConvertWidgetV1alpha1,"),
        "{text}"
    );
    assert!(
        text.contains(
            "\"example.com/v1alpha1\" => v1alpha1::to_hub(support::decode(object)?, user)?,"
        ),
        "{text}"
    );
    let root = pair(&files, "mod.rs");
    for helper in [
        "fn api_version_of(",
        "fn decode<",
        "fn encode<",
        "fn unknown_version(",
    ] {
        assert!(root.contains(helper), "{helper}: {root}");
    }

    // A CRD kind gets one too, bounded by each spoke's trait.
    let files = generate(&thing(SAME, SAME), &ConversionOptions::default()).unwrap();
    let text = pair(&files, "example_com/thing/mod.rs");
    assert!(
        text.contains("C: v1alpha1::ConvertThingV1alpha1,"),
        "{text}"
    );
}

#[test]
fn a_hand_written_kinds_hub_is_its_storage_version_unless_named() {
    let model = derived("pub a: String", "pub a: String");
    let files = generate_conversions(&model, &ConversionOptions::default()).unwrap();
    assert!(
        files
            .iter()
            .any(|f| f.path == "example_com/widget/v1alpha1.rs")
    );
    let named = ConversionOptions::default().hub("Widget", "v1alpha1");
    let files = generate_conversions(&model, &named).unwrap();
    assert!(files.iter().any(|f| f.path == "example_com/widget/v1.rs"));
}
