//! The template files, with the paths they are written to (paths hold placeholders too).

/// (path in the crate, template, executable): every file of a new crate.
pub(super) const CRATE: &[(&str, &str, bool)] = &[
    (
        "Cargo.toml",
        include_str!("templates/Cargo.toml.tmpl"),
        false,
    ),
    (
        ".gitignore",
        include_str!("templates/gitignore.tmpl"),
        false,
    ),
    ("README.md", include_str!("templates/README.md.tmpl"), false),
    (
        "Dockerfile",
        include_str!("templates/Dockerfile.tmpl"),
        false,
    ),
    (
        "hack/update-codegen.sh",
        include_str!("templates/update-codegen.sh.tmpl"),
        true,
    ),
    (
        "hack/verify-codegen.sh",
        include_str!("templates/verify-codegen.sh.tmpl"),
        true,
    ),
    (
        "hack/codegen.sh",
        include_str!("templates/codegen.sh.tmpl"),
        false,
    ),
    ("src/main.rs", include_str!("templates/main.rs.tmpl"), false),
    ("src/lib.rs", include_str!("templates/lib.rs.tmpl"), false),
    (
        "src/controller.rs",
        include_str!("templates/controller.rs.tmpl"),
        false,
    ),
    ("src/apis/mod.rs", APIS_MOD, false),
    (GROUP_MOD_PATH, GROUP_MOD, false),
    (VERSION_PATH, TYPES, false),
    (
        "tests/controller.rs",
        include_str!("templates/test.rs.tmpl"),
        false,
    ),
    (
        "tests/crd.rs",
        include_str!("templates/crd_test.rs.tmpl"),
        false,
    ),
    (
        "config/rbac/service_account.yaml",
        include_str!("templates/service_account.yaml.tmpl"),
        false,
    ),
    (
        "config/rbac/role.yaml",
        include_str!("templates/role.yaml.tmpl"),
        false,
    ),
    (
        "config/rbac/role_binding.yaml",
        include_str!("templates/role_binding.yaml.tmpl"),
        false,
    ),
    (
        "config/manager/deployment.yaml",
        include_str!("templates/deployment.yaml.tmpl"),
        false,
    ),
    (SAMPLE_PATH, SAMPLE, false),
];

/// `src/apis/mod.rs`: the group modules.
pub(super) const APIS_MOD: &str = include_str!("templates/apis_mod.rs.tmpl");
/// A group's module, declaring its versions.
pub(super) const GROUP_MOD: &str = include_str!("templates/group_mod.rs.tmpl");
/// Where a group's module goes.
pub(super) const GROUP_MOD_PATH: &str = "src/apis/{{group_dir}}/mod.rs";
/// A kind's types.
pub(super) const TYPES: &str = include_str!("templates/types.rs.tmpl");
/// Where a version's module goes (the first kind's types).
pub(super) const VERSION_PATH: &str = "src/apis/{{group_dir}}/{{version_module}}.rs";
/// Where a further kind of an existing version goes (a submodule of the version).
pub(super) const KIND_PATH: &str = "src/apis/{{group_dir}}/{{version_module}}/{{kind_module}}.rs";
/// A sample object of a kind.
pub(super) const SAMPLE: &str = include_str!("templates/sample.yaml.tmpl");
/// Where the sample goes.
pub(super) const SAMPLE_PATH: &str =
    "config/samples/{{group_dir}}_{{version}}_{{kind_module}}.yaml";
