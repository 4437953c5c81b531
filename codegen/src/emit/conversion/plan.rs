//! Pairing one spoke version of a kind with the hub: which type pairs convert field by
//! field, which fields are carried in the annotation, and which values the user's
//! methods compute. Reads only the model.

use std::collections::{BTreeMap, BTreeSet};

use crate::emit::serde_macro::field_ref;
use crate::model::{StructDef, TypeDef, TypeDefKind, TypeRef, Version};
use crate::naming::{self, Direction, UniqueNames};

/// The annotation segment of a struct's map of undeclared properties. `~` is escaped as
/// `~0` in JSON pointers, so no property name gives this segment.
pub(crate) const ADDITIONAL_KEY: &str = "~additional";

/// One side of a version pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// The spoke version.
    Spoke,
    /// The hub version.
    Hub,
}

impl Side {
    /// The side a conversion in `direction` reads from.
    pub(crate) fn source(direction: Direction) -> Side {
        match direction {
            Direction::ToHub => Side::Spoke,
            Direction::FromHub => Side::Hub,
        }
    }

    /// The side a conversion in `direction` writes.
    pub(crate) fn target(direction: Direction) -> Side {
        match direction {
            Direction::ToHub => Side::Hub,
            Direction::FromHub => Side::Spoke,
        }
    }
}

/// How a value of agreeing types is converted.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Conv {
    /// The same Rust type on both sides: moved.
    Move,
    /// `Option` of a conversion.
    Option(Box<Conv>),
    /// `Vec` of a conversion (the path gets the index).
    Vec(Box<Conv>),
    /// Map values (the path gets the key).
    Map(Box<Conv>),
    /// `Box` of a conversion.
    Boxed(Box<Conv>),
    /// A struct pair: its generated functions, by index in [`Plan::structs`].
    Struct(usize),
    /// A string enum pair with the same values: its generated `match`, by index in
    /// [`Plan::enums`].
    Enum(usize),
    /// A union pair whose alternatives agree: its generated `match`, by index in
    /// [`Plan::unions`].
    Union(usize),
    /// A type pair that does not agree (enums with different values, unions with
    /// different alternatives): the user's methods, by index in [`Plan::methods`] (one per
    /// direction).
    User([usize; 2]),
}

impl Conv {
    fn wrap(inner: Conv, wrap: fn(Box<Conv>) -> Conv) -> Conv {
        if inner == Conv::Move {
            Conv::Move
        } else {
            wrap(Box::new(inner))
        }
    }
}

/// A field (or the map of undeclared properties) of one side of a struct pair.
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    /// The JSON property name (the annotation path segment), or [`ADDITIONAL_KEY`].
    pub(crate) key: String,
    /// The Rust field name.
    pub(crate) rust: String,
    /// The field's whole Rust type.
    pub(crate) ty: TypeRef,
    /// What an absent value is: `None` for an `Option`, an empty map for undeclared
    /// properties; no empty value otherwise.
    pub(crate) empty: Empty,
}

/// The value a [`Slot`] has when there is nothing in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Empty {
    /// `None`.
    None,
    /// An empty map.
    Map,
    /// Required: no empty value.
    Required,
}

/// What becomes of one field in one direction of a struct pair.
#[derive(Clone, Debug)]
pub(crate) enum FieldPlan {
    /// Present on both sides with agreeing types: converted.
    Both {
        /// The spoke's field.
        spoke: Slot,
        /// The hub's field.
        hub: Slot,
        /// How.
        conv: Conv,
    },
    /// Present on both sides, types disagreeing: a user's method per direction computes
    /// the target field from the source struct.
    Retyped {
        /// The spoke's field.
        spoke: Slot,
        /// The hub's field.
        hub: Slot,
        /// The methods, `[to_hub, from_hub]`.
        methods: [usize; 2],
    },
    /// Present on both sides with agreeing types, but optional on one side only
    /// (`Option<A>` and `B`): converted where present; where absent, a user's method gives
    /// the required side's value, and a marker in the annotation makes the way back absent
    /// again.
    HalfOptional {
        /// The spoke's field.
        spoke: Slot,
        /// The hub's field.
        hub: Slot,
        /// How a present value converts.
        conv: Conv,
        /// The side where it is optional.
        optional: Side,
        /// The user's method giving the other side's value when it is absent.
        method: usize,
    },
    /// On one side only, carried in the annotation across a round trip (the other side
    /// has no field it could come from). A required field absent from the annotation is
    /// computed by `fallback`.
    Carried {
        /// The side that has it.
        side: Side,
        /// The field.
        slot: Slot,
        /// The user's method computing a required field the annotation lacks.
        fallback: Option<usize>,
    },
    /// On one side only while the other side also has fields of its own (renamed, split
    /// or merged fields): a user's method computes it from the other side's struct.
    Computed {
        /// The side that has it.
        side: Side,
        /// The field.
        slot: Slot,
        /// The method.
        method: usize,
    },
}

/// A struct pair and how each field converts.
#[derive(Clone, Debug)]
pub(crate) struct StructPair {
    /// The spoke's type.
    pub(crate) spoke: String,
    /// The hub's type.
    pub(crate) hub: String,
    /// The generated functions, `[to_hub, from_hub]`.
    pub(crate) fns: [String; 2],
    /// The fields, spoke order first, then the hub's own fields.
    pub(crate) fields: Vec<FieldPlan>,
}

/// A string enum pair with the same values.
#[derive(Clone, Debug)]
pub(crate) struct EnumPair {
    /// The spoke's type.
    pub(crate) spoke: String,
    /// The hub's type.
    pub(crate) hub: String,
    /// The generated functions, `[to_hub, from_hub]`.
    pub(crate) fns: [String; 2],
    /// Variants, `(spoke, hub)` Rust names paired by wire value, in the spoke's order.
    pub(crate) variants: Vec<(String, String)>,
}

/// A union pair whose alternatives agree one for one.
#[derive(Clone, Debug)]
pub(crate) struct UnionPair {
    /// The spoke's type.
    pub(crate) spoke: String,
    /// The hub's type.
    pub(crate) hub: String,
    /// The generated functions, `[to_hub, from_hub]`.
    pub(crate) fns: [String; 2],
    /// Alternatives, `(spoke, hub, conversion)`.
    pub(crate) variants: Vec<(String, String, Conv)>,
}

/// What a user's method takes.
#[derive(Clone, Debug)]
pub(crate) enum Input {
    /// The whole source struct, by reference (field methods).
    Struct(String),
    /// A value of this type (type pair methods).
    Value(TypeRef),
    /// Nothing (the value of a required field whose optional counterpart is absent).
    Nothing,
}

/// A method of the trait the user implements for the version pair.
#[derive(Clone, Debug)]
pub(crate) struct Method {
    /// Its name.
    pub(crate) name: String,
    /// Which way it converts.
    pub(crate) direction: Direction,
    /// What it takes (of the source side).
    pub(crate) input: Input,
    /// What it returns (of the target side).
    pub(crate) output: TypeRef,
    /// Where it is used, for its doc (`.spec.rules[].matches[]`).
    pub(crate) path: String,
    /// What it computes, for its doc.
    pub(crate) what: String,
}

/// The conversions of one spoke version of a kind with the hub.
#[derive(Debug)]
pub(crate) struct Plan {
    /// Struct pairs; the first is the root.
    pub(crate) structs: Vec<StructPair>,
    /// Enum pairs.
    pub(crate) enums: Vec<EnumPair>,
    /// Union pairs.
    pub(crate) unions: Vec<UnionPair>,
    /// The user's methods.
    pub(crate) methods: Vec<Method>,
}

/// Public names of a pair's file, which generated functions must not take.
pub(crate) const RESERVED: &[&str] = &["to_hub", "from_hub", "round_trip_spoke", "round_trip_hub"];

/// Whether a spoke type and a hub type (by name) are one Rust type, moved as it is.
pub(crate) type SameType<'a> = &'a dyn Fn(&str, &str) -> bool;

/// Builds the plan for the root struct `spoke_root` of `spoke`'s types against `hub_root`
/// of `hub`'s; `same` says which named type pairs are one Rust type.
pub(crate) fn plan(
    (spoke, spoke_root): (&Version, &str),
    (hub, hub_root): (&Version, &str),
    same: SameType<'_>,
) -> Plan {
    let mut fn_names = UniqueNames::snake();
    for name in RESERVED {
        fn_names.reserve(name);
    }
    let mut planner = Planner {
        spoke,
        hub,
        same,
        fn_names,
        method_names: UniqueNames::snake(),
        struct_index: BTreeMap::new(),
        enum_index: BTreeMap::new(),
        union_index: BTreeMap::new(),
        pending_unions: BTreeSet::new(),
        plan: Plan {
            structs: Vec::new(),
            enums: Vec::new(),
            unions: Vec::new(),
            methods: Vec::new(),
        },
    };
    planner.struct_pair(spoke_root, hub_root, "");
    planner.plan
}

struct Planner<'a> {
    spoke: &'a Version,
    hub: &'a Version,
    same: SameType<'a>,
    fn_names: UniqueNames,
    method_names: UniqueNames,
    struct_index: BTreeMap<(String, String), usize>,
    enum_index: BTreeMap<(String, String), Conv>,
    union_index: BTreeMap<(String, String), Conv>,
    pending_unions: BTreeSet<(String, String)>,
    plan: Plan,
}

fn struct_def<'a>(version: &'a Version, name: &str) -> Option<&'a StructDef> {
    match &version.type_named(name)?.kind {
        TypeDefKind::Struct(s) => Some(s),
        _ => None,
    }
}

fn slots(s: &StructDef) -> Vec<Slot> {
    let root = s.root.is_some();
    let mut slots: Vec<Slot> = s
        .fields
        .iter()
        .map(|f| {
            let ty = field_ref(f, root);
            let empty = if matches!(ty, TypeRef::Option(_)) {
                Empty::None
            } else {
                Empty::Required
            };
            Slot {
                key: f.wire_name.clone(),
                rust: f.rust_name.clone(),
                ty,
                empty,
            }
        })
        .collect();
    if let Some(extra) = &s.additional {
        slots.push(Slot {
            key: ADDITIONAL_KEY.to_owned(),
            rust: extra.rust_name.clone(),
            ty: TypeRef::map(extra.value.clone()),
            empty: Empty::Map,
        });
    }
    slots
}

fn field_path(path: &str, key: &str) -> String {
    if key == ADDITIONAL_KEY {
        format!("{path}.*")
    } else {
        format!("{path}.{key}")
    }
}

impl Planner<'_> {
    fn pair_fns(&mut self, spoke: &str) -> [String; 2] {
        Direction::BOTH.map(|d| self.fn_names.claim(naming::conversion_fn(spoke, None, d)))
    }

    fn method(
        &mut self,
        direction: Direction,
        base: (&str, Option<&str>),
        input: Input,
        output: TypeRef,
        path: &str,
        what: String,
    ) -> usize {
        let name = self
            .method_names
            .claim(naming::conversion_fn(base.0, base.1, direction));
        self.plan.methods.push(Method {
            name,
            direction,
            input,
            output,
            path: if path.is_empty() {
                ".".to_owned()
            } else {
                path.to_owned()
            },
            what,
        });
        self.plan.methods.len() - 1
    }

    /// The index of the struct pair `(spoke, hub)`, planned on first sight.
    fn struct_pair(&mut self, spoke: &str, hub: &str, path: &str) -> usize {
        let key = (spoke.to_owned(), hub.to_owned());
        if let Some(index) = self.struct_index.get(&key) {
            return *index;
        }
        let index = self.plan.structs.len();
        self.struct_index.insert(key, index);
        let fns = self.pair_fns(spoke);
        self.plan.structs.push(StructPair {
            spoke: spoke.to_owned(),
            hub: hub.to_owned(),
            fns,
            fields: Vec::new(),
        });
        let (Some(s), Some(h)) = (struct_def(self.spoke, spoke), struct_def(self.hub, hub)) else {
            return index;
        };
        let (spoke_slots, hub_slots) = (slots(s), slots(h));
        let spoke_keys: BTreeSet<&str> = spoke_slots.iter().map(|s| s.key.as_str()).collect();
        let hub_keys: BTreeSet<&str> = hub_slots.iter().map(|s| s.key.as_str()).collect();
        // Fields on both sides' own: renamed, split or merged, which only the user knows.
        let computed = spoke_keys.difference(&hub_keys).next().is_some()
            && hub_keys.difference(&spoke_keys).next().is_some();
        let mut fields = Vec::new();
        for slot in &spoke_slots {
            let at = field_path(path, &slot.key);
            match hub_slots.iter().find(|h| h.key == slot.key) {
                Some(other) => {
                    let agreeing = self.conv(&slot.ty, &other.ty, &at);
                    let half = match agreeing {
                        Some(_) => None,
                        None => self.half_optional(slot, other, &at),
                    };
                    if let Some(conv) = agreeing {
                        fields.push(FieldPlan::Both {
                            spoke: slot.clone(),
                            hub: other.clone(),
                            conv,
                        });
                    } else if let Some((conv, optional)) = half {
                        let (direction, required, what) = match optional {
                            Side::Spoke => (
                                Direction::ToHub,
                                other,
                                format!(
                                    "`{}` of the hub's `{hub}` when the spoke has none",
                                    other.rust
                                ),
                            ),
                            Side::Hub => (
                                Direction::FromHub,
                                slot,
                                format!(
                                    "`{}` of the spoke's `{spoke}` when the hub has none",
                                    slot.rust
                                ),
                            ),
                        };
                        let method = self.method(
                            direction,
                            (spoke, Some(&required.rust)),
                            Input::Nothing,
                            required.ty.clone(),
                            &at,
                            what,
                        );
                        fields.push(FieldPlan::HalfOptional {
                            spoke: slot.clone(),
                            hub: other.clone(),
                            conv,
                            optional,
                            method,
                        });
                    } else {
                        let methods = [
                            self.method(
                                Direction::ToHub,
                                (spoke, Some(&other.rust)),
                                Input::Struct(spoke.to_owned()),
                                other.ty.clone(),
                                &at,
                                format!("`{}` of the hub's `{hub}`", other.rust),
                            ),
                            self.method(
                                Direction::FromHub,
                                (spoke, Some(&slot.rust)),
                                Input::Struct(hub.to_owned()),
                                slot.ty.clone(),
                                &at,
                                format!("`{}` of the spoke's `{spoke}`", slot.rust),
                            ),
                        ];
                        fields.push(FieldPlan::Retyped {
                            spoke: slot.clone(),
                            hub: other.clone(),
                            methods,
                        });
                    }
                }
                None => fields.push(self.one_sided(Side::Spoke, slot, (spoke, hub), computed, &at)),
            }
        }
        for slot in hub_slots
            .iter()
            .filter(|h| !spoke_keys.contains(h.key.as_str()))
        {
            let at = field_path(path, &slot.key);
            fields.push(self.one_sided(Side::Hub, slot, (spoke, hub), computed, &at));
        }
        self.plan.structs[index].fields = fields;
        index
    }

    /// A field only `side` has: computed by the user from the other side's struct, or
    /// carried (with a fallback method for a required one).
    fn one_sided(
        &mut self,
        side: Side,
        slot: &Slot,
        (spoke, hub): (&str, &str),
        computed: bool,
        at: &str,
    ) -> FieldPlan {
        // Converting into `side`, the field is computed from the other side's struct.
        let (direction, from, what) = match side {
            Side::Spoke => (
                Direction::FromHub,
                hub,
                format!("`{}` of the spoke's `{spoke}`", slot.rust),
            ),
            Side::Hub => (
                Direction::ToHub,
                spoke,
                format!("`{}` of the hub's `{hub}`", slot.rust),
            ),
        };
        let input = Input::Struct(from.to_owned());
        if computed {
            let method = self.method(
                direction,
                (spoke, Some(&slot.rust)),
                input,
                slot.ty.clone(),
                at,
                what,
            );
            FieldPlan::Computed {
                side,
                slot: slot.clone(),
                method,
            }
        } else {
            let fallback = (slot.empty == Empty::Required).then(|| {
                let what = format!("{what} when the annotation does not hold it");
                self.method(
                    direction,
                    (spoke, Some(&slot.rust)),
                    input,
                    slot.ty.clone(),
                    at,
                    what,
                )
            });
            FieldPlan::Carried {
                side,
                slot: slot.clone(),
                fallback,
            }
        }
    }

    /// `(conversion, optional side)` when one field's type is `Option` of one that agrees
    /// with the other's.
    fn half_optional(&mut self, spoke: &Slot, hub: &Slot, at: &str) -> Option<(Conv, Side)> {
        match (&spoke.ty, &hub.ty) {
            (TypeRef::Option(a), b) if !matches!(b, TypeRef::Option(_)) => {
                Some((self.conv(a, b, at)?, Side::Spoke))
            }
            (a, TypeRef::Option(b)) if !matches!(a, TypeRef::Option(_)) => {
                Some((self.conv(a, b, at)?, Side::Hub))
            }
            _ => None,
        }
    }

    /// How a spoke value of type `s` becomes a hub value of type `h`, if they agree.
    fn conv(&mut self, s: &TypeRef, h: &TypeRef, path: &str) -> Option<Conv> {
        Some(match (s, h) {
            (TypeRef::Named(a), TypeRef::Named(b)) => return self.named(a, b, path),
            (TypeRef::Option(a), TypeRef::Option(b)) => {
                Conv::wrap(self.conv(a, b, path)?, Conv::Option)
            }
            (TypeRef::Vec(a), TypeRef::Vec(b)) => {
                Conv::wrap(self.conv(a, b, &format!("{path}[]"))?, Conv::Vec)
            }
            (TypeRef::Map(a), TypeRef::Map(b)) => {
                Conv::wrap(self.conv(a, b, &format!("{path}{{}}"))?, Conv::Map)
            }
            (TypeRef::Boxed(a), TypeRef::Boxed(b)) => {
                Conv::wrap(self.conv(a, b, path)?, Conv::Boxed)
            }
            (TypeRef::External(a), TypeRef::External(b)) if a.path == b.path => Conv::Move,
            (
                TypeRef::String
                | TypeRef::Bool
                | TypeRef::I32
                | TypeRef::I64
                | TypeRef::F64
                | TypeRef::Bytes
                | TypeRef::DateTime
                | TypeRef::Quantity
                | TypeRef::IntOrString
                | TypeRef::Json,
                _,
            ) if s == h => Conv::Move,
            _ => return None,
        })
    }

    fn named(&mut self, spoke: &str, hub: &str, path: &str) -> Option<Conv> {
        if (self.same)(spoke, hub) {
            return Some(Conv::Move);
        }
        let (s, h): (&TypeDef, &TypeDef) =
            (self.spoke.type_named(spoke)?, self.hub.type_named(hub)?);
        match (&s.kind, &h.kind) {
            (TypeDefKind::Struct(_), TypeDefKind::Struct(_)) => {
                Some(Conv::Struct(self.struct_pair(spoke, hub, path)))
            }
            (TypeDefKind::Enum(a), TypeDefKind::Enum(b)) => {
                let key = (spoke.to_owned(), hub.to_owned());
                if let Some(conv) = self.enum_index.get(&key) {
                    return Some(conv.clone());
                }
                let wires = |e: &crate::model::EnumDef| -> BTreeSet<String> {
                    e.variants.iter().map(|v| v.wire.clone()).collect()
                };
                if wires(a) != wires(b) || a.variants.is_empty() {
                    let conv = self.pair_methods(spoke, hub, path);
                    self.enum_index.insert(key, conv.clone());
                    return Some(conv);
                }
                let variants = a
                    .variants
                    .iter()
                    .filter_map(|v| {
                        let other = b.variants.iter().find(|o| o.wire == v.wire)?;
                        Some((v.rust_name.clone(), other.rust_name.clone()))
                    })
                    .collect();
                let fns = self.pair_fns(spoke);
                self.plan.enums.push(EnumPair {
                    spoke: spoke.to_owned(),
                    hub: hub.to_owned(),
                    fns,
                    variants,
                });
                let conv = Conv::Enum(self.plan.enums.len() - 1);
                self.enum_index.insert(key, conv.clone());
                Some(conv)
            }
            (TypeDefKind::Union(a), TypeDefKind::Union(b)) => {
                let key = (spoke.to_owned(), hub.to_owned());
                if let Some(conv) = self.union_index.get(&key) {
                    return Some(conv.clone());
                }
                // A union reaching itself through its alternatives: leave it to the user.
                if !self.pending_unions.insert(key.clone()) || a.variants.len() != b.variants.len()
                {
                    return Some(self.pair_methods(spoke, hub, path));
                }
                let mut variants = Vec::new();
                for (x, y) in a.variants.iter().zip(&b.variants) {
                    match self.conv(&x.ty, &y.ty, path) {
                        Some(conv) => {
                            variants.push((x.rust_name.clone(), y.rust_name.clone(), conv))
                        }
                        None => {
                            let conv = self.pair_methods(spoke, hub, path);
                            self.union_index.insert(key, conv.clone());
                            return Some(conv);
                        }
                    }
                }
                let fns = self.pair_fns(spoke);
                self.plan.unions.push(UnionPair {
                    spoke: spoke.to_owned(),
                    hub: hub.to_owned(),
                    fns,
                    variants,
                });
                let conv = Conv::Union(self.plan.unions.len() - 1);
                self.union_index.insert(key, conv.clone());
                Some(conv)
            }
            _ => None,
        }
    }

    /// The user's methods converting a value of the type pair `(spoke, hub)` both ways.
    fn pair_methods(&mut self, spoke: &str, hub: &str, path: &str) -> Conv {
        let to_hub = self.method(
            Direction::ToHub,
            (spoke, None),
            Input::Value(TypeRef::Named(spoke.to_owned())),
            TypeRef::Named(hub.to_owned()),
            path,
            format!("the hub's `{hub}` from the spoke's `{spoke}`"),
        );
        let from_hub = self.method(
            Direction::FromHub,
            (spoke, None),
            Input::Value(TypeRef::Named(hub.to_owned())),
            TypeRef::Named(spoke.to_owned()),
            path,
            format!("the spoke's `{spoke}` from the hub's `{hub}`"),
        );
        Conv::User([to_hub, from_hub])
    }
}
