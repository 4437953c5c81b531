//! `#[derive(DeepCopy)]`: equality after `clone`/`clone_from`, and buffers reused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::marker::PhantomData;

use kubegen::DeepCopy;

#[derive(DeepCopy, Debug, PartialEq)]
struct Spec {
    name: String,
    tags: Vec<String>,
    labels: BTreeMap<String, String>,
    nested: Inner,
    r#type: Option<String>,
}

#[derive(DeepCopy, Debug, PartialEq, Default)]
struct Inner {
    data: Vec<u8>,
}

#[derive(DeepCopy, Debug, PartialEq)]
struct Pair(String, Vec<u32>);

#[derive(DeepCopy, Debug, PartialEq)]
struct Marker;

#[derive(DeepCopy, Debug, PartialEq)]
enum Source {
    Git { url: String, revision: String },
    Image(String),
    Empty,
}

#[derive(DeepCopy, Debug, PartialEq)]
struct Wrapper<'a, T: std::fmt::Debug, const N: usize>
where
    T: PartialEq,
{
    items: Vec<T>,
    name: &'a str,
    fixed: [u8; N],
    _marker: PhantomData<T>,
}

fn spec(name: &str, tags: &[&str]) -> Spec {
    Spec {
        name: name.to_owned(),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        labels: [("app".to_owned(), name.to_owned())].into(),
        nested: Inner {
            data: name.as_bytes().to_vec(),
        },
        r#type: Some("t".into()),
    }
}

#[test]
fn clone_equals_source() {
    let source = spec("foo", &["a", "b"]);
    assert_eq!(source.clone(), source);
    assert_eq!(Pair("x".into(), vec![1]).clone(), Pair("x".into(), vec![1]));
    assert_eq!(Marker.clone(), Marker);
}

#[test]
fn clone_from_reuses_string_and_vec_buffers() {
    let source = spec("short", &["x"]);
    let mut destination = spec(
        "a much longer name that owns a big buffer",
        &["1", "2", "3", "4"],
    );
    let name_ptr = destination.name.as_ptr();
    let name_capacity = destination.name.capacity();
    let tags_ptr = destination.tags.as_ptr();
    let first_tag_ptr = destination.tags[0].as_ptr();
    let data_ptr = destination.nested.data.as_ptr();

    destination.clone_from(&source);

    assert_eq!(destination, source);
    assert_eq!(destination.name.as_ptr(), name_ptr, "String buffer reused");
    assert_eq!(destination.name.capacity(), name_capacity);
    assert_eq!(destination.tags.as_ptr(), tags_ptr, "Vec buffer reused");
    assert_eq!(
        destination.tags[0].as_ptr(),
        first_tag_ptr,
        "element buffers reused"
    );
    assert_eq!(
        destination.nested.data.as_ptr(),
        data_ptr,
        "nested struct recursed into"
    );
}

#[test]
fn derived_clone_from_would_reallocate() {
    // The baseline this derive improves on: std's derived `clone_from` replaces the value.
    #[derive(Clone)]
    struct Derived {
        name: String,
    }
    let source = Derived {
        name: "short".into(),
    };
    let mut destination = Derived {
        name: String::with_capacity(64),
    };
    destination.clone_from(&source);
    assert_eq!(destination.name, "short");
    assert!(
        destination.name.capacity() < 64,
        "derived Clone gives up the old buffer"
    );
}

#[test]
fn enums_copy_field_by_field_within_a_variant() {
    let source = Source::Git {
        url: "https://example.com/a".into(),
        revision: "main".into(),
    };
    let mut destination = Source::Git {
        url: String::with_capacity(128),
        revision: String::with_capacity(32),
    };
    let url_ptr = match &destination {
        Source::Git { url, .. } => url.as_ptr(),
        _ => unreachable!(),
    };
    destination.clone_from(&source);
    assert_eq!(destination, source);
    match &destination {
        Source::Git { url, .. } => assert_eq!(url.as_ptr(), url_ptr),
        _ => unreachable!(),
    }

    let mut image = Source::Image(String::with_capacity(64));
    let image_ptr = match &image {
        Source::Image(s) => s.as_ptr(),
        _ => unreachable!(),
    };
    image.clone_from(&Source::Image("nginx".into()));
    assert!(matches!(&image, Source::Image(s) if s == "nginx" && s.as_ptr() == image_ptr));

    // Different variants: replaced as a whole.
    let mut other = Source::Empty;
    other.clone_from(&source);
    assert_eq!(other, source);
    let mut empty = source.clone();
    empty.clone_from(&Source::Empty);
    assert_eq!(empty, Source::Empty);
}

#[test]
fn generics_lifetimes_and_const_parameters() {
    let name = String::from("w");
    let source = Wrapper::<String, 2> {
        items: vec!["a".into()],
        name: &name,
        fixed: [1, 2],
        _marker: PhantomData,
    };
    let mut destination = Wrapper::<String, 2> {
        items: Vec::with_capacity(8),
        name: "",
        fixed: [0, 0],
        _marker: PhantomData,
    };
    let items_ptr = destination.items.as_ptr();
    destination.clone_from(&source);
    assert_eq!(destination, source);
    assert_eq!(destination.items.as_ptr(), items_ptr);
    assert_eq!(source.clone(), source);
}
