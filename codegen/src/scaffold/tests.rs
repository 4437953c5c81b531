use super::*;

fn backup(namespaced: bool) -> Scaffold {
    Scaffold {
        crate_name: "backup-operator".into(),
        group: "ops.example.com".into(),
        version: "v1".into(),
        kind: "Backup".into(),
        namespaced,
        source: Source::Registry,
    }
}

fn file<'a>(files: &'a [File], path: &str) -> &'a File {
    files
        .iter()
        .find(|f| f.path == Path::new(path))
        .unwrap_or_else(|| panic!("no {path} in the scaffold"))
}

#[test]
fn every_placeholder_is_known_and_every_path_is_named() {
    for namespaced in [true, false] {
        let files = backup(namespaced).render().expect("renders");
        assert_eq!(files.len(), TEMPLATES.len());
        for f in &files {
            assert!(
                !f.contents.contains("{{"),
                "{}: a placeholder is left",
                f.path.display()
            );
            assert!(!f.path.to_string_lossy().contains('{'));
        }
        file(&files, "src/apis/ops/v1.rs");
        file(&files, "config/samples/ops_v1_backup.yaml");
    }
}

#[test]
fn scope_shapes_the_types_the_clients_and_the_sample() {
    let namespaced = backup(true).render().expect("renders");
    let cluster = backup(false).render().expect("renders");
    assert!(
        file(&namespaced, "src/apis/ops/v1.rs")
            .contents
            .contains("    namespaced, status,")
    );
    assert!(
        file(&cluster, "src/apis/ops/v1.rs")
            .contents
            .contains("    status,")
    );
    assert!(
        file(&namespaced, "src/controller.rs")
            .contents
            .contains(".backups(key.namespace().unwrap_or_default())")
    );
    assert!(
        file(&cluster, "src/controller.rs")
            .contents
            .contains(".backups()")
    );
    assert!(
        file(&namespaced, "config/samples/ops_v1_backup.yaml")
            .contents
            .contains("  namespace: default\n")
    );
    assert!(
        !file(&cluster, "config/samples/ops_v1_backup.yaml")
            .contents
            .contains("namespace")
    );
}

#[test]
fn dependencies_name_this_version_and_a_checkout_when_given() {
    let files = backup(true).render().expect("renders");
    let manifest = &file(&files, "Cargo.toml").contents;
    assert!(manifest.contains(&format!(
        "kubegen-rs = {{ version = \"{VERSION}\", features = [\"cli\"] }}"
    )));
    let mut local = backup(true);
    local.source = Source::Checkout(PathBuf::from("/src/kube \"gen\""));
    let files = local.render().expect("renders");
    let manifest = &file(&files, "Cargo.toml").contents;
    assert!(
        manifest.contains(r#"path = "/src/kube \"gen\"""#),
        "{manifest}"
    );
    assert!(
        manifest.contains(r#"path = "/src/kube \"gen\"/runtime/testkit""#),
        "{manifest}"
    );
}

#[test]
fn scripts_are_executable_and_check_the_generator_version() {
    let files = backup(true).render().expect("renders");
    assert!(file(&files, "hack/update-codegen.sh").executable);
    assert!(file(&files, "hack/verify-codegen.sh").executable);
    assert!(
        file(&files, "hack/codegen.sh")
            .contents
            .contains("check_generator()")
    );
}

#[test]
fn names_kubernetes_or_cargo_would_refuse_are_errors() {
    let refused = |edit: fn(&mut Scaffold)| {
        let mut scaffold = backup(true);
        edit(&mut scaffold);
        scaffold.render().expect_err("refused").to_string()
    };
    assert!(refused(|s| s.crate_name = "1op".into()).starts_with("invalid crate name `1op`"));
    assert!(refused(|s| s.group = "ops".into()).starts_with("invalid group `ops`"));
    assert!(refused(|s| s.version = "1".into()).starts_with("invalid version `1`"));
    assert!(refused(|s| s.kind = "backup".into()).starts_with("invalid kind `backup`"));
    assert!(refused(|s| s.kind = "Self".into()).starts_with("invalid kind `Self`"));
}

#[test]
fn an_unknown_placeholder_is_an_error_not_a_panic() {
    let error = substitute("t", "a {{nope}} b", &[]).expect_err("unknown");
    assert_eq!(
        error.to_string(),
        "template t names the unknown placeholder `{{nope}}`"
    );
    assert_eq!(
        substitute("t", "{{x}}-{{x}} {{", &[("x", "1".into())]).expect("known"),
        "1-1 {{"
    );
}
