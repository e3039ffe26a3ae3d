fn main() {
    for path in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&path).expect("read");
        match compiler_core::tvmscript::builder::parse_script(&src) {
            Ok(p) => println!("ok   {path}: {} items", p.items.len()),
            Err(d) => println!("FAIL {}", compiler_core::diag::render(&d, &src, &path)),
        }
    }
}
