//! What Kubernetes accepts as a label key and a label value (apimachinery's
//! `validation.IsQualifiedName` and `IsValidLabelValue`), with the API server's messages.
//! Selectors check their keys and values here; the testkit API server (`kubegen-testkit`)
//! checks objects' labels and names here.

/// Why `name` is not a DNS-1123 subdomain (lowercase alphanumerics, `-`, `.`), if not.
pub fn subdomain_error(name: &str) -> Option<String> {
    const MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let ok = !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !part.starts_with('-')
                && !part.ends_with('-')
        });
    (!ok).then(|| MSG.to_owned())
}

fn name_part_ok(name: &str) -> bool {
    let bytes = name.as_bytes();
    !name.is_empty()
        && name.len() <= 63
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Why `key` is not a qualified name (`[prefix/]name`, as label and annotation keys
/// must be), if not.
pub fn qualified_name_error(key: &str) -> Option<String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix
        && let Some(why) = subdomain_error(prefix)
    {
        return Some(format!("prefix part {why}"));
    }
    (!name_part_ok(name)).then(|| {
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".to_owned()
    })
}

/// Why `value` is not a valid label value, if not.
pub fn label_value_error(value: &str) -> Option<String> {
    (!value.is_empty() && !name_part_ok(value)).then(|| {
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_keys_and_values() {
        assert!(qualified_name_error("app.kubernetes.io/name").is_none());
        assert!(qualified_name_error("tier").is_none());
        assert!(qualified_name_error("Bad Key").is_some());
        assert!(qualified_name_error("UPPER.example/x").is_some());
        assert!(label_value_error("").is_none());
        assert!(label_value_error("v1.2_3").is_none());
        assert!(label_value_error("has space").is_some());
        assert!(label_value_error(&"x".repeat(64)).is_some());
    }
}
