//! Prints the CustomResourceDefinitions of this crate's derived types as YAML, ready for
//! `kubectl apply -f -`:
//!
//! ```text
//! cargo run -p kubegen-e2e-api --example crd | kubectl apply -f -
//! ```

use kubegen_e2e_api::apis::example::v1::Setting;
use kubegen_e2e_api::apis::samplecontroller::v1alpha1::{Foo, Zone};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for crd in [Foo::try_crd()?, Zone::try_crd()?, Setting::try_crd()?] {
        println!("---\n{}", serde_saphyr::to_string(&crd)?);
    }
    Ok(())
}
