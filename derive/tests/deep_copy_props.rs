//! Property: whatever the source and destination hold, `clone_from` makes the destination
//! equal to the source, and a same-shaped destination keeps its top-level buffers when
//! they are large enough.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use kubegen::DeepCopy;
use proptest::prelude::*;

#[derive(DeepCopy, Debug, PartialEq)]
struct Object {
    name: String,
    items: Vec<Item>,
    labels: BTreeMap<String, String>,
    state: State,
    count: Option<u32>,
}

#[derive(DeepCopy, Debug, PartialEq)]
struct Item(String, Vec<u8>);

#[derive(DeepCopy, Debug, PartialEq)]
enum State {
    Pending,
    Running { node: String, pids: Vec<u32> },
    Failed(String),
}

fn state() -> impl Strategy<Value = State> {
    prop_oneof![
        Just(State::Pending),
        (".{0,12}", prop::collection::vec(any::<u32>(), 0..6))
            .prop_map(|(node, pids)| State::Running { node, pids }),
        ".{0,12}".prop_map(State::Failed),
    ]
}

fn object() -> impl Strategy<Value = Object> {
    (
        ".{0,24}",
        prop::collection::vec(
            (".{0,8}", prop::collection::vec(any::<u8>(), 0..8)).prop_map(|(a, b)| Item(a, b)),
            0..5,
        ),
        prop::collection::btree_map(".{0,6}", ".{0,6}", 0..5),
        state(),
        any::<Option<u32>>(),
    )
        .prop_map(|(name, items, labels, state, count)| Object {
            name,
            items,
            labels,
            state,
            count,
        })
}

proptest! {
    #[test]
    fn clone_from_makes_equal(source in object(), mut destination in object()) {
        destination.clone_from(&source);
        prop_assert_eq!(&destination, &source);
        prop_assert_eq!(source.clone(), source);
    }

    #[test]
    fn clone_from_reuses_a_large_enough_name_buffer(source in object(), mut destination in object()) {
        destination.name.reserve(source.name.len());
        let buffer = destination.name.as_ptr();
        destination.clone_from(&source);
        prop_assert_eq!(destination.name.as_ptr(), buffer);
        prop_assert_eq!(&destination, &source);
    }
}
