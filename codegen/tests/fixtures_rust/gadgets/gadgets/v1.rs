//! `gadgets.example.com/v1`: nested types of a hand-written kind, as the apply
//! configuration emitter mirrors them (or keeps them whole).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use kubegen::Resource;
use serde::{Deserialize, Serialize};

use super::common::{Owner, Owner as GadgetOwner};

/// A gadget.
#[derive(Resource)]
#[resource(group = "gadgets.example.com", version = "v1", status)]
pub struct Gadget {
    pub metadata: ObjectMeta,
    pub spec: GadgetSpec,
    pub status: Option<GadgetStatus>,
}

/// What a gadget wants.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GadgetSpec {
    /// Renamed by `rename_all`.
    pub display_name: String,
    /// Renamed by `rename`.
    #[serde(rename = "x-size")]
    pub size: Option<u32>,
    /// Not sent.
    #[serde(skip)]
    pub cache: String,
    /// Read but never written: not sent either.
    #[serde(skip_serializing)]
    pub seen: bool,
    /// A list of mirrored structs.
    pub parts: Vec<Part>,
    /// A map of mirrored structs.
    pub slots: BTreeMap<String, Part>,
    /// An enum: the user's own type.
    pub mode: Option<Mode>,
    /// A struct with `flatten`: kept whole.
    pub extra: Option<Flattened>,
    /// Imported from the sources' other file: mirrored, with its own `rename_all`.
    pub owner: Option<Owner>,
    /// Imported under another name: kept whole (types are read by their own name).
    pub co_owner: Option<GadgetOwner>,
    /// A recursive struct: kept whole where it recurses.
    pub tree: Option<Node>,
    /// A type the sources do not define, not imported: kept whole, named next to the kind.
    pub unknown: Option<Mystery>,
}

/// A part.
#[derive(Serialize, Deserialize)]
pub struct Part {
    pub name: String,
    pub r#type: Option<String>,
}

/// A mode.
#[derive(Serialize, Deserialize)]
pub enum Mode {
    Fast,
    Slow,
}

/// Flattened.
#[derive(Serialize, Deserialize)]
pub struct Flattened {
    #[serde(flatten)]
    pub rest: BTreeMap<String, String>,
}

/// A node of a tree.
#[derive(Serialize, Deserialize)]
pub struct Node {
    pub value: i64,
    pub children: Vec<Node>,
}

/// What a gadget has.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GadgetStatus {
    /// From k8s-openapi through the file's `use`: kept whole.
    pub conditions: Vec<Condition>,
    /// A generic type: its whole struct is kept.
    pub history: Option<GadgetHistory>,
}

/// Not read: a field type is generic.
#[derive(Serialize, Deserialize)]
pub struct GadgetHistory {
    pub entries: std::collections::VecDeque<String>,
}
