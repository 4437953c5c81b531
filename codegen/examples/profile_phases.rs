//! Prints how long each phase takes over the CRD corpus (a quick profile; the criterion
//! bench `generate` is the measurement of record).

use std::time::Instant;

use kubegen_codegen::__internal::emit::{self, Options};
use kubegen_codegen::__internal::frontend::{crd, read_sources};
use kubegen_codegen::__internal::model::Model;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/corpus/crds".to_owned());
    let sources = read_sources(&[dir.into()]).expect("read corpus");
    for _ in 0..3 {
        let t = Instant::now();
        let mut model = Model::default();
        crd::load(&mut model, &sources, &crd::Options::default()).expect("load");
        let load = t.elapsed();
        // `load` already validated; this is what one more check of the whole model costs.
        let t = Instant::now();
        model.validate().expect("valid");
        let validate = t.elapsed();
        let t = Instant::now();
        let files = emit::generate(&model, &Options::default()).expect("emit");
        let emit = t.elapsed();
        let t = Instant::now();
        let mut n = 0;
        for f in &files {
            let parsed = syn::parse_file(&f.contents).expect("parse");
            n += parsed.items.len();
        }
        let reparse = t.elapsed();
        println!(
            "load {load:?} (validate alone: {validate:?})  emit+format {emit:?}  \
             (syn re-parse of output alone: {reparse:?}, {n} items)"
        );
    }
}
