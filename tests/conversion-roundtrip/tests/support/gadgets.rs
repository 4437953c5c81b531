//! The user's side of the fixture `Gadget`'s conversions (crds/gadgets.yaml): what the
//! generator cannot know, how the renamed, split and retyped values map.

use kubegen_conversion_roundtrip::conversions::Error;
use kubegen_conversion_roundtrip::conversions::conversion_kubegen_io::gadget::v1alpha1::ConvertGadgetV1alpha1;
use kubegen_conversion_roundtrip::generated::conversion_kubegen_io::{v1, v1alpha1 as old};

/// What the generator cannot know: how the renamed, split and retyped values map.
pub(crate) struct Gadgets;

impl ConvertGadgetV1alpha1 for Gadgets {
    fn gadget_spec_colour_from_hub(&self, from: &v1::GadgetSpec) -> Result<Option<String>, Error> {
        Ok(from.color.clone())
    }

    fn gadget_spec_owner_from_hub(&self, from: &v1::GadgetSpec) -> Result<String, Error> {
        Ok(match &from.owner_last_name {
            Some(last) => format!("{} {last}", from.owner_first_name),
            None => from.owner_first_name.clone(),
        })
    }

    fn gadget_spec_color_to_hub(&self, from: &old::GadgetSpec) -> Result<Option<String>, Error> {
        Ok(from.colour.clone())
    }

    fn gadget_spec_owner_first_name_to_hub(&self, from: &old::GadgetSpec) -> Result<String, Error> {
        Ok(split(&from.owner).0.to_owned())
    }

    fn gadget_spec_owner_last_name_to_hub(
        &self,
        from: &old::GadgetSpec,
    ) -> Result<Option<String>, Error> {
        Ok(split(&from.owner).1.map(str::to_owned))
    }

    fn gadget_spec_schedule_to_hub(&self) -> Result<v1::GadgetSpecSchedule, Error> {
        Ok(v1::GadgetSpecSchedule::default())
    }

    fn gadget_status_phase_to_hub(
        &self,
        value: old::GadgetStatusPhase,
    ) -> Result<v1::GadgetStatusPhase, Error> {
        Ok(match value {
            old::GadgetStatusPhase::Pending => v1::GadgetStatusPhase::Pending,
            old::GadgetStatusPhase::Ready => v1::GadgetStatusPhase::Ready,
        })
    }

    fn gadget_status_phase_from_hub(
        &self,
        value: v1::GadgetStatusPhase,
    ) -> Result<old::GadgetStatusPhase, Error> {
        match value {
            v1::GadgetStatusPhase::Pending => Ok(old::GadgetStatusPhase::Pending),
            v1::GadgetStatusPhase::Ready => Ok(old::GadgetStatusPhase::Ready),
            v1::GadgetStatusPhase::Failed => Err(Error::new("v1alpha1 has no phase Failed")),
        }
    }
}

/// "First Last" -> ("First", Some("Last")); the first space splits.
fn split(owner: &str) -> (&str, Option<&str>) {
    match owner.split_once(' ') {
        Some((first, last)) => (first, Some(last)),
        None => (owner, None),
    }
}
