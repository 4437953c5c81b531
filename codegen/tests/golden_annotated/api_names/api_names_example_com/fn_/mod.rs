// Written by kubegen from a CustomResourceDefinition (`kubegen generate --style derive`): yours to edit.
// `kubegen crd --rust` reads these types back into the same CustomResourceDefinition.

mod a_b;
pub use a_b::*;
mod ab;
pub use ab::*;
mod self_;
pub use self_::*;
