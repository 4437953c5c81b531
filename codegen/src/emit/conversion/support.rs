//! The root module of a conversions tree: the annotation key, the error type, the state a
//! conversion carries (where it is, what it restores and stores) and the generic helpers
//! the generated functions call, so each pair's file holds only names and field lists.

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::common::Paths;

/// The annotation carrying the fields one side lacks across a round trip.
pub(crate) const ANNOTATION: &str = "kubegen.io/conversion-data";

/// The items of the root module.
pub(crate) fn items(paths: &Paths) -> TokenStream {
    let serde = &paths.serde;
    let json = &paths.serde_json;
    let k8s = &paths.k8s_openapi;
    let meta = quote! { #k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta };
    let doc_annotation = " The annotation that carries, as JSON, the fields the target version \
         of a conversion lacks (`{\"apiVersion\": <source>, \"fields\": {<JSON pointer>: \
         <value>}}`), so that converting back restores them, as Kubernetes' own conversions \
         do. Converting back to `apiVersion` restores and removes them; converting elsewhere \
         drops them.";
    quote! {
        #[doc = #doc_annotation]
        pub const ANNOTATION: &str = #ANNOTATION;

        /// Why a conversion failed: where in the object, and what happened.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Error {
            /// The JSON pointer of the value being converted (`/spec/rules/0`), empty for
            /// the whole object.
            pub path: String,
            /// What went wrong.
            pub message: String,
        }

        impl Error {
            /// An error with `message`; the conversion adds where it happened.
            pub fn new(message: impl ::core::fmt::Display) -> Self {
                Self {
                    path: String::new(),
                    message: message.to_string(),
                }
            }
        }

        impl ::core::fmt::Display for Error {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                if self.path.is_empty() {
                    f.write_str(&self.message)
                } else {
                    write!(f, "at {}: {}", self.path, self.message)
                }
            }
        }

        impl ::std::error::Error for Error {}

        /// The state of one object's conversion: where it is, the annotation's fields it
        /// can restore, and the fields it stores for the way back.
        #[derive(Debug, Default)]
        pub struct Context {
            path: Vec<String>,
            restore: ::std::collections::BTreeMap<String, #json::Value>,
            store: ::std::collections::BTreeMap<String, #json::Value>,
        }

        impl Context {
            /// Starts converting an object with `metadata` to `target` (its apiVersion):
            /// the annotation's fields are restorable if they were stored converting from
            /// `target`.
            pub fn begin(metadata: &#meta, target: &str) -> Result<Self, Error> {
                let mut cx = Self::default();
                let Some(text) = metadata.annotations.as_ref().and_then(|a| a.get(ANNOTATION)) else {
                    return Ok(cx);
                };
                let data: #json::Value = #json::from_str(text).map_err(|e| {
                    Error::new(format!("annotation {ANNOTATION} is not JSON: {e}"))
                })?;
                let ours = data.get("apiVersion").and_then(|v| v.as_str()) == Some(target);
                if let (true, Some(#json::Value::Object(fields))) = (ours, data.get("fields")) {
                    cx.restore = fields.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                }
                Ok(cx)
            }

            /// Ends the conversion of an object from `source` (its apiVersion): replaces
            /// the annotation on the target's `metadata` with the fields stored, or
            /// removes it when none were.
            pub fn finish(self, metadata: &mut #meta, source: &str) -> Result<(), Error> {
                let had = metadata
                    .annotations
                    .as_mut()
                    .is_some_and(|a| a.remove(ANNOTATION).is_some());
                if self.store.is_empty() {
                    if had && metadata.annotations.as_ref().is_some_and(|a| a.is_empty()) {
                        metadata.annotations = None;
                    }
                    return Ok(());
                }
                let fields: #json::Map<String, #json::Value> = self.store.into_iter().collect();
                let mut data = #json::Map::new();
                data.insert("apiVersion".to_owned(), #json::Value::String(source.to_owned()));
                data.insert("fields".to_owned(), #json::Value::Object(fields));
                let text = #json::Value::Object(data).to_string();
                metadata
                    .annotations
                    .get_or_insert_with(Default::default)
                    .insert(ANNOTATION.to_owned(), text);
                Ok(())
            }

            /// The JSON pointer of the value being converted.
            pub fn path(&self) -> String {
                self.path.iter().map(|s| format!("/{s}")).collect()
            }

            fn key(&self, field: &str) -> String {
                format!("{}/{}", self.path(), escape(field))
            }

            /// Stores `value` of `field` (of the struct at [`Context::path`]) in the
            /// annotation.
            pub fn store<T: #serde::Serialize + ?Sized>(&mut self, field: &str, value: &T) -> Result<(), Error> {
                let key = self.key(field);
                let value = #json::to_value(value)
                    .map_err(|e| Error { path: key.clone(), message: e.to_string() })?;
                self.store.insert(key, value);
                Ok(())
            }

            /// Takes `field`'s value back from the annotation, if it holds one.
            pub fn restore<T: #serde::de::DeserializeOwned>(&mut self, field: &str) -> Result<Option<T>, Error> {
                let key = self.key(field);
                match self.restore.remove(&key) {
                    Some(value) => #json::from_value(value).map(Some).map_err(|e| Error {
                        path: key,
                        message: format!("annotation {ANNOTATION}: {e}"),
                    }),
                    None => Ok(None),
                }
            }

            /// Runs `f` on `value` one path segment (`segment`) deeper.
            pub fn at<A, B>(
                &mut self,
                segment: String,
                value: A,
                f: impl FnOnce(&mut Self, A) -> Result<B, Error>,
            ) -> Result<B, Error> {
                self.path.push(segment);
                let result = f(self, value).map_err(|mut e| {
                    if e.path.is_empty() {
                        e.path = self.path();
                    }
                    e
                });
                self.path.pop();
                result
            }
        }

        fn escape(segment: &str) -> String {
            segment.replace('~', "~0").replace('/', "~1")
        }

        /// Converts the field `field`'s value.
        pub fn field<A, B>(
            cx: &mut Context,
            field: &str,
            value: A,
            f: impl FnOnce(&mut Context, A) -> Result<B, Error>,
        ) -> Result<B, Error> {
            cx.at(escape(field), value, f)
        }

        /// Converts an `Option`'s value.
        pub fn option<A, B>(
            cx: &mut Context,
            value: Option<A>,
            f: impl FnOnce(&mut Context, A) -> Result<B, Error>,
        ) -> Result<Option<B>, Error> {
            value.map(|v| f(cx, v)).transpose()
        }

        /// Converts a list's items.
        pub fn vec<A, B>(
            cx: &mut Context,
            value: Vec<A>,
            mut f: impl FnMut(&mut Context, A) -> Result<B, Error>,
        ) -> Result<Vec<B>, Error> {
            value
                .into_iter()
                .enumerate()
                .map(|(i, v)| cx.at(i.to_string(), v, &mut f))
                .collect()
        }

        /// Converts a map's values.
        pub fn map<A, B>(
            cx: &mut Context,
            value: ::std::collections::BTreeMap<String, A>,
            mut f: impl FnMut(&mut Context, A) -> Result<B, Error>,
        ) -> Result<::std::collections::BTreeMap<String, B>, Error> {
            value
                .into_iter()
                .map(|(k, v)| {
                    let converted = cx.at(escape(&k), v, &mut f)?;
                    Ok((k, converted))
                })
                .collect()
        }

        /// Converts a boxed value.
        #[allow(clippy::boxed_local)] // The fields it converts are boxed.
        pub fn boxed<A, B>(
            cx: &mut Context,
            value: Box<A>,
            f: impl FnOnce(&mut Context, A) -> Result<B, Error>,
        ) -> Result<Box<B>, Error> {
            f(cx, *value).map(Box::new)
        }

        /// The `apiVersion` of a whole object.
        pub fn api_version_of(object: &#json::Value) -> Result<&str, Error> {
            object
                .get("apiVersion")
                .and_then(#json::Value::as_str)
                .ok_or_else(|| Error::new("the object has no apiVersion"))
        }

        /// Reads a whole object as `T`.
        pub fn decode<T: #serde::de::DeserializeOwned>(object: #json::Value) -> Result<T, Error> {
            #json::from_value(object).map_err(|e| Error::new(format!("failed to read the object: {e}")))
        }

        /// Writes `value` as a whole object of `api_version` and `kind`.
        pub fn encode<T: #serde::Serialize>(value: &T, api_version: &str, kind: &str) -> Result<#json::Value, Error> {
            let mut object = #json::to_value(value).map_err(Error::new)?;
            let Some(map) = object.as_object_mut() else {
                return Err(Error::new("the object is not written as a JSON object"));
            };
            map.insert("apiVersion".to_owned(), #json::Value::String(api_version.to_owned()));
            map.insert("kind".to_owned(), #json::Value::String(kind.to_owned()));
            Ok(object)
        }

        /// The error for an apiVersion that `kind` does not have (`known`: those it has).
        pub fn unknown_version(kind: &str, api_version: &str, known: &[&str]) -> Error {
            Error::new(format!(
                "{kind} has no version {api_version:?} (it has {})",
                known.join(", ")
            ))
        }

        /// `Ok` if `after` equals `before`, else an error naming the first place (a JSON
        /// pointer) where their JSON differs: what the round-trip checks return.
        pub fn compare<T: PartialEq + #serde::Serialize>(before: &T, after: &T) -> Result<(), Error> {
            if before == after {
                return Ok(());
            }
            let before = #json::to_value(before).map_err(Error::new)?;
            let after = #json::to_value(after).map_err(Error::new)?;
            let path = first_difference(&before, &after).unwrap_or_default();
            Err(Error {
                message: format!(
                    "the round trip changed the object: {} became {}",
                    before.pointer(&path).map_or("nothing".to_owned(), |v| v.to_string()),
                    after.pointer(&path).map_or("nothing".to_owned(), |v| v.to_string()),
                ),
                path,
            })
        }

        fn first_difference(a: &#json::Value, b: &#json::Value) -> Option<String> {
            use #json::Value;
            match (a, b) {
                (Value::Object(x), Value::Object(y)) => {
                    let keys: ::std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                    keys.into_iter().find_map(|k| match (x.get(k), y.get(k)) {
                        (Some(p), Some(q)) => first_difference(p, q).map(|rest| format!("/{}{rest}", escape(k))),
                        (p, q) if p != q => Some(format!("/{}", escape(k))),
                        _ => None,
                    })
                }
                (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                    .iter()
                    .zip(y)
                    .enumerate()
                    .find_map(|(i, (p, q))| first_difference(p, q).map(|rest| format!("/{i}{rest}"))),
                _ if a == b => None,
                _ => Some(String::new()),
            }
        }
    }
}
