//! Types shared by the gadgets' versions.

use serde::{Deserialize, Serialize};

/// Who owns a gadget.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Owner {
    pub team_name: String,
}
