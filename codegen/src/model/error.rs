//! Why a model is not valid.

use super::Location;

/// Why a model is not valid: a name Kubernetes rejects ([`Error::InvalidName`], at the
/// place it was written), or a broken invariant that front-ends which build models
/// correctly never produce (the other variants guard emitters against such a bug).
/// Validation reports every problem it finds: several are one [`Error::Many`].
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Error {
    /// A group, version, kind, plural, singular, list kind, short name or category that
    /// the API server would reject.
    #[error("{}invalid {what} {name:?}: {expected}", prefix(.at.as_deref(), .context))]
    InvalidName {
        /// Where the name was written, when known.
        at: Option<Box<Location>>,
        /// The group/version it belongs to (`example.com/v1`).
        context: String,
        /// What is named (`version`, `kind`, `plural`...).
        what: &'static str,
        /// The name.
        name: String,
        /// What was expected instead.
        expected: String,
    },
    /// Two types of one version share a Rust name.
    #[error("failed to validate {group}/{version}: type name `{name}` is defined twice")]
    DuplicateType {
        /// API group.
        group: String,
        /// API version.
        version: String,
        /// The duplicated type name.
        name: String,
    },
    /// A field or union variant refers to a type the version does not define.
    #[error("failed to validate {group}/{version}: `{from}` refers to undefined type `{name}`")]
    UnknownType {
        /// API group.
        group: String,
        /// API version.
        version: String,
        /// The referring type.
        from: String,
        /// The missing type.
        name: String,
    },
    /// A generated name is not a valid Rust identifier or is used twice in one scope.
    #[error("failed to validate {at}: {what} `{name}` in `{scope}` is {problem}")]
    BadName {
        /// `group/version`.
        at: String,
        /// The scope (type name, or the version).
        scope: String,
        /// What is named (field, variant, type, module).
        what: &'static str,
        /// The name.
        name: String,
        /// `not a valid identifier` or `used twice`.
        problem: &'static str,
    },
    /// A kind's root type is missing, is not a root struct, lacks `metadata: ObjectMeta`,
    /// or has a path that is not a Rust path.
    #[error(
        "failed to validate {group}/{version}: kind `{kind}` has no root struct `{root}` \
with a required `metadata: ObjectMeta` field"
    )]
    MissingRoot {
        /// API group.
        group: String,
        /// API version.
        version: String,
        /// The kind.
        kind: String,
        /// The expected root type name.
        root: String,
    },
    /// A kind's client verbs contradict each other or the kind: no verb at all, or the
    /// status verbs left out of a kind without `/status`.
    #[error("{}kind `{kind}`: {problem}", prefix(.at.as_deref(), .context))]
    ClientVerbs {
        /// Where the kind was written, when known.
        at: Option<Box<Location>>,
        /// The group/version it belongs to (`example.com/v1`).
        context: String,
        /// The kind.
        kind: String,
        /// What is contradictory.
        problem: &'static str,
    },
    /// Two groups map to the same Rust module.
    #[error(
        "failed to validate the model: groups `{first}` and `{second}` both map to module `{module}`"
    )]
    GroupModuleClash {
        /// First group.
        first: String,
        /// Second group.
        second: String,
        /// The shared module name.
        module: String,
    },
    /// More than one of the above, in the order validation found them (see
    /// [`Model::validate`](super::Model::validate)); the message has one a line.
    #[error("{}", lines(.0))]
    Many(Vec<Error>),
}

impl Error {
    /// Each problem on its own: the errors of [`Error::Many`], else this one.
    ///
    /// ```
    /// use kubegen_codegen::__internal::model::Model;
    ///
    /// let mut model = Model::default();
    /// model.version_mut("example.com", "V1");
    /// model.version_mut("example.com", "v1.2");
    /// let error = model.validate().unwrap_err();
    /// assert_eq!(error.errors().len(), 2);
    /// assert_eq!(error.to_string().lines().count(), 2);
    /// ```
    pub fn errors(&self) -> &[Error] {
        match self {
            Error::Many(errors) => errors,
            one => std::slice::from_ref(one),
        }
    }
}

/// Result of model validation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// `file:line:column: ` when the location is known, else what was being validated.
fn prefix(at: Option<&Location>, context: &str) -> String {
    match at {
        Some(at) => format!("{at}: "),
        None => format!("failed to validate {context}: "),
    }
}

/// The lines of [`Error::Many`].
fn lines(errors: &[Error]) -> String {
    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
    lines.join("\n")
}

/// Collects problems while validation goes on past them, as serde_derive's `Ctxt` does, so
/// one run reports them all.
#[derive(Debug, Default)]
pub(super) struct Errors {
    errors: Vec<Error>,
}

impl Errors {
    /// Records a problem (each of several).
    pub(super) fn push(&mut self, error: Error) {
        match error {
            Error::Many(errors) => self.errors.extend(errors),
            one => self.errors.push(one),
        }
    }

    /// Records `other`'s problems after these.
    pub(super) fn append(&mut self, other: Errors) {
        self.errors.extend(other.errors);
    }

    /// `Ok` when nothing was recorded, else the one problem or [`Error::Many`].
    pub(super) fn finish(mut self) -> Result<()> {
        match self.errors.len() {
            0 => Ok(()),
            1 => Err(self.errors.remove(0)),
            _ => Err(Error::Many(self.errors)),
        }
    }
}
