//! The template files, with the paths they are written to (paths hold placeholders too).

/// (path in the crate, template, executable): every file of a new crate.
pub(super) const CRATE: &[(&str, &str, bool)] = &[
    ("Cargo.toml", include_str!("Cargo.toml.tmpl"), false),
    (".gitignore", include_str!("gitignore.tmpl"), false),
    ("README.md", include_str!("README.md.tmpl"), false),
    ("Dockerfile", include_str!("Dockerfile.tmpl"), false),
    (
        "hack/update-codegen.sh",
        include_str!("update-codegen.sh.tmpl"),
        true,
    ),
    (
        "hack/verify-codegen.sh",
        include_str!("verify-codegen.sh.tmpl"),
        true,
    ),
    ("hack/codegen.sh", include_str!("codegen.sh.tmpl"), false),
    ("src/main.rs", include_str!("main.rs.tmpl"), false),
    ("src/lib.rs", include_str!("lib.rs.tmpl"), false),
    (
        "src/controller.rs",
        include_str!("controller.rs.tmpl"),
        false,
    ),
    ("src/apis/mod.rs", APIS_MOD, false),
    (GROUP_MOD_PATH, GROUP_MOD, false),
    (VERSION_PATH, TYPES, false),
    ("tests/controller.rs", include_str!("test.rs.tmpl"), false),
    ("tests/crd.rs", include_str!("crd_test.rs.tmpl"), false),
    (
        "config/rbac/service_account.yaml",
        include_str!("service_account.yaml.tmpl"),
        false,
    ),
    (
        "config/rbac/role.yaml",
        include_str!("role.yaml.tmpl"),
        false,
    ),
    (
        "config/rbac/role_binding.yaml",
        include_str!("role_binding.yaml.tmpl"),
        false,
    ),
    (
        "config/manager/deployment.yaml",
        include_str!("deployment.yaml.tmpl"),
        false,
    ),
    (SAMPLE_PATH, SAMPLE, false),
];

/// `src/apis/mod.rs`: the group modules.
pub(super) const APIS_MOD: &str = include_str!("apis_mod.rs.tmpl");
/// A group's module, declaring its versions.
pub(super) const GROUP_MOD: &str = include_str!("group_mod.rs.tmpl");
/// Where a group's module goes.
pub(super) const GROUP_MOD_PATH: &str = "src/apis/{{group_dir}}/mod.rs";
/// A kind's types.
pub(super) const TYPES: &str = include_str!("types.rs.tmpl");
/// Where a version's module goes (the first kind's types).
pub(super) const VERSION_PATH: &str = "src/apis/{{group_dir}}/{{version_module}}.rs";
/// Where a further kind of an existing version goes (a submodule of the version).
pub(super) const KIND_PATH: &str = "src/apis/{{group_dir}}/{{version_module}}/{{kind_module}}.rs";
/// A sample object of a kind.
pub(super) const SAMPLE: &str = include_str!("sample.yaml.tmpl");
/// Where the sample goes.
pub(super) const SAMPLE_PATH: &str =
    "config/samples/{{group_dir}}_{{version}}_{{kind_module}}.yaml";
