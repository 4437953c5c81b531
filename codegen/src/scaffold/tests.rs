use super::*;

fn kind(group: &str, version: &str, kind: &str) -> Kind {
    Kind {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
        namespaced: true,
    }
}

fn backup(namespaced: bool) -> Scaffold {
    Scaffold {
        crate_name: "backup-operator".into(),
        kind: Kind {
            namespaced,
            ..kind("ops.example.com", "v1", "Backup")
        },
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
        assert_eq!(files.len(), templates::CRATE.len());
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
        "kubegen-rs = {{ version = \"{VERSION}\", features = [\"cli\", \"metrics\"] }}"
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
fn the_install_hint_names_the_checkout_the_crate_depends_on() {
    let files = backup(true).render().expect("renders");
    let script = &file(&files, "hack/codegen.sh").contents;
    assert!(
        script.contains(&format!(
            "install_generator='cargo install --locked kubegen-codegen --version {VERSION}'"
        )),
        "{script}"
    );
    let mut local = backup(true);
    local.source = Source::Checkout(PathBuf::from("/src/it's kubegen"));
    let files = local.render().expect("renders");
    let script = &file(&files, "hack/codegen.sh").contents;
    // One shell word, the quote in the path escaped as the shell needs.
    assert!(
        script.contains(
            r#"install_generator='cargo install --locked --path /src/it'\''s kubegen/codegen'"#
        ),
        "{script}"
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
    assert!(refused(|s| s.kind.group = "ops".into()).starts_with("invalid group `ops`"));
    assert!(refused(|s| s.kind.version = "1".into()).starts_with("invalid version `1`"));
    assert!(refused(|s| s.kind.kind = "backup".into()).starts_with("invalid kind `backup`"));
    assert!(refused(|s| s.kind.kind = "Self".into()).starts_with("invalid kind `Self`"));
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

/// A crate as `new` writes it (the files `add` reads), in a scratch directory.
fn crate_dir(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!(
        "kubegen-scaffold-unit-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&root);
    for file in backup(true).render().expect("renders") {
        let path = root.join(&file.path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, file.contents).expect("write");
    }
    root
}

fn paths(edits: &[Edit]) -> Vec<String> {
    edits
        .iter()
        .map(|edit| match edit {
            Edit::Create(file) => format!("create {}", file.path.display()),
            Edit::Append { path, text } => format!("append {}: {}", path.display(), text.trim()),
        })
        .collect()
}

#[test]
fn add_a_kind_in_a_new_group_declares_the_group_and_the_version() {
    let root = crate_dir("new-group");
    let edits = kind("storage.example.com", "v1alpha1", "Volume")
        .add_to(&root)
        .expect("plans");
    assert_eq!(
        paths(&edits),
        [
            "create src/apis/storage/v1alpha1.rs",
            "create src/apis/storage/mod.rs",
            "append src/apis/mod.rs: pub mod storage;",
            "create config/samples/storage_v1alpha1_volume.yaml",
        ]
    );
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn add_a_version_to_a_group_declares_it_in_the_group() {
    let root = crate_dir("new-version");
    let edits = kind("ops.example.com", "v2", "Restore")
        .add_to(&root)
        .expect("plans");
    assert_eq!(
        paths(&edits),
        [
            "create src/apis/ops/v2.rs",
            "append src/apis/ops/mod.rs: pub mod v2;",
            "create config/samples/ops_v2_restore.yaml",
        ]
    );
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn add_a_kind_to_an_existing_version_as_its_submodule() {
    let root = crate_dir("same-version");
    let edits = kind("ops.example.com", "v1", "Restore")
        .add_to(&root)
        .expect("plans");
    assert_eq!(
        paths(&edits),
        [
            "create src/apis/ops/v1/restore.rs",
            "append src/apis/ops/v1.rs: /// The `Restore` kind.\npub mod restore;",
            "create config/samples/ops_v1_restore.yaml",
        ]
    );
    let error = kind("ops.example.com", "v1", "Backup")
        .add_to(&root)
        .expect_err("exists");
    assert_eq!(
        error.to_string(),
        "src/apis/ops/v1.rs: already defines `Backup`"
    );
    let error = kind("ops.example.com", "v1", "Backup")
        .add_to(&root.join("src"))
        .expect_err("not a crate");
    assert!(error.to_string().ends_with(
        "no src/apis/mod.rs here; run `cargo kubegen add` in a crate made by `cargo kubegen new`"
    ));
    let _ = std::fs::remove_dir_all(root);
}
