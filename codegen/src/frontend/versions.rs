//! Which versions of each kind to generate: `--versions storage|served|v1,v1beta1`.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use crate::naming::kubernetes;

/// Which versions of each kind the front-ends add to the model.
///
/// ```
/// use kubegen_codegen::__internal::frontend::Versions;
///
/// assert_eq!("served".parse::<Versions>(), Ok(Versions::Served));
/// assert_eq!("storage".parse::<Versions>(), Ok(Versions::Storage));
/// let named: Versions = "v1,v1beta1".parse().unwrap();
/// assert!(named.selects("v1beta1", false, false));
/// assert!(!named.selects("v2", true, true));
/// assert!(Versions::default().selects("v1", true, false));
/// assert!(!Versions::default().selects("v0", false, false));
/// assert!("v1.2".parse::<Versions>().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Versions {
    /// Every version the API server serves (the default).
    #[default]
    Served,
    /// The storage version of each kind (CRDs, hand-written and built-in kinds say which it
    /// is; OpenAPI documents do not).
    Storage,
    /// These versions, served or not, of every kind that has them.
    Named(BTreeSet<String>),
}

impl Versions {
    /// Whether a version called `name` that is `served` and/or the `storage` version is
    /// selected.
    pub fn selects(&self, name: &str, served: bool, storage: bool) -> bool {
        match self {
            Versions::Served => served,
            Versions::Storage => storage,
            Versions::Named(names) => names.contains(name),
        }
    }
}

impl FromStr for Versions {
    type Err = String;

    /// `served`, `storage`, or a comma-separated list of version names.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "served" => return Ok(Versions::Served),
            "storage" => return Ok(Versions::Storage),
            _ => {}
        }
        let mut names = BTreeSet::new();
        for name in text.split(',').map(str::trim) {
            if let Err(expected) = kubernetes::check_version(name) {
                return Err(format!(
                    "invalid version {name:?} in {text:?}: {expected} (or use `served` or \
`storage`)"
                ));
            }
            names.insert(name.to_owned());
        }
        Ok(Versions::Named(names))
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Versions::Served => f.write_str("served"),
            Versions::Storage => f.write_str("storage"),
            Versions::Named(names) => {
                f.write_str(&names.iter().cloned().collect::<Vec<_>>().join(","))
            }
        }
    }
}
