//! The rules the API server has for a CRD beyond the shape of its fields and the names
//! every kind follows (which [`Model::validate`](crate::model::Model::validate) checks):
//! its API version, its group and name, one storage version, and its printer columns.

use super::{CRD_API_VERSION, Parsed, document};
use crate::frontend::{Result, suggest};
use crate::model::PrinterColumn;
use crate::naming::kubernetes;

/// Why a CRD of `apiVersion: found` is not read, and what to do.
pub(super) fn wrong_api_version(found: &str) -> String {
    if found == "apiextensions.k8s.io/v1beta1" {
        return format!(
            "apiextensions.k8s.io/v1beta1 CustomResourceDefinitions were removed in Kubernetes \
1.22; convert this one to `apiVersion: {CRD_API_VERSION}`: spec.versions[] with a \
schema.openAPIV3Schema for each version (spec.version and spec.validation are gone; \
spec.subresources and spec.additionalPrinterColumns move into each version, where JSONPath \
is spelt jsonPath), an explicit spec.scope, and x-kubernetes-preserve-unknown-fields in \
the schema instead of spec.preserveUnknownFields (see \
https://kubernetes.io/docs/reference/using-api/deprecation-guide/#customresourcedefinition-v122)"
        );
    }
    format!("expected apiVersion `{CRD_API_VERSION}`, found `{found}`")
}

/// The rules Kubernetes has for a CRD beyond the names every kind has (which
/// [`Model::validate`](crate::model::Model::validate) checks): the group has a dot,
/// `metadata.name` is `<plural>.<group>`, printer columns are valid, and exactly one
/// version is the storage version.
pub(super) fn check_crd(p: &Parsed<'_>) -> Result<()> {
    let spec = &p.crd.spec;
    let group = &spec.group;
    if let Err(expected) = kubernetes::check_crd_group(&group.value) {
        return Err(p.error(
            &group.referenced,
            format!("invalid group {:?}: {expected}", group.value),
        ));
    }
    // A bad plural is reported as such (by the model's validation), not as a bad name.
    let plural = &spec.names.plural.value;
    let name = p.crd.metadata.as_ref().and_then(|m| m.name.as_ref());
    let name = name.filter(|_| kubernetes::check_resource_name(plural).is_ok());
    let wanted = format!("{plural}.{}", group.value);
    if let Some(name) = name.filter(|n| n.value != wanted) {
        return Err(p.error(
            &name.referenced,
            format!(
                "invalid metadata.name {:?}: expected {wanted:?} (spec.names.plural + \".\" + \
spec.group)",
                name.value
            ),
        ));
    }
    for column in spec
        .versions
        .iter()
        .flat_map(|v| &v.additional_printer_columns)
    {
        check_printer_column(p, column)?;
    }
    let storage = spec.versions.iter().filter(|v| v.storage).count();
    if storage != 1 {
        return Err(p.error(
            &spec.names.kind.referenced,
            format!(
                "expected exactly one version of kind `{}` with `storage: true`, found {storage}",
                spec.names.kind.value
            ),
        ));
    }
    Ok(())
}

/// What the API server requires of a printer column: a name, a type and format it knows,
/// and a `jsonPath`.
fn check_printer_column(p: &Parsed<'_>, column: &document::PrinterColumn) -> Result<()> {
    let name = &column.name;
    if name.value.is_empty() {
        return Err(p.error(
            &name.referenced,
            "expected the name of a printer column, found an empty one".to_owned(),
        ));
    }
    let invalid = |what: &str, value: &str, known: &[&str]| {
        format!(
            "invalid {what} {value:?} of printer column `{}`{}",
            name.value,
            suggest::help(value, known)
        )
    };
    let type_ = &column.type_;
    if !PrinterColumn::TYPES.contains(&type_.value.as_str()) {
        let message = invalid("type", &type_.value, PrinterColumn::TYPES);
        return Err(p.error(&type_.referenced, message));
    }
    if let Some(format) = &column.format
        && !format.value.is_empty()
        && !PrinterColumn::FORMATS.contains(&format.value.as_str())
    {
        let message = invalid("format", &format.value, PrinterColumn::FORMATS);
        return Err(p.error(&format.referenced, message));
    }
    match &column.json_path {
        Some(path) if !path.value.is_empty() => Ok(()),
        Some(path) => Err(p.error(
            &path.referenced,
            format!(
                "expected the `jsonPath` of printer column `{}`, found an empty one",
                name.value
            ),
        )),
        None => Err(p.error(
            &name.referenced,
            format!(
                "printer column `{}` needs a `jsonPath` (the field it shows, such as \
`.status.phase`)",
                name.value
            ),
        )),
    }
}
