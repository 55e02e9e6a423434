//! Writes every target's seeds into DIR/NAME/, the corpus `scripts/fuzz.sh` starts from.

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: fuzz-seeds DIR");
        std::process::exit(2);
    };
    for (name, _) in kroon_fuzz::TARGETS {
        let target = dir.join(name);
        std::fs::create_dir_all(&target)?;
        for (i, seed) in kroon_fuzz::seeds(name).iter().enumerate() {
            std::fs::write(target.join(format!("seed-{i:03}")), seed)?;
        }
    }
    Ok(())
}
