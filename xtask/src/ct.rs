//! `cargo xtask ct`: placeholder until issue 8 lands. It exists so the
//! command name is reserved and the structure is in place; it measures
//! nothing and fails, so no script can mistake it for a passing check.

pub fn main(_args: &[String]) -> Result<(), String> {
    Err("not implemented yet (see issue 8)".into())
}
