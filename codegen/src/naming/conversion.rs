//! Names in generated conversions: the trait a user implements per version pair, the
//! functions converting one type pair, and the user's methods.

use super::{api::capitalized, field_name};

/// Which way a conversion goes between a spoke version and the hub.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// Spoke -> hub.
    ToHub,
    /// Hub -> spoke.
    FromHub,
}

impl Direction {
    /// Both directions, `ToHub` first.
    pub const BOTH: [Direction; 2] = [Direction::ToHub, Direction::FromHub];

    /// The suffix of functions going this way (`to_hub`, `from_hub`).
    pub fn suffix(self) -> &'static str {
        match self {
            Direction::ToHub => "to_hub",
            Direction::FromHub => "from_hub",
        }
    }
}

/// The trait a user implements for the conversions of a kind at spoke `version` (one per
/// version pair): `Convert` + the kind's root type name (an identifier already) +
/// capitalised version.
///
/// ```
/// use kubegen_codegen::__internal::naming::conversion_trait;
/// assert_eq!(conversion_trait("HttpRoute", "v1beta1"), "ConvertHttpRouteV1beta1");
/// assert_eq!(conversion_trait("Cluster", "v1-alpha2"), "ConvertClusterV1Alpha2");
/// ```
pub fn conversion_trait(root_type: &str, version: &str) -> String {
    let version: String = version
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(capitalized)
        .collect();
    format!("Convert{root_type}{version}")
}

/// The function converting the type `type_name` (and, for a user's method, its field
/// `field`, a Rust field name) in `direction`, before clash resolution:
/// `http_route_spec_to_hub`, `http_route_spec_hostnames_from_hub`.
///
/// ```
/// use kubegen_codegen::__internal::naming::{conversion_fn, Direction};
/// assert_eq!(conversion_fn("HTTPRouteSpec", None, Direction::ToHub), "http_route_spec_to_hub");
/// assert_eq!(conversion_fn("FooSpec", Some("type_"), Direction::FromHub), "foo_spec_type_from_hub");
/// ```
pub fn conversion_fn(type_name: &str, field: Option<&str>, direction: Direction) -> String {
    let base = field_name(type_name);
    let base = base.trim_end_matches('_');
    match field {
        Some(field) => format!(
            "{base}_{}_{}",
            field.trim_start_matches("r#").trim_end_matches('_'),
            direction.suffix()
        ),
        None => format!("{base}_{}", direction.suffix()),
    }
}
