//! Conversion: [`Converter`], and the `apiextensions.k8s.io/v1` ConversionReview in and
//! out (kube's types).

use std::fmt::Display;
use std::sync::Arc;

use axum::body::Bytes;
use futures::future::BoxFuture;
use kube::core::Status;
use kube::core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use serde_json::Value;

use super::http::{Answer, Endpoint, check_review, wrong_review};

/// The `apiVersion` of the ConversionReviews served.
const CONVERSION_V1: &str = "apiextensions.k8s.io/v1";

/// Converts custom resources between the versions of their CRD, one object at a time:
/// the API server's ConversionReview carries objects (of one or more versions) and the
/// `apiVersion` wanted; the server calls `convert` for each object not yet at that
/// version, in order, and answers with the converted list, or with `result.status:
/// Failure` and the first error's message (the API server then fails the request).
///
/// `convert` is synchronous (conversion is a pure function of the object) and runs on
/// tokio's blocking pool, so a review of thousands of objects does not hold up the
/// server's other requests. The object returned must have the desired `apiVersion` and
/// keep the object's metadata; the API server checks the latter, the server the former.
///
/// Register it with [`WebhookServer::conversion`](super::WebhookServer::conversion).
///
/// ```
/// use serde_json::Value;
/// use kubegen_runtime::webhook::Converter;
///
/// /// v1 renamed v1alpha1's `spec.colour` to `spec.color`.
/// struct IceCreams;
///
/// impl Converter for IceCreams {
///     type Error = String;
///
///     fn convert(&self, mut object: Value, desired_api_version: &str) -> Result<Value, String> {
///         let (from, to) = match desired_api_version {
///             "example.com/v1" => ("colour", "color"),
///             "example.com/v1alpha1" => ("color", "colour"),
///             other => return Err(format!("unknown version {other}")),
///         };
///         if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
///             if let Some(value) = spec.remove(from) {
///                 spec.insert(to.to_owned(), value);
///             }
///         }
///         object["apiVersion"] = desired_api_version.into();
///         Ok(object)
///     }
/// }
/// ```
pub trait Converter: Send + Sync + 'static {
    /// Why an object could not be converted: the message the API server reports.
    type Error: Display;

    /// Converts `object` (a whole custom resource: `apiVersion`, `kind`, `metadata`...)
    /// to `desired_api_version` (`group/version`).
    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, Self::Error>;
}

/// A plain function or closure is a [`Converter`]: `convert` calls it.
///
/// A function item works as it is; a closure passed straight to
/// [`WebhookServer::conversion`](super::WebhookServer::conversion) needs its second
/// parameter written `version: &str` (Rust infers a closure's signature from an `Fn` bound,
/// not from this impl), or goes through [`converter_fn`], which gives it that signature.
impl<F, E> Converter for F
where
    F: Fn(Value, &str) -> Result<Value, E> + Send + Sync + 'static,
    E: Display,
{
    type Error = E;

    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, E> {
        self(object, desired_api_version)
    }
}

/// Returns the closure `f` as it is, its signature fixed as a [`Converter`]'s, so that
/// `|object, version| ...` needs no type written:
///
/// ```
/// use kubegen_runtime::webhook::{Converter, converter_fn};
/// use serde_json::Value;
///
/// let suffix = String::from("/v1");
/// let to_v1 = converter_fn(move |mut object, version| {
///     if !version.ends_with(suffix.as_str()) {
///         return Err(format!("cannot convert to {version}"));
///     }
///     object["apiVersion"] = version.into();
///     Ok(object)
/// });
/// let object = serde_json::json!({"apiVersion": "example.com/v1alpha1"});
/// assert_eq!(to_v1.convert(object, "example.com/v1").unwrap()["apiVersion"], "example.com/v1");
/// assert!(to_v1.convert(Value::Null, "example.com/v2").is_err());
/// ```
pub fn converter_fn<F, E>(f: F) -> F
where
    F: Fn(Value, &str) -> Result<Value, E> + Send + Sync + 'static,
    E: Display,
{
    f
}

/// A [`Converter`] behind a path.
pub(super) struct ConversionEndpoint<C> {
    converter: Arc<C>,
}

impl<C> ConversionEndpoint<C> {
    pub(super) fn new(converter: C) -> Self {
        Self {
            converter: Arc::new(converter),
        }
    }
}

impl<C: Converter> Endpoint for ConversionEndpoint<C> {
    fn call(self: Arc<Self>, body: Bytes) -> BoxFuture<'static, Answer> {
        Box::pin(async move {
            let request = match decode(&body) {
                Ok(request) => request,
                Err(message) => return Answer::bad_request(message),
            };
            let converter = Arc::clone(&self.converter);
            let response = match tokio::task::spawn_blocking(move || {
                convert_all(&*converter, request)
            })
            .await
            {
                Ok(response) => response,
                // A panic in the converter: raised again here, where the server
                // catches it and answers 500.
                Err(error) => match error.try_into_panic() {
                    Ok(panic) => std::panic::resume_unwind(panic),
                    Err(error) => {
                        return Answer::internal_error(format!("conversion cancelled: {error}"));
                    }
                },
            };
            let failed = response.result.is_failure();
            Answer::review(&response.into_review(), failed)
        })
    }
}

/// The review in `body`, checked to be an `apiextensions.k8s.io/v1` ConversionReview
/// with a request; for any other body, the message of a `400`.
fn decode(body: &[u8]) -> Result<ConversionRequest, String> {
    let review: ConversionReview = serde_json::from_slice(body).map_err(|error| {
        wrong_review(body, CONVERSION_V1, "ConversionReview")
            .unwrap_or_else(|| format!("failed to decode the ConversionReview: {error}"))
    })?;
    if let Some(wrong) = check_review(&review.types, CONVERSION_V1, "ConversionReview") {
        return Err(wrong);
    }
    ConversionRequest::from_review(review)
        .map_err(|_| "the ConversionReview holds no request".into())
}

/// Converts every object of `request`, stopping at the first failure.
pub(super) fn convert_all<C: Converter + ?Sized>(
    converter: &C,
    mut request: ConversionRequest,
) -> ConversionResponse {
    let objects = std::mem::take(&mut request.objects);
    let desired = request.desired_api_version.clone();
    let response = ConversionResponse::for_request(request);
    let mut converted = Vec::with_capacity(objects.len());
    for object in objects {
        match convert_one(converter, object, &desired) {
            Ok(object) => converted.push(object),
            Err(message) => return response.failure(Status::failure(&message, "")),
        }
    }
    response.success(converted)
}

fn convert_one<C: Converter + ?Sized>(
    converter: &C,
    object: Value,
    desired: &str,
) -> Result<Value, String> {
    let from = api_version(&object).to_owned();
    if from == desired {
        return Ok(object);
    }
    let what = describe(&object);
    let converted = converter
        .convert(object, desired)
        .map_err(|error| format!("failed to convert {what} from {from} to {desired}: {error}"))?;
    match api_version(&converted) {
        version if version == desired => Ok(converted),
        version => Err(format!(
            "failed to convert {what} from {from} to {desired}: the converter returned apiVersion {version:?}"
        )),
    }
}

fn api_version(object: &Value) -> &str {
    object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// `Kind namespace/name`, as far as the object says.
fn describe(object: &Value) -> String {
    let field = |path: &[&str]| {
        path.iter()
            .try_fold(object, |value, key| value.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (kind, namespace, name) = (
        field(&["kind"]),
        field(&["metadata", "namespace"]),
        field(&["metadata", "name"]),
    );
    match namespace.as_str() {
        "" => format!("{kind} {name}"),
        namespace => format!("{kind} {namespace}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    /// Moves `spec.colour` (v1alpha1) to `spec.color` (v1) and back; refuses `purple`.
    struct Colours;

    impl Converter for Colours {
        type Error = String;

        fn convert(&self, mut object: Value, desired: &str) -> Result<Value, String> {
            let (from, to) = match desired {
                "example.com/v1" => ("colour", "color"),
                "example.com/v1alpha1" => ("color", "colour"),
                other => return Err(format!("unknown version {other}")),
            };
            let spec = object["spec"].as_object_mut().ok_or("no spec")?;
            let value = spec.remove(from).unwrap_or_default();
            if value == "purple" {
                return Err("purple has no v1 spelling".into());
            }
            spec.insert(to.into(), value);
            object["apiVersion"] = desired.into();
            Ok(object)
        }
    }

    /// The request of the ConversionReview example in Kubernetes' documentation
    /// ("Versions in CustomResourceDefinitions", webhook request and response).
    fn documented_request() -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "ConversionReview",
            "request": {
                "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                "desiredAPIVersion": "example.com/v1",
                "objects": [
                    {
                        "kind": "CronTab",
                        "apiVersion": "example.com/v1beta1",
                        "metadata": {
                            "creationTimestamp": "2019-09-04T14:03:02Z",
                            "name": "local-crontab",
                            "namespace": "default",
                            "resourceVersion": "143",
                            "uid": "3415a7fc-162b-4300-b5da-fd6083580d66"
                        },
                        "hostPort": "localhost:1234"
                    },
                    {
                        "kind": "CronTab",
                        "apiVersion": "example.com/v1",
                        "metadata": {"name": "remote-crontab", "namespace": "default"},
                        "host": "example.com",
                        "port": "2345"
                    }
                ]
            }
        })
    }

    /// Splits v1beta1's `hostPort` into v1's `host` and `port`, as the documented
    /// example does.
    struct CronTabs;

    impl Converter for CronTabs {
        type Error = &'static str;

        fn convert(&self, mut object: Value, desired: &str) -> Result<Value, &'static str> {
            let map = object.as_object_mut().ok_or("not an object")?;
            let host_port = map.remove("hostPort").ok_or("no hostPort")?;
            let (host, port) = host_port
                .as_str()
                .and_then(|s| s.split_once(':'))
                .ok_or("hostPort is not host:port")?;
            map.insert("host".into(), host.into());
            map.insert("port".into(), port.into());
            map.insert("apiVersion".into(), desired.into());
            Ok(object)
        }
    }

    fn review(body: &Value) -> Value {
        let review: ConversionReview = serde_json::from_value(body.clone()).unwrap();
        let request = ConversionRequest::from_review(review).unwrap();
        serde_json::to_value(convert_all(&CronTabs, request).into_review()).unwrap()
    }

    #[test]
    fn documented_review_converts_to_the_documented_response() {
        let response = review(&documented_request());
        assert_eq!(
            response,
            json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "ConversionReview",
                "response": {
                    "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                    "result": {"status": "Success"},
                    "convertedObjects": [
                        {
                            "kind": "CronTab",
                            "apiVersion": "example.com/v1",
                            "metadata": {
                                "creationTimestamp": "2019-09-04T14:03:02Z",
                                "name": "local-crontab",
                                "namespace": "default",
                                "resourceVersion": "143",
                                "uid": "3415a7fc-162b-4300-b5da-fd6083580d66"
                            },
                            "host": "localhost",
                            "port": "1234"
                        },
                        {
                            "kind": "CronTab",
                            "apiVersion": "example.com/v1",
                            "metadata": {"name": "remote-crontab", "namespace": "default"},
                            "host": "example.com",
                            "port": "2345"
                        }
                    ]
                }
            })
        );
    }

    #[test]
    fn a_failure_has_the_documented_shape_and_names_the_object() {
        let mut body = documented_request();
        body["request"]["objects"][0]["hostPort"] = "nowhere".into();
        let response = review(&body);
        assert_eq!(
            response,
            json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "ConversionReview",
                "response": {
                    "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
                    "result": {
                        "status": "Failure",
                        "message": "failed to convert CronTab default/local-crontab from example.com/v1beta1 to example.com/v1: hostPort is not host:port"
                    },
                    "convertedObjects": []
                }
            })
        );
    }

    #[test]
    fn a_converter_that_forgets_the_api_version_fails_the_review() {
        struct Forgetful;
        impl Converter for Forgetful {
            type Error = String;
            fn convert(&self, object: Value, _: &str) -> Result<Value, String> {
                Ok(object)
            }
        }
        let request = ConversionRequest {
            types: None,
            uid: "u".into(),
            desired_api_version: "example.com/v1".into(),
            objects: vec![
                json!({"apiVersion": "example.com/v1alpha1", "kind": "IceCream", "metadata": {"name": "a"}}),
            ],
        };
        let response = convert_all(&Forgetful, request);
        assert!(response.result.is_failure());
        assert!(
            response
                .result
                .message
                .contains("returned apiVersion \"example.com/v1alpha1\""),
            "{}",
            response.result.message
        );
    }

    /// `convert` of `Colours`, as a plain function.
    fn colours(object: Value, desired: &str) -> Result<Value, String> {
        Colours.convert(object, desired)
    }

    #[test]
    fn functions_and_closures_are_converters() {
        let object = json!({"apiVersion": "example.com/v1alpha1", "kind": "IceCream", "metadata": {"name": "c"}, "spec": {"colour": "red"}});
        let expected = convert_one(&Colours, object.clone(), "example.com/v1").unwrap();
        assert_eq!(
            convert_one(&colours, object.clone(), "example.com/v1").unwrap(),
            expected
        );
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let closure = converter_fn(move |object, version| {
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            colours(object, version)
        });
        assert_eq!(
            convert_one(&closure, object.clone(), "example.com/v1").unwrap(),
            expected
        );
        let annotated = |object, version: &str| Colours.convert(object, version);
        assert_eq!(
            convert_one(&annotated, object, "example.com/v1").unwrap(),
            expected
        );
        let purple = json!({"apiVersion": "example.com/v1alpha1", "kind": "IceCream", "metadata": {"name": "p"}, "spec": {"colour": "purple"}});
        assert_eq!(
            convert_one(&closure, purple, "example.com/v1").unwrap_err(),
            "failed to convert IceCream p from example.com/v1alpha1 to example.com/v1: purple has no v1 spelling"
        );
        assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 2);
    }

    #[test]
    fn colours_round_trip() {
        let object = json!({"apiVersion": "example.com/v1alpha1", "kind": "IceCream", "spec": {"colour": "red"}});
        let v1 = convert_one(&Colours, object.clone(), "example.com/v1").unwrap();
        assert_eq!(v1["spec"], json!({"color": "red"}));
        assert_eq!(
            convert_one(&Colours, v1, "example.com/v1alpha1").unwrap(),
            object
        );
        let purple = json!({"apiVersion": "example.com/v1alpha1", "kind": "IceCream", "metadata": {"name": "p"}, "spec": {"colour": "purple"}});
        assert_eq!(
            convert_one(&Colours, purple, "example.com/v1").unwrap_err(),
            "failed to convert IceCream p from example.com/v1alpha1 to example.com/v1: purple has no v1 spelling"
        );
    }
}
