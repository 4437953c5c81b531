//! The request generator: valid requests, and requests broken in one or more places.

use super::kinds::{KINDS, Kind, NAMESPACES};
use super::model::Model;
use super::request::{FuzzRequest, Shape};
use super::rng::Rng;

const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];
const ODD_METHODS: &[&str] = &[
    "HEAD", "OPTIONS", "FOO", "get", "PROPFIND", "TRACE", "M-SEARCH",
];

const WRITE_CONTENT_TYPES: &[&str] = &[
    "application/json",
    "application/json; charset=utf-8",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "*/*",
    "",
];
const PATCH_CONTENT_TYPES: &[&str] = &[
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];
const ODD_CONTENT_TYPES: &[&str] = &[
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json;;;=",
    "application/apply-patch+yaml; charset=utf-8",
    "multipart/form-data; boundary=x",
    "application/vnd.kubernetes.protobuf;stream=watch",
    "APPLICATION/JSON",
];
/// Accept headers whose answers the model can read (JSON with object metadata).
const WRITE_ACCEPTS: &[&str] = &[
    "application/json",
    "*/*",
    "application/json, */*",
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
    "application/json;q=0.5, application/yaml",
];
/// Accept headers that nothing served matches (406).
const BAD_ACCEPTS: &[&str] = &[
    "application/yaml",
    "text/html",
    "garbage;;=;",
    "application/json;q=0",
    "application/json;as=Pod;g=;v=v1",
];
const READ_ACCEPTS: &[&str] = &[
    "application/json;as=Table;v=v1;g=meta.k8s.io",
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json",
    "application/vnd.kubernetes.protobuf",
    "application/vnd.kubernetes.protobuf, application/json",
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1",
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
    "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io",
    "application/json;as=Table;v=v9;g=meta.k8s.io",
];

/// Percent-encodes everything but unreserved characters.
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn bad_name(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 => "UPPER".to_owned(),
        1 => "-leading".to_owned(),
        2 => "a_b".to_owned(),
        3 => "..".to_owned(),
        4 => ".".to_owned(),
        5 => "x".repeat(254),
        6 => "y".repeat(64 + rng.below(4000)),
        7 => "%2F".to_owned(),
        8 => "%00".to_owned(),
        9 => "%E2%98%83".to_owned(),
        10 => "a%20b".to_owned(),
        _ => {
            let len = 1 + rng.below(8);
            rng.string(b"abc-.", len)
        }
    }
}

/// Generates requests from a seed; the model supplies current resourceVersions.
#[derive(Debug)]
pub struct Generator {
    pub rng: Rng,
}

impl Generator {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: Rng::new(seed),
        }
    }

    pub fn request(&mut self, model: &Model) -> FuzzRequest {
        if self.rng.chance(4) {
            return self.discovery();
        }
        let writable: Vec<usize> = (0..KINDS.len()).collect();
        let index = *self.rng.pick(&writable);
        let kind = &KINDS[index];
        let shape = match self.rng.below(100) {
            0..45 => Shape::Collection,
            45..88 => Shape::Object,
            88..95 => Shape::Subresource(
                if kind.scale && self.rng.chance(50) {
                    "scale"
                } else {
                    "status"
                }
                .to_owned(),
            ),
            _ => Shape::Subresource(
                self.rng
                    .pick(&["finalize", "log", "exec", "bogus"])
                    .to_string(),
            ),
        };
        let method = self.method(kind, &shape);
        let watch_wanted = method == "GET" && shape == Shape::Collection && self.rng.chance(15);
        let namespace = if kind.namespaced {
            if shape == Shape::Collection && method == "GET" && self.rng.chance(20) {
                None
            } else if self.rng.chance(4) {
                Some(bad_name(&mut self.rng))
            } else {
                Some((*self.rng.pick(NAMESPACES)).to_owned())
            }
        } else {
            None
        };
        let name = (shape != Shape::Collection).then(|| {
            if self.rng.chance(8) {
                bad_name(&mut self.rng)
            } else {
                (*self.rng.pick(kind.names())).to_owned()
            }
        });
        let mut path = match (&shape, &name) {
            (Shape::Subresource(sub), Some(name)) => format!(
                "{}/{sub}",
                kind.object(namespace.as_deref().unwrap_or_default(), name)
            ),
            (_, Some(name)) => kind.object(namespace.as_deref().unwrap_or_default(), name),
            (_, None) => kind.collection(namespace.as_deref()),
        };
        let mut shape = shape;
        let mut known = Some(index);
        if self.rng.chance(6) {
            (path, shape, known) = self.mangle_path(kind, path, shape, known);
        }
        let mut request = FuzzRequest {
            method: method.clone(),
            target: path,
            headers: Vec::new(),
            body: Vec::new(),
            kind: known,
            shape,
            namespace,
            name,
            dry_run: false,
            watch: false,
        };
        self.query(&mut request, watch_wanted, model);
        self.headers(&mut request, kind);
        self.body(&mut request, kind, model);
        request
    }

    /// The method, mostly one that fits the path.
    fn method(&mut self, kind: &Kind, shape: &Shape) -> String {
        if self.rng.chance(5) {
            return (*self.rng.pick(ODD_METHODS)).to_owned();
        }
        let fitting: &[&str] = match shape {
            Shape::Collection if !kind.namespaced => &["GET", "POST", "GET"],
            Shape::Collection => &["GET", "POST", "GET", "POST", "DELETE"],
            Shape::Object => &["GET", "PUT", "PATCH", "DELETE", "PATCH", "PUT"],
            _ => &["GET", "PUT", "PATCH"],
        };
        let method = if self.rng.chance(8) {
            self.rng.pick(METHODS)
        } else {
            self.rng.pick(fitting)
        };
        // A deletecollection of namespaces or CRDs would delete the fuzzed objects.
        if !kind.namespaced && *shape == Shape::Collection && *method == "DELETE" {
            return "GET".to_owned();
        }
        (*method).to_owned()
    }

    fn mangle_path(
        &mut self,
        kind: &Kind,
        path: String,
        shape: Shape,
        known: Option<usize>,
    ) -> (String, Shape, Option<usize>) {
        match self.rng.below(9) {
            0 => (
                path.replacen(kind.plural, &format!("{}x", kind.plural), 1),
                Shape::Unknown,
                None,
            ),
            1 => (
                format!("/apis/nope.example.com/v1/{}", kind.plural),
                Shape::Unknown,
                None,
            ),
            2 => (
                path.replacen(&format!("/{}", kind.version), "/v9", 1),
                Shape::Unknown,
                None,
            ),
            3 => (format!("{path}/a/b/c/d"), Shape::Unknown, None),
            4 => (path.replace('/', "//"), shape, known),
            5 => (format!("{path}/"), shape, known),
            6 => (
                format!("/{}", "a/".repeat(1 + self.rng.below(500))),
                Shape::Unknown,
                None,
            ),
            7 => (format!("/x{path}"), Shape::Unknown, None),
            _ => (path.replacen("/v1", "/%76%31", 1), Shape::Unknown, None),
        }
    }

    fn discovery(&mut self) -> FuzzRequest {
        let path = *self.rng.pick(&[
            "/api",
            "/api/v1",
            "/apis",
            "/apis/apps",
            "/apis/apps/v1",
            "/apis/fuzz.example.com/v1",
            "/version",
            "/healthz",
            "/readyz",
            "/openapi/v2",
            "/openapi/v3",
            "/openapi/v3/api/v1",
            "/openapi/v3/apis/fuzz.example.com/v1",
            "/apis/nope",
            "/apis/apps/v7",
        ]);
        let method = if self.rng.chance(15) {
            self.rng.pick(&["POST", "DELETE", "PUT", "FOO"])
        } else {
            &"GET"
        };
        let mut headers = Vec::new();
        if self.rng.chance(50) {
            let accept = self.rng.pick(&[
                "application/json",
                "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
                "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
                "*/*",
                "text/html",
            ]);
            headers.push(("Accept".to_owned(), accept.as_bytes().to_vec()));
        }
        let unknown = path.ends_with("/nope") || path.ends_with("/v7");
        FuzzRequest {
            method: (*method).to_owned(),
            target: path.to_owned(),
            headers,
            body: Vec::new(),
            kind: None,
            shape: if unknown {
                Shape::Unknown
            } else {
                Shape::Discovery
            },
            namespace: None,
            name: None,
            dry_run: false,
            watch: false,
        }
    }

    fn query(&mut self, request: &mut FuzzRequest, watch: bool, model: &Model) {
        let mut params: Vec<(String, String)> = Vec::new();
        let rv = |rng: &mut Rng| -> String {
            match rng.below(8) {
                0 => String::new(),
                1 => "0".to_owned(),
                2 | 3 => model.max_rv.to_string(),
                4 => model
                    .max_rv
                    .saturating_sub(rng.below(50) as u64)
                    .to_string(),
                5 => (model.max_rv + 1000).to_string(),
                6 => "99999999999999999999999".to_owned(),
                _ => rng.pick(&["abc", "-1", "1.5", " 7"]).to_string(),
            }
        };
        if watch {
            params.push((
                "watch".to_owned(),
                self.rng
                    .pick(&["true", "1", "true", "false", "yes"])
                    .to_string(),
            ));
            if self.rng.chance(50) {
                params.push(("allowWatchBookmarks".to_owned(), "true".to_owned()));
            }
            if self.rng.chance(40) {
                params.push((
                    "timeoutSeconds".to_owned(),
                    self.rng
                        .pick(&["1", "0", "-5", "abc", "99999999999999"])
                        .to_string(),
                ));
            }
            if self.rng.chance(10) {
                params.push((
                    "sendInitialEvents".to_owned(),
                    self.rng.pick(&["true", "false", "maybe"]).to_string(),
                ));
                params.push(("resourceVersionMatch".to_owned(), "NotOlderThan".to_owned()));
            }
        }
        let get = request.method == "GET";
        if get && self.rng.chance(30) {
            let selector = self
                .rng
                .pick(&[
                    "app=web",
                    "app!=db",
                    "app in (web,db)",
                    "app notin (cache)",
                    "app",
                    "!app",
                    "app==web,app!=db",
                    "a=(",
                    "!!",
                    "=",
                    "app in web",
                    "x/y/z=1",
                    "app=",
                    "in in (in)",
                    ",",
                    "UPPER=Ö",
                ])
                .to_string();
            params.push(("labelSelector".to_owned(), selector));
        }
        if get && self.rng.chance(15) {
            let selector = self
                .rng
                .pick(&[
                    "metadata.name=a",
                    "metadata.namespace=fuzz",
                    "metadata.name!=b",
                    "spec.nodeName=n1",
                    "type=Opaque",
                    "status.phase=Running",
                    "foo=bar",
                    "metadata.name",
                    "metadata.name==a,metadata.namespace!=x",
                    "=",
                    "metadata.name=a=b",
                ])
                .to_string();
            params.push(("fieldSelector".to_owned(), selector));
        }
        if get && self.rng.chance(20) {
            params.push(("resourceVersion".to_owned(), rv(&mut self.rng)));
            if self.rng.chance(50) {
                params.push((
                    "resourceVersionMatch".to_owned(),
                    self.rng
                        .pick(&["NotOlderThan", "Exact", "Bogus", ""])
                        .to_string(),
                ));
            }
        }
        if get && self.rng.chance(15) {
            params.push((
                "limit".to_owned(),
                self.rng
                    .pick(&["1", "2", "0", "-1", "abc", "99999999999999999999", "500"])
                    .to_string(),
            ));
            if self.rng.chance(40) {
                params.push((
                    "continue".to_owned(),
                    self.rng
                        .pick(&[
                            "",
                            "abc",
                            "eyJydiI6MX0",
                            "%%%",
                            "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0",
                        ])
                        .to_string(),
                ));
            }
        }
        if get && self.rng.chance(5) {
            params.push((
                "includeObject".to_owned(),
                self.rng
                    .pick(&["None", "Object", "Metadata", "Bogus"])
                    .to_string(),
            ));
        }
        if !get && self.rng.chance(15) {
            let value = self.rng.pick(&["All", "All", "", "junk"]).to_string();
            request.dry_run = value == "All";
            params.push(("dryRun".to_owned(), value));
        }
        if !get && (self.rng.chance(20) || request.content_type_hint_apply()) {
            params.push((
                "fieldManager".to_owned(),
                self.rng
                    .pick(&["fuzz", "fuzz", "", "m".repeat(200).as_str()])
                    .to_string(),
            ));
        }
        if request.method == "DELETE" && self.rng.chance(25) {
            params.push((
                "propagationPolicy".to_owned(),
                self.rng
                    .pick(&["Orphan", "Background", "Foreground", "Sideways"])
                    .to_string(),
            ));
        }
        if request.method == "PATCH" && self.rng.chance(15) {
            params.push((
                "force".to_owned(),
                self.rng.pick(&["true", "false", "maybe"]).to_string(),
            ));
        }
        if self.rng.chance(8) {
            params.push((
                "fieldValidation".to_owned(),
                self.rng
                    .pick(&["Strict", "Warn", "Ignore", "Bogus"])
                    .to_string(),
            ));
        }
        if self.rng.chance(5) {
            let (key_len, value_len) = (1 + self.rng.below(6), self.rng.below(6));
            params.push((
                self.rng.string(b"abcXYZ_", key_len),
                self.rng.string(b"xyz%&=", value_len),
            ));
        }
        request.watch = params
            .iter()
            .any(|(k, v)| k == "watch" && matches!(v.as_str(), "true" | "1"));
        if !params.is_empty() {
            let query: Vec<String> = params
                .iter()
                .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
                .collect();
            request.target = format!("{}?{}", request.target, query.join("&"));
        }
    }

    fn headers(&mut self, request: &mut FuzzRequest, kind: &Kind) {
        let write = matches!(request.method.as_str(), "POST" | "PUT" | "PATCH" | "DELETE");
        let content_type = match request.method.as_str() {
            "PATCH" if self.rng.chance(85) => {
                let mut ct = self.rng.pick(PATCH_CONTENT_TYPES);
                if kind.custom
                    && *ct == "application/strategic-merge-patch+json"
                    && self.rng.chance(70)
                {
                    ct = &"application/merge-patch+json";
                }
                Some(ct.to_string())
            }
            "POST" | "PUT" if self.rng.chance(85) => {
                let ct = self.rng.pick(WRITE_CONTENT_TYPES);
                if (*ct == "application/vnd.kubernetes.protobuf"
                    && (kind.custom || self.rng.chance(50)))
                    || ct.is_empty()
                {
                    (!ct.is_empty() || self.rng.chance(50)).then(|| "application/json".to_owned())
                } else {
                    Some(ct.to_string())
                }
            }
            _ if self.rng.chance(10) => Some(self.rng.pick(ODD_CONTENT_TYPES).to_string()),
            _ => None,
        };
        if let Some(ct) = content_type {
            request
                .headers
                .push(("Content-Type".to_owned(), ct.into_bytes()));
        }
        if self.rng.chance(35) {
            let mut accept = if self.rng.chance(15) {
                self.rng.pick(BAD_ACCEPTS)
            } else if write || self.rng.chance(40) {
                self.rng.pick(WRITE_ACCEPTS)
            } else {
                self.rng.pick(READ_ACCEPTS)
            };
            // The object form on a deletecollection is 406 after the deletion, as on a
            // real server: the model cannot learn what such an answer deleted.
            if request.method == "DELETE"
                && request.shape == Shape::Collection
                && accept.contains("as=PartialObjectMetadata")
            {
                accept = &"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
            }
            request
                .headers
                .push(("Accept".to_owned(), accept.as_bytes().to_vec()));
        }
        if self.rng.chance(5) {
            let (name, value): (&str, &[u8]) = *self.rng.pick(&[
                ("X-Fuzz", b"1".as_slice()),
                ("Accept", b"\xff\xfe application/json".as_slice()),
                ("Content-Type", b"application/json\xc3\x28".as_slice()),
                ("User-Agent", b"".as_slice()),
                ("Accept-Encoding", b"gzip, br".as_slice()),
                ("Impersonate-User", b"system:admin".as_slice()),
            ]);
            request.headers.push((name.to_owned(), value.to_vec()));
        }
    }
}

impl FuzzRequest {
    fn content_type_hint_apply(&self) -> bool {
        self.method == "PATCH"
    }
}
