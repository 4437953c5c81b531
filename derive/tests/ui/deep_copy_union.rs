use kubegen::DeepCopy;

#[derive(DeepCopy)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
